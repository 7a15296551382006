// Readers for real-kernel blk-throttle traces, into one shape.
//
// Two formats are understood (a user who records their own kernel in either
// gets the same replay and comparison):
//
//  * "throtl" (oracle/throtl/traces/<scenario>/run<k>.jsonl): line 1 is a
//    header with the scenario, device, cgroups, limit writes (`limits_written`
//    with `t_ns`, mid-run `events` with `write_return_ns`) and the jiffies map
//    jiffies(t) = floor((t0_mono_ns + t - grid_offset_ns) / tick_ns) + offset;
//    then one record per IO (job, seq, thread, dir, off, size, submit_ns,
//    complete_ns, ret), times relative to t0. cgroup v1 blkio.throttle files;
//    a trace of `iosim record` (bindings/record) may say `cgroup_version: 2`
//    and name each write's `file` and `value` as written (io.max, io.cost.*).
//  * "guest-iomax" (oracle/guest/traces/iomax*.jsonl): a "test" header, per
//    case a "case" record (io.max limit, set_ns = when the write returned) and
//    its "io" records (absolute CLOCK_MONOTONIC ns). cgroup v2 io.max. No
//    jiffies map is recorded: the tick phase is estimated from the trace
//    (estimateTickPhase below).
//
// Every error names the file, the line and the field.

import { shown } from "../util/shown.js";
import { InputError } from "../scenario/errors.js";
import type { KernelVersion } from "../scenario/types.js";

export interface RecordedIo {
  job: string;
  seq: number;
  thread: number;
  cgroup: string;
  dir: "R" | "W";
  off: number;
  size: number;
  submitNs: number;
  completeNs: number;
  line: number;
  /**
   * When the guest got to it, if later than submitNs (buffered reads under io.cost: the
   * block_bio_queue of the readahead bio it submitted); the replay submits it then.
   */
  enterNs?: number;
}

export interface LimitWrite {
  atNs: number;
  cgroup: string;
  file: string;
  value: string;
  line: number;
}

/** Jiffies in trace time: jiffies(t) = jiffiesAtOrigin + floor((t + originAfterTickNs) / tickNs). */
export interface TraceClock {
  hz: number;
  tickNs: number;
  jiffiesAtOrigin: bigint;
  originAfterTickNs: number;
  /** "header" (recorded map), "estimated" (from release clustering), "calibrated" (by replay, see calibrateClock) */
  source: "header" | "estimated" | "calibrated";
}

export interface TracePart {
  /** e.g. the guest case name; the whole trace for single-scenario traces */
  name: string;
  cgroups: string[];
}

export interface RecordedTrace {
  kind: "throtl" | "guest-iomax" | "guest-bufread";
  file: string;
  name: string;
  kernel: KernelVersion;
  kernelString: string;
  cgroupVersion: 1 | 2;
  device: { name: string; devno: string; maxSectorsKb: number; rotational: boolean; nrRequests: number; latencyNs?: number;
    /** a device fitted to the trace's own requests: mean issue-to-complete ns and the log-normal
     *  spread (sigma of ln) around it, as service time on 256 channels (no fixed latency) */
    fit?: { meanNs: number; sigma: number } };
  /** cgroup paths, parents before children */
  cgroups: string[];
  writes: LimitWrite[];
  ios: RecordedIo[];
  clock: TraceClock;
  parts: TracePart[];
  header: Record<string, unknown>;
  /** buffered reads (guest bufread traces): the jobs read through the page cache */
  pageCache?: {
    readAheadKb: number;
    sizeBytes: number;
    /** per job: its file's posix_fadvise */
    fadvise: Record<string, "none" | "sequential" | "random">;
    /** per job: the recorded driver time of its k-th readahead bio (ns, -1 unknown) */
    raServiceNs?: Record<string, number[]>;
    /** per job: the recorded dispatch delay of its k-th readahead bio (ns, 0 none; JobSpec.readaheadCpuNs) */
    raCpuNs?: Record<string, number[]>;
    /** stalls of the emulated guest, [from, to) trace ns: io.cost's timers due inside run at the end */
    guestStallsNs?: Array<[number, number]>;
    /** io.cost's period timer: its recorded deliveries (trace ns; DeviceSpec.iocostTimerNs) */
    iocostTimerNs?: number[];
  };
}

export const INITIAL_JIFFIES = (hz: number) => 0x100000000n - BigInt(300 * hz);

function parseLines(text: string, file: string): Array<{ obj: Record<string, unknown>; line: number }> {
  const out: Array<{ obj: Record<string, unknown>; line: number }> = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (!l) continue;
    let obj: unknown;
    try {
      obj = JSON.parse(l);
    } catch (e) {
      throw new InputError(`not a JSON object (${(e as Error).message})`, file, i + 1);
    }
    if (typeof obj !== "object" || obj === null || Array.isArray(obj)) throw new InputError("not a JSON object", file, i + 1);
    out.push({ obj: obj as Record<string, unknown>, line: i + 1 });
  }
  if (out.length === 0) throw new InputError("empty trace", file, 1);
  return out;
}

function num(o: Record<string, unknown>, k: string, file: string, line: number): number {
  const v = o[k];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new InputError(`field "${k}" must be a number`, file, line, k);
  return v;
}

/** a whole number (a count, an offset, a time in ns) in [min, 2^53): a fraction or 1e300 is refused here, not at a BigInt() in the replay */
function int(o: Record<string, unknown>, k: string, file: string, line: number, min = 0): number {
  const v = num(o, k, file, line);
  if (!Number.isSafeInteger(v) || v < min) throw new InputError(`field "${k}" must be a whole number${min === 0 ? " >= 0" : min > 0 ? ` >= ${min}` : ` (at most 2^53 in size)`}, got ${v}`, file, line, k);
  return v;
}

function str(o: Record<string, unknown>, k: string, file: string, line: number): string {
  const v = o[k];
  if (typeof v !== "string") throw new InputError(`field "${k}" must be a string`, file, line, k);
  return v;
}

export function kernelProfileOf(release: string): KernelVersion {
  const m = /^(\d+)\.(\d+)/.exec(release);
  if (!m) return "6.18";
  const v = Number(m[1]) * 100 + Number(m[2]);
  if (v <= 610) return "6.1";
  if (v <= 615) return "6.12";
  return "6.18";
}

export function detectKind(header: Record<string, unknown>): RecordedTrace["kind"] | undefined {
  if (header.type === "header" && typeof header.jiffies === "object" && header.scenario_spec) return "throtl";
  if (header.type === "test" && header.test === "iomax") return "guest-iomax";
  return undefined;
}

/**
 * Each IO once: a job's sequence number names one IO (explain --seq picks it
 * by that number, the score pairs the k-th with the k-th); a repeated one is
 * a damaged or concatenated capture. A completion before its submission is
 * one too.
 */
function checkIos(ios: RecordedIo[], file: string, seqField: string): void {
  const seen = new Map<string, number>();
  for (const io of ios) {
    const k = `${io.job}\u0000${io.seq}`;
    const first = seen.get(k);
    if (first !== undefined) throw new InputError(`job "${io.job}" has IO ${seqField} ${io.seq} twice (first at line ${first})`, file, io.line, seqField);
    seen.set(k, io.line);
    if (io.completeNs < io.submitNs) throw new InputError(`complete_ns ${io.completeNs} is before submit_ns ${io.submitNs}`, file, io.line, "complete_ns");
  }
}

export function readTrace(text: string, file: string): RecordedTrace {
  const recs = parseLines(text, file);
  const kind = detectKind(recs[0]!.obj);
  const t = kind === "throtl" ? readThrotl(recs, file) : kind === "guest-iomax" ? readGuestIomax(recs, file) : undefined;
  if (t !== undefined) {
    checkIos(t.ios, file, kind === "throtl" ? "seq" : "idx");
    // a capture cut short after its header would otherwise score 0/0 and pass
    if (t.ios.length === 0) throw new InputError("the trace has a header but no IO records to score (a capture cut short?)", file, recs[recs.length - 1]!.line);
    return t;
  }
  throw new InputError("unknown trace format: line 1 is neither a throtl header (type \"header\" with \"jiffies\") nor a guest iomax header (type \"test\", test \"iomax\")", file, 1, "type");
}

// ---------------------------------------------------------------- throtl

const V1_FILE: Record<string, string> = {
  read_bps: "blkio.throttle.read_bps_device",
  write_bps: "blkio.throttle.write_bps_device",
  read_iops: "blkio.throttle.read_iops_device",
  write_iops: "blkio.throttle.write_iops_device",
};

function readThrotl(recs: Array<{ obj: Record<string, unknown>; line: number }>, file: string): RecordedTrace {
  const h = recs[0]!.obj;
  const hl = recs[0]!.line;
  const jm = h.jiffies as Record<string, unknown>;
  if (typeof jm !== "object" || jm === null) throw new InputError(`field "jiffies" must be an object (tick_ns, grid_offset_ns, offset)`, file, hl, "jiffies");
  const tickNs = int(jm, "tick_ns", file, hl, 1);
  const grid = int(jm, "grid_offset_ns", file, hl, -(2 ** 53));
  const offset = BigInt(int(jm, "offset", file, hl, -(2 ** 53)));
  const t0 = BigInt(int(h, "t0_mono_ns", file, hl));
  const hz = int(h, "hz", file, hl, 1);
  if (hz < 100 || hz > 10000) throw new InputError(`field "hz" must be a kernel's CONFIG_HZ (100 to 10000; 100, 250, 300 or 1000 on x86), got ${hz}`, file, hl, "hz");
  const base = t0 - BigInt(grid);
  const tick = BigInt(tickNs);
  let clock: TraceClock = {
    hz, tickNs, source: "header",
    jiffiesAtOrigin: base / tick + offset,
    originAfterTickNs: Number(base % tick),
  };
  const dev = (h.device ?? {}) as Record<string, unknown>;
  const devno = typeof dev.devno === "string" ? dev.devno : "7:1";
  const rot = String(dev.rotational_during_run ?? dev.rotational_at_attach ?? "0") === "1";
  const path = typeof dev.path === "string" ? dev.path : "/dev/loop1";
  // cgroups: nested by their parent names (v1 is flat anyway)
  const cgs = (Array.isArray(h.cgroups) ? h.cgroups : []) as Array<Record<string, unknown>>;
  const parentOf = new Map<string, string | null>();
  for (const c of cgs) parentOf.set(String(c.name), c.parent == null ? null : String(c.parent));
  const pathOf = (name: string): string => {
    const chain: string[] = [];
    let n: string | null | undefined = name;
    const seen = new Set<string>();
    while (n != null && !seen.has(n)) {
      seen.add(n);
      chain.unshift(n);
      n = parentOf.get(n);
    }
    return chain.join("/");
  };
  const cgroups = [...parentOf.keys()].map(pathOf).sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  const writes: LimitWrite[] = [];
  const addWrite = (o: Record<string, unknown>, at: number) => {
    // `iosim record` names the file and the value as written (any cgroup v1 or v2 file)
    if (typeof o.file === "string") {
      writes.push({ atNs: at, cgroup: pathOf(str(o, "cgroup", file, hl)), file: o.file, value: str(o, "value", file, hl), line: hl });
      return;
    }
    const lim = str(o, "limit", file, hl);
    const f = V1_FILE[lim];
    if (!f) throw new InputError(`unknown limit "${lim}"`, file, hl, "limit");
    const value = int(o, "value", file, hl);
    writes.push({ atNs: at, cgroup: pathOf(str(o, "cgroup", file, hl)), file: f, value: `${devno} ${value}`, line: hl });
  };
  for (const w of (Array.isArray(h.limits_written) ? h.limits_written : []) as Array<Record<string, unknown>>) addWrite(w, int(w, "t_ns", file, hl, -(2 ** 53)));
  for (const e of (Array.isArray(h.events) ? h.events : []) as Array<Record<string, unknown>>) {
    addWrite(e, int(e, "write_return_ns", file, hl, -(2 ** 53)));
  }
  const jobs = (Array.isArray(h.jobs) ? h.jobs : ((h.scenario_spec as Record<string, unknown>)?.jobs ?? [])) as Array<Record<string, unknown>>;
  const jobCg = new Map<string, string>();
  for (const j of jobs) jobCg.set(String(j.name), j.cgroup == null ? "" : pathOf(String(j.cgroup)));
  const ios: RecordedIo[] = [];
  for (let k = 1; k < recs.length; k++) {
    const { obj: r, line } = recs[k]!;
    if (r.type !== undefined && r.type !== "io") continue;
    const job = str(r, "job", file, line);
    const dir = str(r, "dir", file, line);
    if (dir !== "R" && dir !== "W") throw new InputError(`dir must be "R" or "W"`, file, line, "dir");
    if (typeof r.errno !== "undefined") continue; // failed IO: not a completion
    ios.push({
      job, seq: int(r, "seq", file, line), thread: typeof r.thread === "number" ? r.thread : 0,
      cgroup: jobCg.get(job) ?? "", dir, off: int(r, "off", file, line), size: int(r, "size", file, line, 1),
      submitNs: int(r, "submit_ns", file, line, -(2 ** 53)), completeNs: int(r, "complete_ns", file, line, -(2 ** 53)), line,
    });
  }
  // a map its recorder marked unreliable (`iosim record` on a machine whose ticks ran late): the phase
  // is estimated from the trace and calibrated, as for a trace without a map
  if (jm.reliable === false) clock = { ...clock, source: "estimated", originAfterTickNs: (tickNs - estimateTickPhase(ios, tickNs)) % tickNs };
  const kernelString = typeof h.kernel === "string" ? h.kernel : "6.18";
  const name = typeof h.scenario === "string" ? `${h.scenario}/run${h.repeat ?? "?"}` : file;
  return {
    kind: "throtl", file, name, kernel: kernelProfileOf(kernelString), kernelString, cgroupVersion: h.cgroup_version === 2 ? 2 : 1,
    device: { name: path.replace(/^\/dev\//, ""), devno, maxSectorsKb: Number(dev.max_sectors_kb ?? 1280), rotational: rot, nrRequests: Number(dev.nr_requests ?? 128) },
    cgroups, writes, ios, clock, parts: [{ name, cgroups }], header: h,
  };
}

// ---------------------------------------------------------------- guest iomax

function readGuestIomax(recs: Array<{ obj: Record<string, unknown>; line: number }>, file: string): RecordedTrace {
  const h = recs[0]!.obj;
  const dev = (h.device ?? {}) as Record<string, unknown>;
  const devno = typeof dev.dev === "string" ? dev.dev : "253:0";
  const meta = (h.meta ?? {}) as Record<string, unknown>;
  const uname = typeof meta.uname === "string" ? meta.uname : "";
  const rel = /Linux \S+ (\d+\.\d+\S*)/.exec(uname)?.[1] ?? "6.1";
  const hz = Number((h.kconfig as Record<string, unknown> | undefined)?.CONFIG_HZ ?? 250);
  if (!Number.isInteger(hz) || hz < 100 || hz > 10000) throw new InputError(`kconfig.CONFIG_HZ must be a kernel's HZ (100 to 1000), got ${shown((h.kconfig as Record<string, unknown>)?.CONFIG_HZ)}`, file, recs[0]!.line, "CONFIG_HZ");
  const cases = new Map<string, { op: "R" | "W"; bs: number; line: number }>();
  const writes: LimitWrite[] = [];
  const ios: RecordedIo[] = [];
  for (let k = 1; k < recs.length; k++) {
    const { obj: r, line } = recs[k]!;
    if (r.type === "case") {
      const name = str(r, "case", file, line);
      const it = (r.iotest ?? {}) as Record<string, unknown>;
      const op = it.op === "write" ? "W" : "R";
      const bs = Number(it.bs ?? 4096);
      if (!Number.isInteger(bs) || bs < 1 || bs > 2 ** 31) throw new InputError(`iotest.bs must be a whole number of bytes in [1, 2 GiB], got ${shown(it.bs)}`, file, line, "bs");
      cases.set(name, { op, bs, line });
      writes.push({ atNs: int(r, "set_ns", file, line), cgroup: name, file: "io.max", value: `${devno} ${str(r, "limit", file, line)}`, line });
    } else if (r.type === "io") {
      const name = str(r, "case", file, line);
      const c = cases.get(name);
      if (!c) throw new InputError(`io record for case "${name}" before its case record`, file, line, "case");
      const ret = num(r, "ret", file, line);
      if (ret < 0) continue;
      ios.push({
        job: name, seq: int(r, "idx", file, line), thread: typeof r.tid === "number" ? r.tid : 0, cgroup: name, dir: c.op,
        off: int(r, "offset", file, line), size: c.bs, submitNs: int(r, "submit_ns", file, line),
        completeNs: int(r, "complete_ns", file, line), line,
      });
    }
  }
  const cgroups = [...cases.keys()];
  const tickNs = 1e9 / hz;
  const phase = estimateTickPhase(ios, tickNs);
  // jiffies(t) = INITIAL_JIFFIES + floor((t - phase) / tick): the absolute value is assumed
  // (boot at jiffies = INITIAL_JIFFIES); only its value mod the slice matters, for slice ends.
  const jiffiesAtOrigin = INITIAL_JIFFIES(hz) - 1n;
  const clock: TraceClock = { hz, tickNs, source: "estimated", jiffiesAtOrigin, originAfterTickNs: tickNs - phase };
  const base = file.replace(/^.*\//, "").replace(/\.jsonl$/, "");
  return {
    kind: "guest-iomax", file, name: base, kernel: kernelProfileOf(rel), kernelString: rel, cgroupVersion: 2,
    device: { name: "nullb0", devno, maxSectorsKb: 128, rotational: false, nrRequests: Number(dev["/sys/block/nullb0/queue/nr_requests"] ?? 64) },
    cgroups, writes, ios, clock, parts: cgroups.map((c) => ({ name: `${base}#${c}`, cgroups: [c] })), header: h,
  };
}

/** Where the tick grid lies (ns in [0, tick)) as seen in completions: IOs the
 *  throttle held complete a release latency after a tick, so their completion
 *  times modulo the tick form one cluster on the circle. We cut the circle at
 *  its widest empty arc: the cluster starts at "tick + the fastest release"
 *  (RELEASE_LATENCY_MIN_NS, which the replay subtracts to place the ticks). */
export function estimateTickPhase(ios: ReadonlyArray<{ submitNs: number; completeNs: number }>, tickNs: number): number {
  const res: number[] = [];
  for (const io of ios) if (io.completeNs - io.submitNs > tickNs / 2) res.push(((io.completeNs % tickNs) + tickNs) % tickNs);
  if (res.length === 0) return 0;
  res.sort((a, b) => a - b);
  let bestGap = -1;
  let start = res[0]!;
  for (let i = 0; i < res.length; i++) {
    const a = res[i]!;
    const b = i + 1 < res.length ? res[i + 1]! : res[0]! + tickNs;
    if (b - a > bestGap) {
      bestGap = b - a;
      start = b % tickNs;
    }
  }
  return start;
}

/** Jiffies at trace time t (ns). */
export function traceJiffies(c: TraceClock, tNs: number): bigint {
  const x = BigInt(Math.round(tNs)) + BigInt(c.originAfterTickNs);
  const tick = BigInt(c.tickNs);
  const q = x >= 0n ? x / tick : -((-x + tick - 1n) / tick);
  return c.jiffiesAtOrigin + q;
}
