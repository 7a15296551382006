import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { percentileSorted, summariseValues, tidy, wilson } from "./stats.js";

describe("Wilson 95 % interval", () => {
  it("0 of 100 still allows 3.7 %; 50 of 100 is [0.4038, 0.5962]", () => {
    const [a, b] = wilson(0, 100);
    expect(a).toBeCloseTo(0, 12);
    expect(b).toBeCloseTo(0.036993, 5);
    const [c, d] = wilson(50, 100);
    expect(c).toBeCloseTo(0.403832, 5);
    expect(d).toBeCloseTo(0.596168, 5);
  });

  it("always contains the point estimate and lies in [0, 1]", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1e6 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
      const k = Math.floor(f * n);
      const [lo, hi] = wilson(k, n);
      return lo >= 0 && hi <= 1 && lo <= k / n + 1e-12 && hi >= k / n - 1e-12;
    }));
  });

  it("covers the true p in about 95 % of 2,000 simulated experiments of 200 trials at p = 0.1", () => {
    let state = 12345;
    const u = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let covered = 0;
    for (let e = 0; e < 2000; e++) {
      let k = 0;
      for (let t = 0; t < 200; t++) if (u() < 0.1) k++;
      const [lo, hi] = wilson(k, 200);
      if (lo <= 0.1 && 0.1 <= hi) covered++;
    }
    expect(covered / 2000).toBeGreaterThan(0.92);
    expect(covered / 2000).toBeLessThan(0.98);
  });
});

describe("percentiles", () => {
  it("nearest rank: p50 of 1..10 is 5, p90 is 9, p99 is 10", () => {
    const s = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect([50, 90, 99].map((q) => percentileSorted(s, q))).toEqual([5, 9, 10]);
  });

  it("do not depend on the order the values arrive in (mean included)", () => {
    fc.assert(fc.property(fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 200 }), (xs) => {
      const a = summariseValues(xs);
      const b = summariseValues([...xs].reverse());
      return JSON.stringify(a) === JSON.stringify(b);
    }));
  });
});

describe("tidy", () => {
  it("is the 12-significant-digit string round trip for every double (its integer fast path included)", () => {
    const slow = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(12)) : x);
    for (const x of [0, -0, 1, -1, 999_999_999_999, 1e12, -1e12, 1234567890123, 0.1 + 0.2, NaN, Infinity, -Infinity]) expect(Object.is(tidy(x), slow(x))).toBe(true);
    fc.assert(fc.property(fc.oneof(fc.double(), fc.integer(), fc.integer({ min: -2e12, max: 2e12 })), (x) => Object.is(tidy(x), slow(x))));
  });
});
