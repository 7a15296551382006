// Cgroup writeback ownership: buffered writes from several cgroups to one
// file, and which cgroup the flusher charges for them. Needs the writeback
// module (bindings/engine/modules/writeback.ts), found with import.meta.glob.
//
// Built-in "writeback sharing": cgroups "a" and "b" write the same 1 GiB
// file on the SSD through the page cache. "a" writes 64 MiB at 32 MiB/s
// from t = 0, so the inode's writeback is owned by a's wb; from 1.5 s "b"
// writes 256 MiB at 64 MiB/s. Every writeback pass votes for the cgroup
// that dirtied the pages it writes (the Boyer-Moore-style election in
// wbc_account_cgroup_owner / wbc_detach_inode); once b's pages win the
// majority the inode switches to b's wb (inode_switch_wbs), and from then
// on io.stat charges the flushes to b — including a's pages.
//
// Panels: whether cgroup writeback is in effect and why (filesystem,
// controllers, kernel), the file's owner at the end, and a swimlane per
// cgroup of its writeback passes with the owner switches marked.

import { jobDefaults, scenarioDefaults, type RunResult, type Scenario, type Simulation } from "../iosim.js";
import { blockFamily, cgLabel, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";
import type { CalloutPanel, LaneEvent, Panel, SwimlanePanel, TablePanel } from "./types.js";

const MiB = 1 << 20;
const writebackModule = import.meta.glob("../../../bindings/engine/modules/writeback.ts");

interface WbReport {
  enabled: boolean;
  why: string;
  fs: string;
  files: Array<{ name: string; owner: string | null; history: number; dirtyPages: number }>;
  tracepoints: Array<{ event: string; tNs: number; [k: string]: unknown }>;
  passes: number;
  pagesWritten: number;
}

export function writebackSharing(): Scenario {
  const dev = preset("ssd");
  const common = { device: dev.name, rw: "write" as const, direct: false, bs: [{ size: MiB, weight: 1 }], regionLen: 1 << 30 };
  return scenarioDefaults({
    name: "writeback-sharing",
    description: "two cgroups write the same file through the page cache; the flusher's owner switches from a to b",
    devices: [dev],
    cgroups: [{ path: "a" }, { path: "b" }],
    writes: [
      { atNs: 0, cgroup: "", file: "wb.file", value: `shared ${dev.name} 0 1g` },
      { atNs: 9e9, cgroup: "", file: "wb.sync", value: "" },
    ],
    jobs: [
      jobDefaults({ ...common, name: "a", cgroup: "a", bytes: 64 * MiB, pattern: { kind: "rate", bps: 32 * MiB } }),
      jobDefaults({ ...common, name: "b", cgroup: "b", startNs: 1.5e9, bytes: 256 * MiB, pattern: { kind: "rate", bps: 64 * MiB } }),
    ],
    durationNs: 10e9,
    seriesBinNs: 100e6,
  });
}

const builtins: BlockBuiltin[] = [
  { id: "writeback-sharing", title: "Writeback sharing: owner switch", description: writebackSharing().description!, build: writebackSharing },
];

async function writebackPanels(r: RunResult, sim: Simulation): Promise<Panel[]> {
  const load = Object.values(writebackModule)[0] as (() => Promise<unknown>) | undefined;
  if (!load) return [];
  const report = ((await load()) as { writebackReport?: (sim: Simulation) => WbReport }).writebackReport;
  if (!report) return [];
  const rep = report(sim);
  const panels: Panel[] = [];
  panels.push({
    kind: "callout", id: "wb-verdict", title: rep.enabled ? `cgroup writeback is in effect (${rep.fs})` : `cgroup writeback is not in effect (${rep.fs})`,
    level: rep.enabled ? "ok" : "info", text: rep.why,
  } satisfies CalloutPanel);
  const switches = rep.tracepoints.filter((t) => t.event === "inode_switch_wbs");
  panels.push({
    kind: "table", id: "wb-files", title: "Files and their writeback owner",
    columns: ["file", "owner at the end", "owner switches", "dirty pages left", "writeback passes", "pages written"],
    rows: rep.files.map((f, i) => ({
      key: f.name,
      cells: [f.name, f.owner === null ? "–" : cgLabel(f.owner === "root" ? "" : f.owner), String(switches.filter((s) => s.ino === i || rep.files.length === 1).length),
        String(f.dirtyPages), String(rep.passes), String(rep.pagesWritten)],
    })),
  } satisfies TablePanel);
  // swimlane: one lane per cgroup with its writeback passes; owner switches and syncs on their own lane
  const lanes = new Map<string, LaneEvent[]>();
  const lane = (n: string) => {
    if (!lanes.has(n)) lanes.set(n, []);
    return lanes.get(n)!;
  };
  lane("owner");
  for (const t of rep.tracepoints) {
    if (t.event === "writeback_pass") {
      lane(`wb ${String(t.cgroup)}`).push({ tNs: t.tNs, label: `${String(t.reason)} ${String(t.wrote)} pages`,
        detail: `wrote ${String(t.wrote)} of ${String(t.toWrite)} pages of inode ${String(t.ino)}` });
    } else if (t.event === "inode_switch_wbs") {
      lane("owner").push({ tNs: t.tNs, label: `${String(t.oldCgroup)} → ${String(t.newCgroup)}`, level: "warn",
        detail: `inode ${String(t.ino)} switched wb from ${String(t.oldCgroup)} to ${String(t.newCgroup)}` });
    } else if (t.event === "sync_done") {
      lane("owner").push({ tNs: t.tNs, label: "sync done", detail: `sync ${String(t.sync)} started at ${(Number(t.startNs) / 1e9).toFixed(3)} s` });
    } else if (t.event === "flush_foreign") {
      lane(`wb ${String(t.cgroup)}`).push({ tNs: t.tNs, label: `flush foreign ${String(t.frnCgroup)}`, level: "warn" });
    }
  }
  const sw = switches[0];
  panels.push({
    kind: "swimlane", id: "wb-lanes", title: "Writeback passes and owner switches", endNs: r.simulatedNs,
    lanes: [...lanes.entries()].map(([name, events]) => ({ name, events })),
    marker: sw ? { tNs: sw.tNs, label: `first switch ${(sw.tNs / 1e9).toFixed(2)} s` } : undefined,
  } satisfies SwimlanePanel);
  return panels;
}

export const writebackFamily = blockFamily({
  id: "writeback",
  title: "Writeback ownership",
  missing: async () => (hasControlFile("wb.file") ? undefined : "cgroup writeback ownership is not in this build yet"),
  builtins: async () => builtins,
  extras: writebackPanels,
});
