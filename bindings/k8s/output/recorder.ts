// What a run leaves behind for a human: Kubernetes events (the `kubectl get
// events` view), log lines in each component's klog format, and causal notes
// the invariant checker quotes when it explains a failure.
//
// klog header (k8s.io/klog, same as glog): Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
//   L = I/W/E/F, threadid right-aligned in 7 columns. Example from seed 001:
//   E0708 09:50:14.407804   26508 nestedpendingoperations.go:267] Operation for ...
//
// Log lines are only built when logging is on (`on`); the benchmark turns it
// off, and callers guard with `out.on && out.log(...)` so not even the message
// string is formatted.
//
// Between the two, a run can keep only what its log checks need (`log:` and
// `noLog:` expectations and symptoms; the Monte Carlo layer runs this way):
// the recorder is given the checks' needles, keeps no line, and matches each
// line against the needles not yet found. A check is decided by the first
// line that contains its text (from the component it names), exactly as a
// search of the full log would decide it, so once every needle is found
// logging turns off (`on` = false) for the rest of the run.
//
// Worked example: seed 002 (detach-backoff-node-status) on 1.22 with the one
// symptom `log: {contains: "durationBeforeRetry 2m2s", component: kubelet}`.
// Until the kubelet's first nestedpendingoperations line with 2m2s, at
// +3m28.420s, every component's message is built where it is logged, and the
// kubelet's get their klog header and are matched (the others' are dropped
// unmatched); the full log has 76 lines, 29 of them later, and none of those
// is built. The check holds with that line as its detail, as it would with
// the full log.

import { formatGoDuration } from "../engine/sim.js";

export interface K8sEvent {
  /** simulated ms */
  t: number;
  type: "Normal" | "Warning";
  reason: string;
  /** "pod/web-0", "node/node-1", "volumeattachment/csi-..." */
  object: string;
  namespace?: string;
  message: string;
  /** reporting component: "attachdetach-controller", "kubelet" */
  source: string;
  count: number;
}

export interface LogLine {
  t: number;
  component: string;
  severity: "I" | "W" | "E";
  text: string;
}

/** A `log:` / `noLog:` check's text, and the first line that contains it. */
export interface LogNeedle {
  readonly contains: string;
  /** the line's component starts with it (any component if undefined) */
  readonly component: string | undefined;
  hit: LogLine | null;
}

export interface Note {
  t: number;
  subject: string;
  text: string;
}

export interface WallClock {
  /** UTC ms of simulated t = 0 */
  startUtcMs: number;
  /** minutes east of UTC */
  offsetMin: number;
  /** zone abbreviation Go prints, e.g. "CST", "UTC", "-07" */
  zone: string;
}

export class Recorder {
  readonly events: K8sEvent[] = [];
  readonly logs: LogLine[] = [];
  readonly notes: Note[] = [];
  /** every event occurrence before aggregation: pairs (t, index into events) */
  readonly occurrences: number[] = [];
  private pids = new Map<string, number>();
  private startedAt = new Map<string, number>();
  private nextPid = 1500;
  /** whether lines are built; with needles, until every needle is found */
  on: boolean;
  /** needles to match lines against instead of keeping them (null: keep every line) */
  private readonly needles: readonly LogNeedle[] | null;
  private open: number;
  /** the klog time stamp ("mmdd hh:mm:ss.uuuuuu") of `stampT` */
  private stampT = -1;
  private stamp = "";

  /** `logs`: keep every line (true), none (false), or match them against needles */
  constructor(
    logs: boolean | readonly LogNeedle[],
    readonly clock: WallClock,
    private readonly nowFn: () => number,
  ) {
    this.needles = typeof logs === "boolean" ? null : logs;
    this.open = this.needles === null ? 0 : this.needles.length;
    this.on = typeof logs === "boolean" ? logs : this.open > 0;
  }

  /** A (re)started process gets a new pid and a new monotonic clock (m=+...). */
  processStarted(component: string, pid?: number): void {
    this.nextPid += 137 + (this.nextPid % 89);
    this.pids.set(component, pid ?? this.nextPid);
    this.startedAt.set(component, this.nowFn());
  }

  log(component: string, severity: "I" | "W" | "E", src: string, msg: string): true {
    if (this.needles !== null && !this.wanted(component)) return true;
    const t = this.nowFn();
    if (t !== this.stampT) {
      this.stampT = t;
      this.stamp = `${this.mmdd(t)} ${this.hms(t)}`;
    }
    const pid = this.pids.get(component) ?? 1;
    const text = `${severity}${this.stamp} ${String(pid).padStart(7)} ${src}] ${msg}`;
    if (this.needles !== null) this.match({ t, component, severity, text });
    else this.logs.push({ t, component, severity, text });
    return true;
  }

  /** a line that is not klog (a CLI's stderr, a driver's own log) */
  raw(component: string, severity: "I" | "W" | "E", text: string): true {
    const line = { t: this.nowFn(), component, severity, text };
    if (this.needles !== null) this.match(line);
    else this.logs.push(line);
    return true;
  }

  /** an open needle may match a line of `component` */
  private wanted(component: string): boolean {
    for (const n of this.needles!) if (n.hit === null && (n.component === undefined || component.startsWith(n.component))) return true;
    return false;
  }

  private match(line: LogLine): void {
    for (const n of this.needles!) {
      if (n.hit !== null || (n.component !== undefined && !line.component.startsWith(n.component)) || !line.text.includes(n.contains)) continue;
      n.hit = line;
      if (--this.open === 0) this.on = false;
    }
  }

  event(type: "Normal" | "Warning", reason: string, object: string, message: string, source: string, namespace?: string): void {
    const t = this.nowFn();
    // the event recorder aggregates identical events into a count
    for (let i = this.events.length - 1; i >= 0 && i >= this.events.length - 8; i--) {
      const e = this.events[i]!;
      if (e.reason === reason && e.object === object && e.message === message && e.source === source) {
        e.count++;
        e.t = t;
        this.occurrences.push(e.t, i);
        return;
      }
    }
    this.events.push({ t, type, reason, object, namespace, message, source, count: 1 });
    this.occurrences.push(t, this.events.length - 1);
  }

  note(subject: string, text: string): void {
    this.notes.push({ t: this.nowFn(), subject, text });
  }

  // ---- time formatting -------------------------------------------------

  private local(t: number): Date {
    return new Date(this.clock.startUtcMs + t + this.clock.offsetMin * 60000);
  }
  private mmdd(t: number): string {
    const d = this.local(t);
    return `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}`;
  }
  private hms(t: number): string {
    const d = this.local(t);
    return `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, "0")}000`;
  }

  /** Go's time.Time String(): 2019-07-08 09:50:14.907753132 +0800 CST m=+247869.135080115 */
  goTime(t: number, component: string): string {
    const d = this.local(t);
    const off = this.clock.offsetMin;
    const sign = off < 0 ? "-" : "+";
    const a = Math.abs(off);
    const mono = (t - (this.startedAt.get(component) ?? 0)) / 1000;
    return (
      `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ` +
      `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, "0")}000000 ` +
      `${sign}${p2(Math.floor(a / 60))}${p2(a % 60)} ${this.clock.zone} m=+${mono.toFixed(9)}`
    );
  }
}

function p2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** "T+1m05.200s" relative stamp used by the timeline. */
export function relTime(t: number): string {
  const m = Math.floor(t / 60000);
  const s = ((t % 60000) / 1000).toFixed(3).padStart(6, "0");
  return m > 0 ? `${m}m${s}s` : `${(t / 1000).toFixed(3)}s`;
}

/** The `kubectl get events` style table of a run. */
export function formatEvents(events: readonly K8sEvent[]): string {
  const rows = [["TIME", "TYPE", "REASON", "OBJECT", "SOURCE", "MESSAGE"]];
  for (const e of events)
    rows.push([
      `+${relTime(e.t)}`,
      e.type,
      e.reason,
      e.object,
      e.source,
      e.count > 1 ? `${e.message} (x${e.count})` : e.message,
    ]);
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]!))).join("  ")).join("\n");
}

export { formatGoDuration };
