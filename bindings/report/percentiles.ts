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
  const thresholds = plist.map((p) => x87Threshold(p, total!));
  const out: Percentile[] = [];
  let sum = 0;
  let j = 0;
  for (let i = 0; i < hist.length && j < plist.length; i++) {
    sum += hist[i]!;
    while (j < plist.length && reaches(sum, thresholds[j]!)) {
      out.push({ pct: plist[j]!, ns: platIdxToVal(i, bits) });
      j++;
    }
  }
  return out;
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
