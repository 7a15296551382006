// The README's iocost example (scenarios/iocost-bursty.yaml): web (io.weight
// 100) and batch (400) on a SATA SSD; batch turns bursty after 2 s.
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Simulation } from "../../bindings/engine/simulation.js";
import { readIocostTrace } from "../../bindings/engine/modules/iocost.js";
import "../../bindings/engine/modules/index.js";
import { loadScenario } from "../../bindings/scenario/load.js";

const file = fileURLToPath(new URL("../../scenarios/iocost-bursty.yaml", import.meta.url));
const sim = new Simulation(loadScenario(readFileSync(file, "utf8"), file).scenario);
const res = sim.runToEnd();
const ios = (cg: string, from: number, to: number) =>
  res.series.filter((s) => s.cgroup === cg && s.t0Ns >= from * 1e6 && s.t0Ns < to * 1e6).reduce((a, s) => a + s.ios, 0);
const iops = (cg: string, from: number, to: number) => (ios(cg, from, to) * 1000) / (to - from);

describe("README example: two containers, one turning bursty", () => {
  it("while both read flat out, batch (400) gets 4/5 of the device and web (100) 1/5", () => {
    const share = ios("batch", 600, 2000) / (ios("batch", 600, 2000) + ios("web", 600, 2000));
    expect(share).toBeGreaterThan(0.78);
    expect(share).toBeLessThan(0.82);
  });

  it("the latency target is met and both are short of budget, so vrate climbs to its max (150%)", () => {
    const vr = readIocostTrace(sim.core, sim.context().cgroupPaths(), ["sda"]).filter((e) => e.event === "iocost_ioc_vrate_adj");
    const at1s = [...vr].reverse().find((e) => e.tNs <= 1e9)!;
    expect((at1s["vrate"] as number[])[1]).toBe(Math.ceil((1500000 * 137438) / 1e6));
  });

  it("between batch's bursts web gets the whole device (work conservation), about 5x its share", () => {
    let alone = 0;
    let both = 0;
    for (let t = 2000; t < 6000; t += 500) {
      alone += iops("web", t + 200, t + 500);
      both += iops("web", t + 20, t + 150);
    }
    const total = iops("web", 600, 2000) + iops("batch", 600, 2000);
    expect(alone / 8).toBeGreaterThan(0.95 * total);
    expect(alone / both).toBeGreaterThan(4);
  });

  it("when a burst starts batch takes its 4/5 back within one 50 ms bin", () => {
    // the bursts come from fio's thinktime_iotime: each starts a quiesce (~1 ms) later than the last
    for (let t = 2500; t < 6000; t += 500) {
      const share = ios("batch", t + 50, t + 100) / (ios("batch", t + 50, t + 100) + ios("web", t + 50, t + 100));
      expect(share).toBeGreaterThan(0.79);
      expect(ios("batch", t, t + 50)).toBeGreaterThan(0);
      expect(ios("batch", t - 100, t)).toBe(0);
    }
  });
});

describe("the walk-through's table", () => {
  it("is the one scripts/iocost-bursty-table.mjs makes from the scenario (no stale figures)", async () => {
    const script = fileURLToPath(new URL("../../scripts/iocost-bursty-table.mjs", import.meta.url));
    const { burstyTable } = (await import(script)) as { burstyTable: () => Promise<string> };
    const md = readFileSync(fileURLToPath(new URL("../../scenarios/iocost-bursty.md", import.meta.url)), "utf8");
    expect(md).toContain(await burstyTable());
  });
});
