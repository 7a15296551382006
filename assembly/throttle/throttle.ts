// blk-throttle (io.max, blkio.throttle.*): the kernel's per-cgroup bps/iops
// limiter, bio by bio, in the kernel's own integer arithmetic.
//
// Spec: block/blk-throttle.[ch] of Linux 6.1.192 and 6.12.117 (Debian trees)
// and of mainline 6.16-6.18 (split bps/iops queues, carryover applied
// directly to the dispatch counters, trim keeping one slice, DFL_THROTL_SLICE
// only); kernel/time/timer.c for when the pending timer really fires.
//
// THE MODEL IN ONE PAGE
//
// A throttle group (throtl_grp, "tg") exists per (cgroup, device). Per
// direction it keeps a *slice* [slice_start, slice_end] in jiffies and what it
// let through in that slice (bytes_disp, io_disp). A bio may pass when the
// counters plus this bio stay within what the limit allows for the elapsed
// time *rounded up to whole slices*:
//
//   iops:  allowed = iops * roundup(elapsed + 1, SLICE) / HZ        (floor)
//   bps:   allowed = bps  * roundup(max(elapsed, SLICE), SLICE) / HZ (floor)
//
// so a fresh slice admits a whole slice's worth at once (the "initial burst"),
// and a bio over the limit waits until the rounded window grows: for iops the
// wait is the distance to the next slice boundary (6.12+: at least HZ/iops+1
// jiffies), for bps the time the excess bytes need at the limit plus the
// rounding slack. The waiting bio sits in its tg's FIFO; the tg sits in its
// parent's pending tree keyed by disptime = jiffies + wait; the parent
// service queue's pending timer is armed for the first disptime (never more
// than 8 slices ahead). When the timer fires, throtl_select_dispatch() moves
// up to 8 bios per tg (6 reads, 2 writes) and 32 in total per round to the
// parent, the top level queues the kthrotld work, and the work submits them.
//
// Slices move: every dispatch pushes slice_end to roundup(jiffies + SLICE,
// SLICE) in *absolute* jiffies (so an idle gap may or may not leave the slice
// alive, depending on the absolute jiffies value), trim advances slice_start
// by whole slices and forgives what they allowed (6.18: only once two slices
// have passed, keeping one), and a tg with nothing queued whose slice has run
// out starts a new one at the next bio. A limit write restarts both
// directions' slices at the write's jiffy, carrying over what the old limit
// had already allowed queued bios (6.1/6.12: carryover_* fields; 6.18:
// folded into the negative dispatch counters).
//
// The timer wheel decides the rest: a timer armed for jiffy E less than 63
// jiffies ahead fires at the tick of E + 1; 63..503 ahead, at the next
// multiple of 8 above E; farther, coarser (calc_index(): expires = (E >> 3k) +
// 1 at level k). That is why a 100 iops group releases at slice_start + 26,
// not + 25, and why a 1 iops group's 8-slice-capped timer lands on a multiple
// of 8.
//
// WORKED EXAMPLE (oracle trace iops100_qd1_read run2, Linux 6.18.44, HZ=250,
// read_iops=100, QD1 4 KiB reads). t0 lies 3.18 ms after tick J. The limit was
// written 200 ms earlier, so that slice [J-50, J-25] is used up: IO 0 at
// t=0.26 ms starts a new slice at J (slice_start = J, slice_end = J + 25).
// The first 100 ms slice allows floor(100 * 25 / 250) = 10 IOs: IOs 0-9 pass
// in 0.3 ms. IO 10 is the 11th: elapsed 0, roundup(0 + 1, 25) = 25, allowed
// 10, io_disp 10 + 1 > 10, so it waits 25 - 0 = 25 jiffies (max(25, HZ/100 +
// 1 = 3)); disptime = J + 25; the pending timer armed for J + 25 (25 < 63
// ahead, level 0) fires at the tick of J + 26 = 104 ms - 3.18 ms = 100.8 ms;
// there elapsed = 26, roundup(27, 25) = 50, allowed 20: IO 10 is dispatched,
// kthrotld submits it and it completes at 102.3 ms in the trace (tick + wake
// up + device). IOs 11-19 pass on submit; IO 20 waits for J + 51, and so on:
// 10 IOs per 100 ms, released at slice_start + 26, + 51, + 76 ...
//
// Versions (profile chosen per run): PROFILE_61 (6.1.192: no iops wait floor,
// unsigned carryover, tg_may_dispatch skips the iops check when bps already
// failed, credit start uses time_after_eq, no meta/swap bypass),
// PROFILE_612 (6.12.117: signed carryover, HZ/iops + 1 floor, meta/swap
// charged but never held), PROFILE_618 (6.16-6.18: split bps/iops queues, a
// bio is charged bps once per level and then only waits for iops; carryover
// written straight into bytes_disp/io_disp; trim waits for two slices and
// keeps one). All three use a 100 ms slice (HZ/10): 6.1 without
// CONFIG_BLK_DEV_THROTTLING_LOW overrides the SSD slice to HZ/10, 6.12.117
// carries the stable "always DFL_THROTL_SLICE" fix, and the oracle 6.18.44
// host measured 25 jiffies on a loop device whatever its rotational flag.
// `throtlConfigure` can set another slice (e.g. HZ/50 for 6.9-6.17 SSDs).
//
// cgroup v2: a bio is checked at its tg and, once within limits, at every
// ancestor's tg (root has no limits); a bio queued at a child is dispatched
// into its parent, where it is charged again (start_parent_slice_with_credit
// gives the parent the child's slice start when the parent's slice ran out).
// cgroup v1 is flat: every tg hangs directly under the device's top queue.
//
// Splits: throttling runs before blk-mq splits a bio at max_sectors; the bio
// is charged its bytes once and one IO, each resubmitted remainder one more IO
// (it carries BIO_BPS_THROTTLED). `bioAt(slot).pieces` counts the pieces.
//
// THE PASS WINDOW (a shortcut that changes no result)
//
// Most bios of a busy group pass: the check then compares the counters with
// two allowances, charges, and trims - and within one rounded window the
// allowances, the slice end that trim writes back and the "no trim yet"
// answer are all the same. So after a bio passes a level the long way
// (withinLimit, charge, trimSlice), fpValidate() records, for that tg and
// direction, the jiffies [fpLo, fpLo + fpLen) over which the next check would
// only compare and charge, and the allowances it would compare with:
//
//   - the slice stays live and neither extendSlice() nor trim's
//     throtl_set_slice_end(jiffies + SLICE) moves slice_end: jiffies <=
//     slice_end - SLICE (slice_end is roundup(jiffies + SLICE) after trim);
//   - the rounded windows stay the same: elapsed <= roundup(elapsed) for
//     bps, elapsed + 1 <= roundup(elapsed + 1) for iops;
//   - trim does nothing: elapsed < SLICE (<= 6.15) or < 2 * SLICE (6.18);
//   - nothing is queued at the level (queuing a bio closes the window).
//
// fastPass() then passes a bio with the version's own compares (u64 / u32
// before 6.18, signed after) against those allowances and charges it; a bio
// that does not fit takes the long way, which computes its wait exactly as
// before. A check the window leaves out (no bps limit, a negative 6.18
// allowance, the unlimited root) stores an allowance no counter can exceed
// in that compare (fpNoCheck(): i64.MAX_VALUE signed, U64_MAX / UINT_MAX
// unsigned), so the per-bio loop in throtlBio(), inlined where bios are
// submitted, compares both counters at every level without reading fpMode:
// for a fresh bio (not yet charged anywhere) a level on its window costs
// two adds, two compares and two stores. (callgrind, bench/throttle.ts end
// to end, 64 groups under the v2 root: 148 x86 instructions per bio in a
// called function with per-level fpMode tests, ~115 inlined on sentinels.) Every slice start, slice end write, trim, limit write and queued bio
// closes the window (fpLen = 0). An unlimited group (the v2 root) whose slice
// has run out keeps an open window forever: no bio restarts it. With the
// decision trace on, every check takes the long way (so the trace reports
// each compare); the property test throttle-pass-window.test.ts checks that
// the trace-on and trace-off runs release every bio at the same nanosecond.
//
// Worked example (6.18, HZ=250, riops=2000 rbps=209715200, 4 KiB reads):
// the first bio at jiffy 4295000003 starts a slice there and passes the long
// way; trim sets slice_end = roundup(4295000028, 25) = 4295000050. Its pass
// window: elapsed 0; bps window roundup(25) = 25 (same up to elapsed 25);
// iops window roundup(0 + 1) = 25 (same up to elapsed 24); no 6.18 trim
// before elapsed 50; slice_end - 25 - jiffies = 22. So fpLo = 4295000003,
// fpLen = 23 (92 ms), fpIos = floor(2000 * 25 / 250) = 200, fpBytes =
// floor(209715200 * 25 / 250) = 20971520. Bios 2..200 of the slice arriving
// in those 23 jiffies pass on the window: 199 compares and charges. The
// 201st finds ioDisp + 1 = 201 > 200 and takes the long way: iops wait 25 -
// elapsed jiffies (at least HZ/2000 + 1 = 1), queued. At jiffy 4295000026
// roundup(jiffies + 25) would be 4295000075: trim moves slice_end, so the
// window ended one jiffy before.
//
// The fields a pass on the window touches (the rules bytes, the window, the
// two counters, the parent's record index) share the first 64-byte line of
// each tg x dir record.
//
// A wait verdict of <= 6.15 tg_may_dispatch() is remembered too (fwKey ..):
// after it the slice is live and ends no earlier than jiffies + max(SLICE,
// wait), so asking again at the same jiffy with the same counters and the
// same bio size and BIO_BPS_THROTTLED changes nothing and gets the same wait.
// The timer asks exactly that twice per round (throtl_dispatch_tg(), then
// tg_update_disptime() for the same head bio). Whatever closes the window
// forgets the verdict; a charge in between changes the counters. (6.18's
// check charges bytes before it can fail on iops, so it is not memoised.)

import { Vec } from "../engine/vec";
import { schedule, EV_THROTL_TIMER, EV_THROTL_WORK } from "../engine/events";
import { bioAt, BIO_BPS_THROTTLED, BIO_TG_BPS_THROTTLED, BIO_META, BIO_SWAP, BIO_THROTTLED } from "../engine/bios";
import { HZ, jiffiesAt, tickTime, timeAfter, timeAfterEq, timeBefore, timeInRange } from "../engine/clock";
import { cgParent, cgroupV2, cgroupCount } from "../engine/cgroups";
import { devices } from "../device/device";
import { afterThrottle } from "../engine/path";

// ---------------------------------------------------------------- constants

export const PROFILE_61: i32 = 0;
export const PROFILE_612: i32 = 1;
export const PROFILE_618: i32 = 2;

export const THROTL_GRP_QUANTUM: i32 = 8; // bios per tg per dispatch round
export const THROTL_QUANTUM: i32 = 32; // bios per throtl_select_dispatch()
export const PENDING_TIMER_CAP_SLICES: u64 = 8; // timer never armed beyond 8 slices
export const U64_MAX: u64 = 0xffffffffffffffff;
export const UINT_MAX: u64 = 0xffffffff;

// timer wheel (kernel/time/timer.c)
const LVL_CLK_SHIFT: u64 = 3;
const LVL_BITS: u64 = 6;
const LVL_SIZE: u64 = 1 << LVL_BITS;
const LVL_DEPTH: i32 = 9; // HZ > 100

// tg flags
const TG_PENDING: u32 = 1;
const TG_WAS_EMPTY: u32 = 2;
const TG_IOPS_WAS_EMPTY: u32 = 4;

// ---------------------------------------------------------------- config

/** Every period and latency of the model in one place. */
export class ThrotlConfig {
  profile: i32 = PROFILE_618;
  /** throtl_slice in jiffies; 0 = HZ / 10 (DFL_THROTL_SLICE) */
  sliceJiffies: u64 = 0;
  /** from the timer tick to the kthrotld work submitting the bios */
  workLatencyNs: i64 = 30_000;
  /** record a per-bio decision trace */
  trace: bool = false;
}

export const cfg = new ThrotlConfig();
let SLICE: u64 = 25;
// profile and traceOn as wasm globals: the per-bio code reads them
// often, and a global (unlike a field in memory) needs no reload after a store
let profile: i32 = PROFILE_618;
let traceOn: bool = false;

// ---------------------------------------------------------------- state

export let throttleActive: bool = false;
let nDev: i32 = 0;
let nCg: i32 = 0;
let nTg: i32 = 0;

// per tg (index g = cg * nDev + dev)
const tgFlags = new Vec<u32>(16);
const tgDisptime = new Vec<u64>(16);
const tgSeq = new Vec<u64>(16); // insertion order among equal disptimes (rb-tree: equal keys go right)
const tgHeapPos = new Vec<i32>(16);
const tgParentSq = new Vec<i32>(16);
// per tg x dir (index i = g * 2 + d): one record each, `tdAt(i).field`
// (the decision path reads most fields of one record per bio: one load each
// at a constant offset, instead of a column pointer and an element)
@unmanaged class Td {
  // first cache line: everything a bio on the pass window reads or writes
  rulesBps: u8; // this group or an ancestor has a bps limit (blk_should_throtl)
  rulesIops: u8;
  // the pass window (see THE PASS WINDOW): a bio passes at this level with
  // only its charge while jiffies - fpLo < fpLen (fpLen = 0: closed) and the
  // counters plus the bio stay within fpBytes / fpIos (checked per fpMode)
  fpMode: u8;
  parentTd: i32; // the parent group's record for this direction (-1: the parent is the device's top queue)
  fpLo: u64;
  fpLen: u64;
  fpBytes: i64;
  fpIos: i64;
  bytesDisp: i64; // u64 (<= 6.15) or int64 (6.18), bit pattern kept
  ioDisp: i64; // unsigned int (<= 6.15) or int (6.18): kept as 32-bit value
  // the rest
  bps: u64;
  iops: u64;
  carryBytes: i64;
  carryIos: i64;
  sliceStart: u64;
  sliceEnd: u64;
  // the last limit * window / HZ asked for (see bytesAllowedAt())
  memoBpsLim: u64;
  memoBpsJ: u64;
  memoBps: u64;
  memoIopsLim: u64;
  memoIopsJ: u64;
  memoIops: u64;
  memoFloorIops: u64; // key: iops & UINT_MAX (U64_MAX = none yet)
  memoFloor: u64; // HZ / iops + 1
  // the last wait verdict of <= 6.15 tg_may_dispatch() (see mayDispatch()):
  // the same bio shape at the same jiffy and counters gets the same wait
  fwKey: u64; // bio size | BIO_BPS_THROTTLED << 32 | 1 << 40 (0: none)
  fwJ: u64;
  fwBytesDisp: i64;
  fwIoDisp: i64;
  fwWait: u64;
  fwReason: u8;
}
// records start on 64-byte lines (the base rounded up, the size a multiple of 64)
const TD_BYTES: usize = (offsetof<Td>() + 63) & ~63;
let tdMem = new StaticArray<u8>(8);
let tdBase: usize = changetype<usize>(tdMem);

@inline function tdAt(i: i32): Td {
  return changetype<Td>(tdBase + <usize>i * TD_BYTES);
}

/** The slice, a limit or the queue changed: forget the pass window and the last verdict. */
@inline function closeWindows(i: i32): void {
  const td = tdAt(i);
  td.fpLen = 0;
  td.fwKey = 0;
}

// service queues: sq id s < nTg is tg s's own queue; nTg + dev is the device's top queue
const sqNrBps = new Vec<i32>(32); // index s*2+d (<= 6.15: all queued bios)
const sqNrIops = new Vec<i32>(32); // 6.18 only
const sqQHead = new Vec<i32>(32); // qnode list per (s, d)
const sqQTail = new Vec<i32>(32);
const sqHeap = new Array<Vec<i32>>(); // pending children (tg ids), min-heap on (disptime, seq)
const sqTimerFire = new Vec<u64>(16); // jiffy the pending timer fires at (0 = not pending)
const sqWorkPending = new Vec<u8>(8); // per device: dispatch work queued

// qnodes: q = (g*2+d)*2 (+1 for qnode_on_parent)
const qnBpsHead = new Vec<i32>(64);
const qnBpsTail = new Vec<i32>(64);
const qnIopsHead = new Vec<i32>(64);
const qnIopsTail = new Vec<i32>(64);
const qnNext = new Vec<i32>(64);
const qnOnList = new Vec<u8>(64);

let seqCounter: u64 = 0;
let queuedBios: i64 = 0; // bios (pieces) queued at their submission: they waited
let jiffies: u64 = 0; // "current jiffies" while handling an event
let inTimer: bool = false; // timer softirq context: base->clk = jiffies + 1
let now: i64 = 0;

// pending config changes: (cg, dev, bps r, bps w, iops r, iops w)
const cfgCg = new Vec<i32>(8);
const cfgDev = new Vec<i32>(8);
const cfgVals = new Vec<u64>(32);

// ---------------------------------------------------------------- trace buffer

export const TR_ARRIVE: u8 = 1; // bio entered blk-throttle (or a split remainder did)
export const TR_PASS: u8 = 2; // within the limits of tg (charged there)
export const TR_QUEUE: u8 = 3; // over the limit at tg: queued, wait in jiffies
export const TR_DISPATCH: u8 = 4; // timer dispatched it from tg to the parent
export const TR_RELEASE: u8 = 5; // left blk-throttle (submitted by kthrotld or passed)
export const TR_TIMER: u8 = 6; // a pending timer was armed: wait = fire jiffy - jiffies
export const TR_CONFIG: u8 = 7; // a limit write applied to tg
export const TR_BYPASS: u8 = 8; // over the limit but REQ_META/REQ_SWAP: charged, not held

export const RS_NONE: u8 = 0;
export const RS_IOPS: u8 = 1;
export const RS_BPS: u8 = 2;
export const RS_FIFO: u8 = 3; // bios already queued in this direction
export const RS_CAP: u8 = 4; // timer capped at 8 slices

export const trTime = new Vec<i64>(64);
export const trJob = new Vec<i32>(64);
export const trSeq = new Vec<i32>(64);
export const trKind = new Vec<u8>(64);
export const trReason = new Vec<u8>(64);
export const trCg = new Vec<i32>(64);
export const trDir = new Vec<u8>(64);
export const trJiffies = new Vec<u64>(64);
export const trWait = new Vec<i64>(64);
export const trSliceStart = new Vec<u64>(64);
export const trSliceEnd = new Vec<u64>(64);
export const trAllowed = new Vec<i64>(64);
export const trDisp = new Vec<i64>(64);

// last decision details (for the trace)
let lastReason: u8 = RS_NONE;
let lastAllowed: i64 = 0;
let lastDisp: i64 = 0;

function trace(kind: u8, slot: i32, g: i32, d: i32, wait: i64, reason: u8): void {
  trTime.push(now);
  trJob.push(slot >= 0 ? bioAt(slot).job : -1);
  trSeq.push(slot >= 0 ? bioAt(slot).seq : -1);
  trKind.push(kind);
  trReason.push(reason);
  trCg.push(g >= 0 ? g / nDev : -1);
  trDir.push(<u8>d);
  trJiffies.push(jiffies);
  trWait.push(wait);
  const i = g >= 0 ? g * 2 + d : 0;
  trSliceStart.push(g >= 0 ? tdAt(i).sliceStart : 0);
  trSliceEnd.push(g >= 0 ? tdAt(i).sliceEnd : 0);
  trAllowed.push(lastAllowed);
  trDisp.push(lastDisp);
}

export function traceClear(): void {
  trTime.length = 0; trJob.length = 0; trSeq.length = 0; trKind.length = 0; trReason.length = 0;
  trCg.length = 0; trDir.length = 0; trJiffies.length = 0; trWait.length = 0; trSliceStart.length = 0;
  trSliceEnd.length = 0; trAllowed.length = 0; trDisp.length = 0;
}

// ---------------------------------------------------------------- setup

export function resetThrottle(): void {
  throttleActive = false;
  nDev = 0;
  nCg = 0;
  nTg = 0;
  seqCounter = 0;
  queuedBios = 0;
  cfg.profile = PROFILE_618;
  cfg.sliceJiffies = 0;
  cfg.workLatencyNs = 30_000;
  cfg.trace = false;
  profile = PROFILE_618;
  traceOn = false;
  cfgCg.length = 0;
  cfgDev.length = 0;
  cfgVals.length = 0;
  traceClear();
}

export function throtlConfigure(p: i32, sliceJiffies: u64, workLatencyNs: i64, tr: bool): void {
  cfg.profile = p;
  cfg.sliceJiffies = sliceJiffies;
  cfg.workLatencyNs = workLatencyNs;
  cfg.trace = tr;
  profile = p;
  traceOn = tr;
}

function allocState(): void {
  nDev = devices.length;
  nCg = cgroupCount();
  nTg = nCg * nDev;
  SLICE = cfg.sliceJiffies > 0 ? cfg.sliceJiffies : <u64>(HZ / 10);
  setSliceMagic(SLICE);
  const n2 = nTg * 2;
  const nSq = nTg + nDev;
  initVec<u32>(tgFlags, nTg, 0);
  initVec<u64>(tgDisptime, nTg, 0);
  initVec<u64>(tgSeq, nTg, 0);
  initVec<i32>(tgHeapPos, nTg, -1);
  initVec<i32>(tgParentSq, nTg, 0);
  tdMem = new StaticArray<u8>((n2 > 0 ? n2 : 1) * <i32>TD_BYTES + 64); // zeroed
  tdBase = (changetype<usize>(tdMem) + 63) & ~(<usize>63);
  for (let i = 0; i < n2; i++) {
    const td = tdAt(i);
    td.bps = U64_MAX;
    td.iops = UINT_MAX;
    // memo (limit 0, window 0) -> 0 is what bytesAllowed()/ioAllowed() give: a valid entry
    td.memoFloorIops = U64_MAX;
  }
  initVec<i32>(sqNrBps, nSq * 2, 0);
  initVec<i32>(sqNrIops, nSq * 2, 0);
  initVec<i32>(sqQHead, nSq * 2, -1);
  initVec<i32>(sqQTail, nSq * 2, -1);
  initVec<u64>(sqTimerFire, nSq, 0);
  initVec<u8>(sqWorkPending, nDev, 0);
  sqHeap.length = 0;
  for (let s = 0; s < nSq; s++) sqHeap.push(new Vec<i32>(4));
  const nq = n2 * 2;
  initVec<i32>(qnBpsHead, nq, -1);
  initVec<i32>(qnBpsTail, nq, -1);
  initVec<i32>(qnIopsHead, nq, -1);
  initVec<i32>(qnIopsTail, nq, -1);
  initVec<i32>(qnNext, nq, -1);
  initVec<u8>(qnOnList, nq, 0);
  // parent service queues: v2 nests, v1 is flat
  for (let cg = 0; cg < nCg; cg++) {
    for (let dev = 0; dev < nDev; dev++) {
      const g = cg * nDev + dev;
      const p = cgParent.get(cg);
      const ps = cgroupV2 && p >= 0 ? p * nDev + dev : nTg + dev;
      tgParentSq.set(g, ps);
      tdAt(g * 2).parentTd = ps < nTg ? ps * 2 : -1;
      tdAt(g * 2 + 1).parentTd = ps < nTg ? ps * 2 + 1 : -1;
    }
  }
}

function initVec<T>(v: Vec<T>, n: i32, value: T): void {
  v.length = 0;
  if (n > 0) v.ensure(n - 1);
  for (let i = 0; i < n; i++) v.set(i, value);
}

/** Stage a limit change for (cg, dev): the four values after the write
 *  (U64_MAX / UINT_MAX = unlimited). Returns its index for an EV_CONFIG event. */
export function throtlStageLimits(cg: i32, dev: i32, rbps: u64, wbps: u64, riops: u64, wiops: u64): i32 {
  if (!throttleActive) {
    allocState();
    throttleActive = true;
  }
  cfgCg.push(cg);
  cfgDev.push(dev);
  cfgVals.push(rbps);
  cfgVals.push(wbps);
  cfgVals.push(riops);
  cfgVals.push(wiops);
  return cfgCg.length - 1;
}

// ---------------------------------------------------------------- arithmetic

@inline function ilog2(x: u64): i32 {
  return 63 - <i32>clz<u64>(x); // ilog2(0) = -1 as the kernel's fls64(0) - 1
}

// Every roundup()/rounddown() in blk-throttle is to a multiple of the slice,
// several per bio. A hardware divide costs tens of cycles, so dividing by the
// slice is a multiply and a shift with a magic number computed once per run
// (Granlund & Montgomery 1994, thm 4.2, N = 31): with l = ceil(log2 SLICE)
// and m = floor(2^(31+l) / SLICE) + 1, floor(x / SLICE) = (x * m) >> (31+l)
// exactly for every 0 <= x < 2^31, and x * m < 2^31 * 2^32 fits in a u64.
// Worked example: SLICE = 25 -> l = 5, m = floor(2^36 / 25) + 1 = 2748779070;
// x = 1000 -> (1000 * 2748779070) >> 36 = 40. Larger x (never seen with
// sane jiffy differences) take the plain division.
let sliceMagic: u64 = 0;
let sliceShift: u64 = 0;

function setSliceMagic(slice: u64): void {
  let l: u64 = 0;
  while ((<u64>1 << l) < slice) l++;
  sliceShift = 31 + l;
  sliceMagic = (<u64>1 << sliceShift) / slice + 1;
}

/** floor(x / SLICE) */
@inline function divSlice(x: u64): u64 {
  if (x < 0x80000000) return (x * sliceMagic) >> sliceShift;
  return x / SLICE;
}

/** roundup(x, SLICE) */
@inline function roundupSlice(x: u64): u64 {
  return divSlice(x + SLICE - 1) * SLICE;
}

/** rounddown(x, SLICE) */
@inline function rounddownSlice(x: u64): u64 {
  return divSlice(x) * SLICE;
}

/** calculate_bytes_allowed(): bps * jiffies / HZ with the kernel's overflow guard. */
export function bytesAllowed(bps: u64, j: u64): u64 {
  const hz = <u64>HZ;
  if (ilog2(bps) + ilog2(j) - ilog2(hz) > 62) return U64_MAX;
  // exact in 64 bits when the product fits (the common case)
  if ((bps >> 32) == 0 && (j >> 31) == 0) return (bps * j) / hz;
  // mul_u64_u64_div_u64 without 128-bit: bps = a*HZ + b -> a*j + floor(b*j/HZ)
  const a = bps / hz;
  const b = bps % hz;
  return a * j + (b * j) / hz;
}

/** calculate_io_allowed(): min(iops * jiffies / HZ, UINT_MAX). */
export function ioAllowed(iops: u64, j: u64): u64 {
  const tmp = (iops & 0xffffffff) * j / <u64>HZ;
  return tmp > UINT_MAX ? UINT_MAX : tmp;
}

// The limit checks ask for bps * window / HZ and iops * window / HZ with the
// window rounded to whole slices, so a tg asks the same question for every bio
// of a slice (and the 6.12 iops wait floor HZ / iops + 1 for every bio over
// the limit). One remembered (limit, window) -> result per tg x dir answers
// those without a 64-bit division; the key holds the limit itself, so a limit
// write needs no invalidation, and a miss computes exactly what the kernel does.

@inline function bytesAllowedAt(i: i32, bps: u64, j: u64): u64 {
  if (tdAt(i).memoBpsJ == j && tdAt(i).memoBpsLim == bps) return tdAt(i).memoBps;
  const v = bytesAllowed(bps, j);
  tdAt(i).memoBpsLim = bps;
  tdAt(i).memoBpsJ = j;
  tdAt(i).memoBps = v;
  return v;
}

@inline function ioAllowedAt(i: i32, iops: u64, j: u64): u64 {
  if (tdAt(i).memoIopsJ == j && tdAt(i).memoIopsLim == iops) return tdAt(i).memoIops;
  const v = ioAllowed(iops, j);
  tdAt(i).memoIopsLim = iops;
  tdAt(i).memoIopsJ = j;
  tdAt(i).memoIops = v;
  return v;
}

/** 6.12+ tg_within_iops_limit() wait floor: HZ / iops + 1 (iops as u32). */
@inline function iopsWaitFloor(i: i32, iops: u64): u64 {
  const k = iops & 0xffffffff;
  if (tdAt(i).memoFloorIops == k) return tdAt(i).memoFloor;
  const v = <u64>HZ / k + 1;
  tdAt(i).memoFloorIops = k;
  tdAt(i).memoFloor = v;
  return v;
}

@inline function s32(x: i64): i64 {
  return <i64><i32>x; // C int / unsigned int arithmetic: keep 32 bits
}

// ---------------------------------------------------------------- limits

@inline function limBps(g: i32, d: i32): u64 {
  if (cgroupV2 && g < nDev) return U64_MAX; // root on the default hierarchy: io.max not on root
  return tdAt(g * 2 + d).bps;
}

@inline function limIops(g: i32, d: i32): u64 {
  if (cgroupV2 && g < nDev) return UINT_MAX;
  return tdAt(g * 2 + d).iops;
}

function updateHasRules(g: i32): void {
  const ps = tgParentSq.get(g);
  for (let d = 0; d < 2; d++) {
    const i = g * 2 + d;
    const pi = ps < nTg ? ps * 2 + d : -1;
    tdAt(i).rulesIops = <u8>((pi >= 0 && tdAt(pi).rulesIops != 0) || limIops(g, d) != UINT_MAX);
    tdAt(i).rulesBps = <u8>((pi >= 0 && tdAt(pi).rulesBps != 0) || limBps(g, d) != U64_MAX);
  }
}

// ---------------------------------------------------------------- queues

@inline function sqQueued(s: i32, d: i32): i32 {
  return sqNrBps.get(s * 2 + d) + sqNrIops.get(s * 2 + d);
}

function qnodeAdd(slot: i32, q: i32, s: i32, d: i32): void {
  bioAt(slot).next = -1;
  if (s < nTg) closeWindows(s * 2 + d); // bios queued: new ones wait behind them
  const f = bioAt(slot).flags;
  if (profile == PROFILE_618 && (f & (BIO_TG_BPS_THROTTLED | BIO_BPS_THROTTLED)) != 0) {
    const t = qnIopsTail.get(q);
    if (t >= 0) bioAt(t).next = slot;
    else qnIopsHead.set(q, slot);
    qnIopsTail.set(q, slot);
    sqNrIops.set(s * 2 + d, sqNrIops.get(s * 2 + d) + 1);
  } else {
    const t = qnBpsTail.get(q);
    if (t >= 0) bioAt(t).next = slot;
    else qnBpsHead.set(q, slot);
    qnBpsTail.set(q, slot);
    sqNrBps.set(s * 2 + d, sqNrBps.get(s * 2 + d) + 1);
  }
  if (!qnOnList.get(q)) {
    qnOnList.set(q, 1);
    qnNext.set(q, -1);
    const k = s * 2 + d;
    const t = sqQTail.get(k);
    if (t >= 0) qnNext.set(t, q);
    else sqQHead.set(k, q);
    sqQTail.set(k, q);
  }
}

function peekQueued(s: i32, d: i32): i32 {
  const q = sqQHead.get(s * 2 + d);
  if (q < 0) return -1;
  const b = qnIopsHead.get(q);
  return b >= 0 ? b : qnBpsHead.get(q);
}

function popQueued(s: i32, d: i32): i32 {
  const k = s * 2 + d;
  const q = sqQHead.get(k);
  if (q < 0) return -1;
  let b = qnIopsHead.get(q);
  if (b >= 0) {
    const n = bioAt(b).next;
    qnIopsHead.set(q, n);
    if (n < 0) qnIopsTail.set(q, -1);
    sqNrIops.set(k, sqNrIops.get(k) - 1);
  } else {
    b = qnBpsHead.get(q);
    const n = bioAt(b).next;
    qnBpsHead.set(q, n);
    if (n < 0) qnBpsTail.set(q, -1);
    sqNrBps.set(k, sqNrBps.get(k) - 1);
  }
  // remove the qnode if empty, else move it to the tail (round robin)
  const next = qnNext.get(q);
  sqQHead.set(k, next);
  if (next < 0) sqQTail.set(k, -1);
  if (qnIopsHead.get(q) < 0 && qnBpsHead.get(q) < 0) {
    qnOnList.set(q, 0);
  } else {
    qnNext.set(q, -1);
    const t = sqQTail.get(k);
    if (t >= 0) qnNext.set(t, q);
    else sqQHead.set(k, q);
    sqQTail.set(k, q);
  }
  bioAt(b).next = -1;
  return b;
}

// ---- pending tree: a binary heap per parent sq on (disptime, seq)

@inline function heapLess(a: i32, b: i32): bool {
  const da = tgDisptime.get(a);
  const db = tgDisptime.get(b);
  if (da != db) return timeBefore(da, db);
  return tgSeq.get(a) < tgSeq.get(b);
}

function heapUp(h: Vec<i32>, i: i32): void {
  const x = h.get(i);
  while (i > 0) {
    const p = (i - 1) >> 1;
    const y = h.get(p);
    if (!heapLess(x, y)) break;
    h.set(i, y);
    tgHeapPos.set(y, i);
    i = p;
  }
  h.set(i, x);
  tgHeapPos.set(x, i);
}

function heapDown(h: Vec<i32>, i: i32): void {
  const n = h.length;
  const x = h.get(i);
  while (true) {
    let c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && heapLess(h.get(c + 1), h.get(c))) c++;
    const y = h.get(c);
    if (!heapLess(y, x)) break;
    h.set(i, y);
    tgHeapPos.set(y, i);
    i = c;
  }
  h.set(i, x);
  tgHeapPos.set(x, i);
}

function serviceQueueAdd(g: i32): void {
  tgSeq.set(g, seqCounter++);
  const h = unchecked(sqHeap[tgParentSq.get(g)]);
  const i = h.push(g);
  tgHeapPos.set(g, i);
  heapUp(h, i);
}

function rbErase(g: i32): void {
  const h = unchecked(sqHeap[tgParentSq.get(g)]);
  const i = tgHeapPos.get(g);
  if (i < 0) return;
  const last = h.get(h.length - 1);
  h.length--;
  tgHeapPos.set(g, -1);
  if (last != g) {
    h.set(i, last);
    tgHeapPos.set(last, i);
    heapDown(h, i);
    heapUp(h, tgHeapPos.get(last));
  }
}

function enqueueTg(g: i32): void {
  const f = tgFlags.get(g);
  if (!(f & TG_PENDING)) {
    serviceQueueAdd(g);
    tgFlags.set(g, f | TG_PENDING);
  }
}

function dequeueTg(g: i32): void {
  const f = tgFlags.get(g);
  if (f & TG_PENDING) {
    rbErase(g);
    tgFlags.set(g, f & ~TG_PENDING);
  }
}

// ---------------------------------------------------------------- timer wheel

/** The jiffy at which a timer armed for `expires` fires (calc_wheel_index). */
export function wheelFire(expires: u64, clk: u64): u64 {
  const delta = expires - clk;
  for (let lvl = 0; lvl < LVL_DEPTH - 1; lvl++) {
    const start: u64 = (LVL_SIZE - 1) << (<u64>lvl * LVL_CLK_SHIFT); // LVL_START(lvl + 1)
    if (delta < start) {
      const sh = <u64>lvl * LVL_CLK_SHIFT;
      return ((expires >> sh) + 1) << sh;
    }
  }
  if (<i64>delta < 0) return clk;
  const sh = <u64>(LVL_DEPTH - 1) * LVL_CLK_SHIFT;
  return ((expires >> sh) + 1) << sh;
}

function schedulePendingTimer(s: i32, expires: u64): void {
  const maxExpire = jiffies + PENDING_TIMER_CAP_SLICES * SLICE;
  let capped = false;
  if (timeAfter(expires, maxExpire)) {
    expires = maxExpire;
    capped = true;
  }
  // mod_timer(): while timers run, base->clk is one ahead of jiffies
  const fire = wheelFire(expires, inTimer ? jiffies + 1 : jiffies);
  if (traceOn) {
    lastAllowed = 0;
    lastDisp = 0;
    trace(TR_TIMER, -1, s < nTg ? s : -1, 0, <i64>(fire - jiffies), capped ? RS_CAP : RS_NONE);
  }
  if (sqTimerFire.get(s) == fire) return;
  sqTimerFire.set(s, fire);
  schedule(tickTime(fire), EV_THROTL_TIMER, <u32>s);
}

/** throtl_schedule_next_dispatch(): true when the timer is armed or nothing is pending. */
function scheduleNextDispatch(s: i32, force: bool): bool {
  const h = unchecked(sqHeap[s]);
  if (h.length == 0) return true;
  const first = tgDisptime.get(h.get(0));
  if (force || timeAfter(first, jiffies)) {
    schedulePendingTimer(s, first);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- slices

@inline function sliceUsed(i: i32): bool {
  return !timeInRange(jiffies, tdAt(i).sliceStart, tdAt(i).sliceEnd);
}

@inline function startNewSlice(i: i32, clear: bool): void {
  if (profile == PROFILE_618) {
    if (clear) {
      tdAt(i).bytesDisp = 0;
      tdAt(i).ioDisp = 0;
    }
  } else {
    tdAt(i).bytesDisp = 0;
    tdAt(i).ioDisp = 0;
    if (clear) {
      tdAt(i).carryBytes = 0;
      tdAt(i).carryIos = 0;
    }
  }
  tdAt(i).sliceStart = jiffies;
  tdAt(i).sliceEnd = jiffies + SLICE;
  closeWindows(i);
}

function startNewSliceWithCredit(i: i32, start: u64): void {
  tdAt(i).bytesDisp = 0;
  tdAt(i).ioDisp = 0;
  tdAt(i).carryBytes = 0;
  tdAt(i).carryIos = 0;
  const later = profile == PROFILE_61 ? timeAfterEq(start, tdAt(i).sliceStart) : timeAfter(start, tdAt(i).sliceStart);
  if (later) tdAt(i).sliceStart = start;
  tdAt(i).sliceEnd = jiffies + SLICE;
  closeWindows(i);
}

@inline function setSliceEnd(i: i32, end: u64): void {
  tdAt(i).sliceEnd = roundupSlice(end);
  closeWindows(i);
}

@inline function extendSlice(i: i32, end: u64): void {
  if (profile == PROFILE_618 && !timeBefore(tdAt(i).sliceEnd, end)) return;
  setSliceEnd(i, end);
}

@inline function trimSlice(g: i32, d: i32): void {
  const i = g * 2 + d;
  if (sliceUsed(i)) return;
  setSliceEnd(i, jiffies + SLICE);
  let t = rounddownSlice(jiffies - tdAt(i).sliceStart);
  if (profile == PROFILE_618) {
    if (t < SLICE * 2) return;
    t -= SLICE;
    // throtl_trim_bps / throtl_trim_iops
    let btrim: i64 = 0;
    const bps = limBps(g, d);
    if (bps != U64_MAX) {
      const a = <i64>bytesAllowedAt(i, bps, t);
      const disp = tdAt(i).bytesDisp;
      if (a <= 0 || disp < a) {
        btrim = disp;
        tdAt(i).bytesDisp = 0;
      } else {
        tdAt(i).bytesDisp = disp - a;
        btrim = a;
      }
    }
    let itrim: i64 = 0;
    const iops = limIops(g, d);
    if (iops != UINT_MAX) {
      const a = s32(<i64>ioAllowedAt(i, iops, t));
      const disp = tdAt(i).ioDisp;
      if (a <= 0 || disp < a) {
        itrim = disp;
        tdAt(i).ioDisp = 0;
      } else {
        tdAt(i).ioDisp = s32(disp - a);
        itrim = a;
      }
    }
    if (btrim == 0 && itrim == 0) return;
    tdAt(i).sliceStart = tdAt(i).sliceStart + t;
    return;
  }
  if (t == 0) return;
  // long long bytes_trim = calculate_bytes_allowed() + carryover_bytes; int io_trim likewise
  const btrim = <i64>(bytesAllowedAt(i, limBps(g, d), t) + <u64>tdAt(i).carryBytes);
  const itrim = s32(<i64>ioAllowedAt(i, limIops(g, d), t) + tdAt(i).carryIos);
  if (btrim <= 0 && itrim <= 0) return;
  tdAt(i).carryBytes = 0;
  const bd = tdAt(i).bytesDisp; // u64 compared as long long
  tdAt(i).bytesDisp = bd >= btrim ? bd - btrim : 0;
  tdAt(i).carryIos = 0;
  const id = s32(tdAt(i).ioDisp); // (int)io_disp
  tdAt(i).ioDisp = id >= itrim ? <i64><u32>(id - itrim) : 0;
  tdAt(i).sliceStart = tdAt(i).sliceStart + t;
}

// ---------------------------------------------------------------- limits checks

/** tg_within_bps_limit(): jiffies to wait (0 = within). */
@inline function withinBps(g: i32, d: i32, slot: i32, bps: u64): u64 {
  const i = g * 2 + d;
  const size = <u64>bioAt(slot).size;
  const elapsed = jiffies - tdAt(i).sliceStart;
  let rnd = elapsed == 0 ? SLICE : elapsed;
  rnd = roundupSlice(rnd);
  const calc = bytesAllowedAt(i, bps, rnd);
  const disp = tdAt(i).bytesDisp;
  const p = profile;
  let allowed: i64;
  if (p == PROFILE_61) {
    const a = calc + <u64>tdAt(i).carryBytes;
    allowed = <i64>a;
    lastAllowed = allowed;
    lastDisp = disp;
    if (<u64>disp + size <= a) return 0;
  } else if (p == PROFILE_612) {
    allowed = <i64>calc + tdAt(i).carryBytes;
    lastAllowed = allowed;
    lastDisp = disp;
    if (allowed > 0 && <u64>disp + size <= <u64>allowed) return 0;
  } else {
    allowed = <i64>calc;
    lastAllowed = allowed;
    lastDisp = disp;
    if ((allowed > 0 && disp + <i64>size <= allowed) || allowed < 0) return 0;
  }
  const extra: u64 = <u64>disp + size - <u64>allowed;
  let wait = (extra * <u64>HZ) / bps;
  if (wait == 0) wait = 1;
  return wait + (rnd - elapsed);
}

/** tg_within_iops_limit(): jiffies to wait (0 = within). */
@inline function withinIops(g: i32, d: i32, iops: u64): u64 {
  const i = g * 2 + d;
  const elapsed = jiffies - tdAt(i).sliceStart;
  const rnd = roundupSlice(elapsed + 1);
  const calc = ioAllowedAt(i, iops, rnd);
  const disp = tdAt(i).ioDisp;
  const p = profile;
  lastDisp = disp;
  if (p == PROFILE_61) {
    const a = <u32>(calc + <u64>tdAt(i).carryIos);
    lastAllowed = <i64>a;
    if (<u32>(disp + 1) <= a) return 0;
    return rnd - elapsed;
  }
  let a: i64;
  if (p == PROFILE_612) {
    a = s32(<i64>calc + tdAt(i).carryIos);
    lastAllowed = a;
    if (a > 0 && <u32>(disp + 1) <= <u32>a) return 0;
  } else {
    a = s32(<i64>calc);
    lastAllowed = a;
    if (a > 0 && s32(disp + 1) <= a) return 0;
  }
  let wait = rnd - elapsed;
  const floor = iopsWaitFloor(i, iops);
  if (wait < floor) wait = floor;
  return wait;
}

/** <= 6.15 tg_may_dispatch(): wait in jiffies, 0 = may dispatch now. */
@inline function mayDispatch(g: i32, d: i32, slot: i32): u64 {
  const i = g * 2 + d;
  const bps = limBps(g, d);
  const iops = limIops(g, d);
  lastReason = RS_NONE;
  if (bps == U64_MAX && iops == UINT_MAX) return 0;
  const flags = bioAt(slot).flags;
  // A repeat: a wait verdict leaves the slice live and long enough
  // (slice_end >= jiffies + max(SLICE, wait)), so the same question - same
  // jiffy, counters, bio size and BIO_BPS_THROTTLED - at an unchanged slice
  // and limits (any change forgets the verdict) has the same answer and
  // changes nothing. The timer asks it twice per dispatch round
  // (throtl_dispatch_tg(), then tg_update_disptime()).
  const td = tdAt(i);
  const key = <u64>bioAt(slot).size | (<u64>(flags & BIO_BPS_THROTTLED) << 32) | (<u64>1 << 40);
  if (td.fwKey == key && td.fwJ == jiffies && td.fwBytesDisp == td.bytesDisp && td.fwIoDisp == td.ioDisp && !traceOn) {
    lastReason = td.fwReason;
    return td.fwWait;
  }
  if (sliceUsed(i) && sqNrBps.get(g * 2 + d) == 0) startNewSlice(i, true);
  else if (timeBefore(tdAt(i).sliceEnd, jiffies + SLICE)) extendSlice(i, jiffies + SLICE);
  let bw: u64 = 0;
  if (bps != U64_MAX && !(flags & BIO_BPS_THROTTLED)) bw = withinBps(g, d, slot, bps);
  let iw: u64 = 0;
  if (profile != PROFILE_61 || bw == 0) {
    // 6.1: `within_bps && within_iops` skips the iops check when bps failed
    if (iops != UINT_MAX) {
      const sa = lastAllowed;
      const sd = lastDisp;
      iw = withinIops(g, d, iops);
      if (bw > 0 && iw <= bw) {
        lastAllowed = sa;
        lastDisp = sd;
      }
    }
  }
  if (bw + iw == 0) return 0;
  const w = bw > iw ? bw : iw;
  lastReason = bw >= iw ? RS_BPS : RS_IOPS;
  if (timeBefore(tdAt(i).sliceEnd, jiffies + w)) extendSlice(i, jiffies + w);
  td.fwKey = key;
  td.fwJ = jiffies;
  td.fwBytesDisp = td.bytesDisp;
  td.fwIoDisp = td.ioDisp;
  td.fwWait = w;
  td.fwReason = lastReason;
  return w;
}

// ---- 6.18

@inline function updateSlice618(g: i32, d: i32): void {
  const i = g * 2 + d;
  if (sliceUsed(i) && sqQueued(g, d) == 0) startNewSlice(i, true);
  else extendSlice(i, jiffies + SLICE);
}

@inline function dispatchBpsTime(g: i32, d: i32, slot: i32): u64 {
  const bps = limBps(g, d);
  if (bps == U64_MAX || (bioAt(slot).flags & (BIO_BPS_THROTTLED | BIO_TG_BPS_THROTTLED)) != 0) return 0;
  updateSlice618(g, d);
  const w = withinBps(g, d, slot, bps);
  extendSlice(g * 2 + d, jiffies + w);
  if (w > 0) lastReason = RS_BPS;
  return w;
}

@inline function dispatchIopsTime(g: i32, d: i32, slot: i32): u64 {
  const iops = limIops(g, d);
  if (iops == UINT_MAX) return 0;
  updateSlice618(g, d);
  const w = withinIops(g, d, iops);
  extendSlice(g * 2 + d, jiffies + w);
  if (w > 0) lastReason = RS_IOPS;
  return w;
}

@inline function chargeBps618(g: i32, d: i32, slot: i32): void {
  const f = bioAt(slot).flags;
  if ((f & (BIO_BPS_THROTTLED | BIO_TG_BPS_THROTTLED)) == 0) {
    bioAt(slot).flags = f | BIO_TG_BPS_THROTTLED;
    const i = g * 2 + d;
    tdAt(i).bytesDisp = tdAt(i).bytesDisp + <i64>bioAt(slot).size;
  }
}

@inline function chargeIops618(g: i32, d: i32, slot: i32): void {
  bioAt(slot).flags = bioAt(slot).flags & ~BIO_TG_BPS_THROTTLED;
  const i = g * 2 + d;
  tdAt(i).ioDisp = s32(tdAt(i).ioDisp + 1);
}

@inline function dispatchTime618(g: i32, d: i32, slot: i32): u64 {
  lastReason = RS_NONE;
  const w = dispatchBpsTime(g, d, slot);
  if (w != 0) return w;
  chargeBps618(g, d, slot);
  return dispatchIopsTime(g, d, slot);
}

/** Wait of the head bio (either version), 0 = dispatch now. */
@inline function dispatchWait(g: i32, d: i32, slot: i32): u64 {
  return profile == PROFILE_618 ? dispatchTime618(g, d, slot) : mayDispatch(g, d, slot);
}

/** throtl_charge_bio() (<= 6.15). */
@inline function chargeBio(g: i32, d: i32, slot: i32): void {
  const i = g * 2 + d;
  if (!(bioAt(slot).flags & BIO_BPS_THROTTLED)) {
    tdAt(i).bytesDisp = <i64>(<u64>tdAt(i).bytesDisp + <u64>bioAt(slot).size);
  }
  tdAt(i).ioDisp = <i64><u32>(tdAt(i).ioDisp + 1);
}

@inline function withinLimit(g: i32, d: i32, slot: i32): bool {
  if (profile != PROFILE_618) {
    if (sqNrBps.get(g * 2 + d) != 0) {
      lastReason = RS_FIFO;
      return false;
    }
    return mayDispatch(g, d, slot) == 0;
  }
  const s = g;
  if (bioAt(slot).flags & BIO_BPS_THROTTLED) {
    if (sqNrIops.get(s * 2 + d) != 0) {
      lastReason = RS_FIFO;
      return false;
    }
    lastReason = RS_NONE;
    return dispatchIopsTime(g, d, slot) == 0;
  }
  if (sqQueued(s, d) != 0) {
    if (sqNrBps.get(s * 2 + d) == 0 && dispatchBpsTime(g, d, slot) == 0) chargeBps618(g, d, slot);
    lastReason = RS_FIFO;
    return false;
  }
  return dispatchTime618(g, d, slot) == 0;
}

// ---------------------------------------------------------------- the pass window

const FP_BYTES: u8 = 1; // check bytesDisp + size against fpBytes
const FP_IOPS: u8 = 2; // check ioDisp + 1 against fpIos

/** fpBytes / fpIos of a check fpMode leaves out: no counter plus a bio
 *  exceeds it in the version's compare (signed 6.18, unsigned before), so
 *  the per-bio pass (throtlBio()) compares without looking at fpMode. */
@inline function fpNoCheck(p: i32): i64 {
  return p == PROFILE_618 ? i64.MAX_VALUE : -1; // -1: U64_MAX, and UINT_MAX as u32
}

/** A bio passes level i on the pass window: the compares of withinLimit()
 *  with the allowances it would compute, then the charge. false = ask
 *  withinLimit() (nothing changed). */
@inline function fastPass(i: i32, slot: i32): bool {
  return fastPassTd(tdAt(i), slot);
}

@inline function fastPassTd(td: Td, slot: i32): bool {
  if (jiffies - td.fpLo >= td.fpLen) return false;
  const b = bioAt(slot);
  const f = b.flags;
  const mode = td.fpMode;
  const p = profile;
  const size = <u64>b.size;
  const bytes = (f & BIO_BPS_THROTTLED) == 0;
  if (f & BIO_TG_BPS_THROTTLED) return false;
  if (bytes && (mode & FP_BYTES) != 0) {
    if (p == PROFILE_618) {
      if (td.bytesDisp + <i64>size > td.fpBytes) return false;
    } else if (<u64>td.bytesDisp + size > <u64>td.fpBytes) return false;
  }
  if (mode & FP_IOPS) {
    if (p == PROFILE_618) {
      if (s32(td.ioDisp + 1) > td.fpIos) return false;
    } else if (<u32>(td.ioDisp + 1) > <u32>td.fpIos) return false;
  }
  if (bytes) td.bytesDisp = td.bytesDisp + <i64>size;
  td.ioDisp = p == PROFILE_618 ? s32(td.ioDisp + 1) : <i64><u32>(td.ioDisp + 1);
  return true;
}

/** After a bio passed level (g, d) the long way (charged, trimmed): open the
 *  pass window for the jiffies in which the next bio's check would only
 *  compare and charge - no slice start, extension or trim, the same rounded
 *  windows - with the allowances those compares would use. */
function fpValidate(g: i32, d: i32): void {
  const i = g * 2 + d;
  const td = tdAt(i);
  td.fpLen = 0;
  if (sqQueued(g, d) != 0) return;
  const bps = limBps(g, d);
  const iops = limIops(g, d);
  const unlimited = bps == U64_MAX && iops == UINT_MAX;
  const j = jiffies;
  const p = profile;
  if (sliceUsed(i)) {
    // an unlimited group's slice is never restarted by a bio: once over it stays over
    if (!unlimited || !timeAfter(j, td.sliceEnd)) return;
    td.fpMode = 0;
    td.fpBytes = fpNoCheck(p);
    td.fpIos = fpNoCheck(p);
    td.fpLo = j;
    td.fpLen = U64_MAX;
    return;
  }
  if (timeBefore(td.sliceEnd, j + SLICE)) return; // (trim just set it to roundup(j + SLICE))
  const elapsed = j - td.sliceStart;
  // the last jiffy (as elapsed) with no trim: <= 6.15 trims once a whole
  // slice has passed, 6.18 once two have (and never an unlimited group)
  let lim: u64;
  if (p != PROFILE_618) {
    if (elapsed >= SLICE) return;
    lim = SLICE - 1;
  } else if (unlimited) {
    lim = U64_MAX >> 2;
  } else {
    if (elapsed >= 2 * SLICE) return;
    lim = 2 * SLICE - 1;
  }
  let mode: u8 = 0;
  if (bps != U64_MAX) {
    const rnd = roundupSlice(elapsed == 0 ? SLICE : elapsed);
    const calc = bytesAllowedAt(i, bps, rnd);
    if (p == PROFILE_61) {
      td.fpBytes = <i64>(calc + <u64>td.carryBytes);
      mode |= FP_BYTES;
    } else if (p == PROFILE_612) {
      const a = <i64>calc + td.carryBytes;
      if (a <= 0) return;
      td.fpBytes = a;
      mode |= FP_BYTES;
    } else {
      const a = <i64>calc;
      if (a == 0) return;
      if (a > 0) {
        td.fpBytes = a;
        mode |= FP_BYTES;
      }
      if (rnd < lim) lim = rnd; // same rounded window up to elapsed == rnd
    }
  }
  if (iops != UINT_MAX) {
    const rnd = roundupSlice(elapsed + 1);
    const calc = ioAllowedAt(i, iops, rnd);
    if (p == PROFILE_61) {
      td.fpIos = <i64><u32>(calc + <u64>td.carryIos);
    } else {
      const a = s32(<i64>calc + (p == PROFILE_612 ? td.carryIos : 0));
      if (a <= 0) return;
      td.fpIos = a;
      if (p == PROFILE_618 && rnd - 1 < lim) lim = rnd - 1;
    }
    mode |= FP_IOPS;
  }
  // ... and no later than the jiffy whose roundup(jiffies + SLICE) is sliceEnd
  let span = td.sliceEnd - SLICE - j;
  if (lim - elapsed < span) span = lim - elapsed;
  if ((mode & FP_BYTES) == 0) td.fpBytes = fpNoCheck(p);
  if ((mode & FP_IOPS) == 0) td.fpIos = fpNoCheck(p);
  td.fpMode = mode;
  td.fpLo = j;
  td.fpLen = span + 1;
}

// ---------------------------------------------------------------- dispatch

function updateDisptime(g: i32): void {
  let rw: u64 = U64_MAX;
  let ww: u64 = U64_MAX;
  let b = peekQueued(g, 0);
  if (b >= 0) rw = dispatchWait(g, 0, b);
  b = peekQueued(g, 1);
  if (b >= 0) ww = dispatchWait(g, 1, b);
  const minw = rw < ww ? rw : ww;
  rbErase(g);
  tgDisptime.set(g, jiffies + minw);
  serviceQueueAdd(g);
  tgFlags.set(g, tgFlags.get(g) & ~(TG_WAS_EMPTY | TG_IOPS_WAS_EMPTY));
}

function addBioTg(slot: i32, q: i32, g: i32): void {
  const d = <i32>bioAt(slot).dir;
  if (sqQueued(g, d) == 0) tgFlags.set(g, tgFlags.get(g) | TG_WAS_EMPTY);
  qnodeAdd(slot, q, g, d);
  if (profile == PROFILE_618 && (bioAt(slot).flags & BIO_BPS_THROTTLED) != 0 && peekQueued(g, d) == slot) {
    tgFlags.set(g, tgFlags.get(g) | TG_IOPS_WAS_EMPTY);
  }
  enqueueTg(g);
}

function dispatchOneBio(g: i32, d: i32): void {
  const s = g;
  const slot = popQueued(s, d);
  const i = g * 2 + d;
  if (profile == PROFILE_618) chargeIops618(g, d, slot);
  else chargeBio(g, d, slot);
  const ps = tgParentSq.get(g);
  if (traceOn) {
    lastAllowed = 0;
    lastDisp = tdAt(i).ioDisp;
    trace(TR_DISPATCH, slot, g, d, 0, RS_NONE);
  }
  if (ps < nTg) {
    addBioTg(slot, (i << 1) | 1, ps);
    // start_parent_slice_with_credit()
    const pi = ps * 2 + d;
    if (sliceUsed(pi)) startNewSliceWithCredit(pi, tdAt(i).sliceStart);
  } else {
    bioAt(slot).flags = bioAt(slot).flags | BIO_BPS_THROTTLED;
    qnodeAdd(slot, (i << 1) | 1, ps, d);
  }
  trimSlice(g, d);
}

function dispatchTg(g: i32): i32 {
  let nr = 0;
  let b: i32;
  const maxReads = THROTL_GRP_QUANTUM * 3 / 4;
  const maxWrites = THROTL_GRP_QUANTUM - maxReads;
  let nrR = 0;
  while ((b = peekQueued(g, 0)) >= 0 && dispatchWait(g, 0, b) == 0) {
    dispatchOneBio(g, 0);
    nrR++;
    if (nrR >= maxReads) break;
  }
  let nrW = 0;
  while ((b = peekQueued(g, 1)) >= 0 && dispatchWait(g, 1, b) == 0) {
    dispatchOneBio(g, 1);
    nrW++;
    if (nrW >= maxWrites) break;
  }
  nr = nrR + nrW;
  return nr;
}

function selectDispatch(s: i32): i32 {
  let nr = 0;
  const h = unchecked(sqHeap[s]);
  while (true) {
    if (h.length == 0) break;
    const g = h.get(0);
    if (timeBefore(jiffies, tgDisptime.get(g))) break;
    nr += dispatchTg(g);
    if (sqQueued(g, 0) != 0 || sqQueued(g, 1) != 0) updateDisptime(g);
    else dequeueTg(g);
    if (nr >= THROTL_QUANTUM) break;
  }
  return nr;
}

/** throtl_pending_timer_fn() for service queue `s`. */
export function throtlTimer(arg: u32, t: i64): void {
  let s = <i32>arg;
  const fire = jiffiesAt(t);
  if (sqTimerFire.get(s) != fire) return; // re-armed elsewhere (mod_timer)
  sqTimerFire.set(s, 0);
  now = t;
  jiffies = fire;
  inTimer = true;
  while (true) {
    let dispatched = false;
    while (true) {
      if (selectDispatch(s) > 0) dispatched = true;
      if (scheduleNextDispatch(s, false)) break;
    }
    if (!dispatched) break;
    if (s < nTg) {
      const g = s;
      const ps = tgParentSq.get(g);
      if ((tgFlags.get(g) & (TG_WAS_EMPTY | TG_IOPS_WAS_EMPTY)) != 0) {
        updateDisptime(g);
        if (!scheduleNextDispatch(ps, false)) {
          s = ps; // window already open: dispatch at the parent level now
          continue;
        }
      }
    } else {
      const dev = s - nTg;
      if (!sqWorkPending.get(dev)) {
        sqWorkPending.set(dev, 1);
        schedule(t + cfg.workLatencyNs, EV_THROTL_WORK, <u32>dev);
      }
    }
    break;
  }
  inTimer = false;
}

/** blk_throtl_dispatch_work_fn(): submit everything on the device's top queue. */
export function throtlWork(arg: u32, t: i64): void {
  const dev = <i32>arg;
  sqWorkPending.set(dev, 0);
  const s = nTg + dev;
  // collect first (reads then writes), then submit: submission may queue split remainders again
  const list = workList;
  list.length = 0;
  for (let d = 0; d < 2; d++) {
    let b: i32;
    while ((b = popQueued(s, d)) >= 0) list.push(b);
  }
  for (let k = 0; k < list.length; k++) {
    const slot = list.get(k);
    now = t;
    jiffies = jiffiesAt(t);
    if (traceOn) {
      lastAllowed = 0;
      lastDisp = 0;
      trace(TR_RELEASE, slot, bioAt(slot).cg * nDev + dev, <i32>bioAt(slot).dir, 0, RS_NONE);
    }
    // the first piece goes on; remainders of a split come back through blk-throttle
    const pieces = bioAt(slot).pieces;
    if (pieces > 1) {
      bioAt(slot).pieces = pieces - 1;
      if (!passPieces(slot, t)) continue;
    }
    afterThrottle(slot, t);
  }
}
const workList = new Vec<i32>(64);

// ---------------------------------------------------------------- submission

/** blk_should_throtl() + __blk_throtl_bio() for one piece: true = passed.
 *  Inlined where bios are submitted: a bio not charged anywhere yet (every
 *  bio but a split remainder) passes the levels on their pass windows here,
 *  with fastPassTd()'s compares and charges, its bytes always checked and
 *  charged (fpNoCheck() stands in for a check the window leaves out); the
 *  first level off its window, the trace and everything else go on in
 *  throtlBioLevels() / throtlBioSlow(). */
@inline function throtlBio(slot: i32, t: i64): bool {
  const b = bioAt(slot);
  const f = b.flags;
  let i = (b.cg * nDev + b.dev) * 2 + <i32>b.dir;
  let td = tdAt(i);
  if (td.rulesIops == 0) {
    if (td.rulesBps == 0 || (f & BIO_BPS_THROTTLED) != 0) return true;
  }
  if ((f & (BIO_BPS_THROTTLED | BIO_TG_BPS_THROTTLED)) != 0) return throtlBioSlow(slot, t);
  if (traceOn) return throtlBioSlow(slot, t);
  // (`now` is read by the trace only, `jiffies` by the long way: set below
  // when it is taken)
  const j = jiffiesAt(t);
  const size = <i64>b.size;
  let q = -1;
  if (profile == PROFILE_618) {
    while (true) {
      if (j - td.fpLo >= td.fpLen) break;
      const bd = td.bytesDisp + size;
      if (bd > td.fpBytes) break;
      const io = s32(td.ioDisp + 1);
      if (io > td.fpIos) break;
      td.bytesDisp = bd;
      td.ioDisp = io;
      q = (i << 1) | 1;
      const pi = td.parentTd;
      if (pi < 0) {
        b.flags = f | BIO_BPS_THROTTLED;
        return true;
      }
      i = pi;
      td = tdAt(pi);
    }
  } else {
    while (true) {
      if (j - td.fpLo >= td.fpLen) break;
      const bd = td.bytesDisp + size;
      if (<u64>bd > <u64>td.fpBytes) break;
      const io = <u32>(td.ioDisp + 1);
      if (io > <u32>td.fpIos) break;
      td.bytesDisp = bd;
      td.ioDisp = <i64>io;
      q = (i << 1) | 1;
      const pi = td.parentTd;
      if (pi < 0) {
        b.flags = f | BIO_BPS_THROTTLED;
        return true;
      }
      i = pi;
      td = tdAt(pi);
    }
  }
  now = t;
  jiffies = j;
  return throtlBioLevels(slot, i >> 1, <i32>b.dir, q);
}

/** throtlBio() for a bio with BIO_BPS_THROTTLED or BIO_TG_BPS_THROTTLED set,
 *  or with the decision trace on (limits apply: the rules say so). */
function throtlBioSlow(slot: i32, t: i64): bool {
  const b = bioAt(slot);
  const d = <i32>b.dir;
  let i = (b.cg * nDev + b.dev) * 2 + d;
  now = t;
  jiffies = jiffiesAt(t);
  if (traceOn) {
    lastAllowed = 0;
    lastDisp = 0;
    trace(TR_ARRIVE, slot, i >> 1, d, 0, RS_NONE);
    return throtlBioLevels(slot, i >> 1, d, -1);
  }
  // level by level on the pass windows; the first level off its window
  // takes the long way (and so does everything above it)
  let q = -1;
  let td = tdAt(i);
  while (fastPassTd(td, slot)) {
    q = (i << 1) | 1;
    const pi = td.parentTd;
    if (pi < 0) {
      b.flags = b.flags | BIO_BPS_THROTTLED;
      return true;
    }
    i = pi;
    td = tdAt(pi);
  }
  return throtlBioLevels(slot, i >> 1, d, q);
}

/** __blk_throtl_bio() from level g up (q: the qnode the bio came through, -1 = none). */
function throtlBioLevels(slot: i32, g: i32, d: i32, q: i32): bool {
  let i = g * 2 + d;
  const p = profile;
  const fast = !traceOn;
  while (true) {
    if (fast && fastPass(i, slot)) {
      // passed on the pass window
      } else if (withinLimit(g, d, slot)) {
      if (p == PROFILE_618) chargeIops618(g, d, slot);
      else chargeBio(g, d, slot);
      if (traceOn) trace(TR_PASS, slot, g, d, 0, RS_NONE);
      trimSlice(g, d);
      fpValidate(g, d);
    } else if (p != PROFILE_61 && (bioAt(slot).flags & (BIO_META | BIO_SWAP)) != 0) {
      if (p == PROFILE_618) {
        chargeBps618(g, d, slot);
        chargeIops618(g, d, slot);
      } else chargeBio(g, d, slot);
      if (traceOn) trace(TR_BYPASS, slot, g, d, 0, lastReason);
    } else {
      break;
    }
    q = (i << 1) | 1;
    const ps = tgParentSq.get(g);
    if (ps >= nTg) {
      bioAt(slot).flags = bioAt(slot).flags | BIO_BPS_THROTTLED;
      return true;
    }
    g = ps;
    i = g * 2 + d;
  }
  // over the limit: queue at g
  queuedBios++;
  const reason = lastReason;
  if (q < 0) q = i << 1; // qnode_on_self
  bioAt(slot).flags = bioAt(slot).flags | BIO_THROTTLED;
  addBioTg(slot, q, g);
  const f = tgFlags.get(g);
  let wait: i64 = -1;
  if ((f & (TG_WAS_EMPTY | TG_IOPS_WAS_EMPTY)) != 0) {
    updateDisptime(g);
    wait = <i64>(tgDisptime.get(g) - jiffies);
    if (traceOn) trace(TR_QUEUE, slot, g, d, wait, reason == RS_NONE ? lastReason : reason);
    scheduleNextDispatch(tgParentSq.get(g), true);
  } else if (traceOn) {
    trace(TR_QUEUE, slot, g, d, wait, RS_FIFO);
  }
  return false;
}

/** Pass the bio's remaining pieces; false = one is queued (the work resumes it). */
function passPieces(slot: i32, t: i64): bool {
  while (true) {
    if (!throtlBio(slot, t)) return false;
    const pieces = bioAt(slot).pieces;
    if (pieces <= 1) return true;
    // blk-mq splits off one piece; the remainder is resubmitted (BIO_BPS_THROTTLED set)
    bioAt(slot).pieces = pieces - 1;
    bioAt(slot).flags = bioAt(slot).flags | BIO_BPS_THROTTLED;
  }
}

/** submit_bio_noacct(): true = the bio passes blk-throttle now. */
@inline export function throtlSubmit(slot: i32, t: i64): bool {
  if (bioAt(slot).pieces <= 1) return throtlBio(slot, t); // not split: one pass
  return passPieces(slot, t);
}

// ---------------------------------------------------------------- config changes

/** A limit write takes effect (tg_set_conf / tg_set_limit). */
export function throtlConfigEvent(idx: u32, t: i64): void {
  const k = <i32>idx;
  const cg = cfgCg.get(k);
  const dev = cfgDev.get(k);
  const g = cg * nDev + dev;
  now = t;
  jiffies = jiffiesAt(t);
  // tg_update_carryover() with the old limits
  for (let d = 0; d < 2; d++) {
    const i = g * 2 + d;
    const elapsed = jiffies - tdAt(i).sliceStart;
    const bps = limBps(g, d);
    const iops = limIops(g, d);
    if (profile == PROFILE_618) {
      if (sqQueued(g, d) == 0) {
        tdAt(i).bytesDisp = 0;
        tdAt(i).ioDisp = 0;
        continue;
      }
      let cb: i64 = 0;
      let ci: i64 = 0;
      if (bps != U64_MAX) {
        const a = <i64>bytesAllowed(bps, elapsed);
        if (a > 0) cb = a - tdAt(i).bytesDisp;
      }
      if (iops != UINT_MAX) {
        const a = s32(<i64>ioAllowed(iops, elapsed));
        if (a > 0) ci = s32(a - tdAt(i).ioDisp);
      }
      tdAt(i).bytesDisp = -cb;
      tdAt(i).ioDisp = s32(-ci);
    } else if (sqNrBps.get(g * 2 + d) != 0) {
      if (bps != U64_MAX) {
        tdAt(i).carryBytes = <i64>(<u64>tdAt(i).carryBytes + bytesAllowed(bps, elapsed) - <u64>tdAt(i).bytesDisp);
      }
      if (iops != UINT_MAX) {
        tdAt(i).carryIos = s32(tdAt(i).carryIos + <i64>ioAllowed(iops, elapsed) - tdAt(i).ioDisp);
      }
    }
  }
  closeWindows(g * 2);
  closeWindows(g * 2 + 1);
  tdAt(g * 2).bps = cfgVals.get(k * 4);
  tdAt(g * 2 + 1).bps = cfgVals.get(k * 4 + 1);
  tdAt(g * 2).iops = cfgVals.get(k * 4 + 2);
  tdAt(g * 2 + 1).iops = cfgVals.get(k * 4 + 3);
  // tg_conf_updated(): has_rules for the subtree (cgroup ids are parents-first)
  for (let c = 0; c < nCg; c++) {
    const h = c * nDev + dev;
    if (h == g || isDescendant(c, cg)) updateHasRules(h);
  }
  startNewSlice(g * 2, false);
  startNewSlice(g * 2 + 1, false);
  if (traceOn) {
    lastAllowed = 0;
    lastDisp = 0;
    trace(TR_CONFIG, -1, g, 0, 0, RS_NONE);
  }
  if (tgFlags.get(g) & TG_PENDING) {
    updateDisptime(g);
    scheduleNextDispatch(tgParentSq.get(g), true);
  }
}

function isDescendant(c: i32, ancestor: i32): bool {
  if (!cgroupV2) return false; // flat on v1
  let p = cgParent.get(c);
  while (p >= 0) {
    if (p == ancestor) return true;
    p = cgParent.get(p);
  }
  return false;
}

// ---------------------------------------------------------------- introspection

export function throtlSliceJiffies(): u64 {
  return SLICE;
}

/** How many bios (pieces) were over a limit when submitted and waited. */
export function throtlQueuedBios(): i64 {
  return queuedBios;
}

export function throtlPassWindowField(cg: i32, dev: i32, dir: i32, what: i32): i64 {
  if (!throttleActive) return 0;
  const td = tdAt((cg * nDev + dev) * 2 + dir);
  if (what == 0) return <i64>td.fpLo;
  if (what == 1) return <i64>td.fpLen;
  if (what == 2) return td.fpIos;
  return td.fpBytes;
}

export function throtlTgCount(): i32 {
  return nTg;
}

export function throtlDevCount(): i32 {
  return nDev;
}

// ---------------------------------------------------------------- benchmark hook

let benchBase: u64 = 0;
export let benchWaitSum: u64 = 0;
export function benchStart(): void {
  benchBase = jiffiesAt(0);
  benchWaitSum = 0;
}

/** One decision at tg 0 (read) at jiffy JIFFIES_AT_ZERO + j: the within-limit
 *  check and, when it passes, the charge and trim (never queues, so the
 *  check is withinLimit()'s with nothing queued: dispatchWait()). A wait is
 *  added to benchWaitSum. */
export function benchDecide(slot: i32, j: i64): bool {
  jiffies = benchBase + <u64>j;
  if (fastPass(0, slot)) return true;
  const w = dispatchWait(0, 0, slot);
  if (w != 0) {
    benchWaitSum += w;
    return false;
  }
  if (profile == PROFILE_618) chargeIops618(0, 0, slot);
  else chargeBio(0, 0, slot);
  trimSlice(0, 0);
  fpValidate(0, 0);
  return true;
}
