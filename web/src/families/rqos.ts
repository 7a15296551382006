// blk-iolatency (io.latency) and writeback throttling (wbt_lat_usec): the two
// rq-qos policies that cut queue depth. Needs the blk-iolatency control module.
//
// Built-ins (walk-throughs: scenarios/iolatency-protect.md, wbt-writeback.md):
//   - "io.latency 40 ms vs a noisy sibling": an 8-tag, 20 ms null_blk-like
//     disk; web (target 40 ms, depth 4), batch (150 ms, depth 4), noisy (no
//     target, depth 16). Web misses its first 640 ms window, noisy and batch
//     halve their depth 500 ms apart, web's latency falls from ~60 to ~23 ms.
//   - "wbt: writeback beside a reader": a 4-tag, 40 ms disk, a buffered
//     writer's background writeback held to wb_background = 1 request, a
//     direct reader at depth 2.
// Extra panels from RunResult.rqos: each group's max_depth over time
// (stepped; "max" = unthrottled, drawn as nr_requests + 1) and its scale
// cookie steps below the default; wbt's max_depth, wb_normal and
// wb_background and the scale step.
import { jobDefaults, scenarioDefaults, type RunResult, type Scenario, type Simulation } from "../iosim.js";
import { blockFamily, cgLabel, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";
import type { ChartPanel, Panel } from "./types.js";

export async function rqosPanels(r: RunResult, _sim: Simulation, s: Scenario): Promise<Panel[]> {
  const t = r.rqos;
  if (!t) return [];
  const endS = r.simulatedNs / 1e9;
  const panels: Panel[] = [];
  const nr = Math.max(...s.devices.map((d) => d.nrRequests));
  const groups = Object.entries(t.iolatency).flatMap(([cg, byDev]) => Object.entries(byDev).map(([dev, pts]) => ({ cg, dev, pts })));
  if (groups.length) {
    // one x axis: every change time of every group
    const xs = [...new Set([0, ...groups.flatMap((g) => g.pts.map((p) => p.tNs / 1e9)), endS])].sort((a, b) => a - b);
    const at = <T,>(pts: Array<{ tNs: number } & T>, x: number): (T & { tNs: number }) | undefined => {
      let cur: (T & { tNs: number }) | undefined;
      for (const p of pts) if (p.tNs / 1e9 <= x) cur = p;
      return cur;
    };
    panels.push({
      kind: "chart", id: "iolat-depth", title: "io.latency: each group's queue depth", unit: "requests", x: xs, stepped: true,
      series: groups.map((g) => ({ label: `${cgLabel(g.cg)} ${g.dev}`, values: xs.map((x) => { const p = at(g.pts, x); return p ? (p.depth ?? nr + 1) : nr + 1; }) })),
      note: `rq_depth.max_depth after each check_scale_change; unthrottled ("max") is drawn at nr_requests + 1 = ${nr + 1}`,
    } satisfies ChartPanel);
    panels.push({
      kind: "chart", id: "iolat-cookie", title: "io.latency: scale cookie below the default", unit: "steps", x: xs, stepped: true,
      series: groups.map((g) => ({ label: `${cgLabel(g.cg)} ${g.dev}`, values: xs.map((x) => at(g.pts, x)?.cookieDown ?? 0) })),
      note: "DEFAULT_SCALE_COOKIE - the group's scale_cookie: how far the parent has scaled its children down (0 = unthrottled); use_delay is in RunResult.rqos",
    } satisfies ChartPanel);
  }
  for (const [dev, pts] of Object.entries(t.wbt)) {
    const x = [...pts.map((p) => p.tNs / 1e9), endS];
    const last = pts[pts.length - 1]!;
    const val = (f: (p: typeof last) => number) => [...pts.map(f), f(last)];
    panels.push({
      kind: "chart", id: `wbt-${dev}`, title: `wbt limits on ${dev}`, unit: "requests", x, stepped: true,
      series: [{ label: "max_depth", values: val((p) => p.maxDepth) }, { label: "wb_normal", values: val((p) => p.normal) },
        { label: "wb_background", values: val((p) => p.background) }, { label: "scale_step", values: val((p) => p.step) }],
      note: "calc_wb_limits after each scale_up / scale_down; background writeback may have wb_background requests in flight",
    } satisfies ChartPanel);
  }
  return panels;
}

export function iolatencyProtect(): Scenario {
  const dev = { ...preset("nullb"), nrRequests: 8, channels: 8, latencyNs: 20e6 };
  const common = { device: dev.name, rw: "read" as const, random: true, runtimeNs: 10e9, timeBased: true };
  return scenarioDefaults({
    name: "iolatency-protect", kernel: "6.12", blkcgDebugStats: true,
    description: "io.latency 40 ms for \"web\" against a depth-16 noisy sibling on an 8-tag disk",
    devices: [dev],
    cgroups: [
      { path: "web", files: { "io.latency": `${dev.devno} target=40000` } },
      { path: "batch", files: { "io.latency": `${dev.devno} target=150000` } },
      { path: "noisy" },
    ],
    jobs: [jobDefaults({ ...common, name: "web", cgroup: "web", iodepth: 4 }), jobDefaults({ ...common, name: "batch", cgroup: "batch", iodepth: 4 }),
      jobDefaults({ ...common, name: "noisy", cgroup: "noisy", iodepth: 16 })],
    durationNs: 10e9, seriesBinNs: 100e6,
  });
}

export function wbtWriteback(): Scenario {
  const dev = { ...preset("nullb"), nrRequests: 4, channels: 4, latencyNs: 40e6, wbtLatUsec: "-1" };
  return scenarioDefaults({
    name: "wbt-writeback", kernel: "6.12",
    description: "a buffered writer's writeback beside a direct reader, wbt at its default (2 ms)",
    devices: [dev],
    cgroups: [{ path: "", files: { "vm.dirty_background_bytes": "4194304", "vm.dirty_bytes": "16777216", "wb.memory": "268435456", "wb.bio_max_pages": "32" } }],
    jobs: [
      jobDefaults({ name: "writer", device: dev.name, rw: "write", bs: [{ size: 65536, weight: 1 }], iodepth: 1, direct: false, regionLen: 2 ** 30, runtimeNs: 10e9, timeBased: true }),
      jobDefaults({ name: "reader", device: dev.name, rw: "read", random: true, iodepth: 2, runtimeNs: 10e9, timeBased: true }),
    ],
    durationNs: 10e9, seriesBinNs: 100e6,
  });
}

const builtins: BlockBuiltin[] = [
  { id: "iolatency-protect", title: "io.latency 40 ms vs a noisy sibling", description: iolatencyProtect().description!, build: iolatencyProtect },
  { id: "wbt-writeback", title: "wbt: writeback beside a reader", description: wbtWriteback().description!, build: wbtWriteback },
];

export const rqosFamily = blockFamily({
  id: "rqos",
  title: "io.latency and wbt",
  missing: async () => (hasControlFile("io.latency") ? undefined : "blk-iolatency (io.latency) is not in this build yet"),
  builtins: async () => builtins,
  extras: rqosPanels,
});
