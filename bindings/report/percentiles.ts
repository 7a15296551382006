// Percentiles from fio's latency histogram, exactly as fio computes them.
//
// Followed: fio stat.c, plat_idx_to_val() and calc_clat_percentiles().
// A histogram bucket i reads back as its midpoint (values below 2^(BITS+1)
// are exact). The percentile list is sorted; walking the buckets in order
// with a running sum, percentile p is the first bucket where
//     sum >= (long double) p / 100.0 * nr
// fio does that comparison in C `long double`, which on x86-64 Linux is the
// x87 80-bit format (64-bit significand, round to nearest even). A double
// evaluation differs at exact boundaries, so this module evaluates
// p / 100 and then * nr with 64-bit-significand rounding, in exact integer
// arithmetic (BigInt), and compares exactly.
//
// Worked example: nr = 1000 samples, all 1000 in bucket 954 (1,000,000 ns
// lands there: msb 19, error_bits 13, base 896, offset 58). Every
// percentile reads back 2^19 + (58 + 0.5) * 2^13 = 1,003,520 ns. With 990
// samples in bucket 100 (value 100, exact) and 10 in bucket 954, p99
// needs sum >= 990: bucket 100 already has 990, so p99 = 100 ns, and
// p99.5 needs 995 -> 1,003,520 ns.

import { doubleParts } from "./cformat.js";

export const FIO_IO_U_PLAT_BITS = 6;
export const FIO_IO_U_PLAT_VAL = 1 << FIO_IO_U_PLAT_BITS;
export const FIO_IO_U_PLAT_GROUP_NR = 29;
export const FIO_IO_U_PLAT_NR = FIO_IO_U_PLAT_GROUP_NR * FIO_IO_U_PLAT_VAL; // 1856
/** fio's FIO_IO_U_LIST_MAX_LEN: at most this many percentiles are reported. */
export const FIO_IO_U_LIST_MAX_LEN = 20;
/** fio's default percentile_list (options.c def_percentile_list). */
export const FIO_DEFAULT_PERCENTILE_LIST: readonly number[] = [
  1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99,
];

/** fio's plat_val_to_idx(): the bucket a value (ns) is counted in. */
export function platValToIdx(v: number, bits = FIO_IO_U_PLAT_BITS, nr = FIO_IO_U_PLAT_NR): number {
  if (v < 0 || !Number.isInteger(v)) throw new RangeError(`latency ${v} is not a non-negative integer`);
  const msb = v === 0 ? 0 : Math.floor(Math.log2(v));
  // Math.log2 can be off by one near powers of two for large v: fix it exactly.
  let m = msb;
  while (m > 0 && 2 ** m > v) m--;
  while (2 ** (m + 1) <= v) m++;
  if (m <= bits) return v;
  const errorBits = m - bits;
  const base = (errorBits + 1) << bits;
  const offset = Math.floor(v / 2 ** errorBits) & ((1 << bits) - 1);
  return Math.min(base + offset, nr - 1);
}

/** fio's plat_idx_to_val(): the value bucket `idx` reads back as (its midpoint). */
export function platIdxToVal(idx: number, bits = FIO_IO_U_PLAT_BITS): number {
  const val = 1 << bits;
  if (idx < val << 1) return idx;
  const errorBits = (idx >> bits) - 1;
  const base = 2 ** (errorBits + bits);
  const k = idx % val;
  // (k + 0.5) * 2^errorBits is an integer for errorBits >= 1
  return base + (k + 0.5) * 2 ** errorBits;
}

// ---- x87 extended-precision arithmetic, exactly ------------------------------

/** A positive number q * 2^-k with q < 2^64 (exact). */
interface Ext {
  q: bigint;
  k: number;
}

const TWO63 = 1n << 63n;
const TWO64 = 1n << 64n;

function bitLength(x: bigint): number {
  return x.toString(2).length;
}

/** Round the positive rational a/b to a 64-bit significand, ties to even. */
function roundExt(a: bigint, b: bigint): Ext {
  // choose k so that 2^63 <= a * 2^k / b < 2^64
  let k = 64 - (bitLength(a) - bitLength(b));
  const scaled = (kk: number) => (kk >= 0 ? [a << BigInt(kk), b] : [a, b << BigInt(-kk)]) as [bigint, bigint];
  let [n, d] = scaled(k);
  while (n / d >= TWO64) [n, d] = scaled(--k);
  while (n / d < TWO63) [n, d] = scaled(++k);
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && (q & 1n) === 1n)) q += 1n;
  if (q === TWO64) {
    q = TWO63;
    k -= 1;
  }
  return { q, k };
}

/** (long double)p / 100.0 * nr, in x87 80-bit arithmetic. */
function x87Threshold(p: number, nr: number): Ext {
  const { m, e } = doubleParts(p);
  const perc = e >= 0 ? roundExt(m << BigInt(e), 100n) : roundExt(m, 100n << BigInt(-e));
  // perc = q / 2^k; times nr
  const prod = BigInt(nr) * perc.q;
  return perc.k >= 0 ? roundExt(prod, 1n << BigInt(perc.k)) : roundExt(prod << BigInt(-perc.k), 1n);
}

function reaches(sum: number, t: Ext): boolean {
  const s = BigInt(sum);
  return t.k >= 0 ? s << BigInt(t.k) >= t.q : s >= t.q << BigInt(-t.k);
}

/**
 * The least integer sum that reaches threshold t (q * 2^-k): ceil(q / 2^k).
 * Histogram sums are integers, so `sum >= need` is exactly `reaches(sum, t)`;
 * t itself when that integer is not exactly a double (sums past 2^53), where
 * the BigInt comparison stays.
 */
function leastReaching(t: Ext): number | Ext {
  const need = t.k >= 0 ? (t.q + (1n << BigInt(t.k)) - 1n) >> BigInt(t.k) : t.q << BigInt(-t.k);
  return need <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(need) : t;
}

/**
 * leastReaching(x87Threshold(p, nr)) without BigInt in the common case. The
 * double d = p / 100 * nr and fio's long double threshold T differ by a few
 * units in the 53rd bit of d at most (two roundings each, to 53 and to 64
 * bits), so when d is farther than 1e-12 * d + 1e-12 from every integer,
 * ceil(d) = ceil(T). Otherwise (d at or next to an integer, e.g. p30 of 100
 * samples, or d past 2^40) T is computed exactly.
 */
function leastReachingSum(p: number, nr: number): number | Ext {
  const d = (p / 100) * nr;
  if (Math.abs(d - Math.round(d)) > d * 1e-12 + 1e-12) return Math.ceil(d);
  return leastReachingExact(p, nr);
}

/** (long double)p / 100.0 per percentile p: a handful of distinct p in practice */
const percMemo = new Map<number, Ext>();

/** the bit length of a positive BigInt, from its double's exponent and two exact compares */
function bitLengthFast(x: bigint): number {
  let l = Math.floor(Math.log2(Number(x))) + 1;
  if (x >= 1n << BigInt(l)) l++;
  else if (x < 1n << BigInt(l - 1)) l--;
  return l;
}

/**
 * leastReaching(x87Threshold(p, nr)), exactly, with one multiply: the
 * product nr * q of fio's rounded p / 100 (q * 2^-k, memoized per p) rounded
 * to a 64-bit significand, ties to even, then ceil'd. The same roundings as
 * x87Threshold(); the test compares the two on random inputs.
 */
function leastReachingExact(p: number, nr: number): number | Ext {
  let perc = percMemo.get(p);
  if (perc === undefined) {
    const { m, e } = doubleParts(p);
    perc = e >= 0 ? roundExt(m << BigInt(e), 100n) : roundExt(m, 100n << BigInt(-e));
    if (percMemo.size < 1024) percMemo.set(p, perc);
  }
  if (perc.k < 0 || !(nr > 0) || !Number.isSafeInteger(nr)) return leastReaching(x87Threshold(p, nr));
  const prod = BigInt(nr) * perc.q;
  const shift = bitLengthFast(prod) - 64; // bits below the 64-bit significand
  let q = prod;
  if (shift > 0) {
    q = prod >> BigInt(shift);
    const rem2 = (prod - (q << BigInt(shift))) << 1n;
    const unit = 1n << BigInt(shift);
    if (rem2 > unit || (rem2 === unit && (q & 1n) === 1n)) q += 1n;
  }
  // the threshold is q * 2^(max(shift, 0) - k); its ceiling:
  const e = Math.max(shift, 0) - perc.k;
  const need = e >= 0 ? q << BigInt(e) : (q + (1n << BigInt(-e)) - 1n) >> BigInt(-e);
  return need <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(need) : x87Threshold(p, nr);
}

/** Exposed for tests: the least integer running sum that reaches fio's threshold for p of nr samples (fast path). */
export function leastReachingSumForTest(p: number, nr: number): number | undefined {
  const r = leastReachingSum(p, nr);
  return typeof r === "number" ? r : undefined;
}

/** Exposed for tests: the same through x87Threshold() and the BigInt comparison (reference). */
export function leastReachingRefForTest(p: number, nr: number): number | undefined {
  const r = leastReaching(x87Threshold(p, nr));
  return typeof r === "number" ? r : undefined;
}

export interface Percentile {
  /** the percentile, e.g. 99.5 */
  pct: number;
  /** latency in ns, as fio reports it (bucket midpoint) */
  ns: number;
}

/**
 * fio's calc_clat_percentiles(): percentiles of a plat histogram, sorted by
 * percentile. `nr` is the sample count (fio: the latency stat's samples;
 * default: the histogram's sum). Percentiles the histogram cannot reach
 * (fio: "error calculating latency percentiles") are left out.
 */
export function percentilesFromPlat(
  hist: ArrayLike<number>, list: readonly number[] = FIO_DEFAULT_PERCENTILE_LIST, nr?: number,
  bits = FIO_IO_U_PLAT_BITS,
): Percentile[] {
  const plist: number[] = [];
  for (const p of list) {
    if (plist.length >= FIO_IO_U_LIST_MAX_LEN || p === 0) break;
    if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} is not in (0, 100]`);
    plist.push(p);
  }
  plist.sort((a, b) => a - b);
  let total = nr;
  if (total === undefined) {
    total = 0;
    for (let i = 0; i < hist.length; i++) total += hist[i]!;
  }
  if (plist.length === 0 || total <= 0) return [];
  const needs = plist.map((p) => leastReachingSum(p, total!));
  const out: Percentile[] = [];
  let sum = 0;
  let j = 0;
  for (let i = 0; i < hist.length && j < plist.length; i++) {
    const h = hist[i]!;
    if (h === 0) continue; // the sum did not move: no new threshold reached
    sum += h;
    for (;;) {
      if (j >= plist.length) break;
      const need = needs[j]!;
      if (!(typeof need === "number" ? sum >= need : reaches(sum, need))) break;
      out.push({ pct: plist[j]!, ns: platIdxToVal(i, bits) });
      j++;
    }
  }
  return out;
}

/**
 * percentilesFromPlat(hist, [p], nr, bits)[0]?.ns for a histogram given as
 * (bucket, count) pairs in increasing bucket order, idx[from..to) and
 * cnt[from..to): the same walk over the buckets, without a dense array
 * (the time series' closed bins keep their histograms so:
 * bindings/engine/simulation.ts). undefined where that gives no percentile.
 */
export function percentileFromPairs(
  idx: ArrayLike<number>, cnt: ArrayLike<number>, from: number, to: number, p: number, nr: number, bits = FIO_IO_U_PLAT_BITS,
): number | undefined {
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} is not in (0, 100]`);
  if (nr <= 0) return undefined;
  const need = leastReachingSum(p, nr);
  let sum = 0;
  for (let k = from; k < to; k++) {
    const h = cnt[k]!;
    if (h === 0) continue;
    sum += h;
    if (typeof need === "number" ? sum >= need : reaches(sum, need)) return platIdxToVal(idx[k]!, bits);
  }
  return undefined;
}

/** fio's JSON key for a percentile: printf("%f"), e.g. 99.5 -> "99.500000". */
export function percentileKey(p: number): string {
  return p.toFixed(6);
}

/** The same threshold in plain double arithmetic (what a naive port computes); exported for tests. */
export function doubleThreshold(p: number, nr: number): number {
  return (p / 100.0) * nr;
}

/** Exposed for tests: does `sum` reach fio's long-double threshold for percentile p of nr samples? */
export function reachesX87(sum: number, p: number, nr: number): boolean {
  return reaches(sum, x87Threshold(p, nr));
}
