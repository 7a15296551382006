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
// The per-bio path of an unthrottled closed loop has three shortcuts, all
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
//   - runSteady(): while the lane 0 head is such a hand-over of a job with
//     one direction and one block size, on a device and in a run with no
//     module, mode or case the step leaves out, the steps are taken with
//     their state in locals and their counters added once per run of steps
//     (the design note above runSteady()).
// Worked example (bench/engine.ts: one job, QD 32, ideal 8 us device, no
// control module): bio seq 100 (worker 4, slot 4: seq s runs on worker and
// slot s % 32) completes at t = 32,000 ns; its latency 8,000 ns is counted,
// the 31 other workers are busy and the closed loop's next IO is due at t,
// so seq 132 is issued at once by worker 4 in slot 4 and its completion
// appended to lane 0 at 40,000 ns.

import { pop, peekTime, pendingEvents, poppedTime, poppedMeta, metaKind, metaArg,
  laneZeroFirst, popLaneZeroFirst, countEvents, lane0Buf, lane0Head, lane0Len, lane0Cap, setLane0,
  heapTopT, heapTopM, seqNow, setSeqNow,
  EV_JOB_WAKE, EV_DEVICE_DONE, EV_THROTL_TIMER, EV_CONFIG, EV_IOCOST_TIMER, EV_IOCOST_WAKE,
  EV_WRITEBACK, EV_THROTL_WORK, EV_DEVICE_ISSUE, EV_STOP, EV_IOLAT_TIMER, EV_WBT_TIMER, EV_TAG_RETRY, EV_PC_RESUME, schedule } from "./events";
import { allocBio, freeBio, bioAt, bioTableBase, Bio, BIO_BYTES, BIO_SYNC, BIO_WRITEBACK, BIO_READAHEAD, BIO_SEQ } from "./bios";
import { rotl, reduceBelow } from "./random";
import { deviceSubmit, deviceComplete, deviceAt, requestsOf, cpuReplay, recordedCpu, tagWakeReplay, takeTagWake, deviceRetryTag } from "../device/device";
import { jobAt, jobs, Job, earliestNext, nextShape, thinkNoteIssue, shapeDir, shapeSize, shapeOff, flowIssued, flowExit, RW_READ, RW_WRITE } from "../workload/jobs";
import { noteSubmit, noteDepth, noteIssue, noteComplete, record, recordOn, rateNextMin, rateSamplesClose, setRateNextMin, jobBwNext,
  anyRamp, seriesBinNs, seriesOpenFrom, seriesOpenTo, seriesTouched, statDevices, FIO_IO_U_MAP_NR,
  pJobIos, pJobBytes, pJobLatSum, pJobLatSq, pJobLatMin, pJobLatMax, pJobHist, pJobLastDone, pJobDepth,
  pCgIos, pCgBytes, pSeriesIos, pSeriesBytes, pSeriesLatSum, pSeriesHist } from "../stats/stats";
import { platIndex, FIO_PLAT_BITS, FIO_PLAT_NR, SERIES_PLAT_BITS, SERIES_PLAT_NR } from "../stats/histogram";
import { throttleActive, throtlSubmit, throtlTimer, throtlWork, throtlConfigEvent } from "../throttle/throttle";
import { iocostActive, iocSubmit, iocDone, iocTimer, iocWake, iocConfigEvent } from "../iocost/iocost";
import { writebackActive, wbWrite, wbEvent, wbBioDone } from "../writeback/writeback";
import { iolatActive, iolatThrottle, iolatDone, iolatTimer, iolatLazyInit } from "../iolatency/iolatency";
import { wbtActive, wbtThrottle, wbtDone, wbtTimer } from "../wbt/wbt";
import { iolatConfigEvent } from "../iolatency/api";
import { rqosActive, anyQos, deviceStartHooks } from "../iolatency/log";
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
  steadyOn = true;
  steadyRan = STEADY_SHORT;
  steadySteps = 0;
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
      if (steadyPossible()) {
        // the steady closed loop (runSteady()); when it declines the head event,
        // the general path takes that one, or 64 if it ran only briefly before
        // (jobs that take turns on the device: it would stop at every event)
        const m = runSteady(untilNs, n, maxEvents);
        if (m > n) {
          steadyRan = m - n;
          n = m;
          continue;
        }
        const lim = steadyRan >= STEADY_SHORT ? n + 1 : n + STEADY_SHORT;
        steadyRan = 0;
        n = runLaneZero(untilNs, n, lim < maxEvents ? lim : maxEvents);
        continue;
      }
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

// ---- The steady closed loop: runSteady().
//
// The per-bio path above reads its state from memory at every step (the
// lane's head and length, the job's counts, each statistic's column, the
// job's random stream) and checks at every step for the modules and cases
// a run may have (blk-throttle, rq-qos, the page cache, records, a ramp,
// shaped devices, mixed directions, several block sizes, think times, rate
// limits). In the steady state of the commonest run, one closed-loop job of
// fixed direction and block size doing direct IO on a device none of those
// touch, every event is the same step: a completion of the job's bio on
// lane 0, counted, and the hand-over of its slot to the job's next IO. While
// that holds, runSteady() takes those steps with the state in locals and the
// counters that grow by one bio (or one block) a step counted once: k steps
// add k IOs, k x bs bytes and k x bs / 512 sectors, the latency sums are
// summed in the same order in a local, the minimum, maximum and last
// completion kept in locals; the histograms' buckets are still counted in
// memory at each step. It stops, before popping it, at any event that is not
// such a step (another kind, another job's bio, the job's last IO, a
// sample window or series bin that ends, a jiffy in which the disk's
// io_ticks move, the run's limits) and writes its locals back; the general
// loop takes that event. The result is the one the general path gives, bit
// for bit: the same steps, the same order of floating-point additions, the
// same scheduling sequence numbers (bench/engine-20m.fio: the whole run).
//
// Entry (steadyPossible(), then runSteady()'s checks of the head event's
// job and device): no blk-throttle, no rq-qos policy, no page cache, no
// per-bio records, no ramp_time, no device start hooks; only lane 0 in use;
// the job a plain closed loop (no think time, flow, rate or times), direct,
// one direction (rw=read or write), one block size (of that direction), all
// its workers busy; its device (lane 0's, device 0) unshaped with nothing
// waiting for a request.
//
// Worked example (bench/engine-20m.fio on the ideal device: 1 channel,
// 6,024 ns a 4 KiB read, QD 32): the completion of seq 1000 at t is popped;
// its latency 192,768 ns goes into the local sums and fio's bucket 1,143 and
// the series' bucket 167 are counted; seq 1032 takes its slot, its offset
// from the job's stream in locals, and its completion at t + 6,024 ns is
// appended to lane 0 with the next sequence number. Every 4 ms the disk's
// jiffy changes and the loop stops for one general step (update_io_ticks).

/** bios a steady run counts as having run long (see runEvents()) */
const STEADY_SHORT: i32 = 64;
/** bios the last runSteady() call took */
let steadyRan: i32 = STEADY_SHORT;
/** the steady loop may run (tests turn it off to compare: index.ts steadyLoop) */
let steadyOn: bool = true;
/** bios runSteady() has taken this run (tests: index.ts steadySteps) */
export let steadySteps: u64 = 0;

export function setSteadyLoop(on: bool): void {
  steadyOn = on;
}

/** No module or mode that the steady loop leaves out is on. */
@inline function steadyPossible(): bool {
  return steadyOn && !throttleActive && !anyQos && !pagecacheActive && !recordOn && !deviceStartHooks && !anyRamp;
}

/** The steady closed loop (design note above) from the lane 0 head on; returns the new event count. */
function runSteady(untilNs: i64, n: i32, maxEvents: i32): i32 {
  let h = lane0Head();
  let len = lane0Len();
  if (h >= len || n >= maxEvents) return n;
  const buf = lane0Buf();
  const first = load<u64>(buf + (<usize>h << 4), 8);
  if ((first & 0xff800000) != (<u64>EV_DEVICE_DONE << 24)) return n;
  const base = bioTableBase();
  const b0 = changetype<Bio>(base + <usize>(<i32>(first & 0x7fffff)) * BIO_BYTES);
  const J = b0.job;
  if (J < 0) return n;
  const j = jobAt(J);
  if (!j.plainClosed || !j.direct || j.freeWorkers.length != 0 || j.thinkIotimeNs != 0 || j.rateDir || j.pendingDir >= 0) return n;
  if (j.rw != RW_READ && j.rw != RW_WRITE) return n;
  if (j.dev != 0) return n;
  const D: u8 = j.rw == RW_WRITE ? 1 : 0;
  let S: u32 = j.bs0;
  let slots: i64 = j.bsSlots0;
  let nb = j.nBs;
  if (D == 1 && j.bsWFrom > 0) {
    S = j.bsW0;
    slots = j.bsWSlots0;
    nb = j.nBsW;
  }
  if (nb > 1) return n;
  const d = deviceAt(0);
  if (d.shaped || d.fifoHead >= 0) return n;
  const ring = d.channels < d.nrRequests;
  if (ring && d.chFree.length == 0) return n;
  const single = d.channels == 1 && d.chMask == 1;
  const nreq = requestsOf(d, S);
  const flags0 = j.bioFlags;
  const cg = j.cg;
  const random = j.random;
  const regionOff = j.regionOff;
  const regionLen = j.regionLen;
  const align = j.align;
  // earliestNext()'s limits as one on the IOs issued: issued >= count, or
  // bytesIssued (issued0's bytes + S per IO since) >= bytesLimit
  const issued0 = j.issued;
  const bytes0 = j.bytesIssued;
  let issueEnd = j.count;
  if (!j.timeBased && j.bytesLimit != i64.MAX_VALUE) {
    const left = j.bytesLimit - bytes0;
    const byBytes = left <= 0 ? issued0 : issued0 + (left - 1) / <i64>S + 1;
    if (byBytes < issueEnd) issueEnd = byBytes;
  }
  // the last time a step may have: before the disk's next jiffy (io_ticks),
  // by the job's sample window end, before the series bin's end and the
  // job's runtime end, within the run's bound; the heap's least event
  // (topT, topM) comes first from its time on (checked with its meta)
  // (an end at i64.MIN_VALUE, before any time: declined, as x - 1 would wrap)
  const series = seriesBinNs > 0;
  const runEnd = j.runtimeNs == i64.MAX_VALUE ? i64.MAX_VALUE : j.startNs + j.runtimeNs;
  if (d.dsStampEndNs == i64.MIN_VALUE || runEnd == i64.MIN_VALUE || (series && seriesOpenTo == i64.MIN_VALUE)) return n;
  let tEnd = d.dsStampEndNs - 1;
  if (rateNextMin < tEnd) tEnd = rateNextMin;
  if (series && seriesOpenTo - 1 < tEnd) tEnd = seriesOpenTo - 1;
  if (runEnd != i64.MAX_VALUE && runEnd - 1 < tEnd) tEnd = runEnd - 1;
  if (untilNs < tEnd) tEnd = untilNs;
  // and the first: the job has started (earliestNext()), the series bin has (events come in time order)
  let tFrom = j.startNs;
  if (series && seriesOpenFrom > tFrom) tFrom = seriesOpenFrom;
  if (load<i64>(buf + (<usize>h << 4)) < tFrom) return n;
  const ji = J * 2 + <i32>D; // the job-direction's statistics
  const sj = cg * 2 + <i32>D; // the cgroup-direction's series
  const pHist = pJobHist + (<usize>(ji * FIO_PLAT_NR) << 2);
  const pSHist = pSeriesHist + (<usize>(sj * SERIES_PLAT_NR) << 2);
  const topT = heapTopT();
  const topM = heapTopM();
  const tLim = topT < tEnd ? topT : tEnd;
  const cap = lane0Cap();
  let seq = seqNow();
  // the state the steps change, in locals
  let issued = issued0;
  let pos = j.pos;
  const rng = j.rng;
  let s0 = rng.s0;
  let s1 = rng.s1;
  let s2 = rng.s2;
  let s3 = rng.s3;
  let latSum = load<f64>(pJobLatSum + (<usize>ji << 3));
  let latSq = load<f64>(pJobLatSq + (<usize>ji << 3));
  let latMin = load<i64>(pJobLatMin + (<usize>ji << 3));
  let latMax = load<i64>(pJobLatMax + (<usize>ji << 3));
  let sLatSum: f64 = series ? load<f64>(pSeriesLatSum + (<usize>sj << 3)) : 0.0;
  let dsNs: u64 = 0;
  let busy: i64 = 0;
  // where the device's last bio of the job's direction ended, and the other direction's (which no step moves)
  let lastEnd = D ? d.lastEndW : d.lastEndR;
  const otherEnd = D ? d.lastEndR : d.lastEndW;
  // the last latency's buckets (an unshaped device's latencies repeat): fio's, the series'
  let memoLat: i64 = -1;
  let memoHf = 0;
  let memoHs = 0;
  // steps taken: issued - issued0 (a bio completed, one issued), within maxEvents
  const n0 = n;
  if (<i64>(maxEvents - n0) < issueEnd - issued0) issueEnd = issued0 + <i64>(maxEvents - n0);
  // the last step's completion when it goes to the heap (out of the lane's order)
  let heapSlot = -1;
  let heapDone: i64 = 0;
  // seriesTouched's room
  const touchData = changetype<usize>(seriesTouched.data);
  const touchCap = seriesTouched.data.length;
  let touchLen = seriesTouched.length;
  while (true) {
    if (h >= len) break;
    const p = buf + (<usize>h << 4);
    const te = load<i64>(p);
    const m = load<u64>(p, 8);
    // the least pending event (before the heap's least), and nothing but the
    // step: no io_ticks jiffy, no sample window or series bin ends (tEnd)
    if (te > tLim || (te == topT && m >= topM)) break;
    // a device completion of this job's bio (the job's bios all have its
    // direction and size, and no writeback flag: that is job -1's)
    if ((m & 0xff800000) != (<u64>EV_DEVICE_DONE << 24)) break;
    const slot = <i32>(m & 0x7fffff);
    const b = changetype<Bio>(base + <usize>slot * BIO_BYTES);
    if (b.job != J) break;
    // earliestNext(): the job's next IO is due now (and before its limits; maxEvents too)
    if (issued >= issueEnd) break;
    // The pop as advanceLane() does it: a drained lane rewinds, a long-consumed one is compacted
    let nh = h + 1;
    let nlen = len;
    let compact = false;
    if (nh == nlen) {
      nlen = 0;
      nh = 0;
    } else if (nh >= 4096 && nh * 2 >= nlen) compact = true;
    // ... and the steps whose work calls out (so that none does in this loop): a
    // lane that would grow, a series bucket list that would grow (the general path takes them)
    if (!compact && nlen == cap) break;
    const lat = te - b.submit;
    if (lat != memoLat) {
      memoLat = lat;
      memoHf = platIndex(<u64>lat, FIO_PLAT_BITS, FIO_PLAT_NR);
      memoHs = platIndex(<u64>lat, SERIES_PLAT_BITS, SERIES_PLAT_NR);
      // (a latency seen last step is within the minimum and maximum already)
      if (lat < latMin) latMin = lat;
      if (lat > latMax) latMax = lat;
    }
    const ps = pSHist + (<usize>memoHs << 2);
    let c: u32 = 0;
    if (series) {
      c = load<u32>(ps);
      if (c == 0 && touchLen == touchCap) break;
    }
    // -- the step. The pop.
    const t = te;
    if (compact) {
      // (memory.copy, as a loop: the live tail to the front)
      const live = nlen - nh;
      const from = buf + (<usize>nh << 4);
      for (let e = 0; e < live; e++) {
        const q = <usize>e << 4;
        store<u64>(buf + q, load<u64>(from + q));
        store<u64>(buf + q, load<u64>(from + q, 8), 8);
      }
      nlen = live;
      nh = 0;
    }
    h = nh;
    len = nlen;
    // deviceComplete(): disk statistics (the counts at the end)
    dsNs += <u64>nreq * <u64>(t - b.issue);
    // noteComplete()
    const fl = <f64>lat;
    latSum += fl;
    latSq += fl * fl;
    const ph = pHist + (<usize>memoHf << 2);
    store<u32>(ph, load<u32>(ph) + 1);
    if (series) {
      sLatSum += fl;
      if (c == 0) {
        // seriesTouched.push(), with room for it
        store<i32>(touchData + (<usize>touchLen << 2), sj * SERIES_PLAT_NR + memoHs);
        touchLen++;
      }
      store<u32>(ps, c + 1);
    }
    // completeBio(): the hand-over of slot and worker (the job's counts at the end)
    b.next = -1;
    // nextShape(): one direction, one size; the offset from the job's stream
    let off: i64;
    if (random) {
      let r: u64 = 0;
      if (<u64>slots > 1) {
        // (Rng.next() on the state in locals; below()'s reduction)
        const x = rotl(s1 * 5, 7) * 9;
        const tt = s1 << 17;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= tt;
        s3 = rotl(s3, 45);
        r = reduceBelow(x, <u64>slots);
      }
      off = regionOff + <i64>r * align;
    } else {
      if (pos + <i64>S > regionLen) pos = 0;
      off = regionOff + pos;
      pos += <i64>S;
    }
    // issueNext() (hand-over), fillBioShape(), submitBio() with no policy
    // (the slot's direction, size and piece count are the job's already: its last bio's)
    b.seq = <i32>issued;
    issued++;
    b.off = off;
    b.submit = t;
    b.release = t;
    // start(): sequential or random, the service time, the channel
    const sq = off == lastEnd || off == otherEnd;
    lastEnd = off + <i64>S;
    b.flags = sq ? flags0 | BIO_SEQ : flags0;
    b.issue = t;
    const rand = sq ? 0 : 1;
    const key = (<u64>S << 2) | <u64>((<i32>D << 1) | rand);
    if (key != d.svcKey) {
      // device.ts serviceMemo() for an unshaped device (no quantile row), written out: through
      // serviceMemo() Binaryen keeps serviceNs() a call and the engine bench read 0.974-0.984
      const svc = d.serviceNs(D, rand, S);
      d.svcKey = key;
      d.svcNs = svc;
      d.svcOccNs = <i64>svc;
      d.svcLatNs = <i64><f64>d.fixedLatencyNs;
    }
    const occNs = d.svcOccNs;
    const latNs = d.svcLatNs;
    busy += occNs;
    let done: i64;
    if (!ring) done = t + occNs + latNs;
    else if (single) {
      // one channel (a ring of two): start when it is free, its free time the other entry
      const cf = changetype<usize>(d.chFree);
      const head = d.chHead;
      const bestT = load<i64>(cf + (<usize>head << 3));
      const begin = bestT > t ? bestT : t;
      store<i64>(cf + (<usize>(head ^ 1) << 3), begin + occNs);
      d.chHead = head ^ 1;
      done = begin + occNs + latNs;
    } else {
      const cf = d.chFree;
      const mask = d.chMask;
      const head = d.chHead;
      const bestT = unchecked(cf[head]);
      const begin = bestT > t ? bestT : t;
      const v = begin + occNs;
      let q = (head + d.channels) & mask;
      let pq = (q - 1) & mask;
      while (pq != head && unchecked(cf[pq]) > v) {
        unchecked((cf[q] = unchecked(cf[pq])));
        q = pq;
        pq = (pq - 1) & mask;
      }
      unchecked((cf[q] = v));
      d.chHead = (head + 1) & mask;
      done = begin + occNs + latNs;
    }
    // scheduleLane(0, ...): appended (the lane has room: checked above), or,
    // out of the lane's order, to the heap after the locals are written back
    if (len > h && load<i64>(buf + (<usize>(len - 1) << 4)) > done) {
      heapSlot = slot;
      heapDone = done;
      break;
    }
    const pp = buf + (<usize>len << 4);
    store<i64>(pp, done);
    store<u64>(pp, (seq++ << 32) | (<u64>EV_DEVICE_DONE << 24) | (<u64>slot & 0xffffff), 8);
    len++;
  }
  const k = <i32>(issued - issued0);
  if (k == 0) return n;
  n = n0 + k;
  // the last step's time: its bio's submit (the lane's tail, or the one for the heap)
  const lastSlot = heapSlot >= 0 ? heapSlot : <i32>(load<u64>(buf + (<usize>(len - 1) << 4), 8) & 0x7fffff);
  const t = changetype<Bio>(base + <usize>lastSlot * BIO_BYTES).submit;
  steadySteps += <u64>k;
  // write the locals back
  setLane0(h, len, k, heapSlot >= 0 ? k - 1 : k);
  setSeqNow(seq);
  if (heapSlot >= 0) schedule(heapDone, EV_DEVICE_DONE, <u32>heapSlot);
  seriesTouched.length = touchLen;
  countEvents(k);
  now = t;
  const k64 = <u64>k;
  j.issued = issued;
  j.bytesIssued = bytes0 + <i64>k * <i64>S;
  j.completed += <i64>k;
  // (completions come in time order: the last is the latest)
  if (t > j.lastDone) j.lastDone = t;
  j.pos = pos;
  rng.s0 = s0;
  rng.s1 = s1;
  rng.s2 = s2;
  rng.s3 = s3;
  addU64(pJobIos + (<usize>ji << 3), k64);
  addU64(pJobBytes + (<usize>ji << 3), k64 * <u64>S);
  store<f64>(pJobLatSum + (<usize>ji << 3), latSum);
  store<f64>(pJobLatSq + (<usize>ji << 3), latSq);
  store<i64>(pJobLatMin + (<usize>ji << 3), latMin);
  store<i64>(pJobLatMax + (<usize>ji << 3), latMax);
  const pl = pJobLastDone + (<usize>J << 3);
  if (t > load<i64>(pl)) store<i64>(pl, t);
  // noteDepth(): the in-flight count a hand-over keeps
  let db = 31 - <i32>clz<u32>(<u32>(j.inflight > 1 ? j.inflight : 1));
  if (db > 6) db = 6;
  addU64(pJobDepth + (<usize>(J * FIO_IO_U_MAP_NR + db) << 3), k64);
  // noteIssue() (no time in blk-throttle: nothing to add to the wait)
  const co = <usize>((cg * statDevices + 0) * 2 + <i32>D) << 3;
  addU64(pCgIos + co, k64);
  addU64(pCgBytes + co, k64 * <u64>S);
  if (series) {
    const pi = pSeriesIos + (<usize>sj << 2);
    store<u32>(pi, load<u32>(pi) + <u32>k);
    addU64(pSeriesBytes + (<usize>sj << 3), k64 * <u64>S);
    store<f64>(pSeriesLatSum + (<usize>sj << 3), sLatSum);
  }
  const ios = k64 * <u64>nreq;
  const sectors = k64 * <u64>(S >> 9);
  if (D) {
    d.dsIosW += ios;
    d.dsSectorsW += sectors;
    d.dsNsW += dsNs;
  } else {
    d.dsIosR += ios;
    d.dsSectorsR += sectors;
    d.dsNsR += dsNs;
  }
  d.ios += k64;
  d.busyNs += busy;
  if (D) d.lastEndW = lastEnd;
  else d.lastEndR = lastEnd;
  return n;
}

@inline function addU64(p: usize, v: u64): void {
  store<u64>(p, load<u64>(p) + v);
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
