// A plain-language summary of a run, per cgroup and direction: what each
// cgroup got from the device and what held it back.
import { groupDir } from "../report/fio-json.js";
import { percentilesFromPlat } from "../report/percentiles.js";
import type { RunResult } from "../scenario/types.js";
import { resultHash } from "../report/result-hash.js";

const MiB = 1024 * 1024;

export function fmtNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} us`;
  return `${Math.round(ns)} ns`;
}

/**
 * The result's hash (report/result-hash.ts), or why there is none: a run
 * that kept every bio's record can be too large for one JSON text.
 */
export function resultHashOrNote(r: RunResult): string {
  return hashOf(r);
}

function hashOf(r: RunResult): string {
  try {
    return resultHash(r);
  } catch (e) {
    if (e instanceof RangeError) return "(none: the result is too large for one JSON text)";
    throw e;
  }
}

/** One line of the summary: what a cgroup got in one direction and what held it back. */
export interface SummaryRow {
  cgroup: string;
  dir: "read" | "write";
  ios: number;
  bytes: number;
  /** from the first of the cgroup's jobs' starts to its last completion (s) */
  spanS: number;
  mibPerS: number;
  iops: number;
  meanLatNs: number;
  /** over all the cgroup's IOs: its jobs' histograms merged as fio merges a group's, fio's arithmetic */
  p99LatNs: number;
  /** mean time a bio waited in blk-throttle (0: none waited) */
  throttleWaitNs: number;
}

export function summaryRows(r: RunResult): SummaryRow[] {
  const secs = r.simulatedNs / 1e9;
  const rows: SummaryRow[] = [];
  const byCg = new Map<string, RunResult["jobs"]>();
  for (const j of r.jobs) byCg.set(j.cgroup, [...(byCg.get(j.cgroup) ?? []), j]);
  for (const [cg, jobs] of byCg) {
    for (const dir of ["read", "write"] as const) {
      const ios = jobs.reduce((a, j) => a + j[dir].ios, 0);
      if (ios === 0) continue;
      const bytes = jobs.reduce((a, j) => a + j[dir].bytes, 0);
      // from the first of its jobs' starts to the last completion: the jobs of
      // a cgroup may run one after another (startdelay), and one job's
      // runtime would then count all of them in its time
      const busy = jobs.filter((j) => j[dir].ios > 0 && j.lastDoneNs >= 0);
      const from = Math.min(...busy.map((j) => j.startNs));
      const to = Math.max(...busy.map((j) => j.lastDoneNs));
      const span = busy.length && to > from ? (to - from) / 1e9 : secs;
      const mean = jobs.reduce((a, j) => a + j[dir].lat.mean * j[dir].ios, 0) / ios;
      // p99 over all the cgroup's IOs together: its jobs' histograms merged
      // as fio merges a reporting group's (groupDir), then fio's percentile
      // arithmetic on the sum (not the largest job's p99: a cgroup with one
      // slow job of 10 IOs beside a fast one of 10,000 has the fast one's)
      const g = groupDir(jobs, dir);
      const p99 = percentilesFromPlat(g.hist, [99], g.n)[0]?.ns ?? 0;
      const cgr = r.cgroups.find((c) => c.path === cg);
      const waited = cgr ? cgr.throttleWaitNs[dir] : 0;
      rows.push({ cgroup: cg, dir, ios, bytes, spanS: span, mibPerS: bytes / MiB / span, iops: ios / span, meanLatNs: mean, p99LatNs: p99, throttleWaitNs: waited > 0 ? waited / ios : 0 });
    }
  }
  return rows;
}

/** The warnings as one block, printed before any result. */
export function warningBlock(warnings: readonly string[]): string {
  const n = warnings.length;
  return `iosim: ${n} warning${n === 1 ? "" : "s"} (run with --strict to make ${n === 1 ? "it an error" : "them errors"}):\n` + warnings.map((w) => `  ${w}\n`).join("");
}

export function summaryText(r: RunResult, opts: { warningsAbove?: boolean } = {}): string {
  const lines: string[] = [];
  const secs = r.simulatedNs / 1e9;
  lines.push(`${r.scenario}: ${secs.toFixed(3)} s simulated (kernel ${r.kernel}, seed ${r.seed}), ` +
    `${r.events.toLocaleString("en-US")} events in ${r.wallMs.toFixed(0)} ms wall`);
  lines.push(`result sha256 ${hashOf(r)} (the playground shows a run's first 16 digits)`);
  for (const d of r.devices ?? []) if (d.model) lines.push(`device ${d.name} (${d.devno}): ${d.model}`);
  lines.push("");
  lines.push("cgroup                dir     IOs        MiB/s    IOPS      mean lat   p99 lat    throttled");
  for (const x of summaryRows(r)) {
    lines.push(
      `${(x.cgroup || "/").padEnd(21)} ${x.dir.padEnd(6)} ${String(x.ios).padStart(9)} ${x.mibPerS.toFixed(2).padStart(10)} ` +
        `${Math.round(x.iops).toString().padStart(8)}   ${fmtNs(x.meanLatNs).padStart(9)}  ${fmtNs(x.p99LatNs).padStart(9)}  ` +
        `${x.throttleWaitNs > 0 ? `${fmtNs(x.throttleWaitNs)} avg` : "-"}`,
    );
  }
  if (r.warnings.length) {
    lines.push("");
    if (opts.warningsAbove) lines.push(`${r.warnings.length} warning${r.warnings.length === 1 ? "" : "s"}: see the top of this output`);
    else for (const w of r.warnings) lines.push(`warning: ${w}`);
  }
  return lines.join("\n") + "\n";
}

/** The version of summaryJson's shape; docs/summary-json.md describes each version. */
export const SUMMARY_SCHEMA = "iosim-summary/1";

/**
 * iosim's own summary as data (`iosim run --summary-json`, summary.json in
 * --out): what summaryText prints, and io.stat, per-device disk statistics and
 * the warnings. Numbers are plain (ns, bytes, per second); nothing is rounded.
 */
export function summaryJson(r: RunResult, ioStat: Record<string, string>): Record<string, unknown> {
  return {
    schema: SUMMARY_SCHEMA,
    scenario: r.scenario,
    kernel: r.kernel,
    seed: r.seed,
    simulatedNs: r.simulatedNs,
    events: r.events,
    wallMs: r.wallMs,
    resultSha256: hashOf(r),
    warnings: r.warnings,
    cgroups: summaryRows(r),
    ioStat,
    devices: (r.devices ?? []).map((d) => ({ ...d })),
  };
}
