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

/** Seed of run `index` in a sweep seeded with `seed`: a safe integer in [0, 2^53). */
export function runSeed(seed: number | bigint, index: number): number {
  const s = typeof seed === "bigint" ? seed : BigInt(seed);
  return Number(splitmix64At(s & MASK64, BigInt(index)) >> BigInt(64 - RUN_SEED_BITS));
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
  const s = BigInt(seedOfRun) ^ SAMPLE_STREAM_SALT;
  const x = splitmix64At(s, 0n);
  const y = splitmix64At(s, 1n);
  return new Sfc32(Number(x & 0xffffffffn), Number(x >> 32n), Number(y & 0xffffffffn), Number(y >> 32n));
}
