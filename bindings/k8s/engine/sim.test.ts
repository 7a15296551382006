import { describe, expect, it } from "vitest";
import { formatGoDuration, parseDurationMs, Rng, Sim } from "./sim.js";

describe("sim", () => {
  it("an idle ticker sleeps until its wake time, at the next grid point", () => {
    const sim = new Sim({ seed: 1 });
    const runs: number[] = [];
    sim.ticker("t", 100, 0, () => {
      runs.push(sim.now);
      if (sim.now < 10_000) sim.wakeAt(10_501);
    });
    sim.run(11_000);
    expect(runs).toEqual([0, 10_600]);
  });
  it("a state change wakes a sleeping ticker at its next grid point", () => {
    const sim = new Sim({ seed: 1 });
    const runs: number[] = [];
    sim.ticker("t", 100, 50, () => runs.push(sim.now));
    sim.at(1234, () => sim.bump());
    sim.run(5000);
    expect(runs).toEqual([50, 1250]);
  });
  it("tick-by-tick mode runs every grid point", () => {
    const sim = new Sim({ seed: 1, tickEveryPeriod: true });
    let n = 0;
    sim.ticker("t", 100, 0, () => n++);
    sim.run(1000);
    expect(n).toBe(11);
  });
  it("the PRNG is deterministic per seed", () => {
    const a = new Rng(7);
    const b = new Rng(7);
    const c = new Rng(8);
    const xs = [a.u32(), a.u32(), a.u32()];
    expect([b.u32(), b.u32(), b.u32()]).toEqual(xs);
    expect(c.u32()).not.toBe(xs[0]);
  });
  it("parses and prints Go durations", () => {
    expect(parseDurationMs("2m2s")).toBe(122_000);
    expect(parseDurationMs("1.5s")).toBe(1500);
    expect(() => parseDurationMs("2 min")).toThrow(/expected a duration/);
    expect([500, 2000, 122_000, 64_000].map(formatGoDuration)).toEqual(["500ms", "2s", "2m2s", "1m4s"]);
  });
});
