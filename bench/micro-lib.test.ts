// microStats (benchmark.js) gives each case its mean time per call, a
// relative margin of error and its sample count, in the order given, and
// formats them; no timing is asserted (the figures are the bench's).
import { describe, expect, it } from "vitest";
import { formatStats, microStats } from "./micro-lib.js";

describe("micro-bench statistics (benchmark.js)", () => {
  it("reports mean ± rme and samples per case", () => {
    let calls = 0;
    const spin = (n: number) => () => {
      let x = 0;
      for (let i = 0; i < n; i++) x += i;
      calls += x > -1 ? 1 : 0;
    };
    const stats = microStats(
      [
        { name: "short", fn: spin(1000) },
        { name: "long", fn: spin(4000) },
      ],
      { maxTime: 0.05, minSamples: 5 },
    );
    expect(stats.map((s) => s.name)).toEqual(["short", "long"]);
    for (const s of stats) {
      expect(s.samples).toBeGreaterThanOrEqual(5);
      expect(s.mean).toBeGreaterThan(0);
      expect(s.hz).toBeCloseTo(1 / s.mean, 6);
      expect(Number.isFinite(s.rme) && s.rme >= 0).toBe(true);
    }
    expect(calls).toBeGreaterThan(10);
    const lines = formatStats(stats);
    expect(lines[0]).toMatch(/^ {2}short : [\d.]+ (ns|µs|ms|s)\/call ± [\d.]+ % \(\d+ samples\)$/);
  });
});
