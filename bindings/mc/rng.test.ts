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

  it("10,000 consecutive runs of one sweep get distinct seeds", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 10_000; i++) seen.add(runSeed(7, i));
    expect(seen.size).toBe(10_000);
  });
});

describe("sampling stream", () => {
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
