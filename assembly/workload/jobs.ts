// Jobs: the processes that submit bios (fio jobs, oracle recorder threads,
// recorded IO logs).
//
// A job has `qd` workers, each with at most one bio in flight (fio's
// iodepth, or the oracle recorder's threads doing synchronous pread/pwrite).
// When a worker is free the job computes the earliest time its next IO
// (index i) may be submitted, from its pattern:
//
//   PAT_CLOSED  now: issue as soon as a worker is free
//   PAT_RATE    start + i * 1e9 / rateIops, and start + bytes * 1e9 / rateBps
//   PAT_TIMES   start + times[i]                      (open loop, listed times)
//   PAT_BURSTS  closed inside a burst of `burst` IOs; the first IO of a later
//               burst waits for every earlier IO to complete, then gap[k]
//   PAT_REPLAY  start + times[i], offsets/sizes/directions from the list
//
// plus fio's thinktime (after every `thinktimeBlocks` IOs the next waits
// thinktime after the last completion) and startdelay. A job stops
// submitting at `count` IOs, `bytesLimit` bytes, or `runtimeNs` after its
// start, whichever comes first; with `timeBased` it wraps the region and
// stops only at runtime.
//
// Worked example (oracle `iops100_qd1_read`): qd 1, closed, count 300, 4 KiB
// sequential reads: worker 0 submits IO 0 at t=0, IO 1 when IO 0 completes,
// and so on; blk-throttle decides when each completes.
//
// Sequential offsets. fio keeps one position per direction
// (f->last_pos[ddir]: get_io_u() sets it to offset + buflen of the IO it
// prepared, get_next_seq_offset() in io_u.c hands it out as the next offset
// of that direction, fio_file_reset() puts both at the region's start), so a
// sequential mixed job (rw=rw / readwrite, RW_MIX with !random) is two
// sequential streams from the region's start, one per direction, each
// advancing by its own direction's block sizes and wrapping on its own.
// 4 KiB, rwmixread=50, directions drawn R W W R R W:
//
//   fio / iosim  R@0  W@0  W@4k  R@4k  R@8k  W@8k      (pos, posW)
//   one cursor   R@0  W@4k W@8k  R@12k R@16k W@20k     (iosim before)
//
// The oracle recorder's alternating jobs (RW_ALT, run_scenario.py's
// expand_job(): region_off + (i % nblocks) * bs over all IOs) share one
// position, and so does a job of one direction, so they keep `pos` alone.
// fio's modifiers of the sequential offset are not modelled (the job-file
// parser warns about each); were they added, they act per direction too:
// rw=rw:N (str_rw_cb(): ddir_seq_add = N) leaves an N-byte hole after each
// IO in its own direction's stream (get_next_seq_offset()); randrw:N
// (ddir_seq_nr = N, one countdown for both directions, get_next_offset())
// draws every N-th IO at random and continues last_pos[ddir] of the IO's
// direction in between; rw_sequencer=identical repeats last_start[ddir];
// percentage_random's sequential part continues last_pos[ddir], which that
// direction's random IOs also move; zonemode=strided moves to the next zone
// after zone_size bytes of both directions but resets only the current
// direction's last_pos (setup_strided_zone_mode()). Trim workloads
// (rw=trimwrite) are refused.

import { Vec } from "../engine/vec";
import { Rng } from "../engine/random";
import { schedule, EV_JOB_WAKE } from "../engine/events";

export const RW_READ: i32 = 0;
export const RW_WRITE: i32 = 1;
export const RW_MIX: i32 = 2; // rwmixread percent
export const RW_ALT: i32 = 3; // alternate R, W, R, ...

export const PAT_CLOSED: i32 = 0;
export const PAT_RATE: i32 = 1;
export const PAT_TIMES: i32 = 2;
export const PAT_BURSTS: i32 = 3;
export const PAT_REPLAY: i32 = 4;

export class Job {
  id: i32;
  cg: i32 = 0;
  dev: i32 = 0;
  rw: i32 = RW_READ;
  mixReadPct: i32 = 50;
  random: bool = false;
  direct: bool = true;
  sync: bool = true;
  bsSize: Vec<u32> = new Vec<u32>(4);
  bsCum: Vec<u32> = new Vec<u32>(4); // cumulative weights
  bsSlots: Vec<i64> = new Vec<i64>(4); // random offsets possible per block size
  // set by startJob(): the first block size, its slot count, how many sizes
  // (nextShape() reads these instead of the columns for a single size)
  bs0: u32 = 4096;
  bsSlots0: i64 = 1;
  nBs: i32 = 1;
  // fio's bs=R,W / bssplit=R,W: writes draw from the columns' entries
  // bsWFrom.. (weights cumulative from 0 again), reads from 0..bsWFrom;
  // -1 = one list for both directions
  bsWFrom: i32 = -1;
  bsW0: u32 = 4096;
  bsWSlots0: i64 = 1;
  nBsW: i32 = 0;
  regionOff: i64 = 0;
  regionLen: i64 = 1 << 30;
  align: i64 = 4096;
  qd: i32 = 1;
  pattern: i32 = PAT_CLOSED;
  rateIops: f64 = 0;
  rateBps: f64 = 0;
  // fio's per-direction caps on a mixed job (rate=R,W / rate_iops=R,W), with
  // its rate_ddir(): set by jobRateDir(); index = direction
  rateDir: bool = false;
  dirIops: StaticArray<f64> = new StaticArray<f64>(2);
  dirBps: StaticArray<f64> = new StaticArray<f64>(2);
  dirIos: StaticArray<i64> = new StaticArray<i64>(2);
  dirBytes: StaticArray<i64> = new StaticArray<i64>(2);
  pendingDir: i32 = -1; // the next IO's direction, once drawn (rate_ddir may switch it)
  times: Vec<i64> = new Vec<i64>(4); // PAT_TIMES / PAT_REPLAY, relative to start
  rOff: Vec<i64> = new Vec<i64>(4); // PAT_REPLAY
  rSize: Vec<u32> = new Vec<u32>(4);
  rDir: Vec<u8> = new Vec<u8>(4);
  burst: i32 = 0;
  gaps: Vec<i64> = new Vec<i64>(4);
  thinkNs: i64 = 0;
  thinkBlocks: i32 = 1;
  startNs: i64 = 0;
  count: i64 = i64.MAX_VALUE;
  bytesLimit: i64 = i64.MAX_VALUE;
  runtimeNs: i64 = i64.MAX_VALUE;
  timeBased: bool = false;
  rng: Rng;
  // state
  issued: i64 = 0;
  completed: i64 = 0;
  inflight: i32 = 0;
  bytesIssued: i64 = 0;
  pos: i64 = 0; // the next sequential offset, from regionOff (a mixed job's reads)
  posW: i64 = 0; // a sequential mixed job's writes (fio's last_pos[DDIR_WRITE])
  freeWorkers: Vec<i32> = new Vec<i32>(4);
  lastDone: i64 = 0;
  wakeAt: i64 = -1;
  finished: bool = false;
  altNext: u8 = 0;

  constructor(id: i32, seed: u64) {
    this.id = id;
    this.rng = new Rng(seed, <u64>id + 1);
  }
}

export const jobs = new Array<Job>();
// The same references in a table at a plain global address (see deviceAt()).
let jobTable: usize = changetype<usize>(new StaticArray<usize>(8));
let jobTableCap: i32 = 8;

@inline export function jobAt(job: i32): Job {
  return load<Job>(jobTable + (<usize>job << alignof<usize>()));
}

export function resetJobs(): void {
  jobs.length = 0;
}

export function addJob(seed: u64): i32 {
  const id = jobs.length;
  const j = new Job(id, seed);
  jobs.push(j);
  if (id == jobTableCap) {
    const t = changetype<usize>(new StaticArray<usize>(jobTableCap * 2));
    memory.copy(t, jobTable, <usize>jobTableCap << alignof<usize>());
    jobTable = t;
    jobTableCap *= 2;
  }
  store<usize>(jobTable + (<usize>id << alignof<usize>()), changetype<usize>(j));
  return j.id;
}

/** Called once before the run: workers free, first wake at start. */
export function startJob(j: Job): void {
  j.freeWorkers.length = 0;
  for (let w = j.qd - 1; w >= 0; w--) j.freeWorkers.push(w);
  j.pos = 0;
  j.posW = 0;
  j.pendingDir = -1;
  if (j.bsSize.length == 0) {
    j.bsSize.push(4096);
    j.bsCum.push(1);
  }
  j.bsSlots.length = 0;
  for (let k = 0; k < j.bsSize.length; k++) {
    const slots = (j.regionLen - <i64>j.bsSize.get(k)) / j.align + 1;
    j.bsSlots.push(slots > 0 ? slots : 1);
  }
  j.bs0 = j.bsSize.get(0);
  j.bsSlots0 = j.bsSlots.get(0);
  j.nBs = j.bsSize.length;
  if (j.bsWFrom > 0 && j.bsWFrom < j.bsSize.length) {
    j.nBs = j.bsWFrom;
    j.bsW0 = j.bsSize.get(j.bsWFrom);
    j.bsWSlots0 = j.bsSlots.get(j.bsWFrom);
    j.nBsW = j.bsSize.length - j.bsWFrom;
  } else j.bsWFrom = -1;
  j.wakeAt = j.startNs;
  schedule(j.startNs, EV_JOB_WAKE, <u32>j.id);
}

export function totalIos(j: Job): i64 {
  if (j.pattern == PAT_REPLAY || j.pattern == PAT_TIMES) {
    const n = <i64>j.times.length;
    return n < j.count ? n : j.count;
  }
  return j.count;
}

/**
 * Earliest time IO number `j.issued` may be submitted, or -1 if it must wait
 * for a completion (bursts), or i64.MAX_VALUE if the job is done.
 */
@inline export function earliestNext(j: Job, now: i64): i64 {
  if (j.pattern == PAT_CLOSED && j.thinkNs == 0) {
    // the common case: as soon as a worker is free, until a limit is hit
    if (j.issued >= j.count || (!j.timeBased && j.bytesIssued >= j.bytesLimit)) return i64.MAX_VALUE;
    if (j.runtimeNs != i64.MAX_VALUE && now >= j.startNs + j.runtimeNs) return i64.MAX_VALUE;
    return j.startNs > now ? j.startNs : now;
  }
  return earliestNextPattern(j, now);
}

/** earliestNext() for every pattern but a plain closed loop. */
function earliestNextPattern(j: Job, now: i64): i64 {
  const i = j.issued;
  if (i >= totalIos(j)) return i64.MAX_VALUE;
  if (!j.timeBased && j.bytesIssued >= j.bytesLimit) return i64.MAX_VALUE;
  if (j.runtimeNs != i64.MAX_VALUE && now >= j.startNs + j.runtimeNs) return i64.MAX_VALUE;
  let t = j.startNs;
  const p = j.pattern;
  if (p == PAT_RATE && j.rateDir) {
    const at = rateDdir(j, now);
    if (at > t) t = at;
  } else if (p == PAT_RATE) {
    if (j.rateIops > 0) {
      const ti = j.startNs + <i64>((<f64>i * 1e9) / j.rateIops);
      if (ti > t) t = ti;
    }
    if (j.rateBps > 0) {
      const tb = j.startNs + <i64>((<f64>j.bytesIssued * 1e9) / j.rateBps);
      if (tb > t) t = tb;
    }
  } else if (p == PAT_TIMES || p == PAT_REPLAY) {
    t = j.startNs + j.times.get(<i32>i);
  } else if (p == PAT_BURSTS) {
    if (j.burst > 0 && i > 0 && i % <i64>j.burst == 0) {
      if (j.completed < i) return -1;
      const k = <i32>(i / <i64>j.burst) - 1;
      const gap = j.gaps.length > 0 ? j.gaps.get(k % j.gaps.length) : 0;
      t = j.lastDone + gap;
    }
  }
  if (j.thinkNs > 0 && i > 0 && i % <i64>j.thinkBlocks == 0) {
    if (j.completed < i) return -1;
    const tt = j.lastDone + j.thinkNs;
    if (tt > t) t = tt;
  }
  return t;
}

/** The direction of a mixed job's next IO, by its read share (or alternating). */
@inline function drawDir(j: Job): u8 {
  const rw = j.rw;
  if (rw == RW_WRITE) return 1;
  if (rw == RW_MIX) return <i32>j.rng.below(100) < j.mixReadPct ? 0 : 1;
  if (rw == RW_ALT) {
    const d = j.altNext;
    j.altNext ^= 1;
    return d;
  }
  return 0;
}

/** When direction d may issue again: its bytes and IOs so far at its caps (start if it has none). */
function dirNextAt(j: Job, d: i32): i64 {
  let t = j.startNs;
  const iops = unchecked(j.dirIops[d]);
  if (iops > 0) {
    const ti = j.startNs + <i64>((<f64>unchecked(j.dirIos[d]) * 1e9) / iops);
    if (ti > t) t = ti;
  }
  const bps = unchecked(j.dirBps[d]);
  if (bps > 0) {
    const tb = j.startNs + <i64>((<f64>unchecked(j.dirBytes[d]) * 1e9) / bps);
    if (tb > t) t = tb;
  }
  return t;
}

/**
 * fio's rate_ddir() (io_u.c): the next IO's direction is drawn by the mix; if
 * that direction is ahead of its rate and the other one (with a share of the
 * mix) may issue now, the IO switches to it; if both are ahead, it waits for
 * whichever may issue first and takes that direction. Returns the time the
 * IO may issue; the direction is left in pendingDir for nextShape().
 */
function rateDdir(j: Job, now: i64): i64 {
  if (j.pendingDir < 0) j.pendingDir = drawDir(j);
  const d = j.pendingDir;
  const o = d ^ 1;
  const td = dirNextAt(j, d);
  if (td <= now) return td;
  const oShare = j.rw == RW_ALT ? 50 : j.rw != RW_MIX ? 0 : o == 0 ? j.mixReadPct : 100 - j.mixReadPct;
  if (oShare <= 0) return td;
  const to = dirNextAt(j, o);
  if (to <= now || to < td) {
    j.pendingDir = o;
    return to;
  }
  return td;
}

/** Choose direction, size and offset of the next IO. */
@inline export function nextShape(j: Job): void {
  const i = <i32>j.issued;
  if (j.pattern == PAT_REPLAY) {
    shapeDir = j.rDir.get(i);
    shapeSize = j.rSize.get(i);
    shapeOff = j.rOff.get(i);
    return;
  }
  let dir: u8;
  if (j.pendingDir >= 0) {
    dir = <u8>j.pendingDir;
    j.pendingDir = -1;
  } else dir = drawDir(j);
  let size: u32 = j.bs0;
  let lo = 0;
  let nb = j.nBs;
  let slots0 = j.bsSlots0;
  if (dir == 1 && j.bsWFrom > 0) {
    lo = j.bsWFrom;
    nb = j.nBsW;
    size = j.bsW0;
    slots0 = j.bsWSlots0;
  }
  let bk = lo;
  if (nb > 1) {
    const total = j.bsCum.get(lo + nb - 1);
    const r = <u32>j.rng.below(<u64>total);
    for (let k = lo; k < lo + nb; k++) {
      const c = j.bsCum.get(k);
      if (r < c) {
        size = j.bsSize.get(k);
        bk = k;
        break;
      }
    }
  }
  let off: i64;
  const len = j.regionLen;
  if (j.random) {
    const slots = bk == lo ? slots0 : j.bsSlots.get(bk);
    off = j.regionOff + <i64>j.rng.below(<u64>slots) * j.align;
  } else if (dir == 1 && j.rw == RW_MIX) {
    // fio's rw=rw: the writes' own position (see the top of this file)
    if (j.posW + <i64>size > len) j.posW = 0;
    off = j.regionOff + j.posW;
    j.posW += <i64>size;
  } else {
    if (j.pos + <i64>size > len) j.pos = 0;
    off = j.regionOff + j.pos;
    j.pos += <i64>size;
  }
  shapeDir = dir;
  shapeSize = size;
  shapeOff = off;
  if (j.rateDir) {
    unchecked((j.dirIos[dir] += 1));
    unchecked((j.dirBytes[dir] += <i64>size));
  }
}

export let shapeDir: u8 = 0;
export let shapeSize: u32 = 0;
export let shapeOff: i64 = 0;
