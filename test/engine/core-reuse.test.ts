// simulate() runs on a core a previous simulate() used (instantiating one
// costs more than a small run: bindings/engine/simulation.ts, spareCore).
// That is only right if the core's reset() puts back everything a run
// changes, in every module. Here every kind of scenario the project ships
// (the demo, scenarios/, the fio fixtures, throttle, iocost and writeback
// oracle replays, with records and series on) runs on fresh cores and then
// back to back on reused ones, in two orders: the results are the same
// bytes (all but the wall time).
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Simulation, simulate } from "../../bindings/engine/simulation.js";
import { loadScenario } from "../../bindings/scenario/load.js";
import { scenarioDefaults } from "../../bindings/scenario/defaults.js";
import { iomaxDemo } from "../../bindings/scenario/builtin/iomax-demo.js";
import { devicePreset } from "../../bindings/device/index.js";
import { parseFioJobFile } from "../../bindings/workload/index.js";
import { readTrace } from "../../bindings/oracle/traces.js";
import { scenarioFromTrace } from "../../bindings/oracle/replay.js";
import { iocostScenario, parseIocostTrace } from "../../bindings/oracle/iocost.js";
import { parseWbTrace, wbScenario } from "../../bindings/oracle/writeback.js";
import type { RunResult, Scenario } from "../../bindings/scenario/types.js";

const ROOT = resolve(__dirname, "..", "..");
const FIX = join(ROOT, "test", "fixtures");
const read = (p: string) => readFileSync(p, "utf8");

function scenarios(): Array<[string, Scenario]> {
  const out: Array<[string, Scenario]> = [];
  const ssd = devicePreset("ssd");
  out.push(["demo", { ...iomaxDemo(ssd), durationNs: 1e9 }]);
  for (const f of readdirSync(join(ROOT, "scenarios")).filter((f) => f.endsWith(".yaml"))) {
    const p = join(ROOT, "scenarios", f);
    out.push([f, loadScenario(read(p), p, { readFile: (q, from) => read(resolve(dirname(from), q)) }).scenario]);
  }
  const nvme = devicePreset("nvme");
  for (const f of readdirSync(join(FIX, "fio")).filter((f) => f.endsWith(".fio"))) {
    const p = join(FIX, "fio", f);
    const sizes = Object.fromEntries(["sda", "sdb", "nvme0n1", "vda"].map((d) => [d, nvme.sizeBytes!]));
    const parsed = parseFioJobFile(read(p), p, { defaultDevice: nvme.name, deviceSizes: sizes, readFile: (q, from) => read(resolve(dirname(from), q)) });
    const jobs = parsed.jobs.map((j) => ({ ...j, device: nvme.name, runtimeNs: Math.min(j.runtimeNs ?? 2e8, 2e8) }));
    out.push([f, scenarioDefaults({ name: f, devices: [nvme], jobs, record: true, seriesBinNs: 50e6 })]);
  }
  const throtl = join(FIX, "oracle", "throtl", "traces");
  for (const d of ["iops100_qd1_read", "bps1m_read_4k", "open_loop_over", "bursts20_gap50ms", "limit_change_iops", "limit_remove",
    "parent50_child200", "rw_mixed_same_cgroup", "siblings_iops100_50", "write_iops50_bps1m_4k"]) {
    const p = join(throtl, d, "run1.jsonl");
    out.push([d, scenarioFromTrace(readTrace(read(p), p)).scenario]);
  }
  const guest = join(FIX, "oracle", "guest");
  const iomax = join(guest, "iomax.jsonl");
  out.push(["iomax.jsonl", scenarioFromTrace(readTrace(read(iomax), iomax)).scenario]);
  for (const f of ["iocost_donate.jsonl", "iocost_met.jsonl", "iocost_fixed.jsonl"]) {
    const p = join(guest, f);
    out.push([f, iocostScenario(parseIocostTrace(read(p), p))]);
  }
  for (const f of ["wb_foreign.jsonl", "wb_share.jsonl"]) {
    const p = join(guest, f);
    out.push([f, wbScenario(parseWbTrace(read(p), p)).scenario]);
  }
  return out;
}

const bytes = (r: RunResult) => JSON.stringify({ ...r, wallMs: 0 });

describe("simulate() on a reused core", () => {
  it("gives every scenario the bytes a fresh core gives, whatever ran on the core before", () => {
    const list = scenarios();
    expect(list.length).toBeGreaterThanOrEqual(30);
    const fresh = new Map(list.map(([name, sc]) => [name, bytes(new Simulation(sc).runToEnd())]));
    for (const order of [list, [...list].reverse()]) {
      for (const [name, sc] of order) expect([name, bytes(simulate(sc))]).toEqual([name, fresh.get(name)]);
    }
  });
});
