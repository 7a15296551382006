// blk-iocost (io.weight, io.cost.qos, io.cost.model): proportional shares by
// weight. Needs the blk-iocost control module.
//
// Built-in "io.cost weights": two cgroups read 4 KiB at random at depth 32
// on the NVMe preset (150 k IOPS) for 5 s, with io.weight 300 and 100, and
// iocost enabled with a linear model at 80 % of the device (120 k random
// 4 KiB reads/s) and vrate pinned at 100 % (QoS min = max = 100). The
// budgets then add up to 120 k IOPS, less than the device can do, so iocost
// is the bottleneck and splits them by weight, 3 : 1 (hweight 75 % and
// 25 %): ~90 k and ~30 k IOPS, ~350 and ~117 MiB/s.
// With a model as fast as the device, the device's own queue is the
// bottleneck and the split drifts to 1 : 1 — which is why real iocost
// setups use a conservative model and let QoS lower vrate.
//
// Extra panels, from the iocost tracepoints the core records (read in one
// batch after the run, like trace_pipe):
//   - "vrate": the device's virtual-time rate in % after each period's
//     adjustment (iocost_ioc_vrate_adj: vrate=OLD->NEW; 100 % = the model's
//     speed), stepped;
//   - "Weights and shares": io.weight, the share the weights promise, the
//     share of IOs each cgroup got, and the last hweight_inuse a tracepoint
//     reported (activate/idle: hweight=INUSE/ACTIVE out of 65536;
//     inuse_adjust/shortage/transfer: hw_inuse=OLD->NEW);
//   - a count of each tracepoint per cgroup.
// Worked example: with 300 : 100 and both busy, high sits at
// 49152/65536 = 75 % and low at 16384/65536 = 25 %.
import { jobDefaults, scenarioDefaults, type RunResult, type Scenario, type Simulation } from "../iosim.js";
import { blockFamily, cgLabel, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";
import type { ChartPanel, Panel, TablePanel } from "./types.js";

interface TraceEvent { event: string; tNs: number; dev: string; cgroup?: string; [k: string]: unknown }
type ReadTrace = (core: unknown, cgPaths: readonly string[], devNames: readonly string[]) => TraceEvent[];
const iocostModule = import.meta.glob("../../../bindings/engine/modules/iocost.ts");
const VTIME_PER_USEC = 137438;
const WEIGHT_ONE = 65536;

export async function iocostPanels(r: RunResult, sim: Simulation, s: Scenario): Promise<Panel[]> {
  const load = Object.values(iocostModule)[0] as (() => Promise<unknown>) | undefined;
  if (!load) return [];
  const read = ((await load()) as { readIocostTrace?: ReadTrace }).readIocostTrace;
  if (!read) return [];
  const ctx = sim.context();
  const trace = read(sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name));
  if (trace.length === 0) return [];
  const endS = r.simulatedNs / 1e9;
  // vrate: one point per adjustment, stepped
  const vr = trace.filter((e) => e.event === "iocost_ioc_vrate_adj");
  const panels: Panel[] = [];
  if (vr.length) {
    const x = [0, ...vr.map((e) => e.tNs / 1e9), endS];
    const pct = (v: number) => (v * 100) / VTIME_PER_USEC;
    const first = (vr[0]!.vrate as number[])[0]!;
    const vals = [pct(first), ...vr.map((e) => pct((e.vrate as number[])[1]!)), pct((vr[vr.length - 1]!.vrate as number[])[1]!)];
    panels.push({ kind: "chart", id: "vrate", title: "iocost vrate", unit: "%", x, series: [{ label: vr[0]!.dev, values: vals }], stepped: true,
      note: "iocost_ioc_vrate_adj at each period: 100 % runs the device at the model's speed" } satisfies ChartPanel);
  }
  // weights: configured, expected share, observed share, last hweight a tracepoint reported
  const cgs = [...new Set(trace.map((e) => e.cgroup).filter((c): c is string => !!c))];
  const weightOf = (cg: string) => {
    const p = cg.replace(/^\//, "");
    const w = [...(s.cgroups.find((g) => g.path === p)?.files ? Object.entries(s.cgroups.find((g) => g.path === p)!.files!) : []),
      ...s.writes.filter((x) => x.cgroup === p).map((x) => [x.file, x.value] as [string, string])]
      .filter(([f]) => f === "io.weight").map(([, v]) => /(?:default\s+)?(\d+)\s*$/.exec(v.trim())?.[1]).filter(Boolean).pop();
    return w ? Number(w) : 100;
  };
  const ios = (cg: string) => {
    const p = cg.replace(/^\//, "");
    return Object.values(r.cgroups.find((c) => c.path === p)?.own ?? {}).reduce((a, c) => a + c.rios + c.wios, 0);
  };
  const busy = cgs.filter((cg) => ios(cg) > 0);
  const wSum = busy.reduce((a, cg) => a + weightOf(cg), 0);
  const ioSum = busy.reduce((a, cg) => a + ios(cg), 0);
  const lastHw = (cg: string) => {
    const e = [...trace].reverse().find((x) => x.cgroup === cg && (Array.isArray(x.hweight) || Array.isArray(x.hw_inuse)));
    if (!e) return "–";
    const v = Array.isArray(e.hweight) ? (e.hweight as number[])[0]! : (e.hw_inuse as number[])[1]!;
    return `${((v * 100) / WEIGHT_ONE).toFixed(1)} % at ${(e.tNs / 1e9).toFixed(2)} s`;
  };
  panels.push({
    kind: "table", id: "iocost-shares", title: "Weights and shares",
    columns: ["cgroup", "io.weight", "share by weight", "share of IOs done", "last hweight_inuse reported"],
    rows: busy.map((cg) => ({
      key: cg,
      cells: [cgLabel(cg.replace(/^\//, "")), String(weightOf(cg)), `${((100 * weightOf(cg)) / wSum).toFixed(1)} %`,
        `${((100 * ios(cg)) / Math.max(1, ioSum)).toFixed(1)} %`, lastHw(cg)],
    })),
    note: "share by weight assumes every listed cgroup stays busy; hweight_inuse is what the last iocost tracepoint for the cgroup said — " +
      "iocg_activate/iocg_idle print the cgroup's cached value, which at its first activation is still the initial 100 % (ioc_pd_init), not its share",
  } satisfies TablePanel);
  const kinds = [...new Set(trace.map((e) => e.event))].sort();
  const table: TablePanel = {
    kind: "table", id: "iocost-events", title: "iocost tracepoints", columns: ["cgroup", ...kinds.map((k) => k.replace(/^iocost_/, ""))],
    rows: ["", ...cgs].map((cg) => ({
      key: cg || "(device)",
      cells: [cg ? cgLabel(cg.replace(/^\//, "")) : "(device)", ...kinds.map((k) => String(trace.filter((e) => e.event === k && (cg ? e.cgroup === cg : !e.cgroup)).length))],
    })),
  };
  panels.push(table);
  return panels;
}

export function iocostWeights(): Scenario {
  const dev = preset("nvme");
  const common = { device: dev.name, rw: "read" as const, random: true, iodepth: 32, runtimeNs: 5e9, timeBased: true, regionLen: 64 * 2 ** 30 };
  return scenarioDefaults({
    name: "iocost-weights",
    description: "io.weight 300 vs 100 on one NVMe drive under blk-iocost: both busy, split 3 : 1",
    devices: [dev],
    cgroups: [
      { path: "high", files: { "io.weight": "default 300" } },
      { path: "low", files: { "io.weight": "default 100" } },
    ],
    writes: [
      { atNs: 0, cgroup: "", file: "io.cost.model", value: `${dev.devno} ctrl=user model=linear rbps=2457600000 rseqiops=120000 rrandiops=120000 wbps=2457600000 wseqiops=120000 wrandiops=120000` },
      { atNs: 0, cgroup: "", file: "io.cost.qos", value: `${dev.devno} enable=1 ctrl=user rpct=95.00 rlat=1000 wpct=95.00 wlat=2000 min=100.00 max=100.00` },
    ],
    jobs: [jobDefaults({ ...common, name: "high", cgroup: "high" }), jobDefaults({ ...common, name: "low", cgroup: "low" })],
    durationNs: 5e9,
    seriesBinNs: 100e6,
  });
}

const builtins: BlockBuiltin[] = [
  { id: "iocost-weights", title: "io.cost weights 300 : 100", description: iocostWeights().description!, build: iocostWeights },
];

export const iocostFamily = blockFamily({
  id: "iocost",
  title: "blk-iocost (io.weight)",
  missing: async () => (hasControlFile("io.weight") && hasControlFile("io.cost.qos") ? undefined : "blk-iocost (io.weight, io.cost.*) is not in this build yet"),
  builtins: async () => builtins,
  extras: iocostPanels,
});
