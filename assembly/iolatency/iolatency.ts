// blk-iolatency (io.latency): protect a cgroup's IO latency by cutting the
// queue depth of its siblings. Followed: Linux 6.1 block/blk-iolatency.c
// (Debian 6.1.192), identical in what is modelled here in 6.12 and 6.18; the
// one difference between the profiles is where the policy sits in the rq-qos
// chain (engine/path.ts rqosChain: 6.1 creates it at disk init, before wbt is
// added at registration, so wbt runs first; from 6.2, "blk-iolatency: Make
// initialization lazy", it is created by the first io.latency write and
// rq_qos_add() puts it at the head, before wbt).
//
// THE MODEL, in the kernel's names.
//
// Every blkg (cgroup x device) below the root has an iolatency_grp: a queue
// depth limit rq_depth.max_depth (UINT_MAX = unthrottled), an rq_wait (in-flight
// count and a FIFO of waiting bios), a latency target min_lat_nsec (0 = none,
// "io.latency: MAJ:MIN target=<usec>"), a window (cur_win_nsec = clamp(16 x
// target, 100 ms, 1 s)) and a scale_cookie. Each grp is also a parent: its
// child_lat holds the children's shared scale_cookie (DEFAULT_SCALE_COOKIE =
// 1,000,000 = nobody throttled), the latency that was missed (scale_lat), the
// group that missed it (scale_grp) and the time of the last scale event.
//
//   submit (rq_qos_throttle, blkcg_iolatency_throttle): for the bio's blkg and
//     each ancestor below the root: check_scale_change() (follow the parent's
//     cookie: lower = scale_change(down), higher = up, back at the default =
//     unthrottle), then take an in-flight slot below max_depth, FIFO behind
//     any waiter (rq_qos_wait). A bio issued as root (REQ_META/REQ_SWAP) takes
//     its slot without waiting.
//   completion (done_bio, blkcg_iolatency_done_bio): at each level, drop the
//     slot; where a target is set record the latency (issue time -> now; the
//     issue time is set after blk-throttle, so io.max waits do not count),
//     and once a window has passed, iolatency_check_latencies(): non-rotational
//     (iolat->ssd): the window is bad when >= 10% of its IOs took >= target
//     (percentile); rotational: when the window's mean is above the target.
//     A bad window scales the parent's cookie down (scale_cookie_change:
//     by nr_requests/4, at most down to 2 x nr_requests below the default),
//     at most once per 500 ms across the siblings; the lowest target that
//     missed becomes scale_lat. A good window of the scale_grp (>= 5 samples)
//     scales it up (by nr_requests/16, one at a time while far below).
//     Then one waiter is woken (wake_up: exclusive).
//   scale_change(): down halves max_depth (from nr_requests when unthrottled),
//     up adds max(nr_requests/16, 1) up to nr_requests; at max_depth 1 a
//     further scale-down sets use_delay instead (blkcg_use_delay), which a
//     scale-up takes back first (blkcg_unuse_delay). Siblings with a target
//     at or below scale_lat, or that did <= 5% of the window's IOs, are
//     spared a scale-down.
//   blkiolatency_timer_fn, every HZ while IO flows: a parent whose cookie is
//     below the default and has no scale_grp scales up; a scale_grp idle for
//     5 s is forgotten.
//   use_delay and delay_nsec: blkcg_add_delay() for bios issued as root that
//     completed under the target (the difference is added); blkcg_scale_delay
//     decays it each second. io.stat shows them with blkcg_debug_stats.
//     iosim counts them and shows them; it does not put the submitting task
//     to sleep (blkcg_maybe_throttle_current), which only acts on
//     accumulated delay_nsec, i.e. only with issue-as-root bios.
//
// WORKED EXAMPLE (null_blk, nr_requests 8, 20 ms per IO; the oracle trace
// test/fixtures/oracle/guest/iolat*.jsonl): A has target=40000 (40 ms
// window 640 ms), B target=150000, C none, each random reads at QD 4/4/16.
// 24 IOs compete for 8 tags: ~60 ms each. A's first window ends 640 ms in,
// far more than 10% of A's IOs took >= 40 ms: the root's child cookie goes
// 1,000,000 -> 999,998 (8 >> 2 = 2), scale_lat = 40 ms, scale_grp = A. The
// next bio of C sees its cookie above the parent's: scale_change(down):
// max_depth UINT_MAX -> min(UINT_MAX, 8) >> 1 = 4; B likewise (its target
// 150 ms > 40 ms and it did > 5% of the IOs). 500 ms and one window later:
// 4 -> 2, then 1, then use_delay. With C and B at depth 1, A's 4 + 2 IOs fit
// the 8 tags, A's latency falls to ~20 ms, its windows turn good and the
// cookie climbs back by 1 a window (8 >> 4 = 0, at least 1): C and B get +1
// depth each time, until A misses again.

import { Vec } from "../engine/vec";
import { cgParent, cgroupCount } from "../engine/cgroups";
import { bioAt, BIO_META, BIO_SWAP } from "../engine/bios";
import { schedule, EV_IOLAT_TIMER } from "../engine/events";
import { deviceAt, devices } from "../device/device";
import { jiffiesAt, tickTime, HZ, ktimeAt } from "../engine/clock";
import { wheelFire } from "../throttle/throttle";
import { rqosChain } from "../engine/path";
import { logChange, resetLog, setRqosFlags } from "./log";

export const DEFAULT_SCALE_COOKIE: u32 = 1000000;
const UINT_MAX: u32 = 0xffffffff;
const NSEC_PER_MSEC: u64 = 1_000_000;
const NSEC_PER_SEC: u64 = 1_000_000_000;
const BLKIOLATENCY_MIN_WIN_SIZE: u64 = 100 * NSEC_PER_MSEC;
const BLKIOLATENCY_MAX_WIN_SIZE: u64 = NSEC_PER_SEC;
const BLKIOLATENCY_NR_EXP_FACTORS: u64 = 5;
const BLKIOLATENCY_EXP_BUCKET_SIZE: u64 = BLKIOLATENCY_MAX_WIN_SIZE / (BLKIOLATENCY_NR_EXP_FACTORS - 1);
const BLKIOLATENCY_MIN_ADJUST_TIME: u64 = 500 * NSEC_PER_MSEC;
const BLKIOLATENCY_MIN_GOOD_SAMPLES: u64 = 5;
const SCALE_DOWN_FACTOR: u32 = 2;
const SCALE_UP_FACTOR: u32 = 4;
const FIXED_1: u64 = 2048; // 1 << FSHIFT (calc_load)
const EXP_FACTORS: StaticArray<u64> = [2045, 2039, 2031, 2023, 2014];

export let iolatActive: bool = false;

class Grp {
  cg: i32;
  dev: i32;
  ssd: bool = false;
  minLatNs: u64 = 0;
  curWinNs: u64 = 100 * NSEC_PER_MSEC;
  windowStart: u64 = 0;
  // the blkg and its pd exist (birth()): window_start and scale_cookie set
  born: bool = false;
  scaleCookie: u32 = DEFAULT_SCALE_COOKIE;
  maxDepth: u32 = UINT_MAX;
  inflight: u32 = 0;
  waitHead: i32 = -1;
  waitTail: i32 = -1;
  waitCount: i32 = 0;
  // the per-cpu stats (one cpu): percentile (ssd) or blk_rq_stat
  psTotal: u64 = 0;
  psMissed: u64 = 0;
  rqMin: u64 = u64.MAX_VALUE;
  rqMax: u64 = 0;
  rqBatch: u64 = 0;
  rqN: u64 = 0;
  // cur_stat (summed windows since the last scale decision)
  curTotal: u64 = 0;
  curMissed: u64 = 0;
  curMin: u64 = u64.MAX_VALUE;
  curMax: u64 = 0;
  curMean: u64 = 0;
  curN: u64 = 0;
  latAvg: u64 = 0;
  nrSamples: u64 = 0;
  // child_lat: this grp as a parent
  lastScaleEvent: u64 = 0;
  scaleLat: u64 = 0;
  childNrSamples: u64 = 0;
  scaleGrp: i32 = -1;
  childCookie: u32 = DEFAULT_SCALE_COOKIE;
  // blkg delay (blk-cgroup.c)
  useDelay: i32 = 0;
  delayNsec: u64 = 0;
  delayStart: u64 = 0;
  lastDelay: u64 = 0;
  lastUse: i32 = 0;
  // counters for outputs
  scaleEvents: u32 = 0;
  waited: u64 = 0;
  constructor(cg: i32, dev: i32) {
    this.cg = cg;
    this.dev = dev;
  }
}

class IolatDev {
  inited: bool = false; // the rq_qos exists (blk_iolatency_init)
  enableCnt: i32 = 0;
  enabled: bool = false;
  timerFire: i64 = -1; // pending timer's time, -1 = none
  grps: Array<Grp> = new Array<Grp>();
}

const devs = new Array<IolatDev>();
// per bio slot: the level (cgroup) it waits at or came through, and the chain stage to resume
const slotStage = new Vec<i32>(64);
const slotThrottled = new Vec<u8>(64); // BIO_QOS_THROTTLED: passed blkcg_iolatency_throttle
let version: i32 = 601;

export function resetIolatency(): void {
  resetLog();
  devs.length = 0;
  iolatActive = false;
  setRqosFlags(0, -1, -1);
  slotStage.length = 0;
  slotThrottled.length = 0;
}

export function iolatSetKernel(v: i32): void {
  version = v;
}

/** 6.2+: the policy is created by the first io.latency write and sits at the chain's head. */
export function iolatLazyInit(): bool {
  return version >= 602;
}

function devOf(dev: i32): IolatDev {
  while (devs.length <= dev) devs.push(new IolatDev());
  return unchecked(devs[dev]);
}

/** blk_iolatency_init(): the rq_qos and a grp per blkg (every cgroup). */
export function iolatInit(dev: i32, now: i64): void {
  const d = devOf(dev);
  if (d.inited) return;
  d.inited = true;
  const n = cgroupCount();
  const ssd = !deviceAt(dev).rotational;
  for (let c = 0; c < n; c++) {
    const g = new Grp(c, dev);
    g.ssd = ssd;
    d.grps.push(g);
  }
  birth(d, unchecked(d.grps[0]), now);
}

/**
 * iolatency_pd_init() (6.1): a cgroup's pd is made with its blkg on the device,
 * by its first bio there or by a write of its io.latency (blkg_conf_prep()),
 * its parent's first: window_start = now (ktime), scale_cookie = the parent's
 * child_lat cookie. So a group's first window runs from then, not from the
 * first io.latency write on the device.
 */
function birth(d: IolatDev, g: Grp, now: i64): void {
  if (g.born) return;
  g.born = true;
  g.windowStart = ktimeAt(now);
  const pc = cgParent.get(g.cg);
  if (pc >= 0) {
    const p = grpOf(d, pc);
    birth(d, p, now);
    g.scaleCookie = p.childCookie;
  }
}

@inline function grpOf(d: IolatDev, cg: i32): Grp {
  return unchecked(d.grps[cg]);
}

/** iolatency_set_limit(): io.latency "MAJ:MIN target=<usec>" (0 = max, none). */
export function iolatSetTarget(dev: i32, cg: i32, latNs: u64, now: i64): void {
  iolatInit(dev, now);
  const d = devOf(dev);
  const g = grpOf(d, cg);
  birth(d, g, now);
  const oldval = g.minLatNs;
  // iolatency_set_min_lat_nsec
  g.minLatNs = latNs;
  let win = latNs << 4;
  if (win < BLKIOLATENCY_MIN_WIN_SIZE) win = BLKIOLATENCY_MIN_WIN_SIZE;
  if (win > BLKIOLATENCY_MAX_WIN_SIZE) win = BLKIOLATENCY_MAX_WIN_SIZE;
  g.curWinNs = win;
  if (!oldval && latNs) {
    if (++d.enableCnt == 1) d.enabled = true;
  }
  if (oldval && !latNs) {
    clearDelay(g);
    if (--d.enableCnt == 0) d.enabled = false;
  }
  if (oldval != g.minLatNs) clearScaling(d, g);
  logGrp(g, now);
  let any = false;
  for (let i = 0; i < devs.length; i++) if (unchecked(devs[i]).enabled) any = true;
  iolatActive = any;
  setRqosFlags(any ? 1 : 0, -1, -1);
}

function clearScaling(d: IolatDev, g: Grp): void {
  const pc = cgParent.get(g.cg);
  if (pc < 0) return;
  const p = grpOf(d, pc);
  p.childCookie = DEFAULT_SCALE_COOKIE;
  p.lastScaleEvent = 0;
  p.scaleGrp = -1;
  p.scaleLat = 0;
}

// ---------------------------------------------------------------- blkg delay

function useDelay(g: Grp): void {
  if (g.useDelay < 0) return;
  g.useDelay++;
}

function unuseDelay(g: Grp): bool {
  if (g.useDelay <= 0) return false;
  g.useDelay--;
  return true;
}

function clearDelay(g: Grp): void {
  g.useDelay = 0;
}

function scaleDelay(g: Grp, now: u64): void {
  if (g.useDelay < 0) return;
  const old = g.delayStart;
  if (old + NSEC_PER_SEC < now) {
    g.delayStart = now;
    const cur = g.delayNsec;
    let sub = g.lastDelay < now - old ? g.lastDelay : now - old;
    if (g.useDelay < g.lastUse) {
      const half = g.lastDelay >> 1;
      if (half > sub) sub = half;
    }
    if (cur < sub) {
      g.delayNsec = 0;
      g.lastDelay = 0;
    } else {
      g.delayNsec = cur - sub;
      g.lastDelay = cur - sub;
    }
    g.lastUse = g.useDelay;
  }
}

function addDelay(g: Grp, now: u64, delta: u64): void {
  if (g.useDelay < 0) return;
  scaleDelay(g, now);
  g.delayNsec += delta;
}

// ---------------------------------------------------------------- scaling

@inline function scaleAmount(qd: u32, up: bool): u32 {
  const s = up ? qd >> SCALE_UP_FACTOR : qd >> SCALE_DOWN_FACTOR;
  return s > 1 ? s : 1;
}

function scaleCookieChange(qd: u32, p: Grp, up: bool): void {
  const scale = scaleAmount(qd, up);
  const old = p.childCookie;
  const maxScale = qd << 1;
  let diff: u32 = 0;
  if (old < DEFAULT_SCALE_COOKIE) diff = DEFAULT_SCALE_COOKIE - old;
  if (up) {
    if (<u64>scale + <u64>old > <u64>DEFAULT_SCALE_COOKIE) p.childCookie = DEFAULT_SCALE_COOKIE;
    else if (diff > qd) p.childCookie = old + 1;
    else p.childCookie = old + scale;
  } else {
    if (diff > qd) {
      if (diff < maxScale) p.childCookie = old - 1;
    } else {
      p.childCookie = old - scale;
    }
  }
}

function scaleChange(d: IolatDev, g: Grp, up: bool, now: i64): void {
  const qd = <u32>deviceAt(g.dev).nrRequests;
  const scale = scaleAmount(qd, up);
  let old = g.maxDepth;
  if (old > qd) old = qd;
  g.scaleEvents++;
  if (up) {
    if (old == 1 && unuseDelay(g)) return;
    if (old < qd) {
      old += scale;
      if (old > qd) old = qd;
      g.maxDepth = old;
      wakeAll(d, g, now);
    }
  } else {
    old >>= 1;
    g.maxDepth = old > 1 ? old : 1;
  }
}

function checkScaleChange(d: IolatDev, g: Grp, now: i64): void {
  const pc = cgParent.get(g.cg);
  if (pc < 0) return;
  const p = grpOf(d, pc);
  const cur = p.childCookie;
  const ours = g.scaleCookie;
  let direction = 0;
  if (cur < ours) direction = -1;
  else if (cur > ours) direction = 1;
  else return;
  g.scaleCookie = cur;
  checkScale(d, g, p, cur, direction, now);
  logGrp(g, now);
}

function logGrp(g: Grp, now: i64): void {
  logChange(1, now, g.dev, g.cg, <i64>g.maxDepth, g.useDelay, <i64>g.scaleCookie, 0);
}

function checkScale(d: IolatDev, g: Grp, p: Grp, cur: u32, direction: i32, now: i64): void {
  const scaleLat = p.scaleLat;
  if (direction < 0 && g.minLatNs) {
    if (!scaleLat || g.minLatNs <= scaleLat) return;
    let thresh = (p.childNrSamples * 5) / 100;
    if (thresh < 1) thresh = 1;
    if (g.nrSamples <= thresh) return;
  }
  if (g.maxDepth == 1 && direction < 0) {
    useDelay(g);
    return;
  }
  if (cur == DEFAULT_SCALE_COOKIE) {
    clearDelay(g);
    g.maxDepth = UINT_MAX;
    wakeAll(d, g, now);
    return;
  }
  scaleChange(d, g, direction > 0, now);
}

// ---------------------------------------------------------------- the bio path

function ensureSlot(slot: i32): void {
  while (slotStage.length <= slot) {
    slotStage.push(0);
    slotThrottled.push(0);
  }
}

/** Is device `dev`'s iolatency enabled (any target set)? */
@inline export function iolatOn(dev: i32): bool {
  return dev < devs.length && unchecked(devs[dev]).enabled;
}

/**
 * blkcg_iolatency_throttle(): true when the bio passes now; false when it
 * waits at some level, to resume the chain at `stage + 1` when admitted
 * (engine/path.ts rqosChain).
 */
export function iolatThrottle(slot: i32, now: i64, stage: i32): bool {
  const b = bioAt(slot);
  if (!iolatOn(b.dev)) return true;
  ensureSlot(slot);
  slotThrottled.set(slot, 1);
  slotStage.set(slot, stage);
  const d = unchecked(devs[b.dev]);
  armTimer(d, b.dev, now);
  return climb(d, slot, b.cg, now);
}

/** Take a slot at `cg` and each ancestor below the root; false: waits at one. */
function climb(d: IolatDev, slot: i32, cg: i32, now: i64): bool {
  const asRoot = (bioAt(slot).flags & (BIO_META | BIO_SWAP)) != 0;
  for (let c = cg; c > 0; c = cgParent.get(c)) {
    const g = grpOf(d, c);
    if (!g.born) birth(d, g, now);
    checkScaleChange(d, g, now);
    if (asRoot) {
      g.inflight++;
      continue;
    }
    if (g.waitCount == 0 && g.inflight < g.maxDepth) {
      g.inflight++;
      continue;
    }
    // rq_qos_wait: FIFO behind the others
    g.waited++;
    bioAt(slot).next = -1;
    if (g.waitTail >= 0) bioAt(g.waitTail).next = slot;
    else g.waitHead = slot;
    g.waitTail = slot;
    g.waitCount++;
    return false;
  }
  return true;
}

/** wake_up(): admit the head waiter if it fits (rq_qos_wake_function). */
function wakeOne(d: IolatDev, g: Grp, now: i64): void {
  if (g.waitHead < 0) return;
  if (g.inflight >= g.maxDepth) return;
  admitHead(d, g, now);
}

/** wake_up_all(): admit waiters in order while they fit. */
function wakeAll(d: IolatDev, g: Grp, now: i64): void {
  while (g.waitHead >= 0 && g.inflight < g.maxDepth) admitHead(d, g, now);
}

function admitHead(d: IolatDev, g: Grp, now: i64): void {
  const slot = g.waitHead;
  g.waitHead = bioAt(slot).next;
  if (g.waitHead < 0) g.waitTail = -1;
  g.waitCount--;
  bioAt(slot).next = -1;
  g.inflight++;
  const pc = cgParent.get(g.cg);
  if (pc > 0 && !climb(d, slot, pc, now)) return;
  rqosChain(slot, now, slotStage.get(slot) + 1);
}

/** blkcg_iolatency_done_bio(). */
export function iolatDone(slot: i32, now: i64): void {
  if (slot >= slotThrottled.length || slotThrottled.get(slot) == 0) return;
  slotThrottled.set(slot, 0);
  const b = bioAt(slot);
  const d = unchecked(devs[b.dev]);
  if (!d.enabled) return;
  const asRoot = (b.flags & (BIO_META | BIO_SWAP)) != 0;
  const start = <u64>b.release;
  const t = <u64>now;
  const kt = ktimeAt(now); // window_start and last_scale_event are ktime stamps
  for (let c = b.cg; c > 0; c = cgParent.get(c)) {
    const g = grpOf(d, c);
    if (g.inflight > 0) g.inflight--;
    if (g.minLatNs) {
      recordTime(g, start, t, asRoot);
      const ws = g.windowStart;
      if (kt > ws && kt - ws >= g.curWinNs) {
        g.windowStart = kt;
        checkLatencies(d, g, kt, now);
      }
    }
    wakeOne(d, g, now);
  }
}

function recordTime(g: Grp, start: u64, now: u64, asRoot: bool): void {
  if (now <= start) return;
  const reqTime = now - start;
  if (asRoot && g.maxDepth != UINT_MAX) {
    const sub = g.minLatNs;
    if (reqTime < sub) addDelay(g, now, sub - reqTime);
    return;
  }
  if (g.ssd) {
    if (reqTime >= g.minLatNs) g.psMissed++;
    g.psTotal++;
  } else {
    if (reqTime < g.rqMin) g.rqMin = reqTime;
    if (reqTime > g.rqMax) g.rqMax = reqTime;
    g.rqBatch += reqTime;
    g.rqN++;
  }
}

@inline function sumOk(g: Grp, total: u64, missed: u64, mean: u64): bool {
  if (g.ssd) {
    let thresh = total / 10;
    if (thresh < 1) thresh = 1;
    return missed < thresh;
  }
  return mean <= g.minLatNs;
}

function checkLatencies(d: IolatDev, g: Grp, t: u64, now: i64): void {
  // stat = sum of the per-cpu stats (blk_rq_stat_sum into a fresh stat: mean from batch)
  const total = g.psTotal;
  const missed = g.psMissed;
  let sMin = u64.MAX_VALUE;
  let sMax: u64 = 0;
  let sMean: u64 = 0;
  let sN: u64 = 0;
  if (!g.ssd && g.rqN > 0) {
    sMin = g.rqMin;
    sMax = g.rqMax;
    sMean = g.rqBatch / g.rqN;
    sN = g.rqN;
  }
  g.psTotal = 0;
  g.psMissed = 0;
  g.rqMin = u64.MAX_VALUE;
  g.rqMax = 0;
  g.rqBatch = 0;
  g.rqN = 0;
  const pc = cgParent.get(g.cg);
  if (pc < 0) return;
  const p = grpOf(d, pc);
  // iolat_update_total_lat_avg (rotational only)
  if (!g.ssd) {
    let idx = g.curWinNs / BLKIOLATENCY_EXP_BUCKET_SIZE;
    if (idx > BLKIOLATENCY_NR_EXP_FACTORS - 1) idx = BLKIOLATENCY_NR_EXP_FACTORS - 1;
    g.latAvg = calcLoad(g.latAvg, unchecked(EXP_FACTORS[<i32>idx]), sMean);
  }
  if (sumOk(g, total, missed, sMean) && p.childCookie == DEFAULT_SCALE_COOKIE) return;
  // latency_stat_sum(cur_stat, stat): the summed stat has no batch, so the
  // rotational mean folds in 0 for the new window (as the kernel computes it)
  if (g.ssd) {
    g.curTotal += total;
    g.curMissed += missed;
  } else if (g.curN + sN > g.curN) {
    if (sMin < g.curMin) g.curMin = sMin;
    if (sMax > g.curMax) g.curMax = sMax;
    g.curMean = (g.curMean * g.curN) / (g.curN + sN);
    g.curN += sN;
  }
  const curSamples = g.ssd ? g.curTotal : g.curN;
  p.childNrSamples -= g.nrSamples;
  p.childNrSamples += curSamples;
  g.nrSamples = curSamples;
  if (p.lastScaleEvent >= t || t - p.lastScaleEvent < BLKIOLATENCY_MIN_ADJUST_TIME) return;
  const qd = <u32>deviceAt(g.dev).nrRequests;
  if (sumOk(g, g.curTotal, g.curMissed, g.curMean) && sumOk(g, total, missed, sMean)) {
    if (curSamples < BLKIOLATENCY_MIN_GOOD_SAMPLES) return;
    if (p.scaleGrp == g.cg) {
      p.lastScaleEvent = t;
      scaleCookieChange(qd, p, true);
    }
  } else if (p.scaleLat == 0 || p.scaleLat >= g.minLatNs) {
    p.lastScaleEvent = t;
    if (p.scaleGrp < 0 || p.scaleLat > g.minLatNs) {
      p.scaleLat = g.minLatNs;
      p.scaleGrp = g.cg;
    }
    scaleCookieChange(qd, p, false);
  }
  // latency_stat_init(cur_stat)
  g.curTotal = 0;
  g.curMissed = 0;
  g.curMin = u64.MAX_VALUE;
  g.curMax = 0;
  g.curMean = 0;
  g.curN = 0;
}

/** calc_load(): fixed-point exponential moving average (FSHIFT 11). */
function calcLoad(load: u64, exp: u64, active: u64): u64 {
  let newload = load * exp + active * (FIXED_1 - exp);
  if (active >= load) newload += FIXED_1 - 1;
  return newload / FIXED_1;
}

// ---------------------------------------------------------------- the timer

function armTimer(d: IolatDev, dev: i32, now: i64): void {
  if (d.timerFire >= 0) return;
  const j = jiffiesAt(now);
  const fire = wheelFire(j + <u64>HZ, j);
  d.timerFire = tickTime(fire);
  schedule(d.timerFire, EV_IOLAT_TIMER, <u32>dev);
}

/** EV_IOLAT_TIMER: blkiolatency_timer_fn. */
export function iolatTimer(arg: u32, now: i64): void {
  const dev = <i32>arg;
  if (dev >= devs.length) return;
  const d = unchecked(devs[dev]);
  if (d.timerFire != now) return;
  d.timerFire = -1;
  const t = ktimeAt(now);
  const qd = <u32>deviceAt(dev).nrRequests;
  for (let c = 0; c < d.grps.length; c++) {
    const p = unchecked(d.grps[c]);
    if (p.childCookie >= DEFAULT_SCALE_COOKIE) continue;
    if (p.lastScaleEvent >= t) continue;
    if (p.scaleGrp < 0) {
      scaleCookieChange(qd, p, true);
      continue;
    }
    if (t - p.lastScaleEvent >= NSEC_PER_SEC * 5) p.scaleGrp = -1;
  }
}

// ---------------------------------------------------------------- readers

export const IOLAT_MAX_DEPTH: i32 = 0; // UINT_MAX = unthrottled
export const IOLAT_INFLIGHT: i32 = 1;
export const IOLAT_WAITING: i32 = 2;
export const IOLAT_COOKIE: i32 = 3; // the grp's own scale_cookie
export const IOLAT_CHILD_COOKIE: i32 = 4; // child_lat.scale_cookie (as a parent)
export const IOLAT_MIN_LAT: i32 = 5;
export const IOLAT_CUR_WIN: i32 = 6;
export const IOLAT_LAT_AVG: i32 = 7;
export const IOLAT_PS_MISSED: i32 = 8;
export const IOLAT_PS_TOTAL: i32 = 9;
export const IOLAT_USE_DELAY: i32 = 10;
export const IOLAT_DELAY_NSEC: i32 = 11;
export const IOLAT_SSD: i32 = 12;
export const IOLAT_SCALE_LAT: i32 = 13;
export const IOLAT_SCALE_GRP: i32 = 14;
export const IOLAT_EXISTS: i32 = 15;
export const IOLAT_WAITED: i32 = 16;

export function iolatStat(cg: i32, dev: i32, field: i32): i64 {
  if (dev >= devs.length) return field == IOLAT_EXISTS ? 0 : -1;
  const d = unchecked(devs[dev]);
  if (!d.inited || cg >= d.grps.length) return field == IOLAT_EXISTS ? 0 : -1;
  const g = unchecked(d.grps[cg]);
  switch (field) {
    case IOLAT_MAX_DEPTH: return <i64>g.maxDepth;
    case IOLAT_INFLIGHT: return <i64>g.inflight;
    case IOLAT_WAITING: return <i64>g.waitCount;
    case IOLAT_COOKIE: return <i64>g.scaleCookie;
    case IOLAT_CHILD_COOKIE: return <i64>g.childCookie;
    case IOLAT_MIN_LAT: return <i64>g.minLatNs;
    case IOLAT_CUR_WIN: return <i64>g.curWinNs;
    case IOLAT_LAT_AVG: return <i64>g.latAvg;
    case IOLAT_PS_MISSED: return <i64>g.psMissed;
    case IOLAT_PS_TOTAL: return <i64>g.psTotal;
    case IOLAT_USE_DELAY: return <i64>g.useDelay;
    case IOLAT_DELAY_NSEC: return <i64>g.delayNsec;
    case IOLAT_SSD: return g.ssd ? 1 : 0;
    case IOLAT_SCALE_LAT: return <i64>g.scaleLat;
    case IOLAT_SCALE_GRP: return <i64>g.scaleGrp;
    case IOLAT_EXISTS: return 1;
    case IOLAT_WAITED: return <i64>g.waited;
  }
  return -1;
}

export function iolatDeviceEnabled(dev: i32): bool {
  return iolatOn(dev);
}

// keep the import used when devices are read only through deviceAt
export function iolatDevices(): i32 {
  return devices.length;
}
