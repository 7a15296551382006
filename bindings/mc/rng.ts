// Seeds and random streams for Monte Carlo runs.
//
// 1. Run seeds. Run i of a sweep with seed S gets the seed
//
//        runSeed(S, i) = splitmix64(S + (i + 1) * GOLDEN_GAMMA) >> 11
//
//    (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
//    OOPSLA 2014: the i-th output of a SplitMix64 stream started at S). It is a
//    pure function of (S, i), so a run's outcome does not depend on which worker
//    ran it, in which order, or on which shard: 1, 2 or 4 workers and 4 merged
//    shards all see the same run i. The top 53 bits are kept so the seed is an
//    exact JavaScript number (Scenario.seed is a number, and a repro file carries
//    it as a plain YAML integer).
//
//    Worked example: S = 42, i = 0: 42 + GOLDEN_GAMMA = 0x9e3779b97f4a7c3f,
//    mixed to 0xbdd732262feb6e95, whose top 53 bits are 0x17bae644c5fd6d =
//    6679422623415661; rng.test.ts checks SplitMix64 itself against the
//    published outputs for seeds 0 and 1234567.
//
// 2. Sampling streams. The distributions of a randomised scenario are sampled
//    from an sfc32 stream (Chris Doty-Humphrey's PractRand "small fast chaotic"
//    generator, 128-bit state, 32-bit integer arithmetic only: no BigInt on the
//    hot path) seeded from SplitMix64(runSeed ^ SAMPLE_STREAM_SALT), so the
//    sampling stream and the domain's own seeded engine (which gets runSeed
//    itself) never share a sequence.
//
// 3. Speed. mix64 / splitmix64At above are the BigInt reference; the hot path
//    (one run seed and one sampling stream per run) does the same 64-bit
//    arithmetic on pairs of uint32 halves (mul64 below: the low 64 bits of a
//    product, as C's uint64_t multiply gives them), about 20x faster than
//    BigInt. rng.test.ts checks both against each other on random inputs.

const MASK64 = (1n << 64n) - 1n;
const GOLDEN_GAMMA = 0x9e3779b97f4a7c15n;
/** Keeps the sampling stream apart from the engine stream that uses runSeed directly. */
const SAMPLE_STREAM_SALT = 0x6d6f6e746563616cn; // "montecal"
/** Bits of a run seed: exact in a double. */
export const RUN_SEED_BITS = 53;

/** SplitMix64 output function (the "mix64variant13" finaliser). */
export function mix64(z0: bigint): bigint {
  let z = z0 & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** The k-th output (k = 0, 1, ...) of a SplitMix64 generator seeded with `seed`. */
export function splitmix64At(seed: bigint, k: bigint): bigint {
  return mix64((seed + (k + 1n) * GOLDEN_GAMMA) & MASK64);
}

// ---- 64-bit arithmetic on uint32 halves (hi, lo) -----------------------------

const TWO32 = 4294967296;
const GAMMA_HI = 0x9e3779b9;
const GAMMA_LO = 0x7f4a7c15;
const M1_HI = 0xbf58476d;
const M1_LO = 0x1ce4e5b9;
const M2_HI = 0x94d049bb;
const M2_LO = 0x133111eb;
const SALT_HI = 0x6d6f6e74;
const SALT_LO = 0x6563616c;

// results of the 64-bit helpers (no allocation per call)
let rHi = 0;
let rLo = 0;

/** High 32 bits of the 64-bit product of two uint32s. */
function mulHi32(a: number, b: number): number {
  const a0 = a & 0xffff, a1 = a >>> 16, b0 = b & 0xffff, b1 = b >>> 16;
  const t0 = a0 * b0;
  const t1 = a1 * b0 + (t0 >>> 16);
  const t2 = a0 * b1 + (t1 & 0xffff);
  return (a1 * b1 + Math.floor(t1 / 65536) + Math.floor(t2 / 65536)) >>> 0;
}

/** (ah:al) * (bh:bl) mod 2^64 into rHi:rLo. */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  rLo = Math.imul(al, bl) >>> 0;
  rHi = (mulHi32(al, bl) + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** mix64 of (hi:lo), into rHi:rLo. */
function mix64Halves(hi: number, lo: number): void {
  lo = (lo ^ ((lo >>> 30) | (hi << 2))) >>> 0;
  hi = (hi ^ (hi >>> 30)) >>> 0;
  mul64(hi, lo, M1_HI, M1_LO);
  lo = (rLo ^ ((rLo >>> 27) | (rHi << 5))) >>> 0;
  hi = (rHi ^ (rHi >>> 27)) >>> 0;
  mul64(hi, lo, M2_HI, M2_LO);
  lo = (rLo ^ ((rLo >>> 31) | (rHi << 1))) >>> 0;
  hi = (rHi ^ (rHi >>> 31)) >>> 0;
  rHi = hi;
  rLo = lo;
}

/** splitmix64At((sHi:sLo), k) for 0 <= k < 2^53, into rHi:rLo. */
function splitmixHalves(sHi: number, sLo: number, k: number): void {
  const n = k + 1; // <= 2^53: exact
  mul64(Math.floor(n / TWO32) >>> 0, n >>> 0, GAMMA_HI, GAMMA_LO);
  const lo = rLo + sLo;
  const hi = (rHi + sHi + (lo >= TWO32 ? 1 : 0)) >>> 0;
  mix64Halves(hi, lo >>> 0);
}

// the last sweep seed's halves (a sweep asks for many run seeds of one seed)
let lastSeed: bigint | number | undefined;
let seedHi = 0;
let seedLo = 0;

/** Seed of run `index` in a sweep seeded with `seed`: a safe integer in [0, 2^53). */
export function runSeed(seed: number | bigint, index: number): number {
  if (seed !== lastSeed) {
    const s = (typeof seed === "bigint" ? seed : BigInt(seed)) & MASK64;
    seedHi = Number(s >> 32n);
    seedLo = Number(s & 0xffffffffn);
    lastSeed = seed;
  }
  if (!(Number.isInteger(index) && index >= 0 && index < 2 ** 53 - 1)) {
    return Number(splitmix64At(BigInt(seedHi) * 4294967296n + BigInt(seedLo), BigInt(index)) >> BigInt(64 - RUN_SEED_BITS));
  }
  splitmixHalves(seedHi, seedLo, index);
  // top 53 bits: hi * 2^21 + lo >>> 11
  return rHi * 2097152 + (rLo >>> (64 - RUN_SEED_BITS));
}

/** A uniform random stream. */
export interface Rng {
  /** uniform in [0, 1), 53 bits */
  next(): number;
  /** uniform 32-bit unsigned integer */
  u32(): number;
  /** uniform integer in [lo, hi] (inclusive) */
  int(lo: number, hi: number): number;
}

/** sfc32 (PractRand): 4 x 32-bit state, period >= 2^32, passes PractRand to 2^42+ bytes. */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0; this.b = b | 0; this.c = c | 0; this.d = d | 0;
    for (let i = 0; i < 12; i++) this.u32(); // the reference implementation's warm-up
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  next(): number {
    const hi = this.u32() >>> 5; // 27 bits
    const lo = this.u32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }
  int(lo: number, hi: number): number {
    if (hi < lo) throw new RangeError(`int(${lo}, ${hi}): empty range`);
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

/** The sampling stream of a run. */
export function samplingRng(seedOfRun: number): Rng {
  if (!(Number.isSafeInteger(seedOfRun) && seedOfRun >= 0)) {
    const s = BigInt(seedOfRun) ^ SAMPLE_STREAM_SALT;
    const x = splitmix64At(s, 0n);
    const y = splitmix64At(s, 1n);
    return new Sfc32(Number(x & 0xffffffffn), Number(x >> 32n), Number(y & 0xffffffffn), Number(y >> 32n));
  }
  const sHi = (Math.floor(seedOfRun / TWO32) ^ SALT_HI) >>> 0;
  const sLo = ((seedOfRun >>> 0) ^ SALT_LO) >>> 0;
  splitmixHalves(sHi, sLo, 0);
  const xHi = rHi, xLo = rLo;
  splitmixHalves(sHi, sLo, 1);
  return new Sfc32(xLo, xHi, rLo, rHi);
}
