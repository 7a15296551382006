// What a run leaves behind for a human: Kubernetes events (aggregated as
// client-go's event recorder does, printed as `kubectl events` lists them),
// log lines in each component's klog format, and causal notes the invariant
// checker quotes when it explains a failure.
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
// +3m28.420s, the kubelet's messages are built where they are logged, get
// their klog header and are matched; the attach/detach controller and the
// external attacher ask `wants` first and build none of theirs (other
// components' messages are built and dropped unmatched); the full log has 76
// lines, 29 of them later, and none of those is built. The check holds with that line as its detail, as it would with
// the full log.

import { formatGoDuration } from "../engine/sim.js";

export interface K8sEvent {
  /** simulated ms of the last occurrence (lastTimestamp) */
  t: number;
  /** simulated ms of the first occurrence (firstTimestamp) */
  firstT: number;
  type: "Normal" | "Warning";
  reason: string;
  /** "pod/web-0", "node/node-1", "volumeattachment/csi-..." */
  object: string;
  namespace?: string;
  /** involvedObject.uid: a pod re-created under the same name is another object */
  uid?: string;
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

/** a note whose text is built on first read */
class LazyNote implements Note {
  private built: string | null = null;
  constructor(
    readonly t: number,
    readonly subject: string,
    private make: (() => string) | null,
  ) {}
  get text(): string {
    if (this.built === null) {
      this.built = this.make!();
      this.make = null;
    }
    return this.built;
  }
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
  /**
   * the indices in `events` of each reason's events (client-go's
   * EventCorrelator cache, looked up by reason, a constant whose hash V8
   * keeps, then by comparing the other fields: a key string joining them,
   * message included, cost a build and a hash of ~200 characters per event)
   */
  private byReason = new Map<string, number[]>();
  /** pod UID -> when a kubelet first synced it (its status's startTime; the final objects' view of a pod it never wrote) */
  readonly podSyncedAt = new Map<string, number>();
  /**
   * each process's pid as its klog header prints it (right-aligned in 7
   * columns), and when it started (goTime's m=+): read only by lines, so a
   * run that builds none keeps neither (processStarted)
   */
  private pids: Map<string, string> | undefined;
  private startedAt: Map<string, number> | undefined;
  private nextPid = 1500;
  /** whether lines are built; with needles, until every needle is found */
  on: boolean;
  /** needles to match lines against instead of keeping them (null: keep every line) */
  private readonly needles: readonly LogNeedle[] | null;
  private open: number;
  /** the klog time stamp ("mmdd hh:mm:ss.uuuuuu") of `stampT` */
  private stampT = -1;
  private stamp = "";

  /** `logs`: keep every line (true), none (false), or match them against needles; `events` false: keep no event (a run nothing reads them from) */
  constructor(
    logs: boolean | readonly LogNeedle[],
    readonly clock: WallClock,
    private readonly nowFn: () => number,
    private readonly keepEvents = true,
  ) {
    this.needles = typeof logs === "boolean" ? null : logs;
    this.open = this.needles === null ? 0 : this.needles.length;
    this.on = typeof logs === "boolean" ? logs : this.open > 0;
  }

  podSynced(uid: string, t: number): void {
    if (!this.podSyncedAt.has(uid)) this.podSyncedAt.set(uid, t);
  }

  /**
   * A (re)started process gets a new pid and a new monotonic clock (m=+...).
   * Only lines read them, and a run whose logging is off builds no more lines
   * (`on` never turns on again), so it keeps none.
   */
  processStarted(component: string, pid?: number): void {
    if (!this.on) return;
    this.nextPid += 137 + (this.nextPid % 89);
    (this.pids ??= new Map()).set(component, String(pid ?? this.nextPid).padStart(7));
    (this.startedAt ??= new Map()).set(component, this.nowFn());
  }

  log(component: string, severity: "I" | "W" | "E", src: string, msg: string): true {
    if (this.needles !== null && !this.wanted(component)) return true;
    const t = this.nowFn();
    if (t !== this.stampT) {
      this.stampT = t;
      this.stamp = this.klogStamp(t);
    }
    const text = `${severity}${this.stamp} ${this.pids?.get(component) ?? "      1"} ${src}] ${msg}`;
    if (this.needles !== null) this.match(t, component, severity, text);
    else this.logs.push({ t, component, severity, text });
    return true;
  }

  /** a line that is not klog (a CLI's stderr, a driver's own log) */
  raw(component: string, severity: "I" | "W" | "E", text: string): true {
    if (this.needles !== null) this.match(this.nowFn(), component, severity, text);
    else this.logs.push({ t: this.nowFn(), component, severity, text });
    return true;
  }

  /**
   * Whether a line of `component` is built now: `on`, and with needles, an
   * open one may match it. The attach/detach controller's and the external
   * attacher's call sites ask it before building a message, so a run whose
   * checks name only the kubelet builds none of theirs.
   */
  wants(component: string): boolean {
    return this.on && (this.needles === null || this.wanted(component));
  }

  /** an open needle may match a line of `component` */
  private wanted(component: string): boolean {
    for (const n of this.needles!) if (n.hit === null && (n.component === undefined || component.startsWith(n.component))) return true;
    return false;
  }

  /** the line (t, component, severity, text) against the open needles (its LogLine made only for a hit: most lines match none) */
  private match(t: number, component: string, severity: "I" | "W" | "E", text: string): void {
    const needles = this.needles!;
    let line: LogLine | null = null;
    for (let i = 0; i < needles.length; i++) {
      const n = needles[i]!;
      if (n.hit !== null || (n.component !== undefined && !component.startsWith(n.component)) || !text.includes(n.contains)) continue;
      n.hit = line ??= { t, component, severity, text };
      if (--this.open === 0) this.on = false;
    }
  }

  /**
   * Records an event. As client-go's EventCorrelator (tools/record/
   * events_cache.go, eventObserve / getEventKey, every release 1.10-1.31)
   * does, an event whose source, involved object (kind, namespace, name,
   * UID), type, reason and message equal an earlier one's is not a new
   * Event: the earlier one's count goes up and its lastTimestamp moves. The
   * key has the UID, so a pod deleted and created again under its name gets
   * rows of its own (`kubectl events` shows two `Scheduled` rows, not one
   * `(x2)`). Not modelled: the aggregator that folds 10 similar events with
   * different messages into "(combined from similar events)", the spam
   * filter, and a restarted process starting with an empty cache.
   */
  event(type: "Normal" | "Warning", reason: string, object: string, message: string, source: string, namespace?: string, uid?: string): void {
    if (!this.keepEvents) return;
    const t = this.nowFn();
    let same = this.byReason.get(reason);
    if (same === undefined) this.byReason.set(reason, (same = []));
    for (let k = 0; k < same.length; k++) {
      const i = same[k]!;
      const e = this.events[i]!;
      if (e.object !== object || e.message !== message || e.source !== source || e.type !== type || (e.namespace ?? "") !== (namespace ?? "") || (e.uid ?? "") !== (uid ?? "")) continue;
      e.count++;
      e.t = t;
      this.occurrences.push(t, i);
      return;
    }
    same.push(this.events.length);
    this.events.push({ t, firstT: t, type, reason, object, namespace, uid, message, source, count: 1 });
    this.occurrences.push(t, this.events.length - 1);
  }

  /**
   * A causal note. Notes are read only when a violation's explanation is
   * built (scenario/run.ts, on first read), so a note may be given as a
   * function that builds its text then; it must capture what the text
   * needs at the time of the note.
   */
  note(subject: string, text: string | (() => string)): void {
    this.notes.push(typeof text === "string" ? { t: this.nowFn(), subject, text } : new LazyNote(this.nowFn(), subject, text));
  }

  // ---- time formatting -------------------------------------------------
  //
  // The wall clock of simulated t is local = startUtcMs + t + offset, read as
  // new Date(local) reads it (UTC fields of a time value truncated to whole
  // ms). The date part is the same for every t of a day, so it is formatted
  // once per day (dayOf) and the time of day by integer arithmetic on the ms
  // since midnight, which is what Date's getUTCHours/... compute; a time
  // value outside [0, 8.64e15) (before 1970, or not a valid Date) takes the
  // Date path (dateParts).

  /** the day (days since 1970-01-01) whose parts `day` holds */
  private dayNum = NaN;
  private day: DayParts = { yyyymmdd: "", mmdd: "" };
  /** ` +0800 CST m=+` of goTime (the clock is fixed) */
  private zoneText = "";

  /** the local time value of t (ms), or -1 if the Date path must format it */
  private localMs(t: number): number {
    const x = this.clock.startUtcMs + t + this.clock.offsetMin * 60000;
    return x >= 0 && x < 8.64e15 ? Math.floor(x) : -1;
  }
  private dayOf(ms: number): DayParts {
    const n = Math.floor(ms / 86400000);
    if (n !== this.dayNum) {
      this.dayNum = n;
      this.day = dateParts(new Date(n * 86400000));
    }
    return this.day;
  }
  /** the klog stamp "mmdd hh:mm:ss.uuuuuu" */
  private klogStamp(t: number): string {
    const ms = this.localMs(t);
    if (ms < 0) {
      const d = new Date(this.clock.startUtcMs + t + this.clock.offsetMin * 60000);
      return `${dateParts(d).mmdd} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, "0")}000`;
    }
    const r = ms % 86400000;
    return `${this.dayOf(ms).mmdd} ${hmsOf(r)}.${MS3[r % 1000]}000`;
  }

  /**
   * Go's time.Time String(): 2019-07-08 09:50:14.907753132 +0800 CST m=+247869.135080115.
   * The layout is "2006-01-02 15:04:05.999999999 -0700 MST" (go/src/time/
   * format.go, Time.String): `.999999999` drops trailing zeros of the
   * fraction, and the dot with them when the fraction is zero, so a retry
   * time on a whole millisecond prints as `09:46:31.72 +0800 CST` and one on a
   * whole second as `09:46:32 +0800 CST`; the monotonic reading `m=+91.720000000`
   * always has nine digits (Time.String appends it with its own formatting).
   */
  goTime(t: number, component: string): string {
    if (this.zoneText === "") {
      const off = this.clock.offsetMin;
      const a = Math.abs(off);
      this.zoneText = ` ${off < 0 ? "-" : "+"}${p2(Math.floor(a / 60))}${p2(a % 60)} ${this.clock.zone} m=+`;
    }
    const mono = monoText(t - (this.startedAt?.get(component) ?? 0));
    const ms = this.localMs(t);
    if (ms < 0) {
      const d = new Date(this.clock.startUtcMs + t + this.clock.offsetMin * 60000);
      return `${dateParts(d).yyyymmdd} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}${goFraction(d.getUTCMilliseconds())}${this.zoneText}${mono}`;
    }
    const r = ms % 86400000;
    return `${this.dayOf(ms).yyyymmdd} ${hmsOf(r)}${goFraction(r % 1000)}${this.zoneText}${mono}`;
  }
}

/** a day's date as goTime ("2019-07-08") and the klog stamp ("0708") print it */
interface DayParts {
  yyyymmdd: string;
  mmdd: string;
}
function dateParts(d: Date): DayParts {
  const mm = p2(d.getUTCMonth() + 1);
  const dd = p2(d.getUTCDate());
  return { yyyymmdd: `${d.getUTCFullYear()}-${mm}-${dd}`, mmdd: `${mm}${dd}` };
}
/**
 * (d / 1000).toFixed(9), the monotonic reading of goTime, for d ms since the
 * process started. For a whole d in [0, 1e9) the double d / 1000 is within
 * half an ulp (< 1.2e-10) of the decimal `s.mmm`, so toFixed(9) prints
 * `s.mmm000000`: built from the digits without toFixed's exact
 * binary-to-decimal conversion. Other d: toFixed.
 */
export function monoText(d: number): string {
  if (!(d >= 0 && d < 1e9 && Number.isInteger(d))) return (d / 1000).toFixed(9);
  const r = d % 1000;
  return `${(d - r) / 1000}.${MS3[r]}000000`;
}

/** "hh:mm:ss" of `r` ms since midnight */
function hmsOf(r: number): string {
  const s = Math.floor(r / 1000);
  return `${P2[Math.floor(s / 3600)]}:${P2[Math.floor(s / 60) % 60]}:${P2[s % 60]}`;
}
/** "00".."99" */
const P2: readonly string[] = Array.from({ length: 100 }, (_, i) => p2(i));
/** "000".."999" */
const MS3: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));
/** goFraction of 0..999 */
const GO_FRACTIONS: readonly string[] = Array.from({ length: 1000 }, (_, i) => goFractionOf(i));

/** the fraction of Go's `.999999999` for a whole number of ms (0..999): "", ".72", ".007" */
function goFraction(ms: number): string {
  return GO_FRACTIONS[ms] ?? goFractionOf(ms);
}
function goFractionOf(ms: number): string {
  if (ms === 0) return "";
  let f = String(ms).padStart(3, "0");
  while (f.endsWith("0")) f = f.slice(0, -1);
  return `.${f}`;
}

function p2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * "T+1m05.200s" relative stamp used by the timeline. A whole number of ms in
 * [0, 1e15) is written from its digits: (r / 1000).toFixed(3) of r ms is
 * `s.mmm` there (the double is within half an ulp of that decimal, far from
 * a rounding boundary: see monoText); other times take toFixed.
 */
export function relTime(t: number): string {
  if (t >= 0 && t < 1e15 && Number.isInteger(t)) {
    const r = t % 60000;
    const m = (t - r) / 60000;
    const ms = r % 1000;
    const sec = (r - ms) / 1000;
    return m > 0 ? `${m}m${P2[sec]}.${MS3[ms]}s` : `${sec}.${MS3[ms]}s`;
  }
  const m = Math.floor(t / 60000);
  const s = ((t % 60000) / 1000).toFixed(3).padStart(6, "0");
  return m > 0 ? `${m}m${s}s` : `${(t / 1000).toFixed(3)}s`;
}

/**
 * k8s.io/apimachinery/pkg/util/duration.HumanDuration (the ages kubectl
 * prints): "45s" below 2 min, "3m20s" below 10 min, "25m" below 3 h, then
 * hours and days.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  return `${Math.trunc(hours / 24)}d`;
}

/** the first word of an object ("pod/web-0") as `kubectl events` prints a kind: "Pod/web-0" */
const KINDS: Record<string, string> = { pod: "Pod", node: "Node", volumeattachment: "VolumeAttachment", persistentvolume: "PersistentVolume", persistentvolumeclaim: "PersistentVolumeClaim" };
function kindSlashName(object: string): string {
  const i = object.indexOf("/");
  return i < 0 ? object : `${KINDS[object.slice(0, i)] ?? object.slice(0, i)}${object.slice(i)}`;
}

/**
 * The run's events as `kubectl events` (kubectl 1.26+, staging/src/k8s.io/
 * kubectl/pkg/cmd/events/event_printer.go, printOneEvent / getInterval)
 * lists them at `nowMs` (the end of the run): LAST SEEN, TYPE, REASON,
 * OBJECT (Kind/name), MESSAGE (trimmed, as TrimSpace does: upstream's
 * "AttachVolume.Attach succeeded for volume \"x\" " ends in a space), with
 * NAMESPACE first when the events span more than one (as with `-A`). LAST
 * SEEN is the age of the last occurrence; an aggregated event reads
 * `2m (x3 over 10m)`: last seen 2m ago, 3 times, first 10m ago. Ages are
 * HumanDuration of the time since the timestamp truncated to the second (an
 * Event's timestamps are metav1.Time, whole seconds). Rows are in order of
 * last occurrence, as `kubectl events` sorts them.
 */
export function formatEvents(events: readonly K8sEvent[], nowMs: number): string {
  const age = (t: number): string => humanDuration(nowMs - Math.floor(t / 1000) * 1000);
  const namespaces = new Set(events.map((e) => e.namespace ?? ""));
  const all = namespaces.size > 1;
  const head = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"];
  const rows = [all ? ["NAMESPACE", ...head] : head];
  const sorted = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i);
  for (const { e } of sorted) {
    const row = [e.count > 1 ? `${age(e.t)} (x${e.count} over ${age(e.firstT)})` : age(e.firstT), e.type, e.reason, kindSlashName(e.object), e.message.trim()];
    rows.push(all ? [e.namespace ?? "", ...row] : row);
  }
  // text/tabwriter as kubectl sets it up (cli-runtime printers/tabwriter.go:
  // minwidth 6, padding 3): a column is its widest cell + 3, at least 6
  const w = rows[0]!.map((_, i) => Math.max(6, ...rows.map((r) => r[i]!.length + 3)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]!))).join("")).join("\n");
}

export { formatGoDuration };
