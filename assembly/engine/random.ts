// Deterministic randomness: xoshiro256** seeded through SplitMix64.
//
// Every consumer (a job, a device's latency jitter) owns its own stream,
// seeded from (scenario seed, stream id) with SplitMix64, so adding a job never
// changes the numbers another job draws. Same seed, same bits, on every host.

export class Rng {
  s0: u64 = 0;
  s1: u64 = 0;
  s2: u64 = 0;
  s3: u64 = 0;

  constructor(seed: u64, stream: u64) {
    let x: u64 = seed ^ (stream * 0x9e3779b97f4a7c15);
    x = splitmix(x); this.s0 = splitmixOut(x);
    x = splitmix(x); this.s1 = splitmixOut(x);
    x = splitmix(x); this.s2 = splitmixOut(x);
    x = splitmix(x); this.s3 = splitmixOut(x);
  }

  @inline next(): u64 {
    // the state in locals: four loads and four stores (field by field, each
    // update would reload what the previous one stored)
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    const result = rotl(s1 * 5, 7) * 9;
    const t = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 45);
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
    return result;
  }

  /** Uniform integer in [0, n): multiply-shift on the top 32 bits when n < 2^32
   *  (Lemire; bias below 2^-32 * n), modulo otherwise. */
  @inline below(n: u64): u64 {
    if (n <= 1) return 0;
    return reduceBelow(this.next(), n);
  }

  /** Uniform double in [0, 1). */
  unit(): f64 {
    return <f64>(this.next() >> 11) * (1.0 / 9007199254740992.0);
  }
}

/** below()'s range reduction of one output x of next() to [0, n), n > 1 (the engine's steady loop, engine/path.ts, steps the generator's state in its own locals and reduces with this) */
@inline export function reduceBelow(x: u64, n: u64): u64 {
  return n <= 0xffffffff ? ((x >> 32) * n) >> 32 : x % n;
}

@inline export function rotl(x: u64, k: u64): u64 {
  return (x << k) | (x >> (64 - k));
}

@inline function splitmix(x: u64): u64 {
  return x + 0x9e3779b97f4a7c15;
}

@inline function splitmixOut(x: u64): u64 {
  let z = x;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}
