// WASM exports of the iocost model: configuration staging, the trace buffer
// and per-iocg / per-device readers. Nothing here is called per bio.

import { schedule, EV_CONFIG } from "../engine/events";
import { now, CFG_IOCOST } from "../engine/path";
import * as I from "./iocost";
import * as T from "./trace";

export function iocostSetKernel(v: i32): void {
  I.setKernelVersion(v);
}

/** Stage a config operation (see iocost.ts CFG_*); returns its index. */
export function iocostCfgAdd(kind: i32, cg: i32, dev: i32, mask: i32, a: i32, b: i32): i32 {
  return I.cfgAdd(kind, cg, dev, mask, a, b);
}

export function iocostCfgVal(idx: i32, k: i32, v: i64): void {
  I.cfgSetVal(idx, k, v);
}

/** Apply a staged operation now (writes at t = 0, before the run). */
export function iocostCfgApply(idx: i32): void {
  I.iocConfigEvent(<u32>idx, now);
}

/** Apply a staged operation at simulated time `atNs` (an EV_CONFIG event). */
export function iocostCfgAt(idx: i32, atNs: i64): void {
  schedule(atNs, EV_CONFIG, (CFG_IOCOST << 20) | <u32>idx);
}

/** A recorded delivery of device `dev`'s period timer at `atNs` (trace replay; ascending). */
export function iocostTimerHint(dev: i32, atNs: i64): void {
  I.addTimerHint(dev, atNs);
}

/** A recorded guest stall [a, b) (ns): io.cost's timers due inside it run at b. */
export function iocostFreeze(aNs: i64, bNs: i64): void {
  I.addFreeze(aNs, bNs);
}

/** Mark a job whose bios must not wait (REQ_META/REQ_SWAP-like): they incur debt. */
export function iocostJobUseDebt(job: i32, on: bool): void {
  I.setJobUseDebt(job, on);
}

export function iocostTraceSetup(on: bool, cap: i32): void {
  T.setTrace(on, cap);
}

export function iocostTracePtr(): usize {
  return T.traceBuf.ptr();
}

export function iocostTraceCount(): i32 {
  return T.traceCount();
}

export function iocostTraceDropped(): i32 {
  return T.traceDropped;
}

export function iocostInvalidDonations(): i32 {
  return I.invalidDonations;
}

/** Per-iocg value (cgroup `cg` on device `dev`); 0 when it has none. */
export function iocostIocgStat(cg: i32, dev: i32, field: i32): i64 {
  const id = I.iocgIdOf(cg, dev);
  if (id < 0) return 0;
  const g = I.iocgs[id];
  switch (field) {
    case 0: return <i64>g.lastUsageUs;
    case 1: return <i64>g.lastWaitUs;
    case 2: return <i64>g.lastIndebtUs;
    case 3: return <i64>g.lastIndelayUs;
    case 4: return <i64>g.vtime;
    case 5: return <i64>g.doneVtime;
    case 6: return <i64>g.absVdebt;
    case 7: return <i64>g.active;
    case 8: return <i64>g.inuse;
    case 9: return <i64>g.hweightActive;
    case 10: return <i64>g.hweightInuse;
    case 11: return <i64>g.delay;
    case 12: return <i64>g.weight;
    case 13: return g.onActive ? 1 : 0;
    case 14: return <i64>g.waitCount;
    case 15: return <i64>g.cfgWeight;
  }
  return 0;
}

/** Per-device value of the ioc; -1 when the device has no ioc. */
export function iocostIocStat(dev: i32, field: i32): i64 {
  if (dev >= I.iocs.length) return -1;
  const ioc = I.iocs[dev];
  if (ioc === null) return -1;
  switch (field) {
    case 0: return <i64>ioc.vtimeBaseRate;
    case 1: return <i64>ioc.vtimeRate;
    case 2: return <i64>ioc.busyLevel;
    case 3: return <i64>ioc.periodUs;
    case 4: return <i64>ioc.curPeriod;
    case 5: return ioc.enabled ? 1 : 0;
    case 6: return <i64>ioc.timerRuns;
    case 7: return <i64>ioc.timerVisits;
    case 8: return <i64>ioc.nrActive;
    case 9: return <i64>ioc.vrateMin;
    case 10: return <i64>ioc.vrateMax;
    case 23: return <i64>ioc.autopIdx;
    case 24: return ioc.userQos ? 1 : 0;
    case 25: return ioc.userModel ? 1 : 0;
    case 32: return <i64>ioc.biosWaited;
    case 33: return <i64>ioc.biosDebt;
    case 34: return <i64>ioc.wakeEvents;
  }
  if (field >= 11 && field <= 16) return <i64>ioc.lcoefs[field - 11];
  if (field >= 17 && field <= 22) return <i64>ioc.qos[field - 17];
  if (field >= 26 && field <= 31) return <i64>ioc.iLcoefs[field - 26];
  return 0;
}
