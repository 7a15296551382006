// `iosim k8s versions`: the modelled releases and, per minor, which fix
// switches it has, from versions/fixes.ts (the catalogue) and the profile
// rule (versions/profile.ts inRelease). Also the run summary's pod waits.
//
// Worked example: 1.22's row has 104526 on from 1.22.4, 108167 from 1.22.8,
// 107025 and 111205 from 1.22.14, and 102344 on from 1.22.0; its `patches`
// are [{patch: "1.22.4", on: ["104526"]}, {patch: "1.22.8", on: ["108167"]},
// {patch: "1.22.14", on: ["107025", "111205"]}].

import { relTime } from "../output/recorder.js";
import type { PodWait } from "../scenario/run.js";
import { MODELLED, NOT_MODELLED, REVIEWED } from "./fixes.js";
import { inRelease, MAX_MINOR, MIN_MINOR } from "./profile.js";

export interface VersionRow {
  version: string;
  minor: number;
  /** per switch: on at 1.MINOR.0, or the patch release that turns it on (a cherry-pick), else off */
  switches: Record<string, { on: boolean; from: string | null; offFrom?: string }>;
  /** the patch releases of this minor that turn switches on */
  patches: Array<{ patch: string; on: string[] }>;
  /** catalogued changes not modelled yet that this minor has at .0 */
  cataloguedOnly: string[];
}

export function versionsTable(): VersionRow[] {
  const rows: VersionRow[] = [];
  for (let minor = MIN_MINOR; minor <= MAX_MINOR; minor++) {
    const switches: VersionRow["switches"] = {};
    const byPatch = new Map<number, string[]>();
    for (const e of MODELLED) {
      const at0 = inRelease(e.since, { major: 1, minor, patch: 0 }, e.reverted);
      const revert = e.reverted?.find(([m]) => m === minor);
      const pick = e.since.find(([m, p]) => m === minor && p > 0 && Math.max(...e.since.map((s) => s[0])) > minor);
      const from = !at0 && pick ? `1.${minor}.${pick[1]}` : null;
      if (from !== null) byPatch.set(pick![1], [...(byPatch.get(pick![1]) ?? []), e.id]);
      switches[e.id] = { on: at0, from, ...(at0 && revert ? { offFrom: `1.${minor}.${revert[1]}` } : {}) };
    }
    const patches = [...byPatch.entries()].sort((a, b) => a[0] - b[0]).map(([p, on]) => ({ patch: `1.${minor}.${p}`, on }));
    const cataloguedOnly = NOT_MODELLED.filter((e) => inRelease(e.since, { major: 1, minor, patch: 0 })).map((e) => e.id);
    rows.push({ version: `1.${minor}`, minor, switches, patches, cataloguedOnly });
  }
  return rows;
}

/** the text table: one row per minor, one column per switch ("on", "-", or ".P" = on from patch P) */
export function formatVersions(rows: readonly VersionRow[]): string {
  const ids = MODELLED.map((e) => e.id);
  const head = ids.map((id) => (id.length > 8 ? id.slice(0, 8) : id));
  const w = head.map((h) => Math.max(h.length, 4));
  const lines: string[] = [];
  lines.push(`${"release".padEnd(8)} ${head.map((h, i) => h.padEnd(w[i]!)).join(" ")}`);
  for (const r of rows) {
    const cells = ids.map((id, i) => {
      const s = r.switches[id]!;
      return (s.offFrom ? `x${s.offFrom.slice(s.offFrom.lastIndexOf("."))}` : s.on ? "on" : s.from ? s.from.slice(s.from.lastIndexOf(".")) : "-").padEnd(w[i]!);
    });
    lines.push(`${r.version.padEnd(8)} ${cells.join(" ")}`);
  }
  lines.push("");
  lines.push(`on: in 1.MINOR.0; .P: from patch 1.MINOR.P (a cherry-pick); x.P: in 1.MINOR.0, off again from 1.MINOR.P (a revert); -: off (switch it with --fix ID=on|off)`);
  for (const e of MODELLED) lines.push(`  ${e.id.padEnd(33)} ${e.side.padEnd(10)} ${e.title}`);
  lines.push(`${countsSentence()} (docs/k8s-fixes.md says why)`);
  return lines.join("\n");
}

/** "33 switches; 4 reviewed and not switches; 4 catalogued changes not modelled yet" (the README gives the same counts) */
export function countsSentence(): string {
  const parts = [`${MODELLED.length} switches`, `${REVIEWED.length} reviewed and not switches`];
  if (NOT_MODELLED.length > 0) parts.push(`${NOT_MODELLED.length} catalogued changes not modelled yet`);
  return parts.join("; ");
}

/** `k8s run`'s pod lines: how long each pod waited */
export function formatPodWaits(ws: readonly PodWait[]): string {
  return ws
    .map((w) => {
      const where = w.node ? ` on ${w.node}` : "";
      const cc = w.containerCreatingMs === null ? "never synced by a kubelet" : `ContainerCreating ${relTime(w.containerCreatingMs)}`;
      if (w.state === "running") return `  ${w.pod}${where}: Running at +${relTime(w.runningAt!)}, ${relTime(w.waitedMs)} after its creation (${cc})`;
      if (w.state === "deleted") return `  ${w.pod}${where}: deleted at +${relTime(w.createdAt + w.waitedMs)} without running, after ${relTime(w.waitedMs)} (${cc})`;
      return `  ${w.pod}${where}: still waiting at the end, ${relTime(w.waitedMs)} after its creation (${cc})`;
    })
    .join("\n");
}
