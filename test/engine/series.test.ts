// The time series: per completion-time bin, cgroup and direction, IOs and a
// p99 from a coarse histogram. The core keeps only the newest bin's
// histograms dense and turns older ones into (bucket, count) pairs
// (assembly/stats/stats.ts); these runs check both against the bios' own
// records, and that a long run with many cgroups fits in the core's memory.
import { describe, expect, it } from "vitest";
import { simulate } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import { percentilesFromPlat, platValToIdx } from "../../bindings/report/percentiles.js";
import { SERIES_PLAT_BITS, SERIES_PLAT_NR } from "../../bindings/core/columns.js";
import { fixedDevice } from "./helpers.js";

describe("time series", () => {
  it("every bin's IOs and p99, the closed bins' and the last one's, are those of the bios completed in it", () => {
    const binNs = 2_000_000;
    const dev = fixedDevice(50_000, 4, 64, { jitterSigma: 0.8 });
    const jobs = ["a", "b"].flatMap((cg) => [
      jobDefaults({ name: `${cg}r`, cgroup: cg, device: dev.name, count: 1500, iodepth: 4 }),
      jobDefaults({ name: `${cg}w`, cgroup: cg, device: dev.name, rw: "write", count: 700, iodepth: 2 }),
    ]);
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a" }, { path: "b" }], jobs, seriesBinNs: binNs, record: true,
    }));
    // the same bins from the records
    const want = new Map<string, { ios: number; hist: number[] }>();
    for (const b of r.records!) {
      const key = `${Math.floor(b.completeNs / binNs) * binNs} ${b.cgroup} ${b.dir === "W" ? "write" : "read"}`;
      let e = want.get(key);
      if (!e) want.set(key, (e = { ios: 0, hist: new Array<number>(SERIES_PLAT_NR).fill(0) }));
      e.ios++;
      e.hist[platValToIdx(b.completeNs - b.submitNs, SERIES_PLAT_BITS, SERIES_PLAT_NR)]!++;
    }
    expect(r.series.length).toBe(want.size);
    expect(new Set(r.series.map((s) => s.t0Ns)).size).toBeGreaterThan(20); // many bins closed
    const p99s = new Set<number>();
    for (const s of r.series) {
      const e = want.get(`${s.t0Ns} ${s.cgroup} ${s.dir}`)!;
      expect(s.ios).toBe(e.ios);
      expect(s.p99LatNs).toBe(percentilesFromPlat(e.hist, [99], e.ios, SERIES_PLAT_BITS)[0]!.ns);
      p99s.add(s.p99LatNs);
    }
    expect(p99s.size).toBeGreaterThan(5); // the jitter spreads latencies over buckets
  });

  it("a completion at a bin's first nanosecond opens that bin (the core compares with the open bin's range, not dividing each time)", () => {
    // 50 us a bio, one at a time: every 20th completion falls exactly on a 1 ms edge
    const binNs = 1_000_000;
    const dev = fixedDevice(50_000, 1);
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a" }],
      jobs: [jobDefaults({ name: "r", cgroup: "a", device: dev.name, count: 400, iodepth: 1 })], seriesBinNs: binNs, record: true,
    }));
    const want = new Map<number, number>();
    for (const b of r.records!) want.set(Math.floor(b.completeNs / binNs) * binNs, (want.get(Math.floor(b.completeNs / binNs) * binNs) ?? 0) + 1);
    expect(r.records!.filter((b) => b.completeNs % binNs === 0).length).toBeGreaterThan(10);
    expect(new Map(r.series.map((s) => [s.t0Ns, s.ios]))).toEqual(want);
  });

  it("an hour of 20 cgroups at 100 ms bins completes (dense histograms for every bin aborted the core at 4 GiB)", () => {
    const dev = fixedDevice(100_000, 4);
    const cgroups = Array.from({ length: 20 }, (_, i) => ({ path: `c${i}` }));
    const jobs = cgroups.map((c) => jobDefaults({
      name: c.path, cgroup: c.path, device: dev.name, count: 3600, pattern: { kind: "rate", iops: 1 },
    }));
    const r = simulate(scenarioDefaults({ name: "t", devices: [dev], cgroups, jobs, seriesBinNs: 100_000_000 }));
    expect(r.series.reduce((n, s) => n + s.ios, 0)).toBe(20 * 3600);
    expect(Math.max(...r.series.map((s) => s.t0Ns))).toBeGreaterThan(3590e9);
  });
});
