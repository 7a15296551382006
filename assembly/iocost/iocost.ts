// blk-iocost: proportional IO control by device time (io.weight, io.cost.qos,
// io.cost.model). Follows block/blk-iocost.c of Linux 6.1; where 6.12 differs
// the code says so (`v612`).
//
// The idea (from the kernel's header comment): nobody can observe an IO's
// cost, but a model can estimate it in device time. The linear model gives a
// base cost per IO (sequential or random, by the distance from the cgroup's
// last position) plus a cost per 4 KiB page. The device has a virtual clock,
// vtime, that advances at `vrate` x wall time (2^37 vtime = 1 s at 100%).
// Every cgroup has its own vtime cursor; an IO of absolute cost c is charged
// c / hweight_inuse to it, and it may issue while its cursor stays behind the
// device's vtime (`vnow`). The difference is its budget. hweights are the
// flattened shares of the *active* cgroups, so an idle sibling costs nobody.
//
//   submit ─► cost ─► activate ─► budget? ─yes─► device        (iocSubmit)
//                                   │no
//                                   ├─ must not wait (REQ_META/SWAP) ─► debt, issue now
//                                   └─ wait queue (FIFO) ─► hrtimer wake ─► device (iocWake)
//   period timer (iocTimer): latency/rq-wait stats -> busy level -> vrate;
//   idle cgroups deactivated; surplus budget donated (inuse lowered for donors,
//   transfer_surpluses); debts paid, delays decayed, forgiven when idle.
//
// Worked example (the guest oracle `iocost_fixed`): model rbps=100 MiB/s,
// rrandiops=1000, so a 4 KiB random read costs 137,438,954 vtime (1 ms of
// device time at vrate 100%). QoS rpct=90 rlat=20000 -> period =
// max((1e6-900000)/50000, 2) x 20 ms = 40 ms; margins min/low/target = 4/8/20
// ms of vtime. A (io.weight 100) and B (300) both saturate: hweights are
// 16384/65536 and 49152/65536, so an IO costs A 4 ms and B 1.33 ms of its
// own vtime; with vtime advancing 1 s per s, A issues 250 and B 750 IOs per
// second. The period timer is a jiffies timer (HZ 250): it is armed at
// `jiffies + usecs_to_jiffies(40000)` = +10 and the timer wheel fires it one
// tick after that (calc_index rounds up), every 44 ms. (The guest's host
// delivers that tick late or early, so its periods run 40-48 ms, mean 44.5; a
// trace replay may pass the recorded deliveries, addTimerHint, and each run
// then fires at its own recorded delivery, hintedExpiry().)
//
// Versions: 6.12 differs in (a) vrate_max rounds up, (b) switching the
// built-in parameter class also resets vtime_base_rate, (c) zero-size bios
// cost 0, (d) iocost_ioc_vrate_adj reports vtime_base_rate as the old vrate
// (6.1 reports the error-compensated vtime_rate), (e) transfer_surpluses stops
// on invalid donation weights. 6.18 behaves as 6.12 here.
//
// A bio larger than the device's max_sectors is split before rq_qos_throttle()
// (6.1 blk_mq_submit_bio(): __bio_split_to_limits() first; the model does the
// same for the 6.12 and 6.18 profiles), so its pieces are charged and throttled
// one after another, each at the hweights of its own moment (iocSubmit()); the
// bio goes to the device when its last piece is through.
//
// Not modelled: the delay induced on debtor *tasks* (blkcg_set_delay: the
// issuing task sleeps on return to user space) is computed, traced and
// reported (cost.indelay) but does not hold the job; request merges are not
// produced by the engine (iocMerge implements ioc_rqos_merge for callers); the
// pieces of a split bio that got through while a later one waits are not
// dispatched before it (the kernel's issuer flushes its plug when it sleeps),
// and the latency statistics (ioc_rqos_done()) count a split bio once, with its
// whole size, where the kernel counts each request.

import { Vec } from "../engine/vec";
import { schedule, EV_IOCOST_TIMER, EV_IOCOST_WAKE } from "../engine/events";
import { bioAt, BIO_META, BIO_SWAP } from "../engine/bios";
import { cgParent } from "../engine/cgroups";
import { devices, deviceAt, requestsOf } from "../device/device";
import { jiffiesAt, tickTime, HZ } from "../engine/clock";
import { afterIocost } from "../engine/path";
import { setIocostFlag } from "../iolatency/log";
import * as P from "./params";
import { divRoundUp, after64, beforeEq64, WEIGHT_ONE, VTIME_PER_USEC, MILLION } from "./params";
import * as T from "./trace";

export let iocostActive: bool = false;
/** 601, 612 or 618 */
export let kernelVersion: i32 = 601;

// ------------------------------------------------------------------ state

export class Ioc {
  dev: i32;
  enabled: bool = false;
  userQos: bool = false;
  userModel: bool = false;
  qos: StaticArray<u32> = new StaticArray<u32>(P.NR_QOS_PARAMS);
  iLcoefs: StaticArray<u64> = new StaticArray<u64>(P.NR_I_LCOEFS);
  lcoefs: StaticArray<u64> = new StaticArray<u64>(6);
  tooFastVratePct: u32 = 0;
  tooSlowVratePct: u32 = 0;
  marginMin: i64 = 0;
  marginLow: i64 = 0;
  marginTarget: i64 = 0;
  periodUs: u32 = 0;
  timerSlackNs: u64 = 0;
  vrateMin: u64 = 0;
  vrateMax: u64 = 0;
  running: i32 = P.IOC_IDLE;
  vtimeRate: u64 = VTIME_PER_USEC;
  vtimeBaseRate: u64 = VTIME_PER_USEC;
  vtimeErr: i64 = 0;
  periodAt: u64 = 0; // µs
  periodAtVtime: u64 = 0;
  curPeriod: u64 = 0;
  busyLevel: i32 = 0;
  weightsUpdated: bool = false;
  hweightGen: i32 = 0;
  dfgvPeriodAt: u64 = 0;
  dfgvPeriodRem: u64 = 0;
  dfgvUsageUsSum: u64 = 0;
  autopTooFastAt: u64 = 0;
  autopTooSlowAt: u64 = 0;
  autopIdx: i32 = P.AUTOP_INVALID;
  activeHead: i32 = -1; // intrusive list of active iocgs, list_add() at the head
  nrActive: i32 = 0;
  // ioc_pcpu_stat (one CPU): since the last period
  nrMetR: u32 = 0;
  nrMetW: u32 = 0;
  nrMissedR: u32 = 0;
  nrMissedW: u32 = 0;
  rqWaitNs: u64 = 0;
  timerAt: i64 = -1; // expected firing of the period timer (lazy cancel)
  root: i32 = -1;
  iocgByCg: Vec<i32> = new Vec<i32>(16);
  // counters for tests and benches
  timerRuns: u64 = 0;
  timerVisits: u64 = 0;
  biosWaited: u64 = 0;
  memoPagesR: u64 = u64.MAX_VALUE;
  memoNsecR: u64 = 0;
  memoPagesW: u64 = u64.MAX_VALUE;
  memoNsecW: u64 = 0;
  biosDebt: u64 = 0;
  wakeEvents: u64 = 0;

  constructor(dev: i32) {
    this.dev = dev;
  }
}

export class Iocg {
  id: i32;
  ioc: Ioc;
  cg: i32;
  level: i32;
  ancestors: StaticArray<i32>; // iocg ids, [0] = root ... [level] = self
  cfgWeight: u32 = 0;
  weight: u32 = 0;
  active: u32 = 0;
  inuse: u32 = 0;
  lastInuse: u32 = 0;
  savedMargin: i64 = 0;
  cursor: u64 = 0; // sector
  // the last abs_cost_to_cost() on the submit path: (absCost, hwi) -> cost. A
  // job's bios repeat their abs cost and hwi changes only with the weights,
  // so this spares a 64-bit division per bio. hwi >= 1 always: key 0 = none.
  memoAbsCost: u64 = 0;
  memoHwi: u32 = 0;
  memoCost: u64 = 0;
  vtime: u64 = 0;
  doneVtime: u64 = 0;
  absVdebt: u64 = 0;
  delay: u64 = 0;
  delayAt: u64 = 0;
  activePeriod: u64 = 0;
  onActive: bool = false;
  activeNext: i32 = -1;
  activePrev: i32 = -1;
  childActiveSum: u64 = 0;
  childInuseSum: u64 = 0;
  childAdjustedSum: u64 = 0;
  hweightGen: i32 = 0;
  hweightActive: u32 = WEIGHT_ONE;
  hweightInuse: u32 = WEIGHT_ONE;
  hweightDonating: u32 = 0;
  hweightAfterDonation: u32 = 0;
  onWalk: bool = false;
  waitHead: i32 = -1;
  waitTail: i32 = -1;
  waitCount: i32 = 0;
  wakeAt: i64 = -1; // hrtimer soft expiry, -1 = not queued
  activatedAt: u64 = 0;
  absVusage: u64 = 0;
  lastStatAbsVusage: u64 = 0;
  usageDeltaUs: u64 = 0;
  usageUs: u64 = 0;
  waitUs: u64 = 0;
  indebtUs: u64 = 0;
  indelayUs: u64 = 0;
  lastUsageUs: u64 = 0;
  lastWaitUs: u64 = 0;
  lastIndebtUs: u64 = 0;
  lastIndelayUs: u64 = 0;
  waitSince: u64 = 0;
  indebtSince: u64 = 0;
  indelaySince: u64 = 0;
  useDelay: bool = false; // blkcg_set_delay in effect

  constructor(id: i32, ioc: Ioc, cg: i32, level: i32) {
    this.id = id;
    this.ioc = ioc;
    this.cg = cg;
    this.level = level;
    this.ancestors = new StaticArray<i32>(level + 1);
  }
}

export const iocs = new Array<Ioc | null>();
export const iocgs = new Array<Iocg>();
/** per cgroup: io.weight default (x WEIGHT_ONE) */
const dflWeight = new Vec<u32>(16);
/** per job: its bios are issued as root (REQ_META/REQ_SWAP-like): debt, never wait */
const jobUseDebt = new Vec<u8>(16);
// per bio slot
const slotIocg = new Vec<i32>(64); // -1: not seen by an enabled ioc
const slotCost = new Vec<u64>(64); // the committed cost (of its pieces so far)
const slotAbs = new Vec<u64>(64); // abs cost of the piece waiting
const slotPiece = new Vec<i32>(64); // which piece of the bio is waiting (split by max_sectors)
const slotAlloc = new Vec<i64>(64); // request allocation time (left iocost)

// Recorded period-timer deliveries per device (replaying a trace whose host
// delivered the jiffies timer late or early: a guest's period runs 40-48 ms
// instead of the kernel's 44). Sorted ns; empty = the kernel's own timing.
const timerHintDev = new Vec<i32>(0);
const timerHintNs = new Vec<i64>(0);
const timerHintCursor = new Vec<i32>(0); // per device: first hint not yet behind us

// Recorded guest stalls (replaying a trace from an emulated guest whose host
// did not run it for a while: no task, softirq or timer of the guest ran
// between a and b, though its clock went on). Sorted, disjoint [a, b) in ns;
// a timer of io.cost (period timer, waitq hrtimer) due inside one runs at its
// end. Empty = a machine that always runs.
const freezeA = new Vec<i64>(0);
const freezeB = new Vec<i64>(0);
let freezeCursor: i32 = 0;

export function resetIocost(): void {
  iocostActive = false;
  setIocostFlag(false);
  kernelVersion = 601;
  iocs.length = 0;
  iocgs.length = 0;
  dflWeight.length = 0;
  jobUseDebt.length = 0;
  slotIocg.length = 0;
  slotCost.length = 0;
  slotAlloc.length = 0;
  slotAbs.length = 0;
  slotPiece.length = 0;
  cfgKind.length = 0;
  cfgVals.length = 0;
  timerHintDev.length = 0;
  timerHintNs.length = 0;
  timerHintCursor.length = 0;
  freezeA.length = 0;
  freezeB.length = 0;
  freezeCursor = 0;
  T.resetTrace();
}

/** Add a recorded period-timer delivery for device `dev` (ascending per device). */
export function addTimerHint(dev: i32, atNs: i64): void {
  timerHintDev.push(dev);
  timerHintNs.push(atNs);
}

/** Add a recorded guest stall [a, b) (ascending, disjoint). */
export function addFreeze(a: i64, b: i64): void {
  freezeA.push(a);
  freezeB.push(b);
}

// A timer due at `at` runs at `at`, or at the end of the recorded stall holding it.
function thawed(at: i64): i64 {
  const n = freezeA.length;
  if (n == 0) return at;
  let c = freezeCursor;
  while (c < n && freezeB.get(c) <= nNs) c++;
  freezeCursor = c;
  for (let i = c; i < n; i++) {
    const a = freezeA.get(i);
    if (a > at) break;
    const b = freezeB.get(i);
    if (b > at) return b;
  }
  return at;
}

// The kernel expiry `at`, or the recorded delivery of this run: the nearest
// recorded delivery from half a period before it (a guest's jiffies lag its
// clock when ticks are lost: iocost_donate's run at 1732.9 ms still had the
// jiffies of 1716 ms, so the next ran at 1764.9, 12 ms before the expiry the
// clock gives) to one period after it (the next run's expiry); none there =
// a run that left no tracepoint, on time. The late side reaches a full
// period: the host held a timer 30 ms (bufread_iocost.r2: due at 466 ms, ran
// at 496.7 ms), and the nearest delivery within half a period left that run
// on time and the model's timer a tick off the kernel's from then on.
function hintedExpiry(ioc: Ioc, at: i64): i64 {
  const n = timerHintNs.length;
  if (n == 0) return at;
  const dev = ioc.dev;
  timerHintCursor.ensure(dev);
  let c = timerHintCursor.get(dev);
  while (c < n && (timerHintDev.get(c) != dev || timerHintNs.get(c) <= nNs)) c++;
  timerHintCursor.set(dev, c);
  const earlyNs = <i64>ioc.periodUs * 500;
  const lateNs = <i64>ioc.periodUs * 1000;
  let best = at;
  let bestD = lateNs;
  for (let i = c; i < n; i++) {
    if (timerHintDev.get(i) != dev) continue;
    const h = timerHintNs.get(i);
    if (h - at >= lateNs) break;
    if (at - h > earlyNs) continue;
    const d = h > at ? h - at : at - h;
    if (d < bestD) {
      bestD = d;
      best = h;
    }
  }
  return best;
}

export function setKernelVersion(v: i32): void {
  kernelVersion = v;
}

export function setJobUseDebt(job: i32, on: bool): void {
  jobUseDebt.ensure(job);
  jobUseDebt.set(job, on ? 1 : 0);
}

@inline function v612(): bool {
  return kernelVersion >= 612;
}

function cgDflWeight(cg: i32): u32 {
  if (cg >= dflWeight.length) {
    const old = dflWeight.length;
    dflWeight.ensure(cg);
    for (let i = old; i <= cg; i++) dflWeight.set(i, P.CGROUP_WEIGHT_DFL * WEIGHT_ONE);
  }
  return dflWeight.get(cg);
}

// ------------------------------------------------------------------ ioc_now

// A snapshot of (now, vnow, vrate) as ioc_now() takes it. The simulation is
// single threaded and every caller uses the snapshot of its own entry point.
let nNs: i64 = 0;
let nUs: u64 = 0;
let nVnow: u64 = 0;

function iocNow(ioc: Ioc, t: i64): void {
  nNs = t;
  nUs = <u64>(t / 1000);
  nVnow = ioc.periodAtVtime + (nUs - ioc.periodAt) * ioc.vtimeRate;
}

// ------------------------------------------------------------------ setup

function iocFor(dev: i32): Ioc | null {
  return dev < iocs.length ? unchecked(iocs[dev]) : null;
}

/** blk_iocost_init(): the first io.cost.qos/model write for a device. */
export function iocInit(dev: i32, t: i64): Ioc {
  while (iocs.length <= dev) iocs.push(null);
  let ioc = iocs[dev];
  if (ioc) return ioc;
  const n = new Ioc(dev);
  iocs[dev] = n;
  n.periodAt = <u64>(t / 1000);
  n.autopIdx = P.AUTOP_INVALID;
  refreshParams(n, true, t);
  n.root = newIocg(n, 0, t);
  return n;
}

function newIocg(ioc: Ioc, cg: i32, t: i64): i32 {
  // parents first, as blkg creation does
  let level = 0;
  for (let c = cg; c > 0; c = cgParent.get(c)) level++;
  const parent = cg > 0 ? iocgOf(ioc, cgParent.get(cg), t) : -1;
  const id = iocgs.length;
  const g = new Iocg(id, ioc, cg, level);
  iocgs.push(g);
  if (parent >= 0) {
    const pa = iocgs[parent].ancestors;
    for (let i = 0; i < level; i++) unchecked((g.ancestors[i] = pa[i]));
  }
  unchecked((g.ancestors[level] = id));
  ioc.iocgByCg.ensure(cg);
  ioc.iocgByCg.set(cg, id + 1); // 0 = none
  // ioc_pd_init
  iocNow(ioc, t);
  g.vtime = nVnow;
  g.doneVtime = nVnow;
  g.activePeriod = ioc.curPeriod;
  weightUpdated(g);
  return id;
}

/** The iocg of cgroup `cg` on this ioc, created (with its ancestors) on first use. */
function iocgOf(ioc: Ioc, cg: i32, t: i64): i32 {
  const m = ioc.iocgByCg;
  if (cg < m.length) {
    const id1 = m.get(cg);
    if (id1 > 0) return id1 - 1;
  }
  return newIocg(ioc, cg, t);
}

// ------------------------------------------------------------------ params

function refreshMargins(ioc: Ioc): void {
  const p = <u64>ioc.periodUs;
  const vrate = ioc.vtimeBaseRate;
  ioc.marginMin = <i64>(((p * P.MARGIN_MIN_PCT) / 100) * vrate);
  ioc.marginLow = <i64>(((p * P.MARGIN_LOW_PCT) / 100) * vrate);
  ioc.marginTarget = <i64>(((p * P.MARGIN_TARGET_PCT) / 100) * vrate);
}

function refreshPeriodUs(ioc: Ioc): void {
  let ppm: u32, lat: u32;
  if (ioc.qos[P.QOS_RLAT] >= ioc.qos[P.QOS_WLAT]) {
    ppm = ioc.qos[P.QOS_RPPM];
    lat = ioc.qos[P.QOS_RLAT];
  } else {
    ppm = ioc.qos[P.QOS_WPPM];
    lat = ioc.qos[P.QOS_WLAT];
  }
  let multi: u32 = 2;
  if (ppm) {
    multi = (<u32>MILLION - ppm) / 50000;
    if (multi < 2) multi = 2;
  }
  let period = multi * lat; // u32 arithmetic as in the kernel
  if (period < P.MIN_PERIOD_US) period = P.MIN_PERIOD_US;
  if (period > P.MAX_PERIOD_US) period = P.MAX_PERIOD_US;
  ioc.periodUs = period;
  ioc.timerSlackNs = ((<u64>period) * P.NSEC_PER_USEC * P.TIMER_SLACK_PCT) / 100;
  refreshMargins(ioc);
}

function autopIdxOf(ioc: Ioc, t: i64): i32 {
  const idx = ioc.autopIdx;
  const d = devices[ioc.dev];
  if (d.rotational) return P.AUTOP_HDD;
  if (d.nrRequests == 1) return P.AUTOP_SSD_QD1;
  if (idx < P.AUTOP_SSD_DFL) return P.AUTOP_SSD_DFL;
  if (ioc.userQos || ioc.userModel) return idx;
  const vratePct = (ioc.vtimeBaseRate * 100) / VTIME_PER_USEC;
  const nowNs = <u64>t;
  const fast = <u64>P.autopTooFast(idx);
  const slow = <u64>P.autopTooSlow(idx);
  if (fast && fast <= vratePct) {
    if (!ioc.autopTooFastAt) ioc.autopTooFastAt = nowNs;
    if (nowNs - ioc.autopTooFastAt >= P.AUTOP_CYCLE_NSEC) return idx + 1;
  } else {
    ioc.autopTooFastAt = 0;
  }
  if (slow && slow >= vratePct) {
    if (!ioc.autopTooSlowAt) ioc.autopTooSlowAt = nowNs;
    if (nowNs - ioc.autopTooSlowAt >= P.AUTOP_CYCLE_NSEC) return idx - 1;
  } else {
    ioc.autopTooSlowAt = 0;
  }
  return idx;
}

function refreshLcoefs(ioc: Ioc): void {
  ioc.memoPagesR = u64.MAX_VALUE;
  ioc.memoPagesW = u64.MAX_VALUE;
  const u = ioc.iLcoefs;
  P.calcLcoefs(u[0], u[1], u[2], ioc.lcoefs, 0);
  P.calcLcoefs(u[3], u[4], u[5], ioc.lcoefs, 3);
}

function refreshParams(ioc: Ioc, force: bool, t: i64): bool {
  const idx = autopIdxOf(ioc, t);
  if (idx == ioc.autopIdx && !force) return false;
  if (idx != ioc.autopIdx) {
    ioc.vtimeRate = VTIME_PER_USEC;
    if (v612()) ioc.vtimeBaseRate = VTIME_PER_USEC;
  }
  ioc.autopIdx = idx;
  ioc.autopTooFastAt = 0;
  ioc.autopTooSlowAt = 0;
  if (!ioc.userQos) {
    ioc.qos[P.QOS_RPPM] = 0;
    ioc.qos[P.QOS_RLAT] = P.autopRlat(idx);
    ioc.qos[P.QOS_WPPM] = 0;
    ioc.qos[P.QOS_WLAT] = P.autopWlat(idx);
    ioc.qos[P.QOS_MIN] = P.VRATE_MIN_PPM;
    ioc.qos[P.QOS_MAX] = P.VRATE_MAX_PPM;
  }
  if (!ioc.userModel) {
    for (let k = 0; k < 6; k++) ioc.iLcoefs[k] = P.autopLcoef(idx, k);
  }
  ioc.tooFastVratePct = P.autopTooFast(idx);
  ioc.tooSlowVratePct = P.autopTooSlow(idx);
  refreshPeriodUs(ioc);
  refreshLcoefs(ioc);
  ioc.vrateMin = divRoundUp(<u64>ioc.qos[P.QOS_MIN] * VTIME_PER_USEC, MILLION);
  if (v612()) ioc.vrateMax = divRoundUp(<u64>ioc.qos[P.QOS_MAX] * VTIME_PER_USEC, MILLION);
  else ioc.vrateMax = (<u64>ioc.qos[P.QOS_MAX] * VTIME_PER_USEC) / MILLION;
  return true;
}

function refreshVrate(ioc: Ioc): void {
  const pleft = <i64>(ioc.periodAt + <u64>ioc.periodUs - nUs);
  const vperiod = <i64>ioc.periodUs * <i64>ioc.vtimeBaseRate;
  if (pleft > 0) {
    let vcomp = -(ioc.vtimeErr / pleft);
    const vmin = -(<i64>(ioc.vtimeBaseRate >> 1));
    const vmax = <i64>ioc.vtimeBaseRate;
    if (vcomp < vmin) vcomp = vmin;
    if (vcomp > vmax) vcomp = vmax;
    ioc.vtimeErr += vcomp * pleft;
    ioc.vtimeRate = <u64>(<i64>ioc.vtimeBaseRate + vcomp);
  }
  if (ioc.vtimeErr < -vperiod) ioc.vtimeErr = -vperiod;
  if (ioc.vtimeErr > vperiod) ioc.vtimeErr = vperiod;
}

function adjustBaseVrate(ioc: Ioc, rqWaitPct: u32, nrLagging: i32, nrShortages: i32, prevBusy: i32,
  missedR: u32, missedW: u32, t: i64): void {
  let vrate = ioc.vtimeBaseRate;
  const vmin = ioc.vrateMin;
  const vmax = ioc.vrateMax;
  const oldReported = v612() ? ioc.vtimeBaseRate : ioc.vtimeRate;
  if (!ioc.busyLevel || (ioc.busyLevel < 0 && nrLagging)) {
    if (ioc.busyLevel != prevBusy || nrLagging) {
      const nv = v612() ? vrate : ioc.vtimeRate;
      traceVrateAdj(ioc, oldReported, nv, missedR, missedW, rqWaitPct, nrLagging, nrShortages, t);
    }
    return;
  }
  if (vrate < vmin) {
    vrate = (vrate * (100 + P.VRATE_CLAMP_ADJ_PCT)) / 100;
    if (vrate > vmin) vrate = vmin;
  } else if (vrate > vmax) {
    vrate = (vrate * (100 - P.VRATE_CLAMP_ADJ_PCT)) / 100;
    if (vrate < vmax) vrate = vmax;
  } else {
    let idx = ioc.busyLevel < 0 ? -ioc.busyLevel : ioc.busyLevel;
    if (idx > P.VRATE_ADJ_PCT.length - 1) idx = P.VRATE_ADJ_PCT.length - 1;
    let adj = unchecked(P.VRATE_ADJ_PCT[idx]);
    if (ioc.busyLevel > 0) adj = 100 - adj;
    else adj = 100 + adj;
    vrate = divRoundUp(vrate * <u64>adj, 100);
    if (vrate < vmin) vrate = vmin;
    if (vrate > vmax) vrate = vmax;
  }
  traceVrateAdj(ioc, oldReported, vrate, missedR, missedW, rqWaitPct, nrLagging, nrShortages, t);
  ioc.vtimeBaseRate = vrate;
  refreshMargins(ioc);
}

function traceVrateAdj(ioc: Ioc, oldV: u64, newV: u64, mr: u32, mw: u32, rq: u32, lag: i32, short: i32, t: i64): void {
  T.emit(T.TR_VRATE_ADJ, t, ioc.dev, -1, oldV, newV, <u64><i64>ioc.busyLevel, mr, mw, rq, <u64><i64>lag, <u64><i64>short);
}

function startPeriod(ioc: Ioc): void {
  ioc.periodAt = nUs;
  ioc.periodAtVtime = nVnow;
  // timer.expires = jiffies + usecs_to_jiffies(period_us); the timer wheel
  // files a level-0 timer one tick later (calc_index rounds up).
  const j = jiffiesAt(nNs) + P.usecsToJiffies(<u64>ioc.periodUs, HZ) + 1;
  const at = thawed(hintedExpiry(ioc, tickTime(j)));
  ioc.timerAt = at;
  schedule(at, EV_IOCOST_TIMER, <u32>ioc.dev);
}

// ------------------------------------------------------------------ weights

function propagateWeightsInner(g: Iocg, active: u32, inuse: u32, save: bool): void {
  const ioc = g.ioc;
  if (!g.onActive && g.childActiveSum) {
    inuse = <u32>divRoundUp(<u64>active * g.childInuseSum, g.childActiveSum);
  } else {
    const m = inuse < active ? inuse : active;
    inuse = m ? m : 1;
  }
  g.lastInuse = g.inuse;
  if (save) g.savedMargin = <i64>(nVnow - g.vtime);
  if (active == g.active && inuse == g.inuse) return;
  for (let lvl = g.level - 1; lvl >= 0; lvl--) {
    const parent = unchecked(iocgs[unchecked(g.ancestors[lvl])]);
    const child = unchecked(iocgs[unchecked(g.ancestors[lvl + 1])]);
    parent.childActiveSum += <u64><i64><i32>(active - child.active);
    parent.childInuseSum += <u64><i64><i32>(inuse - child.inuse);
    child.active = active;
    child.inuse = inuse;
    let pa: u32 = 0;
    let pi: u32 = 0;
    if (parent.childActiveSum) {
      pa = parent.weight;
      pi = <u32>divRoundUp(<u64>pa * parent.childInuseSum, parent.childActiveSum);
    }
    if (pa == parent.active && pi == parent.inuse) break;
    active = pa;
    inuse = pi;
  }
  ioc.weightsUpdated = true;
}

function commitWeights(ioc: Ioc): void {
  if (ioc.weightsUpdated) {
    ioc.hweightGen++;
    ioc.weightsUpdated = false;
  }
}

function propagateWeights(g: Iocg, active: u32, inuse: u32, save: bool): void {
  propagateWeightsInner(g, active, inuse, save);
  commitWeights(g.ioc);
}

/** current_hweight(): refreshes g.hweightActive / g.hweightInuse if stale. */
function currentHweight(g: Iocg): void {
  const gen = g.ioc.hweightGen;
  if (gen == g.hweightGen) return;
  let hwa: u32 = WEIGHT_ONE;
  let hwi: u32 = WEIGHT_ONE;
  for (let lvl = 0; lvl <= g.level - 1; lvl++) {
    const parent = unchecked(iocgs[unchecked(g.ancestors[lvl])]);
    const child = unchecked(iocgs[unchecked(g.ancestors[lvl + 1])]);
    let activeSum = parent.childActiveSum;
    let inuseSum = parent.childInuseSum;
    const active = child.active;
    const inuse = child.inuse;
    if (!activeSum || !inuseSum) continue;
    if (activeSum < <u64>active) activeSum = active;
    hwa = <u32>((<u64>hwa * active) / activeSum);
    if (inuseSum < <u64>inuse) inuseSum = inuse;
    hwi = <u32>((<u64>hwi * inuse) / inuseSum);
  }
  g.hweightActive = hwa > 1 ? hwa : 1;
  g.hweightInuse = hwi > 1 ? hwi : 1;
  g.hweightGen = gen;
}

function currentHweightMax(g: Iocg): u32 {
  let hwm: u32 = WEIGHT_ONE;
  let inuse: u32 = g.active;
  for (let lvl = g.level - 1; lvl >= 0; lvl--) {
    const parent = unchecked(iocgs[unchecked(g.ancestors[lvl])]);
    const child = unchecked(iocgs[unchecked(g.ancestors[lvl + 1])]);
    const cis = parent.childInuseSum + <u64>inuse - <u64>child.inuse;
    hwm = <u32>((<u64>hwm * inuse) / cis);
    inuse = <u32>divRoundUp(<u64>parent.active * cis, parent.childActiveSum);
  }
  return hwm > 1 ? hwm : 1;
}

function weightUpdated(g: Iocg): void {
  const w = g.cfgWeight ? g.cfgWeight : cgDflWeight(g.cg);
  if (w != g.weight && g.active) propagateWeights(g, w, g.inuse, true);
  g.weight = w;
}

@inline function absCostToCost(abs: u64, hwi: u32): u64 {
  return divRoundUp(abs * WEIGHT_ONE, hwi);
}

@inline function costToAbsCost(cost: u64, hwi: u32): u64 {
  return divRoundUp(cost * hwi, WEIGHT_ONE);
}

// ------------------------------------------------------------------ activation

function listAdd(ioc: Ioc, g: Iocg): void {
  g.onActive = true;
  g.activePrev = -1;
  g.activeNext = ioc.activeHead;
  if (ioc.activeHead >= 0) unchecked(iocgs[ioc.activeHead]).activePrev = g.id;
  ioc.activeHead = g.id;
  ioc.nrActive++;
}

function listDel(ioc: Ioc, g: Iocg): void {
  if (g.activePrev >= 0) unchecked(iocgs[g.activePrev]).activeNext = g.activeNext;
  else ioc.activeHead = g.activeNext;
  if (g.activeNext >= 0) unchecked(iocgs[g.activeNext]).activePrev = g.activePrev;
  g.onActive = false;
  g.activeNext = -1;
  g.activePrev = -1;
  ioc.nrActive--;
}

function traceState(kind: u64, g: Iocg, lastPeriod: u64, curPeriod: u64, vtime: u64, t: i64): void {
  const ioc = g.ioc;
  T.emit(kind, t, ioc.dev, g.cg, nUs, nVnow, ioc.vtimeBaseRate, lastPeriod, curPeriod, vtime,
    ((<u64>g.inuse) << 32) | <u64>g.weight, ((<u64>g.hweightInuse) << 32) | <u64>g.hweightActive);
}

function traceInuse(kind: u64, g: Iocg, oldInuse: u32, newInuse: u32, oldHwi: u32, newHwi: u32, t: i64): void {
  T.emit(kind, t, g.ioc.dev, g.cg, nUs, oldInuse, newInuse, oldHwi, newHwi, 0, 0, 0);
}

function iocgActivate(g: Iocg, t: i64): bool {
  const ioc = g.ioc;
  if (g.onActive) {
    iocNow(ioc, t);
    if (g.activePeriod != ioc.curPeriod) g.activePeriod = ioc.curPeriod;
    return true;
  }
  if (g.childActiveSum) return false;
  iocNow(ioc, t);
  const cur = ioc.curPeriod;
  const last = g.activePeriod;
  g.activePeriod = cur;
  for (let i = g.level - 1; i > 0; i--) {
    if (unchecked(iocgs[unchecked(g.ancestors[i])]).onActive) return false;
  }
  if (g.childActiveSum) return false;
  // always start with the target budget
  const vtarget = nVnow - <u64>ioc.marginTarget;
  const delta = vtarget - g.vtime;
  g.vtime += delta;
  g.doneVtime += delta;
  g.hweightGen = ioc.hweightGen - 1;
  listAdd(ioc, g);
  propagateWeights(g, g.weight, g.lastInuse ? g.lastInuse : g.weight, true);
  traceState(T.TR_IOCG_ACTIVATE, g, last, cur, vtarget, t);
  g.activatedAt = nUs;
  if (ioc.running == P.IOC_IDLE) {
    ioc.running = P.IOC_RUNNING;
    ioc.dfgvPeriodAt = nUs;
    ioc.dfgvPeriodRem = 0;
    startPeriod(ioc);
  }
  return true;
}

// ------------------------------------------------------------------ debt and delay

function iocgKickDelay(g: Iocg): bool {
  const ioc = g.ioc;
  if (<i64>(nUs - g.delayAt) < 0) return false;
  const tdelta = nUs - g.delayAt;
  const shift = tdelta / P.USEC_PER_SEC;
  let delay: u64 = 0;
  if (g.delay && shift < 64) delay = g.delay >> shift;
  currentHweight(g);
  const hwa = g.hweightActive;
  const vover = <i64>(g.vtime + absCostToCost(g.absVdebt, hwa) - nVnow);
  const voverPct = (100 * vover) / (<i64>ioc.periodUs * <i64>ioc.vtimeBaseRate);
  let nd: u64;
  if (voverPct <= P.MIN_DELAY_THR_PCT) nd = 0;
  else if (voverPct >= P.MAX_DELAY_THR_PCT) nd = P.MAX_DELAY_US;
  else {
    nd = P.MIN_DELAY_US + ((P.MAX_DELAY_US - P.MIN_DELAY_US) * <u64>(voverPct - P.MIN_DELAY_THR_PCT)) /
      <u64>(P.MAX_DELAY_THR_PCT - P.MIN_DELAY_THR_PCT);
  }
  if (nd > delay) {
    g.delay = nd;
    g.delayAt = nUs;
    delay = nd;
  }
  if (delay >= P.MIN_DELAY_US) {
    if (!g.indelaySince) g.indelaySince = nUs;
    g.useDelay = true;
    return true;
  }
  if (g.indelaySince) {
    g.indelayUs += nUs - g.indelaySince;
    g.indelaySince = 0;
  }
  g.delay = 0;
  g.useDelay = false;
  return false;
}

function iocgIncurDebt(g: Iocg, absCost: u64): void {
  if (!g.absVdebt && absCost) {
    g.indebtSince = nUs;
    propagateWeights(g, g.active, 0, false);
  }
  g.absVdebt += absCost;
  g.absVusage += absCost;
}

function iocgPayDebt(g: Iocg, absVpay: u64): void {
  g.absVdebt -= absVpay < g.absVdebt ? absVpay : g.absVdebt;
  if (!g.absVdebt) {
    g.indebtUs += nUs - g.indebtSince;
    g.indebtSince = 0;
    propagateWeights(g, g.active, g.lastInuse, false);
  }
}

function commitBio(g: Iocg, slot: i32, absCost: u64, cost: u64): void {
  slotCost.set(slot, slotCost.get(slot) + cost);
  g.vtime += cost;
  g.absVusage += absCost;
}

/** iocg_kick_waitq(): pay debt, wake what fits, arm the wait timer. */
function iocgKickWaitq(g: Iocg, payDebt: bool): void {
  const ioc = g.ioc;
  currentHweight(g);
  const hwa = g.hweightActive;
  let vbudget = <i64>(nVnow - g.vtime);
  if (payDebt && g.absVdebt && vbudget > 0) {
    const absVbudget = costToAbsCost(<u64>vbudget, hwa);
    const absVpay = absVbudget < g.absVdebt ? absVbudget : g.absVdebt;
    const vpay = absCostToCost(absVpay, hwa);
    g.vtime += vpay;
    g.doneVtime += vpay;
    iocgPayDebt(g, absVpay);
    vbudget -= <i64>vpay;
  }
  if (g.absVdebt || g.delay) iocgKickDelay(g);
  if (g.absVdebt) {
    const vdebt = <i64>absCostToCost(g.absVdebt, hwa);
    const b = vbudget - vdebt;
    vbudget = b < 0 ? b : 0;
  }
  currentHweight(g);
  const hwi = g.hweightInuse;
  // wake the waiters that fit, in FIFO order
  while (g.waitHead >= 0) {
    const slot = g.waitHead;
    const abs = slotAbs.get(slot);
    const cost = absCostToCost(abs, hwi);
    vbudget -= <i64>cost;
    if (vbudget < 0) break;
    g.waitHead = bioAt(slot).next;
    if (g.waitHead < 0) g.waitTail = -1;
    g.waitCount--;
    bioAt(slot).next = -1;
    commitBio(g, slot, abs, cost);
    slotAlloc.set(slot, nNs);
    if (<i32>requestsOf(deviceAt(bioAt(slot).dev), bioAt(slot).size) > slotPiece.get(slot) + 1) {
      // more pieces: its issuer, woken, resubmits them after this wake-up
      schedule(nNs, EV_IOCOST_WAKE, RESUME | <u32>slot);
    } else afterIocost(slot, nNs);
  }
  if (g.waitCount == 0) {
    if (g.waitSince) {
      g.waitUs += nUs - g.waitSince;
      g.waitSince = 0;
    }
    return;
  }
  if (!g.waitSince) g.waitSince = nUs;
  if (vbudget >= 0) return;
  const vshortage = <u64>(-vbudget);
  const expires = thawed(nNs + <i64>(divRoundUp(vshortage, ioc.vtimeBaseRate) * P.NSEC_PER_USEC) + <i64>ioc.timerSlackNs);
  if (g.wakeAt >= 0) {
    const d = g.wakeAt - expires;
    if ((d < 0 ? -d : d) <= <i64>ioc.timerSlackNs) return;
  }
  g.wakeAt = expires;
  schedule(expires, EV_IOCOST_WAKE, <u32>g.id);
}

// EV_IOCOST_WAKE with this bit: the issuer of a split bio woken (arg & ~RESUME = slot)
const RESUME: u32 = 0x800000;

/** EV_IOCOST_WAKE: the iocg's waitq hrtimer. */
export function iocWake(arg: u32, now: i64): void {
  if (arg & RESUME) {
    iocResume(<i32>(arg & ~RESUME), now);
    return;
  }
  const id = <i32>arg;
  if (id >= iocgs.length) return;
  const g = unchecked(iocgs[id]);
  if (g.wakeAt != now) return; // re-armed or cancelled
  g.wakeAt = -1;
  g.ioc.wakeEvents++;
  iocNow(g.ioc, now);
  iocgKickWaitq(g, g.absVdebt != 0);
}

// ------------------------------------------------------------------ issue path

function calcVtimeCost(ioc: Ioc, g: Iocg, slot: i32, off: i64, size: u32, isMerge: bool): u64 {
  if (size == 0 && v612()) return 0;
  const sectors = <u64>(size >> 9);
  let pages = sectors >> P.IOC_SECT_TO_PAGE_SHIFT;
  if (pages < 1) pages = 1;
  const base = bioAt(slot).dir ? 3 : 0;
  const cPage = unchecked(ioc.lcoefs[base]);
  const cSeq = unchecked(ioc.lcoefs[base + 1]);
  const cRand = unchecked(ioc.lcoefs[base + 2]);
  let seekPages: u64 = 0;
  if (g.cursor) {
    const sector = <u64>off >> 9;
    const d = <i64>(sector - g.cursor);
    seekPages = <u64>(d < 0 ? -d : d) >> P.IOC_SECT_TO_PAGE_SHIFT;
  }
  let cost: u64 = 0;
  if (!isMerge) cost += seekPages > P.LCOEF_RANDIO_PAGES ? cRand : cSeq;
  cost += pages * cPage;
  return cost;
}

function adjustInuseAndCalcCost(g: Iocg, vtime: u64, absCost: u64, t: i64): u64 {
  const ioc = g.ioc;
  currentHweight(g);
  let hwi = g.hweightInuse;
  const oldHwi = hwi;
  const oldInuse = g.inuse;
  let cost: u64;
  if (absCost == g.memoAbsCost && hwi == g.memoHwi) {
    cost = g.memoCost;
  } else {
    cost = absCostToCost(absCost, hwi);
    g.memoAbsCost = absCost;
    g.memoHwi = hwi;
    g.memoCost = cost;
  }
  const margin = <i64>(nVnow - vtime - cost);
  if (g.absVdebt) return cost;
  if (margin >= g.savedMargin || margin >= ioc.marginLow || g.inuse == g.active) return cost;
  if (!g.onActive) return cost;
  let newInuse = g.inuse;
  const step = (g.active * P.INUSE_ADJ_STEP_PCT + 99) / 100;
  do {
    newInuse = newInuse + step;
    propagateWeights(g, g.active, newInuse, true);
    currentHweight(g);
    hwi = g.hweightInuse;
    cost = absCostToCost(absCost, hwi);
  } while (after64(vtime + cost, nVnow) && g.inuse != g.active);
  traceInuse(T.TR_INUSE_ADJUST, g, oldInuse, g.inuse, oldHwi, hwi, t);
  return cost;
}

function ensureSlot(slot: i32): void {
  if (slot >= slotIocg.length) {
    const old = slotIocg.length;
    slotIocg.ensure(slot);
    slotCost.ensure(slot);
    slotAlloc.ensure(slot);
    slotAbs.ensure(slot);
    slotPiece.ensure(slot);
    for (let i = old; i <= slot; i++) slotIocg.set(i, -2);
  }
}

/** rq_qos throttle hook. true: go to the device now; false: iocost keeps it.
 *  blk_mq_submit_bio() splits a bio larger than max_sectors before
 *  rq_qos_throttle() (__bio_split_to_limits(): the first max_sectors go on,
 *  the rest is resubmitted by submit_bio_noacct() and split again), so each
 *  piece is throttled as a bio of its own, in order: a piece that fits the
 *  budget is committed and the next one checked at once; one that does not
 *  waits (its issuer asleep on the waitq) and the rest follow it after its
 *  wake-up (iocResume()). The bio goes on when its last piece is through. */
export function iocSubmit(slot: i32, now: i64): bool {
  ensureSlot(slot);
  slotIocg.set(slot, -2);
  const ioc = iocFor(bioAt(slot).dev);
  if (ioc === null || !ioc.enabled) return true;
  slotIocg.set(slot, -1); // seen by an enabled ioc: latency stats at completion
  slotCost.set(slot, 0);
  slotAlloc.set(slot, now);
  const cg = bioAt(slot).cg;
  if (cg == 0) return true; // root cgroup: not controlled
  const n = <i32>requestsOf(deviceAt(bioAt(slot).dev), bioAt(slot).size);
  for (let k = 0; k < n; k++) {
    if (!throttlePiece(ioc, slot, k, n, now)) return false;
  }
  return true;
}

/** The pieces after a woken one (the issuer runs again and resubmits the rest). */
function iocResume(slot: i32, now: i64): void {
  const ioc = iocFor(bioAt(slot).dev);
  if (ioc === null) return;
  iocNow(ioc, now);
  const n = <i32>requestsOf(deviceAt(bioAt(slot).dev), bioAt(slot).size);
  for (let k = slotPiece.get(slot) + 1; k < n; k++) {
    if (!throttlePiece(ioc, slot, k, n, now)) return;
  }
  afterIocost(slot, now);
}

/** ioc_rqos_throttle() for piece k of n of the bio in `slot`. true: it may go. */
function throttlePiece(ioc: Ioc, slot: i32, k: i32, n: i32, now: i64): bool {
  const g = unchecked(iocgs[iocgOf(ioc, bioAt(slot).cg, now)]);
  let off = bioAt(slot).off;
  let size = bioAt(slot).size;
  if (n > 1) {
    const maxb = deviceAt(bioAt(slot).dev).maxSectorsBytes;
    off += <i64>k * <i64>maxb;
    size = k < n - 1 ? maxb : size - <u32>k * maxb;
  }
  const absCost = calcVtimeCost(ioc, g, slot, off, size, false);
  if (!absCost) return true;
  if (!iocgActivate(g, now)) return true;
  slotIocg.set(slot, g.id);
  g.cursor = (<u64>off + <u64>size) >> 9;
  const vtime = g.vtime;
  const cost = adjustInuseAndCalcCost(g, vtime, absCost, now);
  if (g.waitCount == 0 && !g.absVdebt && beforeEq64(vtime + cost, nVnow)) {
    commitBio(g, slot, absCost, cost);
    return true;
  }
  const job = bioAt(slot).job;
  const useDebt = (bioAt(slot).flags & (BIO_META | BIO_SWAP)) != 0 ||
    (job >= 0 && job < jobUseDebt.length && jobUseDebt.get(job) != 0);
  let locked = useDebt || g.absVdebt != 0;
  if (!g.onActive) {
    commitBio(g, slot, absCost, cost);
    return true;
  }
  if (useDebt) {
    ioc.biosDebt++;
    iocgIncurDebt(g, absCost);
    iocgKickDelay(g);
    return true;
  }
  if (!g.absVdebt && g.inuse != g.active) {
    locked = true;
    propagateWeights(g, g.active, g.active, true);
  }
  // wait: FIFO on the iocg's waitq, the piece's abs cost kept in slotAbs
  ioc.biosWaited++;
  slotAbs.set(slot, absCost);
  slotPiece.set(slot, k);
  bioAt(slot).next = -1;
  if (g.waitTail >= 0) bioAt(g.waitTail).next = slot;
  else g.waitHead = slot;
  g.waitTail = slot;
  g.waitCount++;
  iocgKickWaitq(g, locked);
  return false;
}

/** ioc_rqos_merge(): a bio merged into an existing request (size cost only). */
export function iocMerge(slot: i32, now: i64, rqHasCost: bool): void {
  ensureSlot(slot);
  const ioc = iocFor(bioAt(slot).dev);
  if (ioc === null || !ioc.enabled) return;
  const cg = bioAt(slot).cg;
  if (cg == 0) return;
  const g = unchecked(iocgs[iocgOf(ioc, cg, now)]);
  const absCost = calcVtimeCost(ioc, g, slot, bioAt(slot).off, bioAt(slot).size, true);
  if (!absCost) return;
  iocNow(ioc, now);
  const cost = adjustInuseAndCalcCost(g, g.vtime, absCost, now);
  if (rqHasCost && beforeEq64(g.vtime + cost, nVnow)) {
    g.vtime += cost;
    g.absVusage += absCost;
    return;
  }
  if (g.onActive) {
    iocgIncurDebt(g, absCost);
    iocgKickDelay(g);
  } else {
    g.vtime += cost;
    g.absVusage += absCost;
  }
}

/** Completion: done_vtime (ioc_rqos_done_bio) and latency stats (ioc_rqos_done). */
export function iocDone(slot: i32, now: i64): void {
  if (slot >= slotIocg.length) return;
  const gid = slotIocg.get(slot);
  if (gid == -2) return;
  slotIocg.set(slot, -2);
  const ioc = iocFor(bioAt(slot).dev);
  if (ioc === null) return;
  if (gid >= 0) {
    const cost = slotCost.get(slot);
    if (cost) unchecked(iocgs[gid]).doneVtime += cost;
  }
  if (!ioc.enabled) return;
  const alloc = slotAlloc.get(slot);
  const onQ = <u64>(now - alloc);
  const rqWait = <u64>(bioAt(slot).issue - alloc);
  const dir = bioAt(slot).dir;
  const pages = <u64>(bioAt(slot).size >> 9) >> P.IOC_SECT_TO_PAGE_SHIFT;
  // calc_size_vtime_cost() / VTIME_PER_NSEC, memoised per direction (bios repeat their size)
  let sizeNsec: u64;
  if (dir) {
    if (pages != ioc.memoPagesW) {
      ioc.memoPagesW = pages;
      ioc.memoNsecW = (pages * unchecked(ioc.lcoefs[3])) / P.VTIME_PER_NSEC;
    }
    sizeNsec = ioc.memoNsecW;
  } else {
    if (pages != ioc.memoPagesR) {
      ioc.memoPagesR = pages;
      ioc.memoNsecR = (pages * unchecked(ioc.lcoefs[0])) / P.VTIME_PER_NSEC;
    }
    sizeNsec = ioc.memoNsecR;
  }
  const lat = <u64>ioc.qos[dir ? P.QOS_WLAT : P.QOS_RLAT] * P.NSEC_PER_USEC;
  const met = onQ <= sizeNsec || onQ - sizeNsec <= lat;
  if (dir) {
    if (met) ioc.nrMetW++;
    else ioc.nrMissedW++;
  } else {
    if (met) ioc.nrMetR++;
    else ioc.nrMissedR++;
  }
  ioc.rqWaitNs += rqWait;
}

// ------------------------------------------------------------------ period timer

const innerWalk = new Vec<i32>(16);
const surpluses = new Vec<i32>(16);
const overList = new Vec<i32>(16);

function buildInnerWalk(g: Iocg): void {
  let lvl = g.level - 1;
  for (; lvl >= 0; lvl--) {
    if (unchecked(iocgs[unchecked(g.ancestors[lvl])]).onWalk) break;
  }
  while (++lvl <= g.level - 1) {
    const inner = unchecked(iocgs[unchecked(g.ancestors[lvl])]);
    inner.onWalk = true;
    innerWalk.push(inner.id);
  }
}

function dissolveWalk(): void {
  for (let i = 0; i < innerWalk.length; i++) unchecked(iocgs[innerWalk.get(i)]).onWalk = false;
  innerWalk.length = 0;
}

function flushStatUpward(g: Iocg): void {
  if (g.level > 0) {
    const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
    p.usageUs += g.usageUs - g.lastUsageUs;
    p.waitUs += g.waitUs - g.lastWaitUs;
    p.indebtUs += g.indebtUs - g.lastIndebtUs;
    p.indelayUs += g.indelayUs - g.lastIndelayUs;
  }
  g.lastUsageUs = g.usageUs;
  g.lastWaitUs = g.waitUs;
  g.lastIndebtUs = g.indebtUs;
  g.lastIndelayUs = g.indelayUs;
}

function flushStat(ioc: Ioc): void {
  for (let id = ioc.activeHead; id >= 0; ) {
    const g = unchecked(iocgs[id]);
    const delta = g.absVusage - g.lastStatAbsVusage;
    g.lastStatAbsVusage = g.absVusage;
    g.usageDeltaUs = delta / ioc.vtimeBaseRate;
    g.usageUs += g.usageDeltaUs;
    flushStatUpward(g);
    buildInnerWalk(g);
    id = g.activeNext;
  }
  for (let i = innerWalk.length - 1; i >= 0; i--) flushStatUpward(unchecked(iocgs[innerWalk.get(i)]));
  dissolveWalk();
}

function iocgIsIdle(g: Iocg): bool {
  if (g.activePeriod == g.ioc.curPeriod) return false;
  if (g.doneVtime != g.vtime) return false;
  return true;
}

function hweightAfterDonation(g: Iocg, oldHwi: u32, hwm: u32, usage: u32): u32 {
  const ioc = g.ioc;
  let vtime = g.vtime;
  if (g.absVdebt) return 1;
  if (g.waitCount > 0 || after64(vtime, nVnow - <u64>ioc.marginMin)) return hwm;
  const excess = <i64>(nVnow - vtime) - ioc.marginTarget;
  if (excess > 0) {
    g.vtime += <u64>excess;
    g.doneVtime += <u64>excess;
    vtime += <u64>excess;
    ioc.vtimeErr -= <i64>((<u64>excess * <u64>oldHwi) / WEIGHT_ONE);
  }
  const delta = (<i64>WEIGHT_ONE * <i64>(nVnow - vtime)) / <i64>(nVnow - ioc.periodAtVtime);
  const target = <i64>((<u64>WEIGHT_ONE * P.MARGIN_TARGET_PCT) / 100);
  // `WEIGHT_ONE * usage` is a 32-bit product in the kernel (int * u32): it
  // wraps to 0 for usage == WEIGHT_ONE, and new_hwi then clamps to 1.
  let newHwi = <i64>(<u32>(WEIGHT_ONE * usage)) / (<i64>WEIGHT_ONE - target + delta);
  if (newHwi < 1) newHwi = 1;
  if (newHwi > <i64>hwm) newHwi = hwm;
  return <u32>newHwi;
}

function transferSurpluses(ioc: Ioc, t: i64): void {
  // surpluses are iterated newest first (list_add)
  let afterSum: u32 = 0;
  let overSum: u32 = 0;
  overList.length = 0;
  for (let k = surpluses.length - 1; k >= 0; k--) {
    const g = unchecked(iocgs[surpluses.get(k)]);
    currentHweight(g);
    afterSum += g.hweightAfterDonation;
    if (g.hweightAfterDonation > g.hweightActive) {
      overSum += g.hweightAfterDonation;
      overList.push(g.id);
    }
  }
  let overTarget: u32 = 0;
  if (afterSum >= WEIGHT_ONE) {
    const overDelta = afterSum - (WEIGHT_ONE - 1);
    overTarget = overSum - overDelta;
  }
  for (let k = 0; k < overList.length; k++) {
    const g = unchecked(iocgs[overList.get(k)]);
    if (overTarget) g.hweightAfterDonation = <u32>((<u64>g.hweightAfterDonation * overTarget) / overSum);
  }
  innerWalk.length = 0;
  for (let k = surpluses.length - 1; k >= 0; k--) buildInnerWalk(unchecked(iocgs[surpluses.get(k)]));
  const root = unchecked(iocgs[innerWalk.get(0)]);
  for (let i = 0; i < innerWalk.length; i++) {
    const g = unchecked(iocgs[innerWalk.get(i)]);
    g.childAdjustedSum = 0;
    g.hweightDonating = 0;
    g.hweightAfterDonation = 0;
  }
  for (let k = surpluses.length - 1; k >= 0; k--) {
    const g = unchecked(iocgs[surpluses.get(k)]);
    const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
    p.hweightDonating += g.hweightDonating;
    p.hweightAfterDonation += g.hweightAfterDonation;
  }
  for (let i = innerWalk.length - 1; i >= 0; i--) {
    const g = unchecked(iocgs[innerWalk.get(i)]);
    if (g.level > 0) {
      const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
      p.hweightDonating += g.hweightDonating;
      p.hweightAfterDonation += g.hweightAfterDonation;
    }
  }
  for (let i = 0; i < innerWalk.length; i++) {
    const g = unchecked(iocgs[innerWalk.get(i)]);
    if (g.level) {
      const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
      g.hweightActive = <u32>divRoundUp(<u64>p.hweightActive * g.active, p.childActiveSum);
    }
    if (g.hweightDonating > g.hweightActive) g.hweightDonating = g.hweightActive;
    if (g.hweightAfterDonation > g.hweightDonating - 1) g.hweightAfterDonation = g.hweightDonating - 1;
    if (g.hweightActive <= 1 || g.hweightDonating <= 1 || g.hweightAfterDonation == 0) {
      invalidDonations++;
      if (v612()) {
        dissolveWalk();
        return;
      }
    }
  }
  const rootDon = root.hweightDonating < WEIGHT_ONE - 1 ? root.hweightDonating : WEIGHT_ONE - 1;
  const gamma = <u32>divRoundUp(<u64>(WEIGHT_ONE - root.hweightAfterDonation) * WEIGHT_ONE, <u64>(WEIGHT_ONE - rootDon));
  for (let i = 0; i < innerWalk.length; i++) {
    const g = unchecked(iocgs[innerWalk.get(i)]);
    if (g.level == 0) {
      g.childAdjustedSum = divRoundUp(g.childActiveSum * <u64>(WEIGHT_ONE - g.hweightDonating),
        <u64>(WEIGHT_ONE - g.hweightAfterDonation));
      continue;
    }
    const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
    g.hweightInuse = <u32>(divRoundUp(<u64>gamma * <u64>(g.hweightActive - g.hweightDonating), WEIGHT_ONE) +
      <u64>g.hweightAfterDonation);
    const inuse = <u32>divRoundUp(p.childAdjustedSum * <u64>g.hweightInuse, <u64>p.hweightInuse);
    const st = divRoundUp(g.childActiveSum * <u64>g.hweightDonating, <u64>g.hweightActive);
    const sf = g.childActiveSum - st;
    const wpt = divRoundUp(<u64>g.active * <u64>g.hweightDonating, <u64>g.hweightActive);
    const wptp = divRoundUp(<u64>inuse * <u64>g.hweightAfterDonation, <u64>g.hweightInuse);
    g.childAdjustedSum = sf + divRoundUp(st * wptp, wpt);
  }
  for (let k = surpluses.length - 1; k >= 0; k--) {
    const g = unchecked(iocgs[surpluses.get(k)]);
    const p = unchecked(iocgs[unchecked(g.ancestors[g.level - 1])]);
    if (g.absVdebt) continue;
    const inuse = <u32>divRoundUp(p.childAdjustedSum * <u64>g.hweightAfterDonation, <u64>p.hweightInuse);
    traceInuse(T.TR_INUSE_TRANSFER, g, g.inuse, inuse, g.hweightInuse, g.hweightAfterDonation, t);
    propagateWeightsInner(g, g.active, inuse, true);
  }
  dissolveWalk();
}

export let invalidDonations: i32 = 0;

function forgiveDebts(ioc: Ioc, usageUsSum0: u64, nrDebtors: i32, t: i64): void {
  let usageUsSum = usageUsSum0;
  if (!nrDebtors) {
    ioc.dfgvPeriodAt = nUs;
    ioc.dfgvPeriodRem = 0;
    ioc.dfgvUsageUsSum = 0;
    return;
  }
  if (ioc.busyLevel > 0 && usageUsSum < <u64>ioc.periodUs) usageUsSum = ioc.periodUs;
  ioc.dfgvUsageUsSum += usageUsSum;
  if (<i64>(nUs - (ioc.dfgvPeriodAt + P.DFGV_PERIOD_US)) < 0) return;
  const dur = nUs - ioc.dfgvPeriodAt;
  const usagePct = (100 * ioc.dfgvUsageUsSum) / dur;
  ioc.dfgvPeriodAt = nUs;
  ioc.dfgvUsageUsSum = 0;
  if (usagePct > P.DFGV_USAGE_PCT) {
    ioc.dfgvPeriodRem = 0;
    return;
  }
  const total = dur + ioc.dfgvPeriodRem;
  const nrCycles = total / P.DFGV_PERIOD_US;
  ioc.dfgvPeriodRem = total % P.DFGV_PERIOD_US;
  for (let id = ioc.activeHead; id >= 0; ) {
    const g = unchecked(iocgs[id]);
    const next = g.activeNext;
    if (g.absVdebt || g.delay) {
      const oldDebt = g.absVdebt;
      const oldDelay = g.delay;
      const sh = nrCycles < 63 ? nrCycles : 63;
      if (g.absVdebt) {
        const d = g.absVdebt >> sh;
        g.absVdebt = d ? d : 1;
      }
      if (g.delay) {
        const d = g.delay >> sh;
        g.delay = d ? d : 1;
      }
      iocgKickWaitq(g, true);
      T.emit(T.TR_FORGIVE_DEBT, t, ioc.dev, g.cg, nUs, nVnow, usagePct, oldDebt, g.absVdebt, oldDelay, g.delay, 0);
    }
    id = next;
  }
}

function checkIocgs(ioc: Ioc, t: i64): i32 {
  let nrDebtors = 0;
  for (let id = ioc.activeHead; id >= 0; ) {
    const g = unchecked(iocgs[id]);
    const next = g.activeNext;
    ioc.timerVisits++;
    if (g.waitCount == 0 && !g.absVdebt && !g.delay && !iocgIsIdle(g)) {
      id = next;
      continue;
    }
    if (g.waitSince) {
      g.waitUs += nUs - g.waitSince;
      g.waitSince = nUs;
    }
    if (g.indebtSince) {
      g.indebtUs += nUs - g.indebtSince;
      g.indebtSince = nUs;
    }
    if (g.indelaySince) {
      g.indelayUs += nUs - g.indelaySince;
      g.indelaySince = nUs;
    }
    if (g.waitCount > 0 || g.absVdebt || g.delay) {
      iocgKickWaitq(g, true);
      if (g.absVdebt || g.delay) nrDebtors++;
    } else if (iocgIsIdle(g)) {
      const vtime = g.vtime;
      const excess = <i64>(nVnow - vtime) - ioc.marginTarget;
      if (excess > 0) {
        currentHweight(g);
        ioc.vtimeErr -= <i64>((<u64>excess * <u64>g.hweightInuse) / WEIGHT_ONE);
      }
      traceState(T.TR_IOCG_IDLE, g, g.activePeriod, ioc.curPeriod, vtime, t);
      propagateWeightsInner(g, 0, 0, false);
      listDel(ioc, g);
    }
    id = next;
  }
  commitWeights(ioc);
  return nrDebtors;
}

function latStat(ioc: Ioc): void {
  const r = ioc.nrMetR + ioc.nrMissedR;
  const w = ioc.nrMetW + ioc.nrMissedW;
  lsMissedR = r ? <u32>divRoundUp(<u64>ioc.nrMissedR * MILLION, <u64>r) : 0;
  lsMissedW = w ? <u32>divRoundUp(<u64>ioc.nrMissedW * MILLION, <u64>w) : 0;
  lsRqWaitPct = <u32>((ioc.rqWaitNs * 100) / (<u64>ioc.periodUs * P.NSEC_PER_USEC));
  ioc.nrMetR = 0;
  ioc.nrMetW = 0;
  ioc.nrMissedR = 0;
  ioc.nrMissedW = 0;
  ioc.rqWaitNs = 0;
}
let lsMissedR: u32 = 0;
let lsMissedW: u32 = 0;
let lsRqWaitPct: u32 = 0;

/** EV_IOCOST_TIMER: ioc_timer_fn(). */
export function iocTimer(arg: u32, now: i64): void {
  const ioc = iocFor(<i32>arg);
  if (ioc === null || ioc.timerAt != now) return;
  ioc.timerAt = -1;
  ioc.timerRuns++;
  const pprm = ioc.qos[P.QOS_RPPM];
  const pwpm = ioc.qos[P.QOS_WPPM];
  // 6.1 reads the thresholds before taking the lock; same values here
  const ppmRthr = <u32>MILLION - pprm;
  const ppmWthr = <u32>MILLION - pwpm;
  latStat(ioc);
  const missedR = lsMissedR;
  const missedW = lsMissedW;
  const rqWaitPct = lsRqWaitPct;
  iocNow(ioc, now);
  const periodVtime = nVnow - ioc.periodAtVtime;
  if (!periodVtime) return;
  const nrDebtors = checkIocgs(ioc, now);
  flushStat(ioc);
  let nrShortages = 0;
  let nrLagging = 0;
  let usageUsSum: u64 = 0;
  surpluses.length = 0;
  for (let id = ioc.activeHead; id >= 0; id = unchecked(iocgs[id]).activeNext) {
    const g = unchecked(iocgs[id]);
    ioc.timerVisits++;
    const vdone = g.doneVtime;
    const vtime = g.vtime;
    currentHweight(g);
    const hwActive = g.hweightActive;
    const hwInuse = g.hweightInuse;
    if ((ppmRthr != <u32>MILLION || ppmWthr != <u32>MILLION) && !g.useDelay && after64(vtime, vdone) &&
      after64(vtime, nVnow - P.MAX_LAGGING_PERIODS * periodVtime) && <i64>(vdone - (nVnow - periodVtime)) < 0) {
      nrLagging++;
    }
    let usageUs = g.usageDeltaUs;
    usageUsSum += usageUs;
    if (hwInuse < hwActive || (g.waitCount == 0 && <i64>(vtime - (nVnow - <u64>ioc.marginLow)) < 0)) {
      if (vdone != vtime) {
        const inflightUs = divRoundUp(costToAbsCost(vtime - vdone, hwInuse), ioc.vtimeBaseRate);
        if (inflightUs > usageUs) usageUs = inflightUs;
      }
      let usageDur: u64;
      if (after64(g.activatedAt, ioc.periodAt)) usageDur = nUs - g.activatedAt;
      else usageDur = nUs - ioc.periodAt;
      if (usageDur < 1) usageDur = 1;
      // clamp_t(u32, ...) truncates to 32 bits before clamping
      let u = <u32>divRoundUp(usageUs * WEIGHT_ONE, usageDur);
      if (u < 1) u = 1;
      if (u > WEIGHT_ONE) u = WEIGHT_ONE;
      const usage = u;
      currentHweight(g);
      const hwa = g.hweightActive;
      const oldHwi = g.hweightInuse;
      const hwm = currentHweightMax(g);
      const newHwi = hweightAfterDonation(g, oldHwi, hwm, usage);
      if (newHwi < hwm && hwa >= 2) {
        g.hweightDonating = hwa;
        g.hweightAfterDonation = newHwi;
        surpluses.push(g.id);
      } else if (!g.absVdebt) {
        traceInuse(T.TR_INUSE_SHORTAGE, g, g.inuse, g.active, g.hweightInuse, newHwi, now);
        propagateWeightsInner(g, g.active, g.active, true);
        nrShortages++;
      }
    } else {
      nrShortages++;
    }
  }
  if (surpluses.length > 0 && nrShortages) transferSurpluses(ioc, now);
  commitWeights(ioc);
  surpluses.length = 0;

  const prevBusy = ioc.busyLevel;
  if (rqWaitPct > P.RQ_WAIT_BUSY_PCT || missedR > ppmRthr || missedW > ppmWthr) {
    if (ioc.busyLevel < 0) ioc.busyLevel = 0;
    ioc.busyLevel++;
  } else if (rqWaitPct <= (P.RQ_WAIT_BUSY_PCT * P.UNBUSY_THR_PCT) / 100 &&
    missedR <= <u32>((<u64>ppmRthr * P.UNBUSY_THR_PCT) / 100) &&
    missedW <= <u32>((<u64>ppmWthr * P.UNBUSY_THR_PCT) / 100)) {
    if (nrShortages) {
      if (ioc.busyLevel > 0) ioc.busyLevel = 0;
      if (!nrLagging) ioc.busyLevel--;
    } else {
      ioc.busyLevel = 0;
    }
  } else {
    ioc.busyLevel = 0;
  }
  if (ioc.busyLevel > 1000) ioc.busyLevel = 1000;
  if (ioc.busyLevel < -1000) ioc.busyLevel = -1000;

  adjustBaseVrate(ioc, rqWaitPct, nrLagging, nrShortages, prevBusy, missedR, missedW, now);
  refreshParams(ioc, false, now);
  forgiveDebts(ioc, usageUsSum, nrDebtors, now);

  ioc.curPeriod++;
  if (ioc.activeHead >= 0) {
    startPeriod(ioc);
  } else {
    ioc.busyLevel = 0;
    ioc.vtimeErr = 0;
    ioc.running = P.IOC_IDLE;
  }
  refreshVrate(ioc);
}

// ------------------------------------------------------------------ configuration

// Config operations staged by the TypeScript side and applied at their time
// (EV_CONFIG with CFG_IOCOST << 20 | idx, or at once for writes at t = 0).
export const CFG_DFL_WEIGHT: i32 = 1; // cg, value = weight (1..10000)
export const CFG_DEV_WEIGHT: i32 = 2; // cg, dev, value = weight or 0 (default)
export const CFG_QOS: i32 = 3; // dev, mask of params set, enable (-1 keep), user (-1 keep), 6 values
export const CFG_MODEL: i32 = 4; // dev, mask of coefs set, user (-1 keep), 6 values
const CFG_STRIDE: i32 = 12;
const cfgKind = new Vec<i32>(8);
const cfgVals = new Vec<i64>(8 * 12);

export function cfgAdd(kind: i32, cg: i32, dev: i32, mask: i32, a: i32, b: i32): i32 {
  const idx = cfgKind.push(kind);
  cfgVals.ensure(idx * CFG_STRIDE + CFG_STRIDE - 1);
  const o = idx * CFG_STRIDE;
  cfgVals.set(o, cg);
  cfgVals.set(o + 1, dev);
  cfgVals.set(o + 2, mask);
  cfgVals.set(o + 3, a);
  cfgVals.set(o + 4, b);
  return idx;
}

export function cfgSetVal(idx: i32, k: i32, v: i64): void {
  cfgVals.set(idx * CFG_STRIDE + 5 + k, v);
}

export function iocConfigEvent(idx: u32, now: i64): void {
  const i = <i32>idx;
  if (i >= cfgKind.length) return;
  const o = i * CFG_STRIDE;
  const kind = cfgKind.get(i);
  const cg = <i32>cfgVals.get(o);
  const dev = <i32>cfgVals.get(o + 1);
  const mask = <i32>cfgVals.get(o + 2);
  const a = <i32>cfgVals.get(o + 3);
  const b = <i32>cfgVals.get(o + 4);
  if (kind == CFG_DFL_WEIGHT) {
    cgDflWeight(cg);
    dflWeight.set(cg, <u32>a * WEIGHT_ONE);
    for (let d = 0; d < iocs.length; d++) {
      const ioc = iocs[d];
      if (ioc === null) continue;
      const id = iocgIdOf(cg, d);
      if (id >= 0) {
        iocNow(ioc, now);
        weightUpdated(iocgs[id]);
      }
    }
  } else if (kind == CFG_DEV_WEIGHT) {
    const ioc = iocFor(dev);
    if (ioc === null) return; // no iocost on this device: the weight has no policy data
    const g = iocgs[iocgOf(ioc, cg, now)];
    g.cfgWeight = <u32>a * WEIGHT_ONE;
    iocNow(ioc, now);
    weightUpdated(g);
  } else if (kind == CFG_QOS) {
    const ioc = iocInit(dev, now);
    let enable = ioc.enabled;
    let user = ioc.userQos;
    if (a >= 0) enable = a != 0;
    if (b >= 0) user = b != 0;
    if (user) {
      for (let k = 0; k < P.NR_QOS_PARAMS; k++) {
        if (mask & (1 << k)) ioc.qos[k] = <u32>cfgVals.get(o + 5 + k);
      }
      ioc.userQos = true;
    } else {
      ioc.userQos = false;
    }
    ioc.enabled = enable;
    refreshParams(ioc, true, now);
    updateActive();
  } else if (kind == CFG_MODEL) {
    const ioc = iocInit(dev, now);
    let user = ioc.userModel;
    if (b >= 0) user = b != 0;
    if (user) {
      for (let k = 0; k < P.NR_I_LCOEFS; k++) {
        if (mask & (1 << k)) ioc.iLcoefs[k] = <u64>cfgVals.get(o + 5 + k);
      }
      ioc.userModel = true;
    } else {
      ioc.userModel = false;
    }
    refreshParams(ioc, true, now);
    updateActive();
  }
}

function updateActive(): void {
  // any device with an ioc: bios still in flight must be accounted at completion
  let on = false;
  for (let d = 0; d < iocs.length; d++) if (iocs[d] !== null) on = true;
  iocostActive = on;
  setIocostFlag(on);
}

// ------------------------------------------------------------------ readers

export function iocgIdOf(cg: i32, dev: i32): i32 {
  const ioc = iocFor(dev);
  if (ioc === null) return -1;
  const m = ioc.iocgByCg;
  if (cg >= m.length) return -1;
  return m.get(cg) - 1;
}
