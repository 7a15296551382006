// The guest oracle (Linux 6.1, null_blk 2 ms, linear model worth 1000 IOPS at
// vrate 100%, io.weight 100:300) replayed in the simulator and judged against
// what the kernel did. Fixtures: test/fixtures/oracle/guest (see its README).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { handlerFor } from "./registry.js";
import { iocostTraceHandler, parseIocostTrace, recordedIocost, recordedTimerFirings, scoreIocost, simulateIocostTrace } from "./iocost.js";

const dir = fileURLToPath(new URL("../../test/fixtures/oracle/guest/", import.meta.url));
const load = (name: string) => {
  const file = dir + `iocost_${name}.jsonl`;
  const text = readFileSync(file, "utf8");
  const tr = parseIocostTrace(text, file);
  const real = recordedIocost(tr);
  const sim = simulateIocostTrace(tr, { kernel: "6.1" });
  return { file, text, tr, real, sim, score: scoreIocost(tr, real, sim) };
};
const cases = Object.fromEntries(["fixed", "met", "donate"].map((n) => [n, load(n)]));

describe("guest iocost traces (6.1)", () => {
  it("recognises an iocost trace by its header and rebuilds the recorded 100 ms bins exactly", () => {
    for (const n of ["fixed", "met", "donate"]) {
      const c = cases[n]!;
      expect(handlerFor(c.text, c.file)?.kind).toBe("guest-iocost");
      const bins = readFileSync(dir + `iocost_${n}_bins.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(c.real.bins).toEqual(bins);
    }
  });

  for (const n of ["fixed", "met", "donate"]) {
    it(`${n}: weights 100:300 split the device with the recorded B/A share (within 3%)`, () => {
      const s = cases[n]!.score;
      expect(s.shareBA.relErr).toBeLessThan(0.03);
    });
    it(`${n}: every 100 ms bin after the first has B's share within 5 points of the kernel's`, () => {
      const s = cases[n]!.score;
      expect(s.perBinShareB.bins).toBeGreaterThan(40);
      expect(s.perBinShareB.maxAbsErr).toBeLessThan(0.05);
    });
  }

  it("fixed: vrate pinned at 100% never moves, so the device gives 1000 IOs/s, 250 to A and 750 to B", () => {
    const { sim } = cases["fixed"]!;
    expect(sim.vrate.every((v) => Math.abs(v.pct - 100) < 0.01)).toBe(true);
    const steady = sim.bins.slice(2, 48);
    const a = steady.reduce((s, r) => s + r["A"]!, 0) / steady.length;
    const b = steady.reduce((s, r) => s + r["B"]!, 0) / steady.length;
    expect(a).toBeGreaterThan(24);
    expect(a).toBeLessThan(26);
    expect(b).toBeGreaterThan(73);
    expect(b).toBeLessThan(77);
  });

  it("met: latency target met with shortages, vrate climbs the step table and reaches max=150% within 20% of the recorded time", () => {
    const { score, sim, real } = cases["met"]!;
    const r = score.vrate.reachBoundMs.real!;
    const s = score.vrate.reachBoundMs.sim!;
    expect(r).toBeGreaterThan(1000);
    expect(Math.abs(s - r) / r).toBeLessThan(0.2);
    // first three busy periods do nothing, the 4th raises vrate by 1%
    const firstUp = sim.vrate.findIndex((v) => v.pct > 100.01);
    expect(firstUp).toBe(3);
    expect(real.vrate.findIndex((v) => v.pct > 100.01)).toBe(3);
    expect(score.vrate.meanAbsErrPct).toBeLessThan(3);
  });

  it("donate: while B idles A gets the whole device (within 20%), and B is marked idle within 20% of the recorded time", () => {
    const { score } = cases["donate"]!;
    const alone = score.aloneRate["A while B idles"]!;
    expect(Math.abs(alone.sim! - alone.real!) / alone.real!).toBeLessThan(0.2);
    const idle = score.firstIdleMs["B"]!;
    expect(Math.abs(idle.sim! - idle.real!) / idle.real!).toBeLessThan(0.2);
    // B is activated again at the start of each of its 500 ms bursts, as in the kernel
    expect(score.activations.sim.filter(([c]) => c === "/B").length).toBe(score.activations.real.filter(([c]) => c === "/B").length);
  });

  it("donate: after each 500 ms burst B is marked idle at the end of the first period with no IO from it, within 20% of the kernel's mean delay", () => {
    const { tr, real, score } = cases["donate"]!;
    const after = score.idleAfterBurstMs["B"]!;
    expect(after.real.filter((x) => x !== null).length).toBe(6);
    expect(after.sim.filter((x) => x !== null).length).toBe(6);
    expect(Math.abs(after.meanSim! - after.meanReal!) / after.meanReal!).toBeLessThan(0.2);
    // with the recorded timer deliveries the period boundaries are the kernel's, so a burst whose
    // last IO is not within a few ms of a boundary goes idle at the very same timer run
    const same = after.real.filter((x, i) => x !== null && Math.abs(x - after.sim[i]!) < 4).length;
    expect(same).toBeGreaterThanOrEqual(4);
    // and on the kernel's own 44 ms timing the mean delay still holds
    const k = scoreIocost(tr, real, simulateIocostTrace(tr, { kernel: "6.1", periodTimer: "kernel" })).idleAfterBurstMs["B"]!;
    expect(Math.abs(k.meanSim! - k.meanReal!) / k.meanReal!).toBeLessThan(0.2);
  });

  it("the period timer's deliveries are read from its own tracepoints: one per period, 40-48 ms apart as the guest ran them", () => {
    for (const n of ["fixed", "met", "donate"]) {
      const { tr } = cases[n]!;
      const f = recordedTimerFirings(tr);
      const gaps = f.slice(1).map((t, i) => t - f[i]!);
      // a run without vrate_adj and without idle/shortage events leaves a gap of two periods
      const single = gaps.filter((g) => g < 70e6);
      expect(single.length).toBeGreaterThan(gaps.length * 0.9);
      const mean = single.reduce((a, b) => a + b, 0) / single.length;
      expect(mean).toBeGreaterThan(44e6);
      expect(mean).toBeLessThan(45.5e6);
    }
  });

  it("donate: the simulated timer runs at the recorded deliveries, so vrate follows the kernel's trajectory to its bound within 10 ms", () => {
    const { tr, real, sim, score } = cases["donate"]!;
    expect(Math.abs(score.vrate.reachBoundMs.sim! - score.vrate.reachBoundMs.real!)).toBeLessThan(10);
    const f = new Set(recordedTimerFirings(tr).map((t) => Math.round(t / 1e6)));
    const adj = sim.trace.filter((e) => e.event === "iocost_ioc_vrate_adj").map((e) => Math.round(e.tNs / 1e6));
    expect(adj.filter((t) => f.has(t)).length).toBeGreaterThan(adj.length * 0.9);
    expect(real.vrate.length).toBeGreaterThan(100);
  });

  it("donate: B, going idle with budget to spare, donates part of its weight (iocost_inuse_transfer)", () => {
    const { sim } = cases["donate"]!;
    const tr = sim.trace.find((e) => e.event === "iocost_inuse_transfer");
    expect(tr?.cgroup).toBe("/B");
    const [oldI, newI] = tr!["inuse"] as number[];
    expect(newI!).toBeLessThan(oldI!);
  });

  it("replay writes a header, one line per 100 ms bin in the bins.jsonl shape, then vrate samples", () => {
    const { text, file } = cases["met"]!;
    const lines = iocostTraceHandler.replay(text, file, { kernel: "6.1" }).map((l) => JSON.parse(l));
    expect(lines[0].type).toBe("replay");
    const bins = lines.filter((l) => "bin" in l);
    expect(Object.keys(bins[0])).toEqual(["bin", "t0_ms", "A", "B"]);
    expect(bins.map((b) => b.t0_ms).slice(0, 3)).toEqual([0, 100, 200]);
    const vr = lines.filter((l) => l.type === "vrate");
    expect(vr.length).toBeGreaterThan(100);
    expect(lines.indexOf(vr[0])).toBeGreaterThan(lines.indexOf(bins[bins.length - 1]));
    expect(Math.max(...vr.map((v) => v.pct))).toBeCloseTo(150, 1);
  });

  it("compare prints the share, per-bin error, vrate trajectory and activation times", () => {
    const { text, file } = cases["donate"]!;
    const out = iocostTraceHandler.compare(text, file, {});
    expect(out.text).toMatch(/B\/A share/);
    expect(out.text).toMatch(/per-bin B share/);
    expect(out.text).toMatch(/reaches bound/);
    expect(out.text).toMatch(/activations sim/);
  });
});
