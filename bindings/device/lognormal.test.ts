import { describe, expect, it } from "vitest";
import { lognormalBins, LN_BINS, normCdf, normQuantile } from "./lognormal.js";

describe("the tabulated log-normal spread", () => {
  it("normal CDF and quantile agree with known values and with each other", () => {
    expect(normCdf(0)).toBeCloseTo(0.5, 7);
    expect(normCdf(1.959963985)).toBeCloseTo(0.975, 6);
    expect(normQuantile(0.99)).toBeCloseTo(2.326347874, 6);
    for (const p of [1e-4, 0.01, 0.3, 0.5, 0.9, 0.999]) expect(normCdf(normQuantile(p))).toBeCloseTo(p, 7);
  });

  it("bins are rising, of mean 1, with the log-normal's quantiles at their edges (sigma 0.3 and 0.6)", () => {
    for (const s of [0.3, 0.6]) {
      const b = lognormalBins(s);
      expect(b.length).toBe(LN_BINS);
      expect(b.reduce((a, x) => a + x, 0) / LN_BINS).toBeCloseTo(1, 12);
      for (let k = 1; k < b.length; k++) expect(b[k]!).toBeGreaterThan(b[k - 1]!);
      // the 99th percentile lies between the bins either side of its edge: exp(2.326 s - s^2/2)
      const p99 = Math.exp(2.326347874 * s - (s * s) / 2);
      const k = Math.round(0.99 * LN_BINS);
      expect(b[k - 1]!).toBeLessThan(p99);
      expect(b[k]!).toBeGreaterThan(p99);
      // sigma 0: every bin 1
    }
    for (const x of lognormalBins(0)) expect(Math.abs(x - 1)).toBeLessThan(1e-6);
  });
});
