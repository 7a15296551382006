// blk-throttle (io.max): the io.max demo and, when the build carries them,
// the oracle's throttle scenarios. Needs the blk-throttle control module.
//
// Extra panel: how long bios waited in blk-throttle, per cgroup per 100 ms
// bin (release - submit from the per-bio records), so the slice rhythm
// shows: with rbps=20 MiB/s and 4 KiB reads, a fresh 100 ms slice lets
// 512 bios through at once and the rest wait for the next slice.
import { iomaxDemo, type RunResult } from "../iosim.js";
import { blockFamily, cgLabel, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";
import type { ChartPanel, Panel } from "./types.js";

const builtins: BlockBuiltin[] = [
  {
    id: "iomax-demo", title: "io.max demo: one capped, one free",
    description: iomaxDemo(preset("ssd")).description!,
    build: () => iomaxDemo(preset("ssd")),
  },
];

export function throttleWaitChart(r: RunResult): Panel[] {
  if (!r.records || !r.seriesBinNs) return [];
  const bin = r.seriesBinNs;
  const cgs = [...new Set(r.records.map((x) => x.cgroup))];
  const bins = Math.ceil(r.simulatedNs / bin) + 1;
  const x = Array.from({ length: bins }, (_, i) => ((i + 0.5) * bin) / 1e9);
  const series = cgs.map((cg) => {
    const n = new Array(bins).fill(0), t = new Array(bins).fill(0);
    for (const rec of r.records!) {
      if (rec.cgroup !== cg) continue;
      const i = Math.floor(rec.submitNs / bin);
      n[i]++; t[i] += rec.releaseNs - rec.submitNs;
    }
    return { label: cgLabel(cg), values: n.map((k, i) => (k ? t[i] / k / 1e6 : null)) };
  });
  const chart: ChartPanel = {
    kind: "chart", id: "throttle-wait", title: "Throttle wait per bio (mean, by submit time)", unit: "ms", x, series,
    note: "release − submit of each bio, from the per-bio records",
  };
  return [chart];
}

export const throttleFamily = blockFamily({
  id: "throttle",
  title: "blk-throttle (io.max)",
  missing: async () => (hasControlFile("io.max") ? undefined : "blk-throttle (io.max) is not in this build yet"),
  builtins: async () => builtins,
  extras: (r) => throttleWaitChart(r),
});
