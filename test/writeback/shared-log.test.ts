// The README scenario: two containers appending to one log file, 70/30, with
// io.max wbps=4 MiB/s on sidecar (the 30 % writer that dirtied the log first).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { loadScenario as loadYaml } from "../../bindings/scenario/load.js";
import { Simulation } from "../../bindings/engine/simulation.js";
import type { Scenario } from "../../bindings/scenario/types.js";
import { writebackReport } from "../../bindings/engine/modules/writeback.js";

function loadScenario(over: Partial<Scenario> = {}): Scenario {
  const file = path.resolve(__dirname, "../../scenarios/shared-log-writeback.yaml");
  const sc = loadYaml(fs.readFileSync(file, "utf8"), file).scenario;
  if (over.cgroupVersion === 1) {
    // the same limit in cgroup v1's syntax
    for (const g of sc.cgroups) {
      const m = g.files?.["io.max"]?.match(/^(\d+:\d+) wbps=(\d+)$/);
      if (m) {
        delete g.files!["io.max"];
        g.files!["blkio.throttle.write_bps_device"] = `${m[1]} ${m[2]}`;
      }
    }
  }
  return { ...sc, ...over };
}

const SIDECAR_WBPS = 4 * 1024 * 1024;

/** Writeback bytes per second of submission, by the cgroup the bios were charged to. */
function wbytesByBin(sim: Simulation) {
  const r = sim.result();
  const by = new Map<number, Record<string, number>>();
  for (const b of r.records ?? []) {
    if (b.job !== "(writeback)") continue;
    const k = Math.floor(b.submitNs / 1e9);
    const rec = by.get(k) ?? {};
    rec[b.cgroup || "root"] = (rec[b.cgroup || "root"] ?? 0) + b.size;
    by.set(k, rec);
  }
  return { r, by };
}

describe("shared log, 70/30 (scenarios/shared-log-writeback.yaml)", () => {
  it("cgroup v2: sidecar (first dirtier) is charged and throttled first; the election hands the log to app", () => {
    const sim = new Simulation(loadScenario({ record: true }));
    sim.runToEnd();
    const { r, by } = wbytesByBin(sim);
    const rep = writebackReport(sim);
    expect(rep.enabled).toBe(true);
    const sw = rep.tracepoints.filter((t) => t.event === "inode_switch_wbs");
    expect(sw.length).toBeGreaterThanOrEqual(1);
    expect(sw[0]).toMatchObject({ oldCgroup: "sidecar", newCgroup: "app" });
    const tSwitch = sw[0]!.tNs;
    // before the switch writeback is sidecar's, after it app's: whole bins
    const bins = [...by.entries()].sort((a, b) => a[0] - b[0]);
    const before = bins.filter(([k]) => (k + 1) * 1e9 <= tSwitch);
    const after = bins.filter(([k]) => k * 1e9 > tSwitch + 1e9);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    for (const [, v] of before) expect(Object.keys(v)).toEqual(["sidecar"]);
    for (const [, v] of after) expect(Object.keys(v)).toEqual(["app"]);
    // io.stat: both were charged, nothing went to the root's own counters
    const own = (p: string) => r.cgroups.find((c) => c.path === p)!.own["259:0"]!.wbytes;
    expect(own("app")).toBeGreaterThan(0);
    expect(own("sidecar")).toBeGreaterThan(0);
    expect(own("")).toBe(0);
    // while sidecar owns the log, its writeback is held to its io.max wbps
    const sidecar = r.cgroups.find((c) => c.path === "sidecar")!;
    expect(sidecar.throttleWaitNs.write).toBeGreaterThan(0);
    const issuedBySidecar = (r.records ?? []).filter((b) => b.job === "(writeback)" && b.cgroup === "sidecar");
    const span = Math.max(...issuedBySidecar.map((b) => b.issueNs)) - Math.min(...issuedBySidecar.map((b) => b.issueNs));
    const bytes = issuedBySidecar.reduce((a, b) => a + b.size, 0);
    expect(bytes).toBeLessThanOrEqual(SIDECAR_WBPS * (span / 1e9 + 0.2));
    // sidecar wrote 30 % of the bytes and the jobs never wait on writeback
    const job = (n: string) => r.jobs.find((j) => j.name === n)!;
    expect(job("app-log").write.bytes / job("sidecar-log").write.bytes).toBeCloseTo(7 / 3, 1);
  });

  it("cgroup v1: every writeback byte is the root cgroup's, nobody switches, sidecar's write_bps limit never applies, and the result says why", () => {
    const sim = new Simulation(loadScenario({ cgroupVersion: 1 }));
    sim.runToEnd();
    const r = sim.result();
    const rep = writebackReport(sim);
    expect(rep.enabled).toBe(false);
    expect(rep.why).toMatch(/v1.*root/);
    expect(r.warnings.join(" ")).toMatch(/writeback: cgroup v1/);
    expect(rep.tracepoints.some((t) => t.event === "inode_switch_wbs")).toBe(false);
    const own = (p: string) => r.cgroups.find((c) => c.path === p)!.own["259:0"]!.wbytes;
    expect(own("")).toBeGreaterThan(0);
    expect(own("app")).toBe(0);
    expect(own("sidecar")).toBe(0);
    expect(r.cgroups.find((c) => c.path === "sidecar")!.throttleWaitNs.write).toBe(0);
  });
});
