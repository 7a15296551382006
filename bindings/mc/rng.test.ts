import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { runSeed, samplingRng, splitmix64At } from "./rng.js";

describe("run seeds", () => {
  it("SplitMix64 gives the published first outputs for seeds 0 and 1234567", () => {
    expect([0n, 1n, 2n].map((k) => splitmix64At(0n, k))).toEqual([16294208416658607535n, 7960286522194355700n, 487617019471545679n]);
    expect([0n, 1n, 2n].map((k) => splitmix64At(1234567n, k))).toEqual([6457827717110365317n, 3203168211198807973n, 9817491932198370423n]);
  });

  it("run i's seed is the top 53 bits of the i-th SplitMix64 output: a safe integer", () => {
    expect(runSeed(42, 0)).toBe(6679422623415661);
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.nat(1e9), (s, i) => {
      const r = runSeed(s, i);
      return Number.isSafeInteger(r) && r >= 0 && BigInt(r) === splitmix64At(s, BigInt(i)) >> 11n;
    }));
  });

  it("the uint32-halves fast path equals the BigInt SplitMix64 for seeds and indices up to 2^53 (and after switching sweep seeds)", () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.integer({ min: 0, max: 2 ** 53 - 2 }), fc.nat(1e6), (s, i, j) => {
      const ref = (k: number) => Number(splitmix64At(s, BigInt(k)) >> 11n);
      return runSeed(s, i) === ref(i) && runSeed(7n, j) === Number(splitmix64At(7n, BigInt(j)) >> 11n) && runSeed(s, j) === ref(j);
    }));
  });

  it("10,000 consecutive runs of one sweep get distinct seeds", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 10_000; i++) seen.add(runSeed(7, i));
    expect(seen.size).toBe(10_000);
  });
});

/** The sampling stream's definition in BigInt arithmetic: sfc32 seeded from SplitMix64(seed ^ "montecal"). */
function referenceStream(seed: number): () => number {
  const s = BigInt(seed) ^ 0x6d6f6e746563616cn;
  const x = splitmix64At(s, 0n);
  const y = splitmix64At(s, 1n);
  let [a, b, c, d] = [x & 0xffffffffn, x >> 32n, y & 0xffffffffn, y >> 32n].map((v) => Number(v) | 0) as [number, number, number, number];
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let k = 0; k < 12; k++) u32();
  return u32;
}

describe("sampling stream", () => {
  it("is sfc32 seeded from SplitMix64(run seed ^ salt), computed without BigInt", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (s) => {
      const r = samplingRng(s), ref = referenceStream(s);
      for (let k = 0; k < 8; k++) if (r.u32() !== ref()) return false;
      return true;
    }));
  });

  it("is a pure function of the run seed", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (s) => {
      const a = samplingRng(s), b = samplingRng(s);
      for (let k = 0; k < 20; k++) if (a.next() !== b.next()) return false;
      return true;
    }));
  });

  it("next() is in [0, 1) and int(lo, hi) stays in range", () => {
    fc.assert(fc.property(fc.nat(), fc.integer({ min: -1000, max: 1000 }), fc.nat(1000), (s, lo, span) => {
      const r = samplingRng(s);
      for (let k = 0; k < 50; k++) {
        const u = r.next();
        const x = r.int(lo, lo + span);
        if (!(u >= 0 && u < 1) || x < lo || x > lo + span || !Number.isInteger(x)) return false;
      }
      return true;
    }));
  });

  it("100,000 draws into 10 bins: every bin within 5 % of 10,000", () => {
    const r = samplingRng(123);
    const bins = new Array(10).fill(0);
    for (let k = 0; k < 100_000; k++) bins[Math.floor(r.next() * 10)]++;
    for (const b of bins) expect(Math.abs(b - 10_000)).toBeLessThan(500);
  });
});
