// Writeback throttling (wbt): cap how many buffered writeback requests are in
// flight so reads keep their latency. Followed: Linux 6.1 block/blk-wbt.c and
// block/blk-rq-qos.c (Debian 6.1.192); 6.12 and 6.18 change what is modelled
// here only in how wbt_lat_usec is written (bindings/device/wbt.ts) and in
// where iolatency sits in the rq-qos chain (engine/path.ts rqosChain).
//
// THE MODEL, in the kernel's names.
//
// Per device an rq_wb: min_lat_nsec (the read latency target; wbt_lat_usec x
// 1000; default 2 ms non-rotational, 75 ms rotational; 0 disables), an
// rq_depth (queue_depth = nr_requests, default_depth RWB_DEF_DEPTH = 16,
// scale_step, max_depth) and the limits calc_wb_limits() derives from it:
//
//   max_depth = min(16, nr_requests)                      scale_step 0
//             = 1 + ((that - 1) >> step)                  step > 0 (latency missed)
//             = min(1 + ((that - 1) << -step), 3/4 nr_requests)   step < 0
//   wb_normal = (max_depth + 1) / 2, wb_background = (max_depth + 3) / 4
//               (max_depth <= 2: wb_normal = max_depth, wb_background = 1)
//
// A tracked request (a buffered write: iosim's writeback bios, or a replayed
// writeback request) takes an in-flight slot below get_limit(): max_depth for
// REQ_SYNC writeback or when a writer slept in balance_dirty_pages within the
// last second (wb_recent_wait, the disk's root wb), wb_background for
// REQ_BACKGROUND writeback or when a read was issued or completed within
// HZ/10 (close_io), wb_normal otherwise; FIFO behind any waiter
// (rq_qos_wait). On completion (wbt_done -> wbt_rqw_done) the slot is
// dropped and waiters are woken when in-flight is below wb_normal by at least
// wb_background / 2 (or nothing is in flight).
//
// The window (blk-stat callback, wb_timer_fn): every request's device time
// (io_start_time_ns -> completion) is added to a read or a write stat while
// the window's timer is pending. At its expiry (cur_win_nsec: 100 ms, shorter
// while scaled down: win << 4 / int_sqrt((step + 1) << 8)) latency_exceeded()
// decides: a read issued longer ago than the window (or than the target with
// no read sample) = EXCEEDED; no read or < 3 writes = UNKNOWN(_WRITES); the
// window's *minimum* read latency above the target = EXCEEDED; else OK.
// EXCEEDED scales down (step++, from a negative step straight to 0), OK and
// UNKNOWN_WRITES scale up (step--, until max_depth reaches 3/4 of the queue),
// five UNKNOWNs in a row move the step one back toward 0. The timer is
// re-armed while the step is not 0 or writes are in flight, and by the next
// tracked write otherwise.
//
// WORKED EXAMPLE (null_blk, nr_requests 4, 40 ms per request; the oracle
// trace test/fixtures/oracle/guest/wbt*.jsonl, case "default"): max_depth =
// min(16, 4) = 4, wb_normal 2, wb_background 1: the flusher's background
// writeback holds one request at a time. A read's device time is 40 ms > the
// 2 ms default target, so the first window with a read and 3 writes is
// EXCEEDED: step 1, max_depth 1 + (3 >> 1) = 2, window 100 ms x 16 /
// int_sqrt(512) = 72.727 ms; then step 2, max_depth 1 (window 57.7 ms), where
// scale_down stops. With wbt_lat_usec = 100000 (case "lat100ms") every window
// is OK: step -1, 1 + (3 << 1) = 7 capped at 3 = 3/4 x 4, scaled_max; the
// background limit stays (3 + 3) / 4 = 1. With 0 ("off") nothing is tracked
// and writeback takes all 4 tags.

import { Vec } from "../engine/vec";
import { bioAt, BIO_WRITEBACK, BIO_BUFWRITE, BIO_SYNC, BIO_BACKGROUND, BIO_META } from "../engine/bios";
import { schedule, EV_WBT_TIMER } from "../engine/events";
import { deviceAt } from "../device/device";
import { jiffiesAt, tickTime, HZ, timeAfter } from "../engine/clock";
import { wheelFire } from "../throttle/throttle";
import { rqosChain } from "../engine/path";
import { logChange, setRqosFlags } from "../iolatency/log";

const RWB_DEF_DEPTH: u32 = 16;
const RWB_WINDOW_NSEC: u64 = 100_000_000;
const RWB_MIN_WRITE_SAMPLES: u64 = 3;
const RWB_UNKNOWN_BUMP: u32 = 5;
const UINT_MAX: u32 = 0xffffffff;

const LAT_OK: i32 = 1;
const LAT_UNKNOWN: i32 = 2;
const LAT_UNKNOWN_WRITES: i32 = 3;
const LAT_EXCEEDED: i32 = 4;

export const WBT_STATE_ON_DEFAULT: i32 = 1;
export const WBT_STATE_ON_MANUAL: i32 = 2;
export const WBT_STATE_OFF_DEFAULT: i32 = 3;
export const WBT_STATE_OFF_MANUAL: i32 = 4;

export let wbtActive: bool = false;

class Stat {
  min: u64 = u64.MAX_VALUE;
  max: u64 = 0;
  batch: u64 = 0;
  n: u64 = 0;
  @inline init(): void {
    this.min = u64.MAX_VALUE;
    this.max = 0;
    this.batch = 0;
    this.n = 0;
  }
  @inline add(v: u64): void {
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.batch += v;
    this.n++;
  }
}

class Rwb {
  dev: i32;
  exists: bool = false;
  enableState: i32 = WBT_STATE_ON_DEFAULT;
  minLatNs: u64 = 0;
  winNs: u64 = RWB_WINDOW_NSEC;
  curWinNs: u64 = RWB_WINDOW_NSEC;
  queueDepth: u32 = 0;
  defaultDepth: u32 = RWB_DEF_DEPTH;
  scaleStep: i32 = 0;
  scaledMax: bool = false;
  maxDepth: u32 = 0;
  wbNormal: u32 = 0;
  wbBackground: u32 = 0;
  unknownCnt: u32 = 0;
  inflight: u32 = 0;
  waitHead: i32 = -1;
  waitTail: i32 = -1;
  waitCount: i32 = 0;
  lastIssue: u64 = 0; // jiffies
  lastComp: u64 = 0;
  syncIssue: i64 = 0;
  syncCookie: i32 = -1;
  rd: Stat = new Stat();
  wr: Stat = new Stat();
  timerFire: i64 = -1; // the window timer's expiry (ns), -1 = not pending
  // outputs
  steps: u32 = 0;
  waited: u64 = 0;
  constructor(dev: i32) {
    this.dev = dev;
  }
}

const rwbs = new Array<Rwb>();
const slotStage = new Vec<i32>(64);
const slotFlags = new Vec<u8>(64); // 1 tracked, 2 read
const FL_TRACKED: u8 = 1;
const FL_READ: u8 = 2;
let rootDirtySleep: u64 = 0; // jiffies of the last balance_dirty_pages sleep on a disk's root wb
let rootDirtySleepSet: bool = false;

export function resetWbt(): void {
  rwbs.length = 0;
  slotStage.length = 0;
  slotFlags.length = 0;
  wbtActive = false;
  rootDirtySleepSet = false;
  setRqosFlags(-1, 0, -1);
}

function rwbOf(dev: i32): Rwb {
  while (rwbs.length <= dev) rwbs.push(new Rwb(rwbs.length));
  return unchecked(rwbs[dev]);
}

/** wbt_default_latency_nsec(). */
function defaultLatency(dev: i32): u64 {
  return deviceAt(dev).rotational ? 75_000_000 : 2_000_000;
}

/** wbt_init() (wbt_enable_default at registration, or the first wbt_lat_usec write). */
export function wbtInit(dev: i32, now: i64): void {
  const r = rwbOf(dev);
  if (r.exists) return;
  r.exists = true;
  const j = jiffiesAt(now);
  r.lastComp = j;
  r.lastIssue = j;
  r.winNs = RWB_WINDOW_NSEC;
  r.enableState = WBT_STATE_ON_DEFAULT;
  r.defaultDepth = RWB_DEF_DEPTH;
  r.minLatNs = defaultLatency(dev);
  // wbt_queue_depth_changed
  r.queueDepth = <u32>deviceAt(dev).nrRequests;
  updateLimits(r, -1);
  refreshActive();
}

/** wbt_set_min_lat(): a wbt_lat_usec write, in ns (-1 = the default). `state`: the enable_state it leaves. */
export function wbtSetMinLat(dev: i32, latNs: i64, state: i32, now: i64): void {
  wbtInit(dev, now);
  const r = rwbOf(dev);
  const v: u64 = latNs < 0 ? defaultLatency(dev) : <u64>latNs;
  if (r.minLatNs == v) return; // queue_wb_lat_store: the same value changes nothing
  r.minLatNs = v;
  r.enableState = state;
  updateLimits(r, now);
  refreshActive();
}

/** The device's wbt is off by default (wbt_disable_default: BFQ; or no wbt at all). */
export function wbtSetState(dev: i32, state: i32): void {
  const r = rwbOf(dev);
  r.enableState = state;
  refreshActive();
}

function refreshActive(): void {
  let any = false;
  for (let i = 0; i < rwbs.length; i++) if (unchecked(rwbs[i]).exists) any = true;
  wbtActive = any;
  setRqosFlags(-1, any ? 1 : 0, -1);
}

@inline function rwbEnabled(r: Rwb): bool {
  return r.exists && r.enableState != WBT_STATE_OFF_DEFAULT && r.enableState != WBT_STATE_OFF_MANUAL && r.wbNormal != 0;
}

/** A writer slept in balance_dirty_pages on a disk's root wb (writeback.ts). */
export function wbtDirtySleep(now: i64): void {
  rootDirtySleep = jiffiesAt(now);
  rootDirtySleepSet = true;
}

@inline function timeBefore(a: u64, b: u64): bool {
  return timeAfter(b, a);
}

@inline function recentWait(now: i64): bool {
  return rootDirtySleepSet && timeBefore(jiffiesAt(now), rootDirtySleep + <u64>HZ);
}

// ---------------------------------------------------------------- rq_depth

/** rq_depth_calc_max_depth(): true when the depth hit its maximum. */
function calcMaxDepth(r: Rwb): bool {
  let ret = false;
  if (r.queueDepth == 1) {
    if (r.scaleStep > 0) r.maxDepth = 1;
    else {
      r.maxDepth = 2;
      ret = true;
    }
  } else {
    let depth = r.defaultDepth < r.queueDepth ? r.defaultDepth : r.queueDepth;
    if (r.scaleStep > 0) {
      const sh = r.scaleStep < 31 ? r.scaleStep : 31;
      depth = 1 + ((depth - 1) >> <u32>sh);
    } else if (r.scaleStep < 0) {
      const maxd: u32 = (3 * r.queueDepth) / 4;
      depth = 1 + ((depth - 1) << <u32>(-r.scaleStep));
      if (depth > maxd) {
        depth = maxd;
        ret = true;
      }
    }
    r.maxDepth = depth;
  }
  return ret;
}

function calcWbLimits(r: Rwb): void {
  if (r.minLatNs == 0) {
    r.wbNormal = 0;
    r.wbBackground = 0;
  } else if (r.maxDepth <= 2) {
    r.wbNormal = r.maxDepth;
    r.wbBackground = 1;
  } else {
    r.wbNormal = (r.maxDepth + 1) / 2;
    r.wbBackground = (r.maxDepth + 3) / 4;
  }
}

function logRwb(r: Rwb, now: i64): void {
  logChange(2, now < 0 ? 0 : now, r.dev, r.scaleStep, <i64>r.maxDepth, <i64>r.wbNormal, <i64>r.wbBackground, <i64>r.curWinNs);
}

function updateLimits(r: Rwb, now: i64): void {
  r.scaleStep = 0;
  r.scaledMax = false;
  calcMaxDepth(r);
  calcWbLimits(r);
  logRwb(r, now);
  wakeAll(r, now);
}

function scaleUp(r: Rwb, now: i64): void {
  if (r.scaledMax) return;
  r.scaleStep--;
  r.scaledMax = calcMaxDepth(r);
  calcWbLimits(r);
  r.unknownCnt = 0;
  r.steps++;
  logRwb(r, now);
  wakeAll(r, now);
}

function scaleDown(r: Rwb, hard: bool, now: i64): void {
  if (r.maxDepth == 1) return;
  if (r.scaleStep < 0 && hard) r.scaleStep = 0;
  else r.scaleStep++;
  r.scaledMax = false;
  calcMaxDepth(r);
  calcWbLimits(r);
  r.unknownCnt = 0;
  r.steps++;
  logRwb(r, now);
}

// ---------------------------------------------------------------- the bio path

function ensureSlot(slot: i32): void {
  while (slotStage.length <= slot) {
    slotStage.push(0);
    slotFlags.push(0);
  }
}

@inline function isTracked(flags: u32, dir: u8): bool {
  return dir == 1 && (flags & (BIO_WRITEBACK | BIO_BUFWRITE)) != 0;
}

function getLimit(r: Rwb, flags: u32, now: i64): u32 {
  if (!rwbEnabled(r)) return UINT_MAX;
  if ((flags & (BIO_SYNC | BIO_META)) != 0 || recentWait(now)) return r.maxDepth;
  const background = (flags & BIO_BACKGROUND) != 0 || ((flags & BIO_WRITEBACK) != 0 && (flags & BIO_SYNC) == 0);
  if (background || closeIo(r, now)) return r.wbBackground;
  return r.wbNormal;
}

@inline function closeIo(r: Rwb, now: i64): bool {
  const j = jiffiesAt(now);
  const tenth = <u64>(HZ / 10);
  return timeBefore(j, r.lastIssue + tenth) || timeBefore(j, r.lastComp + tenth);
}

/** wbt_wait(): true when the bio passes now; false: it waits, resuming the chain at `stage + 1`. */
export function wbtThrottle(slot: i32, now: i64, stage: i32): bool {
  const b = bioAt(slot);
  if (b.dev >= rwbs.length) return true;
  const r = unchecked(rwbs[b.dev]);
  if (!r.exists || !rwbEnabled(r)) return true;
  ensureSlot(slot);
  if (b.dir == 0) {
    slotFlags.set(slot, FL_READ);
    // wb_timestamp(last_issue)
    r.lastIssue = jiffiesAt(now);
    return true;
  }
  if (!isTracked(b.flags, b.dir)) {
    slotFlags.set(slot, 0);
    return true;
  }
  slotFlags.set(slot, FL_TRACKED);
  slotStage.set(slot, stage);
  let pass = false;
  if (r.waitCount == 0 && r.inflight < getLimit(r, b.flags, now)) {
    r.inflight++;
    pass = true;
  } else {
    r.waited++;
    b.next = -1;
    if (r.waitTail >= 0) bioAt(r.waitTail).next = slot;
    else r.waitHead = slot;
    r.waitTail = slot;
    r.waitCount++;
  }
  if (r.timerFire < 0) armTimer(r, now);
  return pass;
}

/** wbt_issue(): the request reached the driver (device.ts start). */
export function wbtIssue(slot: i32, now: i64): void {
  if (slot >= slotFlags.length || slotFlags.get(slot) != FL_READ) return;
  const r = unchecked(rwbs[bioAt(slot).dev]);
  if (!rwbEnabled(r)) return;
  if (r.syncIssue == 0) {
    r.syncCookie = slot;
    r.syncIssue = now;
  }
}

/** Completion: blk_stat_add() and wbt_done(). */
export function wbtDone(slot: i32, now: i64): void {
  const b = bioAt(slot);
  if (b.dev >= rwbs.length) return;
  const r = unchecked(rwbs[b.dev]);
  if (!r.exists) return;
  // blk_stat_add: the window's stats, while its timer is pending
  if (r.timerFire >= 0) {
    const v: u64 = now >= b.issue ? <u64>(now - b.issue) : 0;
    if (b.dir == 0) r.rd.add(v);
    else r.wr.add(v);
  }
  if (slot >= slotFlags.length) return;
  const fl = slotFlags.get(slot);
  slotFlags.set(slot, 0);
  if (fl != FL_TRACKED) {
    if (r.syncCookie == slot) {
      r.syncIssue = 0;
      r.syncCookie = -1;
    }
    if (fl == FL_READ && rwbEnabled(r)) r.lastComp = jiffiesAt(now);
    return;
  }
  // wbt_rqw_done
  if (r.inflight > 0) r.inflight--;
  const inflight = r.inflight;
  if (!rwbEnabled(r)) {
    wakeAll(r, now);
    return;
  }
  const limit = r.wbNormal; // no write cache in iosim's devices (rwb->wc false)
  if (inflight && inflight >= limit) return;
  if (r.waitCount > 0) {
    const diff = <i32>limit - <i32>inflight;
    if (!inflight || diff >= <i32>(r.wbBackground / 2)) wakeAll(r, now);
  }
}

/** wake_up_all(): admit waiters in order while each fits its limit. */
function wakeAll(r: Rwb, now: i64): void {
  if (now < 0) return; // a limit update at configuration: nothing waits yet
  while (r.waitHead >= 0) {
    const slot = r.waitHead;
    if (!(r.inflight < getLimit(r, bioAt(slot).flags, now))) return;
    r.waitHead = bioAt(slot).next;
    if (r.waitHead < 0) r.waitTail = -1;
    r.waitCount--;
    bioAt(slot).next = -1;
    r.inflight++;
    rqosChain(slot, now, slotStage.get(slot) + 1);
  }
}

// ---------------------------------------------------------------- the window

function armTimer(r: Rwb, now: i64): void {
  if (r.scaleStep > 0) {
    r.curWinNs = (r.winNs << 4) / intSqrt(<u64>(r.scaleStep + 1) << 8);
  } else {
    r.curWinNs = r.winNs;
  }
  // blk_stat_activate_nsecs: mod_timer(jiffies + nsecs_to_jiffies(win))
  const j = jiffiesAt(now);
  const dj = nsecsToJiffies(r.curWinNs);
  const fire = tickTime(wheelFire(j + dj, j));
  r.timerFire = fire;
  schedule(fire, EV_WBT_TIMER, <u32>r.dev);
}

function nsecsToJiffies(ns: u64): u64 {
  // nsecs_to_jiffies(): n / (NSEC_PER_SEC / HZ) for HZ dividing 1e9
  return ns / (1_000_000_000 / <u64>HZ);
}

/** int_sqrt(): floor of the square root. */
export function intSqrt(x: u64): u64 {
  if (x <= 1) return x;
  let m: u64 = <u64>1 << ((63 - clz<u64>(x)) & ~1);
  let y: u64 = 0;
  while (m != 0) {
    const b = y + m;
    y >>= 1;
    if (x >= b) {
      x -= b;
      y += m;
    }
    m >>= 2;
  }
  return y;
}

function latencyExceeded(r: Rwb, now: i64): i32 {
  let thislat: u64 = 0;
  if (r.syncIssue != 0 && r.syncCookie >= 0) thislat = <u64>(now - r.syncIssue);
  if (thislat > r.curWinNs || (thislat > r.minLatNs && r.rd.n == 0)) return LAT_EXCEEDED;
  if (!(r.rd.n >= 1 && r.wr.n >= RWB_MIN_WRITE_SAMPLES)) {
    if (r.wr.n > 0 || recentWait(now) || r.inflight > 0) return LAT_UNKNOWN_WRITES;
    return LAT_UNKNOWN;
  }
  if (r.rd.min > r.minLatNs) return LAT_EXCEEDED;
  return LAT_OK;
}

/** EV_WBT_TIMER: blk_stat_timer_fn -> wb_timer_fn. */
export function wbtTimer(arg: u32, now: i64): void {
  const dev = <i32>arg;
  if (dev >= rwbs.length) return;
  const r = unchecked(rwbs[dev]);
  if (r.timerFire != now) return;
  r.timerFire = -1;
  const inflight = r.inflight;
  const status = latencyExceeded(r, now);
  r.rd.init();
  r.wr.init();
  if (status == LAT_EXCEEDED) scaleDown(r, true, now);
  else if (status == LAT_OK || status == LAT_UNKNOWN_WRITES) scaleUp(r, now);
  else if (status == LAT_UNKNOWN) {
    if (++r.unknownCnt >= RWB_UNKNOWN_BUMP) {
      if (r.scaleStep > 0) scaleUp(r, now);
      else if (r.scaleStep < 0) scaleDown(r, false, now);
    }
  }
  if (r.scaleStep != 0 || inflight) armTimer(r, now);
}

// ---------------------------------------------------------------- readers

export const WBT_MAX_DEPTH: i32 = 0;
export const WBT_NORMAL: i32 = 1;
export const WBT_BACKGROUND: i32 = 2;
export const WBT_STEP: i32 = 3;
export const WBT_INFLIGHT: i32 = 4;
export const WBT_WAITING: i32 = 5;
export const WBT_MIN_LAT: i32 = 6;
export const WBT_CUR_WIN: i32 = 7;
export const WBT_ENABLED: i32 = 8;
export const WBT_EXISTS: i32 = 9;
export const WBT_STATE: i32 = 10;
export const WBT_STEPS: i32 = 11;
export const WBT_WAITED: i32 = 12;

export function wbtStat(dev: i32, field: i32): i64 {
  if (dev >= rwbs.length) return 0;
  const r = unchecked(rwbs[dev]);
  switch (field) {
    case WBT_MAX_DEPTH: return <i64>r.maxDepth;
    case WBT_NORMAL: return <i64>r.wbNormal;
    case WBT_BACKGROUND: return <i64>r.wbBackground;
    case WBT_STEP: return <i64>r.scaleStep;
    case WBT_INFLIGHT: return <i64>r.inflight;
    case WBT_WAITING: return <i64>r.waitCount;
    case WBT_MIN_LAT: return <i64>r.minLatNs;
    case WBT_CUR_WIN: return <i64>r.curWinNs;
    case WBT_ENABLED: return rwbEnabled(r) ? 1 : 0;
    case WBT_EXISTS: return r.exists ? 1 : 0;
    case WBT_STATE: return <i64>r.enableState;
    case WBT_STEPS: return <i64>r.steps;
    case WBT_WAITED: return <i64>r.waited;
  }
  return 0;
}
