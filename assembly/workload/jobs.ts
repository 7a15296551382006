// Jobs: the processes that submit bios (fio jobs, oracle recorder threads,
// recorded IO logs).
//
// A job has `qd` workers, each with at most one bio in flight (fio's
// iodepth, or the oracle recorder's threads doing synchronous pread/pwrite).
// When a worker is free the job computes the earliest time its next IO
// (index i) may be submitted, from its pattern:
//
//   PAT_CLOSED  now: issue as soon as a worker is free
//   PAT_RATE    start + i * 1e9 / rateIops, and start + bytes * 1e9 / rateBps;
//               with fio's rate_process=poisson, start + the sum of i
//               exponential gaps of mean 1e6 / iops us (usec_for_io())
//   PAT_TIMES   start + times[i]                      (open loop, listed times)
//   PAT_BURSTS  closed inside a burst of `burst` IOs; the first IO of a later
//               burst waits for every earlier IO to complete, then gap[k]
//   PAT_REPLAY  start + times[i], offsets/sizes/directions from the list
//
// plus fio's thinktime (after every `thinktimeBlocks` IOs the next waits
// thinktime after the last completion; with thinktime_iotime, after every
// `thinkIotimeNs` of IO, see thinkStall()) and startdelay. A job stops
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
//
// Mixed directions. A mixed job (rw=randrw / rw=rw, RW_MIX) picks each IO's
// direction as fio's get_rw_ddir() does (io_u.c; read at axboe/fio 0027f4e,
// fio >= 3.36, the same in the older b2a432b). fio keeps the current
// direction td->rwmix_ddir until td->io_issues[rwmix_ddir] >=
// td->rwmix_issues, then draws one (get_rand_ddir(): v = rand_between(
// &td->rwmix_state, 1, 100), READ if v <= rwmix[READ], rwmix[WRITE] = 100 -
// rwmix[READ] from rwmixread/rwmixwrite); a draw that changes the direction
// sets rwmix_issues = io_issues[old] * rwmix[new] / 100 (set_rwmix_bytes(),
// integer division), so the new direction is held until its own count
// reaches that. All three start at zero (thread_data is zeroed: READ, 0,
// {0, 0}); io_issues[ddir] counts an IO when td_io_queue() queues it. The
// draws come from the job's own stream (mixRng, as fio's rwmix_state is
// apart from its offset and block-size states), so a job of one direction
// draws nothing new and runs as before. rwmixread=70, draws v shown:
//
//   IO   io_issues R,W  rwmix_ddir  rwmix_issues  check      dir
//   0-6  0,0 .. 6,0     R           0             draw 12, 40, 65, 22, 5, 51, 33: R each
//   7    7,0            R           0             draw 88    W  (rwmix_issues = 7*30/100 = 2)
//   8    7,1            W           2             1 < 2      W  (held, no draw)
//   9    7,2            W           2             draw 47    R  (rwmix_issues = 2*70/100 = 1)
//   10   8,2            R           1             draw 73    W  (rwmix_issues = 8*30/100 = 2)
//   11   8,3            W           2             draw 91    W
//   12   8,4            W           2             draw 18    R  (rwmix_issues = 4*70/100 = 2)
//
//   R R R R R R R W W R W W R: only IO 8 is not drawn. A direction switched to
//   is held only while it is below rwmix[new]/100 of the other one's count
//   (W below 30 % of R, or R below 70 % of W), while the mix keeps it near
//   rwmix[new]/rwmix[old] of it (W at 3/7 of R); so after the first switches
//   fio draws at almost every IO. Measured: the 70/30 fixture
//   (mixed-70-30.fio, two jobs of 2.95 M IOs) holds no IO, mean run 2.38
//   (independent draws: 1 / (2 * 0.7 * 0.3) = 2.38); rwmixread=90 holds about
//   2 IOs in 3000 (writes catching up early in the run).
//
// With per-direction rates, fio passes the direction through rate_ddir()
// (rateDdir() here) and stores what it returns in rwmix_ddir without
// set_rwmix_bytes(): rwmixIssued() records the direction the IO went to.
// Not modelled: fio's later passes over the file (loops=; thread_main()'s
// clear_io_state() sets rwmix_issues = 0 before each) and ramp_time's
// reset_all_stats() (io_issues = 0 too); iosim runs one pass, unramped.

import { BIO_SYNC } from "../engine/bios";
import { Vec } from "../engine/vec";
import { Rng } from "../engine/random";
import { schedule, EV_JOB_WAKE } from "../engine/events";

export const RW_READ: i32 = 0;
export const RW_WRITE: i32 = 1;
export const RW_MIX: i32 = 2; // fio rw=rw / randrw: rwmixread percent, fio's rwmix rule
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
  // the bio flags of the job's IOs: REQ_SYNC (O_DIRECT, the oracle's synchronous
  // pread/pwrite); a replayed writeback request sets its own (jobSetBioFlags)
  bioFlags: u32 = BIO_SYNC;
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
  // fio's flow / flow_id (jobFlow()): the group, the job's weight, its
  // counter (td->flow_counter), flow_sleep, and whether it waits for the group
  flowGroup: i32 = -1;
  flowWeight: f64 = 0;
  flowCounter: i64 = 0;
  flowSleepNs: i64 = 0;
  flowBlocked: bool = false;
  // fio's rate_process=poisson (jobPoisson()): usec_for_io()'s mean gap in us
  // (1000000 / iops, integer), the IO the sum is for, the sum (ns), its stream
  poissonGapUs: i64 = 0;
  poissonIdx: i64 = 0;
  poissonAtNs: i64 = 0;
  poissonRng: Rng | null = null;
  times: Vec<i64> = new Vec<i64>(4); // PAT_TIMES / PAT_REPLAY, relative to start
  rOff: Vec<i64> = new Vec<i64>(4); // PAT_REPLAY
  rSize: Vec<u32> = new Vec<u32>(4);
  rDir: Vec<u8> = new Vec<u8>(4);
  burst: i32 = 0;
  gaps: Vec<i64> = new Vec<i64>(4);
  thinkNs: i64 = 0;
  thinkBlocks: i32 = 1;
  // fio's thinktime_iotime (jobThinkIotime()): stall after this much IO time; 0 = by blocks only
  thinkIotimeNs: i64 = 0;
  thinkBlocksSet: bool = false; // thinktime_blocks given beside thinktime_iotime
  lastThinkNs: i64 = 0; // td->last_thinktime: the job's start, then the end of each stall
  lastThinkBlocks: i64 = 0; // td->last_thinktime_blocks
  lastIssueNs: i64 = 0;
  startNs: i64 = 0;
  // fio's ramp_time (jobRamp()): statistics and fio's bw/iops windows start this long after startNs
  rampNs: i64 = 0;
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
  // a mixed job's direction state, fio's (see "Mixed directions" above):
  // td->rwmix_ddir, td->rwmix_issues, td->io_issues[ddir], td->rwmix_state
  mixDdir: i32 = 0;
  mixThresh100: i64 = 0; // fio's rwmix_issues times 100, undivided (see rwmixDir())
  mixIssues: StaticArray<i64> = new StaticArray<i64>(2);
  mixRng: Rng;

  constructor(id: i32, seed: u64) {
    this.id = id;
    this.rng = new Rng(seed, <u64>id + 1);
    // its own stream, as fio's rwmix_state is apart from the offset and
    // block-size states (streams 1..: jobs, 0x5742 writeback, 0x10000..: devices)
    this.mixRng = new Rng(seed, 0x100000000 + <u64>id);
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
  flowCounters.length = 0;
  flowWeights.length = 0;
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
  j.lastThinkNs = j.startNs;
  j.lastThinkBlocks = 0;
  rwmixReset(j);
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
  if (j.pattern == PAT_CLOSED && j.thinkNs == 0 && j.flowGroup < 0) {
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
  } else if (p == PAT_RATE && j.poissonGapUs > 0) {
    // fio 3.39 backend.c usec_for_io() with rate_process=poisson: after each
    // IO, last_usec += (int64)(1000000 / iops) * -logf(rand_0_1) (a float
    // product, truncated to whole us); IO i waits for the sum of i gaps
    const r = j.poissonRng!;
    while (j.poissonIdx < i) {
      j.poissonIdx++;
      let u = <f32>r.unit();
      if (u <= <f32>0) u = <f32>1e-7;
      const v = <f32>j.poissonGapUs * -Mathf.log(u);
      j.poissonAtNs += <i64>(<u64>v) * 1000;
    }
    const tp = j.startNs + j.poissonAtNs;
    if (tp > t) t = tp;
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
  if (j.thinkNs > 0 && i > 0 && (j.thinkIotimeNs > 0 ? thinkStall(j, i) : i % <i64>j.thinkBlocks == 0)) {
    if (j.completed < i) return -1;
    const tt = j.lastDone + j.thinkNs;
    if (tt > t) t = tt;
  }
  if (j.flowGroup >= 0 && t <= now && flowExceeded(j)) {
    // fio 3.39 flow.c flow_threshold_exceeded(): the job is ahead of its share
    // of the group: without flow_sleep it retries as the group moves on
    // (flowIssued() wakes it); with flow_sleep it quiesces, then sleeps
    j.flowBlocked = true;
    if (j.flowSleepNs == 0) return -1;
    if (j.inflight > 0) return -1;
    return now + j.flowSleepNs;
  }
  return t;
}

// fio's flow groups (flow.c struct fio_flow): the shared counter (starts at 1)
// and the weights of the jobs in the group
export const flowCounters = new Array<i64>();
export const flowWeights = new Array<f64>();

/**
 * fio 3.39 flow.c flow_threshold_exceeded(): the job's counter over the
 * group's (which starts at 1) against its weight over the group's; each
 * issued IO adds one to both (flowIssued()). Worked example: A (flow=3) and
 * B (flow=1), both always ready, A first: A issues at 0/1, 1/2, 2/3, 3/4 and
 * stops at 4/5 > 3/4; B issues at 0/5, 1/6 and stops at 2/7 > 1/4; A goes on
 * at 4/7: in the long run 3 IOs of A for each of B.
 */
function flowExceeded(j: Job): bool {
  const g = j.flowGroup;
  const counterRatio = <f64>j.flowCounter / <f64>flowCounters[g];
  const weightRatio = j.flowWeight / flowWeights[g];
  return counterRatio > weightRatio;
}

/** Job j issued an IO in its flow group: count it; waiting jobs of the group retry. */
export function flowIssued(j: Job, t: i64): void {
  const g = j.flowGroup;
  flowCounters[g] = flowCounters[g] + 1;
  j.flowCounter++;
  j.flowBlocked = false;
  flowWake(g, j.id, t);
}

/** flow.c flow_put(): job j has ended: its counter and weight leave the group. */
export function flowExit(j: Job, t: i64): void {
  const g = j.flowGroup;
  flowCounters[g] = flowCounters[g] - j.flowCounter;
  flowWeights[g] = flowWeights[g] - j.flowWeight;
  flowWake(g, j.id, t);
}

function flowWake(g: i32, except: i32, t: i64): void {
  for (let i = 0; i < jobs.length; i++) {
    const o = unchecked(jobs[i]);
    if (o.flowGroup != g || o.id == except || !o.flowBlocked || o.finished || o.flowSleepNs > 0) continue;
    if (o.wakeAt != t) {
      o.wakeAt = t;
      schedule(t, EV_JOB_WAKE, <u32>o.id);
    }
  }
}

/** fio's flow=weight, flow_id=group, flow_sleep on job `job` (every job joins its group at t = 0). */
export function setJobFlow(job: i32, group: i32, weight: f64, sleepNs: i64): void {
  const j = jobs[job];
  while (flowCounters.length <= group) {
    flowCounters.push(1);
    flowWeights.push(0);
  }
  j.flowGroup = group;
  j.flowWeight = weight;
  j.flowSleepNs = sleepNs;
  flowWeights[group] = flowWeights[group] + weight;
}

/**
 * fio's handle_thinktime() with thinktime_iotime (fio 3.39 backend.c): after
 * an IO is queued, the job stalls (quiesces, then thinks) when the time since
 * td->last_thinktime reaches thinktime_iotime, or, only where thinktime_blocks
 * was given too, when thinktime_blocks IOs have passed since the last stall.
 * fio looks at the clock right after queuing IO i-1, so the time checked is
 * that IO's issue time; a stall ends at td->last_thinktime = the end of the
 * sleep, i.e. when IO i is issued (thinkNoteIssue()).
 *
 * Worked example (thinktime=350ms, thinktime_iotime=150ms, QD 16, job start
 * 0): IOs issue until one is issued at >= 150 ms; the next waits for all 16 in
 * flight to complete (say at 151 ms), then 350 ms: it issues at 501 ms, and
 * the next stall comes after the first IO issued at >= 651 ms. So 150 ms of
 * IO in every ~500 ms.
 */
@inline function thinkStall(j: Job, i: i64): bool {
  if (j.lastIssueNs - j.lastThinkNs >= j.thinkIotimeNs) return true;
  return j.thinkBlocksSet && i >= j.lastThinkBlocks + <i64>j.thinkBlocks;
}

/** Issue-time bookkeeping of thinktime_iotime (a no-op for every other job). */
@inline export function thinkNoteIssue(j: Job, i: i64, t: i64): void {
  if (j.thinkIotimeNs > 0) {
    if (i > 0 && j.thinkNs > 0 && thinkStall(j, i)) {
      j.lastThinkNs = t;
      j.lastThinkBlocks = i;
    }
    j.lastIssueNs = t;
  }
}

/** The direction of a job's next IO: fio's rwmix rule for a mix, else fixed (or alternating). */
@inline function drawDir(j: Job): u8 {
  const rw = j.rw;
  if (rw == RW_WRITE) return 1;
  if (rw == RW_MIX) return <u8>rwmixDir(j);
  if (rw == RW_ALT) {
    const d = j.altNext;
    j.altNext ^= 1;
    return d;
  }
  return 0;
}

/** A mixed job's direction state at the start: fio's thread_data is zeroed (DDIR_READ, 0, {0, 0}). */
function rwmixReset(j: Job): void {
  j.mixDdir = 0;
  j.mixThresh100 = 0;
  unchecked((j.mixIssues[0] = 0));
  unchecked((j.mixIssues[1] = 0));
}

/**
 * The mix part of fio's get_rw_ddir() (io_u.c): keep td->rwmix_ddir until
 * td->io_issues[rwmix_ddir] >= td->rwmix_issues, then draw anew
 * (get_rand_ddir(): v = rand_between(&td->rwmix_state, 1, 100), READ if
 * v <= rwmix[DDIR_READ]; rand32_upto() is floor(100 * r / 2^32) on a 32-bit
 * draw, as Rng.below(100) is); on a change of direction set_rwmix_bytes()
 * sets rwmix_issues = io_issues[old] * rwmix[new] / 100 (integer division).
 * rate_ddir() may then switch the IO (rateDdir()); rwmixIssued() records
 * the direction the IO went to.
 */
@inline function rwmixDir(j: Job): i32 {
  const d = j.mixDdir;
  const done = unchecked(j.mixIssues[d]);
  // done < io_issues[old] * rwmix[new] / 100 (integer division), asked
  // without the division: for integers, done < floor(p / 100) exactly when
  // (done + 1) * 100 <= p (no i64 division on the ~40 % of a 70/30 mix's IOs
  // that change direction)
  if ((done + 1) * 100 <= j.mixThresh100) return d;
  const pct = j.mixReadPct;
  const nd = <i32>j.mixRng.below(100) < pct ? 0 : 1;
  // (selects, not branches: whether the direction changes is a coin toss)
  j.mixThresh100 = select<i64>(done * <i64>select<i32>(pct, 100 - pct, nd == 0), j.mixThresh100, nd != d);
  j.mixDdir = nd;
  return nd;
}

/**
 * A mixed job's IO of direction `dir` is issued: fio's td_io_queue()
 * counts io_issues[ddir] when it queues the IO, and get_rw_ddir() left
 * td->rwmix_ddir at the direction rate_ddir() returned (no set_rwmix_bytes()
 * for a switch made by the rate).
 */
@inline function rwmixIssued(j: Job, dir: i32): void {
  j.mixDdir = dir;
  unchecked((j.mixIssues[dir] += 1));
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
  if (j.rw == RW_MIX) rwmixIssued(j, dir);
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
    // the first size whose cumulative weight passes r: a scan for bssplit's
    // few sizes, a binary search for bsrange's many (4k-1m: 256)
    let k = lo;
    if (nb <= 8) {
      while (r >= j.bsCum.get(k)) k++;
    } else {
      let hi = lo + nb - 1;
      while (k < hi) {
        const mid = (k + hi) >>> 1;
        const c = j.bsCum.get(mid);
        if (r < c) hi = mid;
        else k = mid + 1;
      }
    }
    size = j.bsSize.get(k);
    bk = k;
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

/** fio's rate_process=poisson on a job of one direction: gaps of mean `gapUs` (1000000 / iops), its own stream. */
export function setJobPoisson(job: i32, gapUs: i64, seed: u64): void {
  const j = jobs[job];
  j.poissonGapUs = gapUs;
  j.poissonIdx = 0;
  j.poissonAtNs = 0;
  // (streams: 1.. jobs, 0x100000000.. mix, 0x200000000.. poisson)
  j.poissonRng = new Rng(seed, 0x200000000 + <u64>job);
}
