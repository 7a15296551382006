// The path of a bio through the simulated block layer, and the event loop.
//
//   job submits ──► blk-throttle ──► blk-iocost ──► device ──► completion
//   (workload)      (io.max)         (io.weight)    (device)   (stats, job)
//
// Each stage either passes the bio on at once or keeps it and hands it on
// later from one of its own events (a throttle timer, an iocost wake-up).
// This is the order of the kernel's submit path: blk-throttle runs in
// submit_bio_noacct() before splitting and request allocation; iocost, wbt
// and blk-iolatency are rq_qos hooks in blk_mq_submit_bio() (rqosChain
// below), before the request (tag) allocation the device models. Events are processed strictly in
// (time, scheduling order), so a run is a pure function of its inputs.
//
// The per-bio path of an unthrottled closed loop has two shortcuts, both
// taking exactly the steps the general code would take:
//   - runLaneZero(): while lane 0 holds the least pending event (events.ts
//     laneZeroFirst(): its head is before the heap's least event, such as
//     the run's stop mark or a throttle timer), the loop pops the lane head
//     without touching the heap.
//   - completeBio() hand-over: when a job's bio completes while all of its
//     other workers are busy and its next IO is due now, the general code
//     would free the slot, push the worker, pop the same worker and allocate
//     the same slot (the free list is LIFO); the hand-over issues the next IO
//     in that slot with that worker directly. The job's in-flight count is
//     left as it is (one done, one issued), and of the bio record only the
//     shape, sequence, flags and submit time are written: the slot holds the
//     job, worker, cgroup and device already (fillBioShape()).
// Worked example (bench/engine.ts: one job, QD 32, ideal 8 us device, no
// control module): bio seq 100 (worker 4, slot 4: seq s runs on worker and
// slot s % 32) completes at t = 32,000 ns; its latency 8,000 ns is counted,
// the 31 other workers are busy and the closed loop's next IO is due at t,
// so seq 132 is issued at once by worker 4 in slot 4 and its completion
// appended to lane 0 at 40,000 ns.

import { pop, peekTime, pendingEvents, poppedTime, poppedMeta, metaKind, metaArg,
  laneZeroFirst, popLaneZeroFirst, countEvents,
  EV_JOB_WAKE, EV_DEVICE_DONE, EV_THROTL_TIMER, EV_CONFIG, EV_IOCOST_TIMER, EV_IOCOST_WAKE,
  EV_WRITEBACK, EV_THROTL_WORK, EV_DEVICE_ISSUE, EV_STOP, EV_IOLAT_TIMER, EV_WBT_TIMER, EV_TAG_RETRY, EV_PC_RESUME, schedule } from "./events";
import { allocBio, freeBio, bioAt, BIO_SYNC, BIO_WRITEBACK, BIO_READAHEAD } from "./bios";
import { deviceSubmit, deviceComplete, deviceAt, requestsOf, cpuReplay, recordedCpu, tagWakeReplay, takeTagWake, deviceRetryTag } from "../device/device";
import { jobAt, jobs, Job, earliestNext, nextShape, thinkNoteIssue, shapeDir, shapeSize, shapeOff, flowIssued, flowExit } from "../workload/jobs";
import { noteSubmit, noteDepth, noteIssue, noteComplete, record, recordOn, rateNextMin, rateSamplesClose, setRateNextMin, jobBwNext } from "../stats/stats";
import { throttleActive, throtlSubmit, throtlTimer, throtlWork, throtlConfigEvent } from "../throttle/throttle";
import { iocostActive, iocSubmit, iocDone, iocTimer, iocWake, iocConfigEvent } from "../iocost/iocost";
import { writebackActive, wbWrite, wbEvent, wbBioDone } from "../writeback/writeback";
import { iolatActive, iolatThrottle, iolatDone, iolatTimer, iolatLazyInit } from "../iolatency/iolatency";
import { wbtActive, wbtThrottle, wbtDone, wbtTimer } from "../wbt/wbt";
import { iolatConfigEvent } from "../iolatency/api";
import { rqosActive, anyQos } from "../iolatency/log";
import { wbtConfigEvent } from "../wbt/api";
import { pagecacheActive, pcRead, pcBioDone, pcRaPassed, pcResume } from "../pagecache/pagecache";

export let now: i64 = 0;
export let stopped: bool = false;

// Config-change events carry (module << 20) | index.
export const CFG_THROTTLE: u32 = 1;
export const CFG_IOCOST: u32 = 2;
export const CFG_IOLAT: u32 = 3;
export const CFG_WBT: u32 = 4;

export function resetPath(): void {
  now = 0;
  stopped = false;
}

/** Run events until the queue is empty (returns 0), time passes `untilNs` or
 *  `maxEvents` were processed (returns 1: call again to continue). */
export function run(untilNs: i64, maxEvents: i32): i32 {
  // V8 runs a WASM function in its baseline compiler (Liftoff) until the
  // function is *called* again after tier-up: there is no on-stack
  // replacement. One long call of the event loop would stay in baseline code
  // for a whole run, so the loop runs in chunks; runEvents() is called often
  // enough to be optimised within the first few chunks. Chunking changes
  // nothing else: the chunk limit stops the loop exactly where the next call
  // picks up.
  let left = maxEvents;
  while (true) {
    const chunk = left < RUN_CHUNK_EVENTS ? left : RUN_CHUNK_EVENTS;
    const r = runEvents(untilNs, chunk);
    if (r != CHUNK_DONE) return r;
    if (chunk >= left) return 1; // maxEvents processed
    left -= chunk;
  }
}

const RUN_CHUNK_EVENTS: i32 = 4096;
const CHUNK_DONE: i32 = 2;

/** run() for at most `maxEvents` events: 0 and 1 as run(), CHUNK_DONE when
 *  `maxEvents` were processed. */
function runEvents(untilNs: i64, maxEvents: i32): i32 {
  let n = 0;
  while (pendingEvents() > 0) {
    if (stopped) return 0;
    if (n >= maxEvents) return CHUNK_DONE;
    if (untilNs != i64.MAX_VALUE && peekTime() > untilNs) return 1;
    if (laneZeroFirst()) {
      n = runLaneZero(untilNs, n, maxEvents);
      continue; // the checks above decide what stopped it
    }
    pop();
    n++;
    const t = poppedTime;
    const kind = metaKind(poppedMeta);
    if (kind == EV_STOP) {
      // the clock stops at the last real event, not at the stop mark
      stopped = true;
      return 0;
    }
    now = t;
    const arg = metaArg(poppedMeta);
    if (kind == EV_DEVICE_DONE) deviceDone(<i32>arg, t);
    else dispatch(kind, arg, t);
  }
  return 0;
}

/** The fast path of the loop: while lane 0's head (one device's
 *  completions, in order) is the least (time, meta) of the queue - before
 *  the heap's least event, no other lane in use - pop it straight off the
 *  lane: the order is the one runEvents() would take. Stops, without
 *  popping, at an event after `untilNs`, after `maxEvents` in all, or as
 *  soon as the heap's least event or another lane comes first; returns the
 *  new event count. */
function runLaneZero(untilNs: i64, n: i32, maxEvents: i32): i32 {
  const n0 = n;
  // (`stopped` is set by an EV_STOP only, which runEvents() handles)
  while (n < maxEvents && popLaneZeroFirst(untilNs)) {
    n++;
    const t = poppedTime;
    now = t;
    const meta = poppedMeta;
    const kind = metaKind(meta);
    // lanes hold device completions only (device.ts start())
    if (kind == EV_DEVICE_DONE) deviceDone(<i32>metaArg(meta), t);
    else dispatch(kind, metaArg(meta), t);
  }
  countEvents(n - n0);
  return n;
}

/** Every event kind but EV_DEVICE_DONE and EV_STOP. */
function dispatch(kind: u32, arg: u32, t: i64): void {
  if (kind == EV_JOB_WAKE) {
    const j = jobAt(<i32>arg);
    if (j.wakeAt == t) j.wakeAt = -1;
    jobTryIssue(j, t);
  } else if (kind == EV_THROTL_TIMER) {
    throtlTimer(arg, t);
  } else if (kind == EV_THROTL_WORK) {
    throtlWork(arg, t);
  } else if (kind == EV_CONFIG) {
    const mod = arg >> 20;
    const idx = arg & 0xfffff;
    if (mod == CFG_THROTTLE) throtlConfigEvent(idx, t);
    else if (mod == CFG_IOCOST) iocConfigEvent(idx, t);
    else if (mod == CFG_IOLAT) iolatConfigEvent(idx, t);
    else if (mod == CFG_WBT) wbtConfigEvent(idx, t);
  } else if (kind == EV_IOCOST_TIMER) {
    iocTimer(arg, t);
  } else if (kind == EV_IOCOST_WAKE) {
    iocWake(arg, t);
  } else if (kind == EV_WRITEBACK) {
    wbEvent(arg, t);
  } else if (kind == EV_DEVICE_ISSUE) {
    toDevice(<i32>arg, t);
  } else if (kind == EV_IOLAT_TIMER) {
    iolatTimer(arg, t);
  } else if (kind == EV_WBT_TIMER) {
    wbtTimer(arg, t);
  } else if (kind == EV_TAG_RETRY) {
    deviceRetryTag(<i32>arg, t);
  } else if (kind == EV_PC_RESUME) {
    pcResume(<i32>arg, t);
  }
}

/**
 * Close every job's sample window that ended before `t` (or by `t` at the
 * end of the run, `atEnd`). fio's helper thread samples a window if the
 * job's thread still ran when it ended: a job runs until its last
 * completion, or its runtime's end if later (fio checks the runtime after
 * its IO), and a job not finished runs still.
 */
export function rateSamplesDue(t: i64, atEnd: bool): void {
  let min = i64.MAX_VALUE;
  for (let i = 0; i < jobs.length; i++) {
    const next = jobBwNext.get(i);
    if (t > next || (atEnd && t == next)) {
      const j = unchecked(jobs[i]);
      let alive = true;
      if (j.finished) {
        let end = j.lastDone;
        if (j.runtimeNs != i64.MAX_VALUE && j.startNs + j.runtimeNs > end) end = j.startNs + j.runtimeNs;
        alive = end >= next;
      }
      rateSamplesClose(i, t, alive, j.finished);
    }
    const n = jobBwNext.get(i);
    if (n < min) min = n;
  }
  setRateNextMin(min);
}

/** Let a job's free workers submit whatever is due. */
export function jobTryIssue(j: Job, t: i64): void {
  while (j.freeWorkers.length > 0) {
    if (!jobDue(j, earliestNext(j, t), t)) return;
    const worker = j.freeWorkers.get(--j.freeWorkers.length);
    issueNext(j, worker, allocBio(), t);
  }
}

/** Is the job's next IO (earliest at `e`) due at `t`? If not, arrange for
 *  the job to be woken when it is (or mark it finished). */
@inline function jobDue(j: Job, e: i64, t: i64): bool {
  if (e == i64.MAX_VALUE) {
    if (j.inflight == 0 && !j.finished) {
      j.finished = true;
      if (j.flowGroup >= 0) flowExit(j, t);
    }
    return false;
  }
  if (e < 0) return false; // waits for a completion
  if (e > t) {
    if (j.wakeAt != e) {
      j.wakeAt = e;
      schedule(e, EV_JOB_WAKE, <u32>j.id);
    }
    return false;
  }
  return true;
}

/** Worker `worker` of job `j` submits the job's next IO in bio slot `slot`.
 *  `handOver` (a constant where inlined): the slot is the one this worker's
 *  previous bio just completed in (completeBio()), so the job's in-flight
 *  count stays (one done, one issued), its first submit is long recorded,
 *  and the slot already holds this job, worker, cgroup and device. */
@inline function issueNext(j: Job, worker: i32, slot: i32, t: i64, handOver: bool = false): void {
  nextShape(j);
  const seq = <i32>j.issued;
  thinkNoteIssue(j, j.issued, t);
  if (j.flowGroup >= 0) flowIssued(j, t);
  j.issued++;
  j.bytesIssued += <i64>shapeSize;
  if (!handOver) j.inflight++;
  // fio's IO depth map: the in-flight count with this IO (a hand-over keeps
  // it: one done, this one issued)
  noteDepth(j.id, j.inflight);
  // buffered IO (page cache) out of line: the direct path pays one test
  if (!j.direct && issueBuffered(j, worker, slot, seq, t, handOver)) return;
  if (handOver) {
    fillBioShape(slot, seq, j.dev, shapeDir, shapeOff, shapeSize, j.bioFlags, t);
  } else {
    fillBio(slot, j.id, seq, worker, j.cg, j.dev, shapeDir, shapeOff, shapeSize, j.bioFlags, t);
    noteSubmit(j.id, t);
  }
  submitBio(slot, t);
}

/** A buffered job's IO, if the page cache takes it: a write is copied into
 *  it (writeback), a read goes through filemap_read() (pagecache.ts). False:
 *  the IO goes to the block layer as a direct one (no model active for it). */
function issueBuffered(j: Job, worker: i32, slot: i32, seq: i32, t: i64, handOver: bool): bool {
  if (shapeDir == 1 && writebackActive) {
    // buffered write: the page cache takes it; the writer is delayed only
    // by dirty throttling, and writeback issues bios later as the owner.
    const delay = wbWrite(j.id, j.cg, j.dev, shapeOff, shapeSize, t);
    fillBio(slot, j.id, seq, worker, j.cg, j.dev, shapeDir, shapeOff, shapeSize, 0, t);
    noteSubmit(j.id, t);
    // completes from the writer's view after the dirtying delay
    bioAt(slot).release = t;
    bioAt(slot).issue = t;
    schedule(t + delay, EV_DEVICE_DONE, <u32>(slot | 0x800000));
    return true;
  }
  if (shapeDir == 0 && pagecacheActive) {
    // buffered read: filemap_read() through the page cache (pagecache.ts);
    // the bios are readahead's, the read completes when its pages are uptodate
    fillBio(slot, j.id, seq, worker, j.cg, j.dev, 0, shapeOff, shapeSize, 0, t);
    if (!handOver) noteSubmit(j.id, t);
    pcRead(slot, t);
    return true;
  }
  return false;
}

/** A new bio in `slot`. Its release and issue times are written where it
 *  leaves blk-throttle (passThrottle()) and reaches the device (device.ts
 *  start()); nothing reads them before. */
@inline export function fillBio(slot: i32, job: i32, seq: i32, worker: i32, cg: i32, dev: i32, dir: u8,
  off: i64, size: u32, flags: u32, t: i64): void {
  const b = bioAt(slot);
  b.job = job;
  b.worker = worker;
  b.cg = cg;
  b.dev = dev;
  fillBioShape(slot, seq, dev, dir, off, size, flags, t);
}

/** fillBio() but for job, worker, cgroup and device, which the slot holds already. */
@inline function fillBioShape(slot: i32, seq: i32, dev: i32, dir: u8, off: i64, size: u32, flags: u32, t: i64): void {
  const b = bioAt(slot);
  b.seq = seq;
  b.dir = dir;
  b.flags = flags;
  b.off = off;
  b.size = size;
  b.pieces = requestsOf(deviceAt(dev), size);
  b.submit = t;
}

/** submit_bio(): the bio enters the block layer. */
@inline export function submitBio(slot: i32, t: i64): void {
  if (throttleActive) {
    if (!throtlSubmit(slot, t)) return;
  }
  passThrottle(slot, t);
}

/** blk-throttle let the bio go (at once or from its dispatch work). */
export function afterThrottle(slot: i32, t: i64): void {
  passThrottle(slot, t);
}

@inline function passThrottle(slot: i32, t: i64): void {
  bioAt(slot).release = t;
  if (anyQos) {
    // the rq-qos chain: iocost, then wbt / blk-iolatency (one check when none is on)
    if (iocostActive && !iocSubmit(slot, t)) return;
    afterIocost(slot, t);
    return;
  }
  toDevice(slot, t);
}

// ---- the rest of the rq-qos chain: wbt and blk-iolatency (assembly/wbt/,
// assembly/iolatency/). rq_qos_add() puts a policy at the head of the chain:
// iocost (created by the first io.cost write) runs first; in 6.1 iolatency is
// created at disk init and wbt at registration, so wbt comes before it; from
// 6.2 iolatency is created by the first io.latency write and comes first.
// A policy that keeps a bio resumes the chain at the next stage when it lets
// it go.

/** iocost let the bio go (at once or from its wait list). */
@inline export function afterIocost(slot: i32, t: i64): void {
  if (rqosActive) {
    rqosChain(slot, t, 0);
    return;
  }
  toDevice(slot, t);
}

/** Stages `from`.. of the wbt / iolatency chain, then the device. */
export function rqosChain(slot: i32, t: i64, from: i32): void {
  const latFirst = iolatLazyInit();
  for (let k = from; k < 2; k++) {
    if ((k == 0) == latFirst) {
      if (iolatActive && !iolatThrottle(slot, t, k)) return;
    } else {
      if (wbtActive && !wbtThrottle(slot, t, k)) return;
    }
  }
  if (cpuReplay) {
    // a replayed request's recorded CPU time between rq-qos letting it go and its tag (device.ts)
    const b = bioAt(slot);
    const cpu = recordedCpu(b.job, b.seq);
    if (cpu > 0) {
      schedule(t + cpu, EV_DEVICE_ISSUE, <u32>slot);
      return;
    }
  }
  if (tagWakeReplay) {
    // a free tag, but the recording says the task took this long to take one (device.ts takeTagWake)
    const b = bioAt(slot);
    const d = deviceAt(b.dev);
    if (d.inFlight < d.nrRequests) {
      const w = takeTagWake(b.job, b.seq);
      if (w > 0) {
        schedule(t + w, EV_DEVICE_ISSUE, <u32>slot);
        return;
      }
    }
  }
  toDevice(slot, t);
}

/** The bio gets a request and goes to the device (or waits for a tag). */
@inline export function toDevice(slot: i32, t: i64): void {
  const b = bioAt(slot);
  noteIssue(b.cg, b.dev, b.dir, b.size, b.release - b.submit);
  deviceSubmit(b.dev, slot, t);
  // a reader asleep in rq_qos_throttle() on its readahead bio wakes (pagecache.ts;
  // the global first: a run without buffered reads does not load the flags)
  if (pagecacheActive) raPassed(slot, t);
}

@inline function deviceDone(arg: i32, t: i64): void {
  if (arg & 0x800000) {
    // a buffered write finished from the writer's view (not a device IO)
    completeBio(arg & 0x7fffff, t);
    return;
  }
  const slot = arg;
  deviceComplete(slot, t);
  if (anyQos) {
    if (iocostActive) iocDone(slot, t);
    if (rqosActive) rqosDone(slot, t);
  }
  // (the global first: a run without buffered reads does not load the flags)
  if (pagecacheActive && (bioAt(slot).flags & BIO_READAHEAD) != 0) {
    pcBioDone(slot, t); // pages uptodate, waiting readers carry on
    return;
  }
  completeBio(slot, t);
}

function raPassed(slot: i32, t: i64): void {
  if ((bioAt(slot).flags & BIO_READAHEAD) != 0) pcRaPassed(slot, t);
}

/** rq_qos_done (wbt, per request) and rq_qos_done_bio (iolatency). */
function rqosDone(slot: i32, t: i64): void {
  if (wbtActive) wbtDone(slot, t);
  if (iolatActive) iolatDone(slot, t);
}

@inline function completeBio(slot: i32, t: i64): void {
  const b = bioAt(slot);
  const job = b.job;
  const dir = b.dir;
  const size = b.size;
  // fio's bw/iops sample windows that ended before this completion (stats.ts)
  if (t > rateNextMin) rateSamplesDue(t, false);
  noteComplete(job, b.cg, dir, size, b.submit, t);
  if (recordOn) {
    record(job, b.seq, b.worker, b.cg, dir, b.flags, b.off, size, b.submit, b.release, b.issue, t);
  }
  if (b.flags & BIO_WRITEBACK) {
    wbBioDone(slot, t);
    freeBio(slot);
    return;
  }
  if (job < 0) {
    freeBio(slot);
    return;
  }
  const j = jobAt(job);
  j.completed++;
  if (t > j.lastDone) j.lastDone = t;
  const worker = b.worker;
  if (j.freeWorkers.length == 0) {
    // The closed loop's usual step: every other worker is busy, so
    // jobTryIssue() would take this worker back at once and allocBio() would
    // return this very slot. When the next IO is due now, hand both over
    // (earliestNext() does not read the in-flight count this leaves alone).
    const e = earliestNext(j, t);
    if (e >= 0 && e <= t) {
      b.next = -1; // as allocBio() leaves it
      issueNext(j, worker, slot, t, true);
      return;
    }
  }
  j.inflight--;
  freeBio(slot);
  j.freeWorkers.push(worker);
  jobTryIssue(j, t);
}
