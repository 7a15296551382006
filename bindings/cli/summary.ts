// A plain-language summary of a run, per cgroup and direction: what each
// cgroup got from the device and what held it back.
import { groupDir } from "../report/fio-json.js";
import { percentilesFromPlat } from "../report/percentiles.js";
import type { RunResult, Scenario } from "../scenario/types.js";
import { resultHash } from "../report/result-hash.js";
import { FIO_PLAT_TOP_NS } from "../scenario/lint.js";
import { grouped } from "../util/grouped.js";

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
  /** the p99 is in fio's last histogram bucket (17.11 s): the true one is at least p99LatNs, maybe far more */
  p99PastHistogram: boolean;
}

/** The p99 column: `>17.11 s` where fio's histogram ends below the cgroup's p99. */
export const p99Text = (row: SummaryRow): string => (row.p99PastHistogram ? `>${fmtNs(row.p99LatNs)}` : fmtNs(row.p99LatNs));

/**
 * Why a row's mean can sit above its p99, said under the table rather than
 * left to look like a statistics bug. Two causes, both true of the run:
 *  * fio's histogram ends at 17.11 s (FIO_PLAT_TOP_NS): a p99 past it reads
 *    back as 17.11 s (the column shows `>17.11 s`; the warning above the
 *    results gives each job's true p99 from iosim's own records);
 *  * a rare long tail: under 1 % of IOs far slower than the rest (an io.max
 *    cgroup whose 100 ms throtl_slice allowance is spent early in the slice,
 *    its IOs in flight then waiting for the next one, is one): the p99 leaves them
 *    out, the mean counts them. The note gives the p99.9 (fio's arithmetic on
 *    the same merged histogram) and the largest latency, which show the tail.
 * Worked example (docs/scenario-format.md's my.yaml): "note: db read: the mean
 * (650.0 us) is above the p99 (493.6 us): under 1 % of its IOs are far slower
 * (p99.9 82.31 ms, max 85.85 ms); the p99 leaves them out, the mean counts them".
 */
export function tailNotes(r: RunResult): string[] {
  const notes: string[] = [];
  const byCg = new Map<string, RunResult["jobs"]>();
  for (const j of r.jobs) byCg.set(j.cgroup, [...(byCg.get(j.cgroup) ?? []), j]);
  for (const row of summaryRows(r)) {
    const name = row.cgroup || "/";
    const g = groupDir(byCg.get(row.cgroup) ?? [], row.dir);
    if (row.p99PastHistogram) {
      notes.push(
        `note: ${name} ${row.dir}: the p99 is past fio's latency histogram, which ends at ${fmtNs(FIO_PLAT_TOP_NS)} (latencies reach ${fmtNs(g.max)}): ` +
          `the table shows >${fmtNs(row.p99LatNs)}; the warnings give each job's true p99 from iosim's own records`,
      );
    } else if (row.meanLatNs > row.p99LatNs) {
      const p999 = percentilesFromPlat(g.hist, [99.9], g.n)[0]?.ns;
      notes.push(
        `note: ${name} ${row.dir}: the mean (${fmtNs(row.meanLatNs)}) is above the p99 (${fmtNs(row.p99LatNs)}): under 1 % of its IOs are far slower ` +
          `(${p999 !== undefined ? `p99.9 ${fmtNs(p999)}, ` : ""}max ${fmtNs(g.max)}); the p99 leaves them out, the mean counts them`,
      );
    }
  }
  return notes;
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
      rows.push({ cgroup: cg, dir, ios, bytes, spanS: span, mibPerS: bytes / MiB / span, iops: ios / span, meanLatNs: mean, p99LatNs: p99, throttleWaitNs: waited > 0 ? waited / ios : 0, p99PastHistogram: p99 >= FIO_PLAT_TOP_NS });
    }
  }
  return rows;
}

/** The warnings as one block, printed before any result. */
export function warningBlock(warnings: readonly string[]): string {
  const n = warnings.length;
  return `iosim: ${n} warning${n === 1 ? "" : "s"} (run with --strict to make ${n === 1 ? "it an error" : "them errors"}):\n` + warnings.map((w) => `  ${w}\n`).join("");
}

type CapKey = "rbps" | "wbps" | "riops" | "wiops";

/** io.max values set at t = 0 (the scenario's cgroup files), per cgroup path, per devno: numbers only ("max" is none) */
function ioMaxAtStart(s: Scenario): Map<string, Map<string, Partial<Record<CapKey, number>>>> {
  const out = new Map<string, Map<string, Partial<Record<CapKey, number>>>>();
  for (const g of s.cgroups) {
    const v = g.files?.["io.max"];
    if (!v) continue;
    const per = new Map<string, Partial<Record<CapKey, number>>>();
    for (const line of v.split("\n")) {
      const m = /^\s*(\d+:\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      const caps = per.get(m[1]!) ?? {};
      for (const t of m[2]!.trim().split(/\s+/)) {
        const kv = /^(rbps|wbps|riops|wiops)=(\d+)$/.exec(t);
        if (kv) caps[kv[1] as CapKey] = Number(kv[2]);
      }
      per.set(m[1]!, caps);
    }
    out.set(g.path.replace(/^\/+|\/+$/g, ""), per);
  }
  return out;
}

/**
 * Why a cgroup's reported IOPS or MiB/s can be above its io.max: the first
 * slice's burst. blk-throttle allows `limit * roundup(elapsed + 1, slice) /
 * HZ` (iops; bps likewise), so a fresh slice admits a whole slice's worth at
 * once - riops/10 IOs, rbps/10 bytes with the 100 ms throtl_slice (HZ/10) of
 * every modelled kernel (6.1 without CONFIG_BLK_DEV_THROTTLING_LOW, 6.12.117
 * and 6.18: DFL_THROTL_SLICE) - and over a short run that burst does not
 * average away. One note per row whose rate is above the lowest cap on its
 * cgroup or an ancestor for the device its jobs use (io.max at t = 0; rows
 * whose limits a timed write changes are left alone) and within what the
 * burst explains.
 */
export function capNotes(r: RunResult, s: Scenario): string[] {
  const caps = ioMaxAtStart(s);
  if (caps.size === 0) return [];
  const changed = new Set(s.writes.filter((w) => w.file === "io.max").map((w) => w.cgroup.replace(/^\/+|\/+$/g, "")));
  const devnoOf = new Map(s.devices.map((d) => [d.name, d.devno]));
  const hz = s.clock.hz;
  const sliceJ = (s as Scenario & { throttle?: { sliceJiffies?: number } }).throttle?.sliceJiffies || Math.floor(hz / 10);
  const sliceS = sliceJ / hz;
  const notes: string[] = [];
  for (const row of summaryRows(r)) {
    const cg = row.cgroup.replace(/^\/+|\/+$/g, "");
    const devs = new Set(s.jobs.filter((j) => j.cgroup.replace(/^\/+|\/+$/g, "") === cg).map((j) => devnoOf.get(j.device)));
    if (devs.size !== 1) continue;
    const devno = [...devs][0];
    if (!devno) continue;
    const chain: string[] = [];
    for (let p = cg; p; p = p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "") chain.push(p);
    if (chain.some((p) => changed.has(p))) continue;
    for (const [key, rate, unit] of [
      [row.dir === "read" ? "riops" : "wiops", row.iops, "IOPS"],
      [row.dir === "read" ? "rbps" : "wbps", row.mibPerS * MiB, "B/s"],
    ] as Array<[CapKey, number, string]>) {
      let cap = Infinity;
      let at = "";
      for (const p of chain) {
        const c = caps.get(p)?.get(devno)?.[key];
        if (c !== undefined && c < cap) {
          cap = c;
          at = p;
        }
      }
      if (!Number.isFinite(cap) || rate <= cap * 1.0005) continue;
      const burst = Math.floor((cap * sliceJ) / hz);
      // what a cap and one slice's burst allow over the row's span (and one more slice of rounding)
      if (rate > (cap * row.spanS + 2 * burst) / row.spanS) continue;
      const shown = unit === "IOPS" ? `${Math.round(rate)} IOPS` : `${(rate / MiB).toFixed(2)} MiB/s`;
      const capShown = unit === "IOPS" ? `${key}=${cap}` : `${key}=${cap} (${(cap / MiB).toFixed(2)} MiB/s)`;
      notes.push(
        `note: ${cg || "/"} ${row.dir}: ${shown} is above io.max ${capShown}${at !== cg ? ` (set on ${at})` : ""}: blk-throttle lets the first slice's ` +
          `whole allowance through at once (throtl_slice ${Math.round(sliceS * 1000)} ms = ${sliceJ === Math.floor(hz / 10) ? "HZ/10" : `${sliceJ} jiffies`} on kernel ${s.kernel}: ` +
          `${burst} ${unit === "IOPS" ? "IOs" : "bytes"} before the first wait), and ${row.spanS.toFixed(3)} s of IO does not average that burst away; a longer run tends to the cap`,
      );
    }
  }
  return notes;
}

export function summaryText(r: RunResult, opts: { warningsAbove?: boolean; scenario?: Scenario } = {}): string {
  const lines: string[] = [];
  const secs = r.simulatedNs / 1e9;
  lines.push(`${r.scenario}: ${secs.toFixed(3)} s simulated (kernel ${r.kernel}, seed ${r.seed}), ` +
    `${grouped(r.events)} events in ${r.wallMs.toFixed(0)} ms wall`);
  lines.push(`result sha256 ${hashOf(r)} (the playground shows a run's first 16 digits)`);
  for (const d of r.devices ?? []) if (d.model) lines.push(`device ${d.name} (${d.devno}): ${d.model}`);
  lines.push("");
  lines.push("cgroup                dir     IOs        MiB/s    IOPS      mean lat   p99 lat    throttled");
  for (const x of summaryRows(r)) {
    lines.push(
      `${(x.cgroup || "/").padEnd(21)} ${x.dir.padEnd(6)} ${String(x.ios).padStart(9)} ${x.mibPerS.toFixed(2).padStart(10)} ` +
        `${Math.round(x.iops).toString().padStart(8)}   ${fmtNs(x.meanLatNs).padStart(9)}  ${p99Text(x).padStart(9)}  ` +
        `${x.throttleWaitNs > 0 ? `${fmtNs(x.throttleWaitNs)} avg` : "-"}`,
    );
  }
  const notes = [...tailNotes(r), ...(opts.scenario ? capNotes(r, opts.scenario) : [])];
  if (notes.length) lines.push("", ...notes);
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
export function summaryJson(r: RunResult, ioStat: Record<string, string>, scenario?: Scenario): Record<string, unknown> {
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
    notes: [...tailNotes(r), ...(scenario ? capNotes(r, scenario) : [])],
    cgroups: summaryRows(r),
    ioStat,
    devices: (r.devices ?? []).map((d) => ({ ...d })),
  };
}
