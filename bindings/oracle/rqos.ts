// Guest io.latency and wbt traces (test/fixtures/oracle/guest/iolat*.jsonl,
// wbt*.jsonl; recorder: test/fixtures/oracle/guest/recorder, tests iolat.sh
// and wbt.sh): rebuild what was run, replay it with the recorded arrivals and
// score it.
//
// Both ran on null_blk in timer mode (irqmode=2): a request completes
// completion_nsec after it reaches the driver, up to hw_queue_depth requests
// at once (scheduler none: nr_requests = hw_queue_depth), so a bio waits for
// a tag when the queue is full, and latency grows with the load. The replay:
//
//   device  channels = nr_requests = hw_queue_depth, latency = the service
//           time measured in the trace (wbt: the median of the write
//           requests' rq_issue -> rq_complete; io.latency: the 5th percentile
//           of all IOs' latency, the IOs that did not wait): the guest runs
//           under emulation and null_blk's hrtimer fires 1-3 ms after
//           completion_nsec. One parameter measured from the trace, applied
//           the same way to any trace of the kind. The guest's stalls
//           (guestStalls: a request whose null_blk timer fired 4 ms or more
//           late shows the emulated guest did not run from its due time to
//           the next stamp it logged) are windows in which the device
//           issues and completes nothing (DeviceSpec.stallsNs). wbt
//           traces stamp each write request's block_getrq and rq_issue: its
//           driver time runs from getrq (the plug, with the tag held), and
//           the guest's CPU time from wbt letting it go (the completion that
//           woke it) to getrq is replayed before it asks for a tag
//           (ReplayIo.cpuNs); when the guest is slow to run a woken
//           flusher, the request reaches the tags late, as it did. wbt
//           traces' reads: their time outside the driver while a tag was
//           free for them (freeTagTime) is the guest's CPU time: before the
//           tag for a read that came to a free one (ReplayIo.cpuNs), after
//           the wake for one that waited (ReplayIo.tagWakeNs: blk-mq hands
//           no tag over, so a request asking in between takes it first).
//   jobs    every recorded IO submitted at its recorded time in its cgroup
//           (iotest's threads: submit_ns); wbt traces also replay each
//           writeback request at the time its first bio was queued
//           (block_bio_queue), as a background writeback request of cgroup W.
//           io.latency traces: an IO that found a tag and a slot of its
//           group free from its submit to its issue (rebuilt from the
//           recorded driver times and io.stat's depths, iolatOutside)
//           needed nothing outside the driver: its recorded time there is
//           the guest's (the woken thread's, after the request, by io.stat's
//           miss counts) and is added after its replayed completion.
//   config  io.latency targets / wbt_lat_usec as written.
//   clock   the replay's ticks where the guest's were (tickAligned: wbt's
//           window timer fires on a tick, found from the wbt_timer stamps).
//
// Traces that stamp every step of an IO (iolat_deep: block_bio_queue,
// block_getrq, rq_issue, rq_complete; the wbt traces' write requests) leave
// the model only the policy's wait: the IO reaches rq-qos at its bio_queue,
// holds its request from getrq to rq_complete, and the guest's CPU time from
// the wake that let it go to its getrq is replayed before the tag (cpuNs).
// Which wake let it go is not stamped, and is rebuilt by the kernel's rules:
// io.latency wakes one waiter per done_bio, in the waiters' order of arrival
// (iolat_deep); wbt wakes every waiter at each tracked completion and each
// step up, and the woken flusher goes when fewer tracked writes than its
// limit are in flight (wbt). Worked example (iolat_deep run 2, 715.6 ms): C's
// IOs t11, t12, t13 complete at 715.639, .648, .662; waiters t5, t7, t6 came
// in that order and got their requests at .675, .655, .680: t5 was let go by
// .639, t7 by .648, t6 by .662 (t7's task ran first), so their CPU times are
// 36, 7 and 18 us.
//
// Score: every IO (reads, and wbt's write requests) paired k-th with k-th
// completion per cgroup and direction, matched within 4 ms (score.ts); for
// io.latency also the protected cgroup's p50/p99 latency and the noisy
// sibling's completions per 100 ms bin after the first second.

import { Simulation } from "../engine/simulation.js";
import { defaultClock, jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import type { ClockSpec, DeviceSpec, JobSpec, KernelVersion, Scenario } from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import "../engine/modules/index.js";
import { registerTraceHandler, type ReplayOptions, type TraceHandler } from "./registry.js";
import { scoreSims, formatScore, type Score } from "./score.js";
import type { RecordedIo } from "./traces.js";
import type { SimIo } from "./replay.js";
import { kernelProfileOf } from "./traces.js";

const BIN_NS = 100_000_000;

interface Rec {
  [k: string]: any;
}

function parse(text: string, file: string): { header: Rec; recs: Array<{ r: Rec; line: number }> } {
  const recs: Array<{ r: Rec; line: number }> = [];
  let header: Rec | undefined;
  text.split("\n").forEach((l, i) => {
    if (!l.trim()) return;
    let r: Rec;
    try {
      r = JSON.parse(l);
    } catch {
      throw new InputError("not JSON", file, i + 1);
    }
    if (r.type === "test") header = r;
    else recs.push({ r, line: i + 1 });
  });
  if (!header) throw new InputError('no header record ({"type":"test"})', file, 1);
  return { header, recs };
}

function nullbParams(header: Rec): { depth: number; completionNs: number; devno: string; rotational: boolean; maxSectorsKb: number } {
  const dev = (header.device ?? {}) as Record<string, string>;
  const nb = String(dev.null_blk ?? "");
  const kv = (k: string, d: number) => {
    const m = new RegExp(`(?:^|\\s)${k}=(\\d+)`).exec(nb);
    return m ? Number(m[1]) : d;
  };
  const depth = Number(dev.nr_requests ?? kv("hw_queue_depth", 64));
  return {
    depth, completionNs: kv("completion_nsec", 2_000_000), devno: String(dev.dev ?? "253:0"),
    rotational: String(dev.rotational ?? "0") === "1", maxSectorsKb: Number(dev.max_sectors_kb ?? 127),
  };
}

function nullbDevice(p: ReturnType<typeof nullbParams>, latencyNs: number, wbtLatUsec?: string, stallsNs?: Array<[number, number]>): DeviceSpec {
  const pts: Array<[number, number]> = [[512, 1e10], [1 << 20, 1e10]];
  return {
    ...(stallsNs?.length ? { stallsNs } : {}),
    name: "nullb0", devno: p.devno, kind: "custom", channels: p.depth, nrRequests: p.depth, latencyNs: Math.round(latencyNs),
    jitterSigma: 0, maxSectorsKb: p.maxSectorsKb, rotational: p.rotational,
    curve: { read: { seq: pts, rand: pts }, write: { seq: pts, rand: pts } }, ...(wbtLatUsec !== undefined ? { wbtLatUsec } : {}),
  };
}

function quantile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
}

/** A request's timer fired this much after completion_nsec or more: the guest did not run (MATCH_NS, one jiffy). */
const STALL_LATE_NS = 4_000_000;
/** CPU work after a recorded stamp that is not stamped itself (a bio reaching the driver after its submit stamp). */
const STALL_LEAD_NS = 1_000_000;

/**
 * The guest's stalls, from the recording alone: null_blk in timer mode completes a request
 * completion_nsec after it reaches the driver, so a request whose driver time is longer by
 * STALL_LATE_NS or more had its timer fire late: the emulated guest did not run from its due
 * time on, until the next recorded stamp (any event the guest logged), and not before
 * STALL_LEAD_NS after the stamp before it; shorter than STALL_LATE_NS, it is not counted.
 * `dues`: the due times (rq_issue + completion_nsec) of the late requests.
 */
export function guestStalls(stamps: number[], dues: number[]): Array<[number, number]> {
  const st = [...stamps].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const due of [...dues].sort((a, b) => a - b)) {
    const lo = countAtOrBelow(st, due);
    if (lo === 0 || lo === st.length) continue;
    const a = Math.max(st[lo - 1]! + STALL_LEAD_NS, due);
    const b = st[lo]!;
    if (b - a < STALL_LATE_NS) continue;
    addWindow(out, a, b);
  }
  return out;
}

/**
 * The replay's clock with its ticks where the guest's were: wbt's window timer is a jiffies timer
 * (blk_stat_activate_nsecs(): mod_timer() at jiffies + nsecs_to_jiffies()), so it fires on a
 * tick, and which completions fall in a window depends on the tick's phase. The phase is the
 * smallest offset after a tick boundary (mod 1/hz) of the recorded wbt_timer stamps (a timer
 * callback runs a few us after its tick); without any, defaultClock's.
 */
export function tickAligned(hz: number, shiftNs: number, timersNs: number[]): ClockSpec {
  const c = defaultClock(hz);
  if (!timersNs.length) return c;
  const tick = 1e9 / hz;
  const mod = (x: number) => ((x % tick) + tick) % tick;
  // circular minimum: the residues cluster just after 0; take the one that starts the cluster
  const rs = timersNs.map(mod).sort((a, b) => a - b);
  let best = rs[0]!;
  let gap = rs[0]! + tick - rs[rs.length - 1]!;
  for (let i = 1; i < rs.length; i++) {
    if (rs[i]! - rs[i - 1]! > gap) {
      gap = rs[i]! - rs[i - 1]!;
      best = rs[i]!;
    }
  }
  return { ...c, zeroAfterTickNs: Math.round(mod(shiftNs - best)) };
}

interface Replayed {
  sims: SimIo[];
  scenario: Scenario;
  shiftNs: number;
}

/** Run `scenario` (times shifted by -shift) and pair its records with the recorded IOs per job. */
function runReplay(scenario: Scenario, order: Map<string, RecordedIo[]>, shiftNs: number): Replayed {
  const res = new Simulation(scenario).runToEnd();
  const sims: SimIo[] = [];
  for (const r of res.records ?? []) {
    const io = order.get(r.job)?.[r.seq];
    if (!io) continue;
    sims.push({ io, submitNs: arrive.has(io) ? io.submitNs : r.submitNs + shiftNs, releaseNs: r.releaseNs + shiftNs, completeNs: r.completeNs + shiftNs + (post.get(io) ?? 0) });
  }
  return { sims, scenario, shiftNs };
}

/** Recorded driver time per IO (rq_issue -> rq_complete), where the trace has it. */
const svc = new WeakMap<RecordedIo, number>();
/** Recorded block_getrq per write request (wbt traces). */
const wstamps = new WeakMap<RecordedIo, { getrq: number }>();
/** Recorded guest CPU time before the tag (wbt traces' write requests). */
const cpu = new WeakMap<RecordedIo, number>();
/** Recorded time a request waited for a tag while one was free (wbt traces' write requests, wbt off). */
const tagWake = new WeakMap<RecordedIo, number>();
/** Recorded time after the driver added to the replayed completion (io.latency traces; iolatOutside). */
const post = new WeakMap<RecordedIo, number>();
/** Recorded block_bio_queue: the IO reaches the block layer (and rq-qos) then (iolat_deep traces). */
const arrive = new WeakMap<RecordedIo, number>();
/** Recorded block_getrq of a read (iolat_deep traces). */
const getrqOf = new WeakMap<RecordedIo, number>();

/** How many of ascending `xs` are <= t. */
function countAtOrBelow(xs: readonly number[], t: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Add [a, b) to ascending windows `out`, merged into the last one when it reaches `a`. */
function addWindow(out: Array<[number, number]>, a: number, b: number): void {
  const last = out[out.length - 1];
  if (last && a <= last[1]) last[1] = Math.max(last[1], b);
  else out.push([a, b]);
}
/** The first of ascending windows `w` that ends at or after `t` (w.length if none). */
function firstEndingFrom(w: ReadonlyArray<[number, number]>, t: number): number {
  let lo = 0;
  let hi = w.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (w[mid]![1] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many of the intervals [start, end) `held` are open at a time: `at(t)`, and `maxIn(a, b)`,
 * the most at any time in [a, b).
 */
function runningCount(held: Array<[number, number]>): { at(t: number): number; maxIn(a: number, b: number): number } {
  const ev: Array<[number, number]> = [];
  for (const [a, b] of held) ev.push([a, 1], [b, -1]);
  ev.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const times: number[] = [];
  const counts: number[] = [];
  let n = 0;
  for (const [t, d] of ev) {
    times.push(t);
    counts.push((n += d));
  }
  const at = (t: number) => {
    const k = countAtOrBelow(times, t);
    return k > 0 ? counts[k - 1]! : 0;
  };
  return {
    at,
    maxIn: (a, b) => {
      let mx = at(a);
      for (let k = countAtOrBelow(times, a); k < times.length && times[k]! < b; k++) mx = Math.max(mx, counts[k]!);
      return mx;
    },
  };
}

/**
 * Per wait [from, to) that ended with a tag taken at `to`: how long before `to` a tag had been
 * free without a break (from the tag release that made it free; 0 if a tag was free at `from`): the time the
 * waiting task took to run and take it. `held`: each request's tag as [start, end); `depth` tags.
 */
export function freeTagTime(held: Array<[number, number]>, depth: number, waits: Array<[number, number]>): Array<["arrival" | "woken", number]> {
  const ev: Array<[number, number]> = [];
  for (const [a, b] of held) {
    ev.push([a, 1]);
    ev.push([b, -1]);
  }
  ev.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  // stretches in which fewer than `depth` tags were held, ascending
  const runs: Array<[number, number]> = [];
  let n = 0;
  for (let i = 0; i < ev.length; i++) {
    n += ev[i]![1];
    const t = ev[i]![0];
    const next = i + 1 < ev.length ? ev[i + 1]![0] : t;
    if (n >= depth || next <= t) continue;
    addWindow(runs, t, next);
  }
  return waits.map(([from, to]) => {
    const r = runs[firstEndingFrom(runs, to)];
    if (!r || r[0] >= to) return ["woken", 0];
    if (r[0] <= from) return ["arrival", to - from];
    return ["woken", to - r[0]];
  });
}

function replayJobs(order: Map<string, RecordedIo[]>, shift: number, file: string, writeback: Map<string, "background" | "sync">): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (const [name, list] of order) {
    list.sort((a, b) => a.submitNs - b.submitNs || a.seq - b.seq);
    jobs.push(jobDefaults({
      name, device: "nullb0", cgroup: list[0]!.cgroup, iodepth: list.length, direct: true,
      pattern: { kind: "replay", ios: list.map((io) => ({ tNs: (arrive.get(io) ?? io.submitNs) - shift, off: io.off, size: io.size, dir: io.dir,
        ...(svc.has(io) ? { serviceNs: svc.get(io) } : {}), ...(cpu.get(io) ? { cpuNs: cpu.get(io) } : {}),
        ...(tagWake.get(io) ? { tagWakeNs: tagWake.get(io) } : {}) })) },
      source: { file, line: list[0]!.line }, ...(writeback.has(name) ? { replayWriteback: writeback.get(name) } : {}),
    }));
  }
  return jobs;
}

// ---------------------------------------------------------------- io.latency

/**
 * io.latency traces: the recorded time outside the driver of an IO that needed nothing there.
 * Rebuilt from the recording: each IO holds a tag and a slot of its group for its driver time
 * (ending at its completion stamp); a tag was free for an IO while fewer than nr_requests others
 * held one, and a slot while fewer than its group's io.latency depth (as io.stat last showed it)
 * did. An IO that found both free from its submit to its issue waited for nothing: its time
 * outside the driver is the guest's, and is replayed after its completion (`post`, holding
 * nothing). After, not before: the latency io.latency measures (bio submit to bio_endio) misses
 * its 40 ms target in 9/10/15 % of A's IOs by io.stat (runs 1-3), as A's driver times alone do
 * (10/8/15 %), not as its user-space latencies do (18/16/25 %): the time is the woken thread's,
 * after the request. An IO that waited keeps the model's wait and nothing more.
 */
function iolatOutside(order: Map<string, RecordedIo[]>, tags: number, depths: Array<{ t: number; d: Record<string, number> }>): void {
  const all = [...order.values()].flat();
  const iss = (io: RecordedIo) => io.completeNs - (svc.get(io) ?? 0);
  // sweep: +1/-1 per IO held [issue, complete), per group and in total, and io.stat's depths
  const ev: Array<{ t: number; cg: string; d: number }> = [];
  for (const io of all) {
    ev.push({ t: iss(io), cg: io.cgroup, d: 1 });
    ev.push({ t: io.completeNs, cg: io.cgroup, d: -1 });
  }
  for (const x of depths) ev.push({ t: x.t, cg: "", d: 0 });
  ev.sort((a, b) => a.t - b.t || a.d - b.d);
  const cgs = [...order.keys()];
  // per group: stretches in which a tag and a slot were free
  const runs = new Map<string, Array<[number, number]>>(cgs.map((c) => [c, []]));
  const held = new Map<string, number>(cgs.map((c) => [c, 0]));
  let total = 0;
  let depth: Record<string, number> = {};
  let di = 0;
  for (let i = 0; i < ev.length; i++) {
    const e = ev[i]!;
    if (e.d !== 0) {
      held.set(e.cg, held.get(e.cg)! + e.d);
      total += e.d;
    } else {
      while (di < depths.length && depths[di]!.t <= e.t) depth = depths[di++]!.d;
    }
    const next = i + 1 < ev.length ? ev[i + 1]!.t : e.t;
    if (next <= e.t) continue;
    for (const cg of cgs) {
      if (total >= tags || held.get(cg)! >= (depth[cg] ?? Infinity)) continue;
      addWindow(runs.get(cg)!, e.t, next);
    }
  }
  for (const io of all) {
    const r = runs.get(io.cgroup)!;
    const to = iss(io);
    const x = r[firstEndingFrom(r, to)];
    if (arrive.has(io)) continue;
    if (x && x[0] <= io.submitNs && to > io.submitNs) post.set(io, to - io.submitNs);
  }
}

export interface IolatScore {
  file: string;
  total: Score;
  /** the cgroup with the lowest target: p50/p99 latency, real and simulated (ns) */
  protected: { cgroup: string; realP50: number; simP50: number; realP99: number; simP99: number; p50Err: number; p99Err: number };
  /** the cgroup without a target: completions per 100 ms bin after the first second */
  sibling: { cgroup: string; bins: number; binsWithin10: number; meanAbsErr: number; realTotal: number; simTotal: number };
  latencyNs: number;
}

function iolatReplay(text: string, file: string, opts: ReplayOptions): { rep: Replayed; header: Rec; targets: Map<string, number>; startNs: number; latencyNs: number } {
  const { header, recs } = parse(text, file);
  const cfg = (header.config ?? {}) as Record<string, string>;
  const p = nullbParams(header);
  const order = new Map<string, RecordedIo[]>();
  const lats: number[] = [];
  const stamps: number[] = [];
  const dues: number[] = [];
  const depths: Array<{ t: number; d: Record<string, number> }> = [];
  for (const { r, line } of recs) {
    if (r.type === "iostat" && typeof r.t_ns === "number") {
      stamps.push(r.t_ns);
      const d: Record<string, number> = {};
      for (const [cg, v] of Object.entries((r.cg ?? {}) as Record<string, { depth?: number | string }>)) d[cg] = v.depth === undefined || v.depth === "max" ? Infinity : Number(v.depth);
      depths.push({ t: r.t_ns, d });
    }
    if (r.type !== "io" || r.ret < 0) continue;
    stamps.push(r.submit_ns, r.complete_ns);
    // no rq_issue stamp here: the request completed (about) at its user-space completion
    if (typeof r.svc_ns === "number" && r.svc_ns - p.completionNs >= STALL_LATE_NS) dues.push(r.complete_ns - (r.svc_ns - p.completionNs));
    const io: RecordedIo = { job: r.cg, seq: 0, thread: r.tid ?? 0, cgroup: r.cg, dir: "R", off: r.offset ?? 0, size: 4096,
      submitNs: r.submit_ns, completeNs: r.complete_ns, line };
    if (typeof r.svc_ns === "number") svc.set(io, r.svc_ns);
    if ([r.queue_ns, r.getrq_ns, r.issue_ns, r.rq_complete_ns].every((x) => typeof x === "number")) {
      // every stamp of the IO (iolat_deep): it reaches rq-qos at its block_bio_queue, holds its
      // request from block_getrq to block_rq_complete, and its thread sees the completion
      // complete_ns - rq_complete_ns later; only the wait between the first two is the model's
      // (+1 ns: the trace's stamps are whole microseconds, and a completion stamped in the same
      // microsecond as a bio's block_bio_queue came first: done_bio runs in the interrupt)
      arrive.set(io, r.queue_ns + 1);
      getrqOf.set(io, r.getrq_ns);
      svc.set(io, r.rq_complete_ns - r.getrq_ns);
      post.set(io, Math.max(0, r.complete_ns - r.rq_complete_ns));
      stamps.push(r.queue_ns, r.getrq_ns, r.issue_ns, r.rq_complete_ns);
    }
    const l = order.get(r.cg) ?? [];
    l.push(io);
    order.set(r.cg, l);
    lats.push(r.complete_ns - r.submit_ns);
  }
  if (!lats.length) throw new InputError("the trace has no IO records", file, 1);
  iolatOutside(order, p.depth, depths);
  // Stamped IOs (iolat_deep): the guest's CPU time from io.latency letting the bio go to its
  // block_getrq, replayed before it asks for a tag (ReplayIo.cpuNs). A waiter is let go by the
  // done_bio of its group's IO that freed the slot (rq_qos_wake_function() takes the slot in the
  // waker's context): the last completion in its group before its getrq, if after its queueing;
  // otherwise it did not wait and the time runs from its block_bio_queue.
  // A done_bio wakes one waiter (wake_up(): exclusive waiters in the order they came to
  // rq_qos_wait(); rq_qos_wake_function() takes the slot for it) and the woken tasks run later,
  // in the scheduler's order, not always the waiters' (run 2 of iolat_deep: the guest busy for
  // 0.48 ms while three completions pass; a waiter woken second getting its request first). So
  // the completions that let the waiters go are increasing in the waiters' order of arrival, each
  // before the waiter's request: taken from the last waiter back, each takes the latest
  // completion before both its request and the one the next waiter took. Completions left over
  // let nobody go (the group was at its depth, scaled down meanwhile).
  for (const l of order.values()) {
    const done = l.filter((io) => arrive.has(io)).map((io) => io.completeNs - (post.get(io) ?? 0)).sort((a, b) => a - b);
    const waker = new Map<RecordedIo, number>();
    const waiters: RecordedIo[] = [];
    for (const io of l) {
      const q = arrive.get(io);
      const g = getrqOf.get(io);
      if (q === undefined || g === undefined) continue;
      // it waited if a completion of its group came between its queueing and its request
      const k = countAtOrBelow(done, g);
      if (k > 0 && done[k - 1]! > q) waiters.push(io);
    }
    waiters.sort((x, y) => arrive.get(x)! - arrive.get(y)! || getrqOf.get(x)! - getrqOf.get(y)!);
    let hi = done.length; // the next waiter's completion (exclusive)
    for (let i = waiters.length - 1; i >= 0; i--) {
      const io = waiters[i]!;
      const g = getrqOf.get(io)!;
      const k = Math.min(countAtOrBelow(done, g), hi) - 1;
      if (k >= 0 && done[k]! > arrive.get(io)!) {
        waker.set(io, done[k]!);
        hi = k;
      } else waker.set(io, done[countAtOrBelow(done, g) - 1]!);
    }
    for (const io of l) {
      const q = arrive.get(io);
      const g = getrqOf.get(io);
      if (q === undefined || g === undefined) continue;
      const ns = g - Math.max(q, waker.get(io) ?? -Infinity);
      if (ns > 0) cpu.set(io, ns);
    }
  }
  lats.sort((a, b) => a - b);
  const latencyNs = quantile(lats, 0.05);
  const targets = new Map<string, number>();
  const writes: Array<{ cg: string; value: string; at: number }> = [];
  for (const cg of order.keys()) {
    const v = cfg[`${cg}.io.latency`];
    if (v && v.trim()) {
      targets.set(cg, Number(/target=(\d+)/.exec(v)?.[1] ?? 0));
      writes.push({ cg, value: v.trim(), at: Number(cfg[`${cg}.set_ns`] ?? 0) });
    }
  }
  let shift = Infinity;
  for (const l of order.values()) for (const io of l) shift = Math.min(shift, io.submitNs);
  for (const w of writes) if (w.at > 0) shift = Math.min(shift, w.at);
  shift = Math.floor(shift) - 1_000_000;
  const rel = String((header.meta ?? {}).uname ?? "").match(/Linux \S+ (\d+\.\d+)/)?.[1] ?? "6.1";
  const kernel = (opts.kernel ?? kernelProfileOf(rel)) as KernelVersion;
  const scenario = scenarioDefaults({
    name: `replay ${file}`, kernel, seed: opts.seed ?? 1, clock: defaultClock(250), record: true, blkcgDebugStats: true,
    devices: [nullbDevice(p, latencyNs, undefined, guestStalls(stamps, dues).map(([a, b]) => [a - shift, b - shift] as [number, number]))],
    cgroups: [...order.keys()].map((cg) => ({ path: cg })),
    jobs: replayJobs(order, shift, file, new Map()),
    writes: writes.map((w) => ({ atNs: Math.max(0, w.at - shift), cgroup: w.cg, file: "io.latency", value: w.value, source: { file, field: "io.latency" } })),
    source: { file },
  });
  return { rep: runReplay(scenario, order, shift), header, targets, startNs: Number(cfg.start_ns ?? shift), latencyNs };
}

export function scoreIolat(text: string, file: string, opts: ReplayOptions = {}): IolatScore {
  const { rep, targets, startNs, latencyNs } = iolatReplay(text, file, opts);
  const total = scoreSims(file.replace(/^.*\//, ""), rep.sims);
  const prot = [...targets.entries()].sort((a, b) => a[1] - b[1])[0]?.[0] ?? "A";
  const cgs = [...new Set(rep.sims.map((s) => s.io.cgroup))];
  const sib = cgs.find((c) => !targets.has(c)) ?? cgs[cgs.length - 1]!;
  const pl = rep.sims.filter((s) => s.io.cgroup === prot);
  const real = pl.map((s) => s.io.completeNs - s.io.submitNs).sort((a, b) => a - b);
  const sim = pl.map((s) => s.completeNs - s.submitNs).sort((a, b) => a - b);
  const rel = (a: number, b: number) => (b ? Math.abs(a - b) / b : 0);
  const protectedScore = {
    cgroup: prot, realP50: quantile(real, 0.5), simP50: quantile(sim, 0.5), realP99: quantile(real, 0.99), simP99: quantile(sim, 0.99),
    p50Err: rel(quantile(sim, 0.5), quantile(real, 0.5)), p99Err: rel(quantile(sim, 0.99), quantile(real, 0.99)),
  };
  const sl = rep.sims.filter((s) => s.io.cgroup === sib);
  const rb = new Map<number, number>();
  const sb = new Map<number, number>();
  for (const s of sl) {
    const kr = Math.floor((s.io.completeNs - startNs) / BIN_NS);
    const ks = Math.floor((s.completeNs - startNs) / BIN_NS);
    rb.set(kr, (rb.get(kr) ?? 0) + 1);
    sb.set(ks, (sb.get(ks) ?? 0) + 1);
  }
  const last = Math.max(...rb.keys());
  let bins = 0;
  let within = 0;
  let errSum = 0;
  for (let k = 10; k < last; k++) {
    const r = rb.get(k) ?? 0;
    const s = sb.get(k) ?? 0;
    if (!r) continue;
    bins++;
    const e = Math.abs(s - r) / r;
    errSum += e;
    if (e <= 0.1) within++;
  }
  return {
    file, total, protected: protectedScore, latencyNs,
    sibling: { cgroup: sib, bins, binsWithin10: within, meanAbsErr: bins ? errSum / bins : 0, realTotal: sl.length, simTotal: sl.length },
  };
}

export function formatIolatScore(s: IolatScore): string {
  const ms = (x: number) => (x / 1e6).toFixed(1);
  const p = s.protected;
  return [
    formatScore(s.total),
    `  protected ${p.cgroup}: p50 real ${ms(p.realP50)} ms sim ${ms(p.simP50)} ms (${(100 * p.p50Err).toFixed(1)}%), ` +
      `p99 real ${ms(p.realP99)} ms sim ${ms(p.simP99)} ms (${(100 * p.p99Err).toFixed(1)}%)`,
    `  sibling ${s.sibling.cgroup}: ${s.sibling.binsWithin10}/${s.sibling.bins} 100 ms bins after 1 s within 10% ` +
      `(mean |err| ${(100 * s.sibling.meanAbsErr).toFixed(1)}%)`,
    `  device latency from the trace (p5 of IO latency): ${ms(s.latencyNs)} ms`,
  ].join("\n");
}

// ---------------------------------------------------------------- wbt

export interface WbtCaseScore {
  case: string;
  wbtLatUsec: string;
  score: Score;
  reads: { realP50: number; simP50: number; realP99: number; simP99: number };
  latencyNs: number;
  /** matched / IOs, reads and write requests apart */
  split: { reads: [number, number]; writes: [number, number] };
  /** median time outside the driver (latency - recorded driver time; a write request's from block_getrq), real and simulated, ns */
  waits: { readReal: number; readSim: number; writeReal: number; writeSim: number };
}

export interface WbtScore {
  file: string;
  cases: WbtCaseScore[];
  total: { ios: number; matched: number; share: number };
}

export function scoreWbt(text: string, file: string, opts: ReplayOptions = {}): WbtScore {
  const { header, recs } = parse(text, file);
  const p = nullbParams(header);
  const rel = String((header.meta ?? {}).uname ?? "").match(/Linux \S+ (\d+\.\d+)/)?.[1] ?? "6.1";
  const kernel = (opts.kernel ?? kernelProfileOf(rel)) as KernelVersion;
  const cases = new Map<string, { meta: Rec; line: number; reads: RecordedIo[]; wreqs: RecordedIo[]; wsync: RecordedIo[]; stamps: number[]; dues: number[];
    steps: number[]; limits: Array<[number, number]>; timers: number[] }>();
  for (const { r, line } of recs) {
    if (r.type === "case") cases.set(r.case, { meta: r.meta ?? {}, line, reads: [], wreqs: [], wsync: [], stamps: [], dues: [], steps: [], limits: [], timers: [] });
    const c = cases.get(r.case);
    if (!c) continue;
    // wbt's steps up: each wakes every waiter (scale_up(): calc_wb_limits(), rwb_wake_all())
    if (r.type === "wbt" && r.event === "wbt_step" && typeof r.t_ns === "number" && /scale up/.test(String(r.raw))) c.steps.push(r.t_ns);
    if (r.type === "wbt" && r.event === "wbt_step" && typeof r.t_ns === "number") {
      const bg = /background=(\d+)/.exec(String(r.raw));
      if (bg) c.limits.push([r.t_ns, Number(bg[1])]);
    }
    if (r.type === "wbt" && r.event === "wbt_timer" && typeof r.t_ns === "number") c.timers.push(r.t_ns);
    // every stamp the guest logged, and the due times of the requests whose timer fired late (guestStalls)
    for (const k of ["t_ns", "start_ns", "end_ns", "submit_ns", "complete_ns", "queue_ns", "getrq_ns", "issue_ns"]) if (typeof r[k] === "number") c.stamps.push(r[k]);
    if (r.type === "wreq" && typeof r.complete_ns === "number" && r.complete_ns - r.issue_ns - p.completionNs >= STALL_LATE_NS) c.dues.push(r.issue_ns + p.completionNs);
    if (r.type === "io" && typeof r.svc_ns === "number" && r.svc_ns - p.completionNs >= STALL_LATE_NS) c.dues.push(r.complete_ns - (r.svc_ns - p.completionNs));
    if (r.type === "io" && r.ret >= 0) {
      const io: RecordedIo = { job: "R", seq: 0, thread: r.tid ?? 0, cgroup: "R", dir: "R", off: r.offset ?? 0, size: 4096, submitNs: r.submit_ns, completeNs: r.complete_ns, line };
      if (typeof r.svc_ns === "number") svc.set(io, r.svc_ns);
      c.reads.push(io);
    } else if (r.type === "wreq" && typeof r.complete_ns === "number") {
      // rwbs "WS": a REQ_SYNC write (the sync on close of the block device after the writer ends)
      const io: RecordedIo = { job: String(r.rwbs).includes("S") ? "WS" : "W", seq: 0, thread: 0, cgroup: "W", dir: "W", off: r.sector * 512, size: r.nr * 512, submitNs: r.queue_ns, completeNs: r.complete_ns, line };
      svc.set(io, r.complete_ns - r.issue_ns);
      wstamps.set(io, { getrq: r.getrq_ns });
      (String(r.rwbs).includes("S") ? c.wsync : c.wreqs).push(io);
      (c as any).svc = [...((c as any).svc ?? []), r.complete_ns - r.issue_ns];
    }
  }
  for (const c of cases.values()) {
    // The guest's CPU time per write request, from its stamps: from wbt letting it go (the
    // completion of the tracked write before its block_getrq that woke it, or its
    // block_bio_queue if none came between) to block_getrq, replayed before it asks for a tag;
    // getrq -> rq_issue (the plug, the tag held) goes with its driver time. With wbt off a
    // request waits only for a tag, which is the model's: nothing is taken from the stamps.
    const wbtOn = String(c.meta.wbt_lat_usec_written ?? "-1") !== "0";
    // what wakes a request waiting in wbt: a tracked write's completion (wbt_rqw_done()) or a
    // step up (scale_up() -> rwb_wake_all(), blk-wbt.c 6.1; scale_down() wakes nobody)
    const comps = [...[...c.wreqs, ...c.wsync].map((x) => x.completeNs), ...c.steps].sort((a, b) => a - b);
    // The reads' recorded time outside the driver (no stamp splits it): each read holds a tag
    // for its driver time, so a tag was free for it while fewer than nr_requests other requests
    // held one (write requests from block_getrq to their completion, reads for their driver time
    // ending at their completion). A read that came to a free tag took the whole of it to reach
    // the driver: its CPU time, replayed before it asks for a tag (and with it the time to its
    // user-space stamp after the driver, which no stamp separates). A read that waited took the
    // free stretch before its issue: the time its woken thread took to run, replayed after the
    // wake (ReplayIo.tagWakeNs; a tag freed meanwhile goes to whoever asks first).
    {
      const held: Array<[number, number]> = [...[...c.wreqs, ...c.wsync].map((io) => [wstamps.get(io)!.getrq, io.completeNs] as [number, number]),
        ...c.reads.map((io) => [io.completeNs - (svc.get(io) ?? 0), io.completeNs] as [number, number])];
      const fr = freeTagTime(held, p.depth, c.reads.map((io) => [io.submitNs, io.completeNs - (svc.get(io) ?? 0)]));
      c.reads.forEach((io, i) => {
        const [kind, ns] = fr[i]!;
        if (ns > 0) (kind === "arrival" ? cpu : tagWake).set(io, ns);
      });
    }
    // The wake that let a waiting write request go: the first wake source after it queued at
    // which fewer tracked writes than wbt's background limit (the last wbt_step's) were in flight
    // (wbt_rqw_done() wakes every waiter; the woken one queues if rq_wait_inc_below() the limit):
    // the time from it to block_getrq is the guest running the woken flusher. Without a
    // recorded limit, or if no wake fits, the last wake source before block_getrq.
    const limits = c.limits;
    const limitTimes = limits.map(([t]) => t);
    const limitAt = (t: number) => {
      const k = countAtOrBelow(limitTimes, t);
      return k > 0 ? limits[k - 1]![1] : -1;
    };
    const allW = [...c.wreqs, ...c.wsync];
    // tracked writes in flight (from block_getrq), and every request's tag (reads for their driver time)
    const wHeld: Array<[number, number]> = allW.map((x) => [wstamps.get(x)!.getrq, x.completeNs]);
    const inflight = runningCount(wHeld);
    const tags = runningCount([...wHeld, ...c.reads.filter((x) => svc.has(x)).map((x) => [x.completeNs - svc.get(x)!, x.completeNs] as [number, number])]);
    for (const io of allW) {
      const m = wstamps.get(io)!;
      svc.set(io, io.completeNs - m.getrq);
      if (!wbtOn) continue;
      const lo = countAtOrBelow(comps, m.getrq);
      let woke = lo > 0 ? comps[lo - 1]! : -Infinity;
      if (limits.length) {
        for (let k = countAtOrBelow(comps, io.submitNs); k < lo; k++) {
          const t = comps[k]!;
          const lim = limitAt(t);
          // under the limit then and until its request (nobody took the slot meanwhile)
          if (lim > 0 && inflight.maxIn(t, m.getrq) < lim) {
            // a request that then waited for a tag was woken again by the tag's release: keep the last wake
            if (tags.maxIn(t, m.getrq) < p.depth) woke = t;
            break;
          }
        }
      }
      cpu.set(io, m.getrq - Math.max(io.submitNs, woke));
    }
  }
  const out: WbtCaseScore[] = [];
  let ios = 0;
  let matched = 0;
  for (const [name, c] of cases) {
    const svcs = ((c as any).svc as number[] | undefined ?? []).sort((a, b) => a - b);
    const latencyNs = svcs.length ? quantile(svcs, 0.5) : p.completionNs;
    const order = new Map<string, RecordedIo[]>([["R", c.reads], ["W", c.wreqs], ["WS", c.wsync]].filter(([, l]) => (l as RecordedIo[]).length > 0) as Array<[string, RecordedIo[]]>);
    let shift = Infinity;
    for (const l of order.values()) for (const io of l) shift = Math.min(shift, io.submitNs);
    shift = Math.floor(shift) - 1_000_000;
    const lat = String(c.meta.wbt_lat_usec_written ?? "-1");
    const scenario = scenarioDefaults({
      name: `replay ${file}#${name}`, kernel, seed: opts.seed ?? 1, clock: tickAligned(250, shift, c.timers), record: true,
      devices: [nullbDevice(p, latencyNs, lat, guestStalls(c.stamps, c.dues).map(([a, b]) => [a - shift, b - shift] as [number, number]))],
      cgroups: [{ path: "R" }, { path: "W" }],
      jobs: replayJobs(order, shift, file, new Map([["W", "background"], ["WS", "sync"]])),
      source: { file },
    });
    const rep = runReplay(scenario, order, shift);
    const score = scoreSims(`${file.replace(/^.*\//, "")}#${name}`, rep.sims);
    const rs = rep.sims.filter((s) => s.io.dir === "R");
    const real = rs.map((s) => s.io.completeNs - s.io.submitNs).sort((a, b) => a - b);
    const sim = rs.map((s) => s.completeNs - s.submitNs).sort((a, b) => a - b);
    const rsc = scoreSims("reads", rs);
    const wsc = scoreSims("writes", rep.sims.filter((x) => x.io.dir === "W"));
    const waits = (l: SimIo[], sim: boolean) => l.map((x) => (sim ? x.completeNs - x.submitNs : x.io.completeNs - x.io.submitNs) - (svc.get(x.io) ?? 0)).sort((a, b) => a - b);
    const ws = rep.sims.filter((x) => x.io.dir === "W");
    out.push({
      case: name, wbtLatUsec: lat, score, latencyNs,
      split: { reads: [rsc.matched, rsc.ios], writes: [wsc.matched, wsc.ios] },
      waits: { readReal: quantile(waits(rs, false), 0.5), readSim: quantile(waits(rs, true), 0.5), writeReal: quantile(waits(ws, false), 0.5), writeSim: quantile(waits(ws, true), 0.5) },
      reads: { realP50: quantile(real, 0.5), simP50: quantile(sim, 0.5), realP99: quantile(real, 0.99), simP99: quantile(sim, 0.99) },
    });
    ios += score.ios;
    matched += score.matched;
  }
  return { file, cases: out, total: { ios, matched, share: ios ? matched / ios : 1 } };
}

export function formatWbtScore(s: WbtScore): string {
  const ms = (x: number) => (x / 1e6).toFixed(1);
  const lines: string[] = [];
  for (const c of s.cases) {
    lines.push(`${formatScore(c.score).split("\n")[0]}  [wbt_lat_usec ${c.wbtLatUsec}]`);
    lines.push(`  reads: p50 real ${ms(c.reads.realP50)} ms sim ${ms(c.reads.simP50)} ms, p99 real ${ms(c.reads.realP99)} ms sim ${ms(c.reads.simP99)} ms; ` +
      `matched reads ${c.split.reads[0]}/${c.split.reads[1]}, write requests ${c.split.writes[0]}/${c.split.writes[1]}; ` +
      `median wait outside the driver: reads ${ms(c.waits.readReal)} vs ${ms(c.waits.readSim)} ms, writes ${ms(c.waits.writeReal)} vs ${ms(c.waits.writeSim)} ms`);
  }
  lines.push(`${s.file}: ${s.total.matched}/${s.total.ios} matched (${(100 * s.total.share).toFixed(2)}%)`);
  return lines.join("\n");
}

function simLines(kind: string, text: string, file: string, o: ReplayOptions): string[] {
  const s = kind === "iolat" ? scoreIolat(text, file, o) : scoreWbt(text, file, o);
  return [JSON.stringify({ type: "replay", source: file, trace_kind: `guest-${kind}`, score: s })];
}

const iolatHandler: TraceHandler = {
  kind: "guest-iolat",
  detect: (h) => h.type === "test" && h.test === "iolat",
  replay: (text, file, o) => simLines("iolat", text, file, o),
  compare: (text, file, o) => {
    const s = scoreIolat(text, file, o);
    return { score: s as unknown as Record<string, unknown>, text: formatIolatScore(s) };
  },
};

const wbtHandler: TraceHandler = {
  kind: "guest-wbt",
  detect: (h) => h.type === "test" && h.test === "wbt",
  replay: (text, file, o) => simLines("wbt", text, file, o),
  compare: (text, file, o) => {
    const s = scoreWbt(text, file, o);
    return { score: s as unknown as Record<string, unknown>, text: formatWbtScore(s) };
  },
};

registerTraceHandler(iolatHandler);
registerTraceHandler(wbtHandler);
