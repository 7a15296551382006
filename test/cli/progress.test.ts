// The progress bar's fraction and ETA: known for time-based jobs without a
// duration and for jobs bounded by size, 100 % at the end, and "--" (not
// "NFs") while nothing is known yet.
import { describe, expect, it } from "vitest";
import { Simulation } from "../../bindings/engine/simulation.js";
import { loadScenario } from "../../bindings/scenario/load.js";
import { iomaxDemo } from "../../bindings/scenario/builtin/iomax-demo.js";
import { devicePreset } from "../../bindings/device/index.js";
import { etaText, progressLine } from "../../bindings/cli/progress.js";

function fractions(sim: Simulation): Array<number | undefined> {
  const seen: Array<number | undefined> = [];
  sim.runToEnd((p) => seen.push(p.fraction), 20_000);
  return seen;
}

describe("progress of a run", () => {
  it("a time_based job without duration: known from the start, rising, 1 at the end", () => {
    const y = `name: t\ndevices: [{ preset: ssd }]\njobs:\n  - { name: j, rw: randread, bs: 4k, iodepth: 8, ioengine: libaio, direct: 1, runtime: 2s, time_based: 1 }\n`;
    const f = fractions(new Simulation(loadScenario(y, "t.yaml").scenario));
    expect(f.length).toBeGreaterThan(3);
    expect(f.every((x) => x !== undefined)).toBe(true);
    for (let i = 1; i < f.length; i++) expect(f[i]!).toBeGreaterThanOrEqual(f[i - 1]!);
    expect(f[1]!).toBeGreaterThan(0);
    expect(f[f.length - 1]).toBe(1);
  });

  it("a job bounded by size (fio's size=, no number_ios): known, and the demo ends at 100 %", () => {
    const y = `name: s\ndevices: [{ preset: ssd }]\njobs:\n  - { name: j, rw: read, bs: 4k, iodepth: 8, ioengine: libaio, direct: 1, size: 64m }\n`;
    const f = fractions(new Simulation(loadScenario(y, "s.yaml").scenario));
    expect(f[0]).toBeDefined();
    expect(f[f.length - 1]).toBe(1);
    const d = fractions(new Simulation(iomaxDemo(devicePreset("ssd"))));
    expect(d[d.length - 1]).toBe(1);
  });

  it("the bar's line: ETA -- before any progress, no bar where the fraction is unknown", () => {
    expect(etaText(Infinity, 0)).toBe("--");
    expect(etaText(NaN, 0.5)).toBe("--");
    expect(etaText(75, 0.5)).toBe("1m15s");
    expect(progressLine("demo", 0, NaN, true, "0.00 s simulated", "----")).toBe("demo [----] 0% | ETA -- | 0.00 s simulated");
    expect(progressLine("demo", 0, NaN, false, "3.10 s simulated", "----")).toBe("demo | 3.10 s simulated");
  });
});
