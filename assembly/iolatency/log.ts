// State-change log of the rq-qos policies (blk-iolatency, wbt), for the
// timelines the time series and the playground show: one record of 8 i64
// words per change, appended when a group's depth, use_delay or scale
// cookie changes (kind 1: t, dev, cg, max_depth, use_delay, scale_cookie)
// or wbt's limits change (kind 2: t, dev, scale_step, max_depth, wb_normal,
// wb_background, cur_win_nsec). Never read per bio; capped at LOG_CAP
// records (later changes are counted, not kept).

import { Vec } from "../engine/vec";

export const LOG_WORDS: i32 = 8;
const LOG_CAP: i32 = 1 << 20;
export const logBuf = new Vec<i64>(64);
export let logDropped: i32 = 0;

export function resetLog(): void {
  logBuf.length = 0;
  logDropped = 0;
}

export function logChange(kind: i64, t: i64, dev: i64, a: i64, b: i64, c: i64, d: i64, e: i64): void {
  if (logBuf.length >= LOG_CAP * LOG_WORDS) {
    logDropped++;
    return;
  }
  logBuf.push(kind); logBuf.push(t); logBuf.push(dev); logBuf.push(a);
  logBuf.push(b); logBuf.push(c); logBuf.push(d); logBuf.push(e);
}

// One flag for the bio path (engine/path.ts): is any rq-qos policy after
// iocost active (blk-iolatency or wbt)? And one for device.ts start(): does
// anything there need a look at each request (wbt's sync issue, recorded
// driver times)? Kept by the modules, so the per-bio path reads one global.
export let rqosActive: bool = false;
// any rq-qos policy at all, iocost included: the bio path's one check
export let anyQos: bool = false;
let iocostOnFlag: bool = false;
export let deviceStartHooks: bool = false;
let iolatOnFlag: bool = false;
let wbtOnFlag: bool = false;
let svcReplayFlag: bool = false;

export function setRqosFlags(iolat: i32, wbt: i32, svc: i32): void {
  if (iolat >= 0) iolatOnFlag = iolat != 0;
  if (wbt >= 0) wbtOnFlag = wbt != 0;
  if (svc >= 0) svcReplayFlag = svc != 0;
  rqosActive = iolatOnFlag || wbtOnFlag;
  anyQos = rqosActive || iocostOnFlag;
  deviceStartHooks = wbtOnFlag || svcReplayFlag;
}

/** iocost.ts keeps its own flag; mirrored here for anyQos. */
export function setIocostFlag(on: bool): void {
  iocostOnFlag = on;
  anyQos = rqosActive || iocostOnFlag;
}
