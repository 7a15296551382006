// blk-throttle (io.max, blkio.throttle.*): the io.max demo and the oracle's
// throttle scenarios (test/fixtures/oracle/throtl/scenarios/*.json, the
// runs recorded on a real kernel), when the build carries the blk-throttle
// module, its decision trace reader and the oracle scenario converter.
// Each of those is looked up with import.meta.glob, so a build without them
// still compiles and the family reports what is missing.
//
// Extra panels, from the core's per-bio decision trace (turned on for the
// oracle scenarios, which are a few hundred bios; off for the demo's ~600 k):
//   - "Throttle waits": the wait blk-throttle computed for each queued bio
//     (tg_may_dispatch's wait, jiffies at HZ -> ms), mean per 100 ms bin;
//   - "Throttle decisions" per cgroup: bios that passed at once, bios
//     queued for their iops or bps budget, timers armed on its queue,
//     slices started (distinct slice starts), mean and max wait; and a
//     "(device queue)" row with the timers armed on the device's queue,
//     which releases the queued bios of top-level cgroups.
// Worked example (siblings_iops100_50: a read_iops=100, b read_iops=50,
// QD1, HZ=250, 100 ms slices): a's 11th read of a slice waits for the
// next slice, up to 25 jiffies = 100 ms; a gets ~100 IOPS, b ~50.

import { iomaxDemo, type RunResult, type Scenario, type Simulation } from "../iosim.js";
import { blockFamily, cgLabel, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";
import type { ChartPanel, Panel, TablePanel } from "./types.js";

type ScenarioFromJson = (text: string, file: string, opts?: { kernel?: string; seed?: number }) => Scenario;
interface Decision {
  timeNs: number; job: string | null; seq: number; kind: string; reason: string; cgroup: string | null;
  dir: "R" | "W"; jiffies: bigint; waitJiffies: number; sliceStart: bigint; sliceEnd: bigint; allowed: number; dispatched: number;
}
type ReadDecisions = (sim: Simulation, shiftNs?: number) => Decision[];

const converterModule = import.meta.glob("../../../bindings/oracle/throtl-scenario.ts");
const decisionsModule = import.meta.glob("../../../bindings/oracle/decisions.ts");
const oracleJson = import.meta.glob<string>("../../../test/fixtures/oracle/throtl/scenarios/*.json", { query: "?raw", import: "default", eager: true });

async function optional<T>(mods: Record<string, () => Promise<unknown>>, name: string): Promise<T | undefined> {
  const load = Object.values(mods)[0];
  if (!load) return undefined;
  return ((await load()) as Record<string, T>)[name];
}

const TRACE = Symbol("trace");
type Traced = Scenario & { throttle?: { trace?: boolean }; [TRACE]?: boolean };

async function builtins(): Promise<BlockBuiltin[]> {
  const out: BlockBuiltin[] = [{
    id: "iomax-demo", title: "io.max demo: one capped, one free",
    description: iomaxDemo(preset("ssd")).description!,
    build: () => iomaxDemo(preset("ssd")),
  }];
  const convert = await optional<ScenarioFromJson>(converterModule, "scenarioFromThrotlJson");
  if (!convert) return out;
  const entries = Object.entries(oracleJson).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [path, text] of entries) {
    const file = path.replace(/^.*\//, "");
    const id = file.replace(/\.json$/, "");
    let description = "";
    try { description = String(JSON.parse(text).description ?? ""); } catch { /* the converter reports it */ }
    out.push({
      id: `oracle-${id}`, title: `oracle: ${id}`, description: `${description} (recorded on a real kernel; cgroup v1 files)`,
      build: () => {
        const s = convert(text, file) as Traced;
        s.throttle = { ...(s.throttle ?? {}), trace: true };
        if (!s.seriesBinNs) s.seriesBinNs = 100e6;
        return s;
      },
    });
  }
  return out;
}

export async function throttlePanels(r: RunResult, sim: Simulation, s: Scenario): Promise<Panel[]> {
  if (!(s as Traced).throttle?.trace) return [];
  const read = await optional<ReadDecisions>(decisionsModule, "readDecisionTrace");
  if (!read) return [];
  const all = read(sim);
  const msPerJiffy = 1000 / s.clock.hz;
  const cgs = [...new Set(all.map((d) => d.cgroup).filter((c): c is string => c !== null && c !== undefined))];
  const bin = r.seriesBinNs || 100e6;
  const bins = Math.max(1, Math.ceil(r.simulatedNs / bin));
  const x = Array.from({ length: bins }, (_, i) => ((i + 0.5) * bin) / 1e9);
  const queued = all.filter((d) => d.kind === "queue");
  const series = cgs.map((cg) => {
    const n = new Array(bins).fill(0), t = new Array(bins).fill(0);
    for (const d of queued) {
      if (d.cgroup !== cg) continue;
      const i = Math.min(bins - 1, Math.floor(d.timeNs / bin));
      n[i]++; t[i] += d.waitJiffies * msPerJiffy;
    }
    return { label: cgLabel(cg.replace(/^\//, "")), values: n.map((k, i) => (k ? t[i] / k : null)) };
  });
  const chart: ChartPanel = {
    kind: "chart", id: "throttle-wait", title: "Throttle waits (mean wait computed for queued bios)", unit: "ms", x, series,
    note: `from the decision trace: tg_may_dispatch() wait in jiffies at HZ=${s.clock.hz}, by the time the bio was queued`,
  };
  const table: TablePanel = {
    kind: "table", id: "throttle-decisions", title: "Throttle decisions",
    columns: ["cgroup", "arrived", "passed at once", "queued: iops", "queued: bps", "slices", "timers", "mean wait", "max wait"],
    rows: cgs.map((cg) => {
      const mine = all.filter((d) => d.cgroup === cg);
      const q = mine.filter((d) => d.kind === "queue");
      const waits = q.map((d) => d.waitJiffies * msPerJiffy);
      const slices = new Set(mine.filter((d) => d.kind === "pass" || d.kind === "queue").map((d) => d.sliceStart.toString()));
      return {
        key: cg,
        cells: [cgLabel(cg.replace(/^\//, "")), String(mine.filter((d) => d.kind === "arrive").length), String(mine.filter((d) => d.kind === "pass").length),
          String(q.filter((d) => d.reason === "iops").length), String(q.filter((d) => d.reason === "bps").length), String(slices.size),
          String(mine.filter((d) => d.kind === "timer").length),
          waits.length ? `${(waits.reduce((a, b) => a + b, 0) / waits.length).toFixed(1)} ms` : "–",
          waits.length ? `${Math.max(...waits).toFixed(1)} ms` : "–"],
      };
    }),
    note: "a bio is queued when its cgroup's budget for the current slice is spent; the wait is until the budget allows it. " +
      "A queued bio is released by the pending timer of the queue above it: a top-level cgroup's by the device's (row \"(device queue)\"), a child's by its parent's",
  };
  // timers armed on the device's own service queue (throtl_data's), which every
  // top-level cgroup's queued bios wait on: without this row a run with queued
  // bios showed "timers 0" for every cgroup
  const deviceTimers = all.filter((d) => d.kind === "timer" && (d.cgroup === null || d.cgroup === undefined)).length;
  if (deviceTimers) {
    table.rows.push({ key: "(device queue)", cells: ["(device queue)", "–", "–", "–", "–", "–", String(deviceTimers), "–", "–"] });
  }
  return [chart, table];
}

export const throttleFamily = blockFamily({
  id: "throttle",
  title: "blk-throttle (io.max)",
  missing: async () => (hasControlFile("io.max") ? undefined : "blk-throttle (io.max) is not in this build yet"),
  builtins,
  extras: throttlePanels,
});
