// Where two runs of one scenario (two versions, or a fix on and off) part ways.
//
// "Where they diverge" is the first point after which the two runs differ: the
// first event, or log line, that one run has and the other has not, or has
// otherwise, or has at another simulated time. Comparing the n-th line of one
// run with the n-th of the other (what this file did first) gets that wrong as
// soon as one run has one extra line: detach-backoff-node-status 1.23 logs a
// node-status update at +1m12.120s that 1.22 does not, and the positional
// comparison reported 1.22's next line (the kubelet's SyncLoop ADD, which both
// runs have) as the difference.
//
// So each run's events and log lines are aligned as a text diff does, by a
// longest common subsequence over a normalised form of each line,
// where two lines are "the same" when they say the same thing:
//   - log lines without the klog header's date, time and thread id, and
//     without the line number after file.go: (it moves between releases, the
//     message is what a user matches);
//   - absolute times inside a message (Go's Time.String in "No retries
//     permitted until 2020-02-26 18:01:20.62 +0800 CST m=+80.620000000", RFC
//     3339 stamps) and object UIDs (PRNG draws, shifted by any earlier
//     difference in draws) replaced by a placeholder, and v1.MINOR.PATCH by
//     v1.x (the "Kubelet version" line says which release runs, not how it
//     behaves);
//   - the simulated time is not part of the key: a line both runs print at
//     different times is matched, and the first such pair is itself a
//     divergence ("differs", at another time), unless an earlier one was found.
// The first place where the alignment has lines of one run only ("only in A",
// "only in B"), lines of each side in the same gap ("differs"), or a matched
// pair at different times ("differs", same text) is reported with its
// simulated time, the lines of that gap (at most MAX_HUNK_LINES of each side)
// and CONTEXT common lines before and after it; the counts of every gap
// follow. Durations (durationBeforeRetry 2m2s), names and every other word
// stay in the key: a different backoff is a different behaviour.
//
// The alignment is the textbook O(N·M) table over what is left once the
// common prefix and suffix are set aside. When that is more than MAX_CELLS
// (some 4,000 lines of each run after the first divergence), only a window
// from the first divergence on is aligned and the rest of both runs counts as
// one last gap: the first divergence, what the command reports, is exact.

import type { K8sRunResult } from "./scenario/run.js";
import { relTime } from "./output/recorder.js";
import { resolveProfile } from "./versions/profile.js";

/** common lines shown before and after the first divergence */
export const CONTEXT = 3;
/** lines of each side shown from the first gap */
export const MAX_HUNK_LINES = 6;
/** cells of the alignment table (4 bytes each) at most: 4,000 x 4,000 lines */
export const MAX_CELLS = 16_000_000;

export interface K8sDiffLine {
  /** simulated ms */
  t: number;
  /** index in that run's events (occurrences) or log lines */
  index: number;
  /** as shown: "+1m12.120s kube-controller-manager I node_status_updater.go:146] Updating ..." */
  text: string;
}

export interface K8sDivergence {
  /**
   * onlyA: lines run A has and B has not, where B goes on as A does after them;
   * onlyB: the reverse; differs: each run has its own lines there, or (sameText)
   * both have the line at different simulated times
   */
  kind: "onlyA" | "onlyB" | "differs";
  /** true when the lines match but their simulated times differ */
  sameText: boolean;
  /** simulated ms of the divergence: the earliest line of the gap */
  t: number;
  /** the gap's lines in each run (at most MAX_HUNK_LINES; aLines/bLines count all) */
  a: K8sDiffLine[];
  b: K8sDiffLine[];
  aLines: number;
  bLines: number;
  /** common lines (as run A has them) just before and just after the gap */
  before: K8sDiffLine[];
  after: K8sDiffLine[];
  /** over both whole runs: places that differ, lines in one run only */
  gaps: number;
  onlyInA: number;
  onlyInB: number;
  /** matched lines at different simulated times */
  shifted: number;
}

export interface K8sDiff {
  a: string;
  b: string;
  /** the first divergence of the event timelines (every occurrence, before aggregation); null if they agree */
  events: K8sDivergence | null;
  /** the first divergence of the log lines; null if they agree */
  logs: K8sDivergence | null;
  violationsA: string[];
  violationsB: string[];
  /**
   * (k8s-releases) what the diff leads with: the first divergence of the
   * events (behaviour a user sees), else of the logs; null if both agree
   */
  first: { part: "events" | "logs"; t: number } | null;
  /**
   * (k8s-releases) the log formats A and B differ in (klog structured logs,
   * the controller's log era, the nestedpendingoperations key), or null: a
   * log divergence between such releases can be formatting alone
   */
  logFormats: string | null;
}

type Occ = K8sRunResult["occurrences"][number];
type Line = { t: number; key: string; text: string };

const UID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
/** Go's Time.String (with the monotonic m=±...), and RFC 3339 */
const GO_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \S+( m=[+-][\d.]+)?/g;
const RFC3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;
const KLOG_HEADER = /^([IWE])\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ /;
const FILE_LINE = /^([IWE] [\w.-]+\.go):\d+\]/;

function normalise(s: string): string {
  return s.replace(GO_TIME, "<time>").replace(RFC3339, "<time>").replace(UID, "<uid>").replace(/v1\.\d+\.\d+/g, "v1.x");
}

function eventLine(o: Occ): Line {
  const body = `${o.event.type} ${o.event.reason} ${o.event.object}: ${o.event.message}`;
  return { t: o.t, key: normalise(body), text: `+${relTime(o.t)} ${body}` };
}

function logLine(l: K8sRunResult["logs"][number]): Line {
  const shown = l.text.replace(KLOG_HEADER, "$1 ");
  return { t: l.t, key: `${l.component} ${normalise(shown).replace(FILE_LINE, "$1]")}`, text: `+${relTime(l.t)} ${l.component} ${shown}` };
}

/** One step of the alignment: a pair of equal lines, or a line of one run only. */
type Op = { i: number; j: number } | { i: number; j: -1 } | { i: -1; j: number };

/**
 * A longest common subsequence of the keys (dynamic programming), with the
 * common prefix and suffix matched first, as an edit script.
 */
export function alignKeys(a: readonly string[], b: readonly string[], maxCells = MAX_CELLS): Op[] {
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) lo++;
  let ea = a.length;
  let eb = b.length;
  while (ea > lo && eb > lo && a[ea - 1] === b[eb - 1]) {
    ea--;
    eb--;
  }
  const ops: Op[] = [];
  for (let k = 0; k < lo; k++) ops.push({ i: k, j: k });
  const n = ea - lo;
  const m = eb - lo;
  const mid = middle(n, m, (x, y) => a[lo + x] === b[lo + y], maxCells);
  for (const o of mid) ops.push(o.j < 0 ? { i: lo + o.i, j: -1 } : o.i < 0 ? { i: -1, j: lo + o.j } : { i: lo + o.i, j: lo + o.j });
  for (let k = 0; ea + k < a.length; k++) ops.push({ i: ea + k, j: eb + k });
  return ops;
}

function middle(n: number, m: number, eq: (x: number, y: number) => boolean, maxCells: number): Op[] {
  // a window of at most maxCells cells from the start of the differing part
  let nw = n;
  let mw = m;
  if (nw * mw > maxCells) {
    const side = Math.floor(Math.sqrt(maxCells));
    nw = Math.min(n, Math.max(side, Math.floor(maxCells / Math.min(m, side))));
    mw = Math.min(m, Math.floor(maxCells / nw));
  }
  // L[x][y]: length of a longest common subsequence of a[x..nw) and b[y..mw)
  const w = mw + 1;
  const L = new Uint32Array((nw + 1) * w);
  for (let x = nw - 1; x >= 0; x--)
    for (let y = mw - 1; y >= 0; y--)
      L[x * w + y] = eq(x, y) ? L[(x + 1) * w + y + 1]! + 1 : Math.max(L[(x + 1) * w + y]!, L[x * w + y + 1]!);
  const r: Op[] = [];
  let x = 0;
  let y = 0;
  while (x < nw && y < mw) {
    if (eq(x, y) && L[x * w + y] === L[(x + 1) * w + y + 1]! + 1) r.push({ i: x++, j: y++ });
    // within a gap, run A's lines first, as diff prints them
    else if (L[(x + 1) * w + y]! >= L[x * w + y + 1]!) r.push({ i: x++, j: -1 });
    else r.push({ i: -1, j: y++ });
  }
  for (; x < n; x++) r.push({ i: x, j: -1 });
  for (; y < m; y++) r.push({ i: -1, j: y });
  return r;
}

function divergence(la: readonly Line[], lb: readonly Line[]): K8sDivergence | null {
  const ops = alignKeys(
    la.map((l) => l.key),
    lb.map((l) => l.key),
  );
  const show = (l: Line, index: number): K8sDiffLine => ({ t: l.t, index, text: l.text });
  let gaps = 0;
  let onlyInA = 0;
  let onlyInB = 0;
  let shifted = 0;
  let first: K8sDivergence | null = null;
  for (let p = 0; p < ops.length; ) {
    const o = ops[p]!;
    if (o.i >= 0 && o.j >= 0) {
      if (la[o.i]!.t !== lb[o.j]!.t) {
        shifted++;
        first ??= {
          kind: "differs",
          sameText: true,
          t: Math.min(la[o.i]!.t, lb[o.j]!.t),
          a: [show(la[o.i]!, o.i)],
          b: [show(lb[o.j]!, o.j)],
          aLines: 1,
          bLines: 1,
          before: context(ops, p, -1, la, show),
          after: context(ops, p + 1, 1, la, show),
          gaps: 0,
          onlyInA: 0,
          onlyInB: 0,
          shifted: 0,
        };
      }
      p++;
      continue;
    }
    // a gap: the run of unmatched lines up to the next matched pair
    const start = p;
    const ga: number[] = [];
    const gb: number[] = [];
    while (p < ops.length && (ops[p]!.i < 0 || ops[p]!.j < 0)) {
      const g = ops[p]!;
      if (g.j < 0) ga.push(g.i);
      else gb.push(g.j);
      p++;
    }
    gaps++;
    onlyInA += ga.length;
    onlyInB += gb.length;
    if (first) continue;
    const times = [...ga.map((i) => la[i]!.t), ...gb.map((j) => lb[j]!.t)];
    first = {
      kind: gb.length === 0 ? "onlyA" : ga.length === 0 ? "onlyB" : "differs",
      sameText: false,
      t: Math.min(...times.slice(0, MAX_HUNK_LINES * 2)),
      a: ga.slice(0, MAX_HUNK_LINES).map((i) => show(la[i]!, i)),
      b: gb.slice(0, MAX_HUNK_LINES).map((j) => show(lb[j]!, j)),
      aLines: ga.length,
      bLines: gb.length,
      before: context(ops, start, -1, la, show),
      after: context(ops, p, 1, la, show),
      gaps: 0,
      onlyInA: 0,
      onlyInB: 0,
      shifted: 0,
    };
  }
  if (!first) return null;
  return Object.assign(first, { gaps, onlyInA, onlyInB, shifted });
}

/** up to CONTEXT matched lines before ops[from] (dir -1) or from ops[from] on (dir 1), as run A has them */
function context(ops: readonly Op[], from: number, dir: 1 | -1, la: readonly Line[], show: (l: Line, i: number) => K8sDiffLine): K8sDiffLine[] {
  const r: K8sDiffLine[] = [];
  for (let p = dir < 0 ? from - 1 : from; p >= 0 && p < ops.length && r.length < CONTEXT; p += dir) {
    const o = ops[p]!;
    if (o.i >= 0 && o.j >= 0) r.push(show(la[o.i]!, o.i));
  }
  return dir < 0 ? r.reverse() : r;
}

export function diffK8sRuns(a: K8sRunResult, b: K8sRunResult): K8sDiff {
  const events = divergence(a.occurrences.map(eventLine), b.occurrences.map(eventLine));
  const logs = divergence(a.logs.map(logLine), b.logs.map(logLine));
  const [la, lb] = runLabels(a, b);
  return {
    a: la,
    b: lb,
    events,
    logs,
    violationsA: a.violations.map((v) => v.name),
    violationsB: b.violations.map((v) => v.name),
    first: events ? { part: "events", t: events.t } : logs ? { part: "logs", t: logs.t } : null,
    logFormats: logFormatsDiffer(a.version, b.version),
  };
}

/** each run's label: its version, and the switches that differ from the other run's (`1.30.0 +disable-force-detach-on-timeout`) */
function runLabels(a: K8sRunResult, b: K8sRunResult): [string, string] {
  const fa = (a.fixes ?? {}) as Record<string, boolean>, fb = (b.fixes ?? {}) as Record<string, boolean>;
  const da: string[] = [], db: string[] = [];
  for (const id of Object.keys(fa)) {
    if (fa[id] === fb[id]) continue;
    // a switch the versions differ in anyway is not worth naming when the versions differ
    if (a.version !== b.version && fa[id] === (resolveProfile(a.version).fix as Record<string, boolean>)[id] && fb[id] === (resolveProfile(b.version).fix as Record<string, boolean>)[id]) continue;
    da.push(`${fa[id] ? "+" : "-"}${id}`);
    db.push(`${fb[id] ? "+" : "-"}${id}`);
  }
  return [da.length ? `${a.version} ${da.join(" ")}` : a.version, db.length ? `${b.version} ${db.join(" ")}` : b.version];
}

/** the log formats two releases differ in (versions/profile.ts), or null */
function logFormatsDiffer(va: string, vb: string): string | null {
  let pa, pb;
  try {
    pa = resolveProfile(va);
    pb = resolveProfile(vb);
  } catch {
    return null; // (a result made by hand, not by a run)
  }
  const d: string[] = [];
  if (pa.structuredLogs !== pb.structuredLogs) d.push("the kubelet's klog structured logs (1.21+)");
  if (pa.adcLogs !== pb.adcLogs) d.push(`the attach/detach controller's log era (${pa.adcLogs} vs ${pb.adcLogs})`);
  if (pa.npoKeyStruct !== pb.npoKeyStruct) d.push("the nestedpendingoperations key (a struct after 1.18)");
  if (pa.npoErrorQuoted !== pb.npoErrorQuoted) d.push("quoted errors (up to 1.21)");
  if (pa.era !== pb.era) d.push("the klog era");
  return d.length ? d.join(", ") : null;
}

/** The diff as `iosim k8s diff` prints it. */
export function formatK8sDiff(d: K8sDiff, scenario: string): string {
  const out: string[] = [`${scenario}: ${d.a} (A) vs ${d.b} (B)`];
  // the lead: the first behaviour difference (events) before any log formatting
  if (d.first === null) out.push("no difference in events or logs");
  else if (d.first.part === "events") out.push(`first difference: events at +${relTime(d.first.t)}${d.logs && d.logs.t < d.first.t ? ` (the logs part earlier, at +${relTime(d.logs.t)})` : ""}`);
  else out.push(`first difference: events identical; logs at +${relTime(d.first.t)}`);
  if (d.logFormats !== null && d.logs) out.push(`note: A and B log in different formats (${d.logFormats}); a log divergence can be formatting alone, the events are not`);
  const part = (what: string, x: K8sDivergence | null): void => {
    if (!x) {
      out.push(`\n${what}: identical`);
      return;
    }
    const head =
      x.sameText
        ? `the same line ${x.b[0]!.t > x.a[0]!.t ? "later" : "earlier"} in B (${relTime(Math.abs(x.b[0]!.t - x.a[0]!.t))})`
        : x.kind === "onlyA"
          ? `${x.aLines} line${x.aLines === 1 ? "" : "s"} only in A (${d.a})`
          : x.kind === "onlyB"
            ? `${x.bLines} line${x.bLines === 1 ? "" : "s"} only in B (${d.b})`
            : `A has ${x.aLines} line${x.aLines === 1 ? "" : "s"}, B has ${x.bLines} other${x.bLines === 1 ? "" : "s"}`;
    out.push(`\n${what}: first divergence at +${relTime(x.t)}: ${head}`);
    for (const l of x.before) out.push(`    ${l.text}`);
    for (const l of x.a) out.push(`  A ${l.text}`);
    if (x.aLines > x.a.length) out.push(`  A ... ${x.aLines - x.a.length} more`);
    for (const l of x.b) out.push(`  B ${l.text}`);
    if (x.bLines > x.b.length) out.push(`  B ... ${x.bLines - x.b.length} more`);
    for (const l of x.after) out.push(`    ${l.text}`);
    out.push(`  over the whole run: ${x.gaps} ${x.gaps === 1 ? "place differs" : "places differ"}, ${x.onlyInA} line${x.onlyInA === 1 ? "" : "s"} only in A, ${x.onlyInB} only in B, ${x.shifted} the same at other times`);
  };
  part("events", d.events);
  part("logs", d.logs);
  out.push("");
  out.push(`violations A (${d.a}): ${d.violationsA.join(", ") || "none"}`);
  out.push(`violations B (${d.b}): ${d.violationsB.join(", ") || "none"}`);
  return out.join("\n");
}
