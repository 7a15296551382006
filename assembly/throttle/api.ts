// blk-throttle's WASM exports: configuration, timed limit writes, the
// per-bio decision trace, and a batch micro-benchmark of the decision path.
//
// Nothing here is called per bio: limit writes are staged once each, and the
// trace is read as columns after the run.

import { schedule, EV_CONFIG } from "../engine/events";
import { CFG_THROTTLE } from "../engine/path";
import { allocBio, bioAt } from "../engine/bios";
import { setClock } from "../engine/clock";
import { resetCgroups } from "../engine/cgroups";
import { resetDevices, addDevice } from "../device/device";
import { resetBios } from "../engine/bios";
import * as T from "./throttle";

/** Profile (0 = 6.1, 1 = 6.12, 2 = 6.18), slice (0 = HZ/10), kthrotld latency, trace on/off. */
export function throtlSetup(profile: i32, sliceJiffies: u64, workLatencyNs: i64, traceOn: bool): void {
  T.throtlConfigure(profile, sliceJiffies, workLatencyNs, traceOn);
}

/** A limit write for (cg, dev) taking effect at `atNs`: the four values after
 *  the write, U64_MAX / 0xffffffff meaning unlimited. */
export function throtlWriteLimits(cg: i32, dev: i32, rbps: u64, wbps: u64, riops: u64, wiops: u64, atNs: i64): i32 {
  const idx = T.throtlStageLimits(cg, dev, rbps, wbps, riops, wiops);
  schedule(atNs, EV_CONFIG, (CFG_THROTTLE << 20) | <u32>idx);
  return idx;
}

/** Bios (pieces) that were over a limit when submitted and waited in blk-throttle. */
export function throtlQueued(): i64 {
  return T.throtlQueuedBios();
}

/** The pass window of (cg, dev, dir): 0 = fpLo, 1 = fpLen (0: closed), 2 = fpIos, 3 = fpBytes. */
export function throtlPassWindow(cg: i32, dev: i32, dir: i32, what: i32): i64 {
  return T.throtlPassWindowField(cg, dev, dir, what);
}

export function throtlSlice(): u64 {
  return T.throtlSliceJiffies();
}

/** The timer wheel's firing jiffy for a timer armed for `expires` with base clock `clk`. */
export function throtlWheelFire(expires: u64, clk: u64): u64 {
  return T.wheelFire(expires, clk);
}

// ---- trace columns (ids mirrored in bindings/oracle/trace.ts)
export function throtlTraceLength(): i32 {
  return T.trTime.length;
}

export function throtlTraceColumn(id: i32): usize {
  switch (id) {
    case 0: return T.trTime.ptr();
    case 1: return T.trJob.ptr();
    case 2: return T.trSeq.ptr();
    case 3: return T.trKind.ptr();
    case 4: return T.trReason.ptr();
    case 5: return T.trCg.ptr();
    case 6: return T.trDir.ptr();
    case 7: return T.trJiffies.ptr();
    case 8: return T.trWait.ptr();
    case 9: return T.trSliceStart.ptr();
    case 10: return T.trSliceEnd.ptr();
    case 11: return T.trAllowed.ptr();
    case 12: return T.trDisp.ptr();
  }
  return 0;
}

// ---- micro-benchmark: N throttle decisions inside WASM
//
// One cgroup with riops and rbps limits on one device, one 4 KiB read bio
// resubmitted N times; jiffies advance by one every `perJiffy` decisions.
// Each decision is the kernel's whole per-bio check at the group
// (tg_within_limit: slice start/extend, the bps and iops checks, charge and
// trim on a pass). Returns how many passed (so nothing is optimised away).
export function throtlBenchDecisions(n: i32, profile: i32, perJiffy: i32, iops: u64, bps: u64): i32 {
  return throtlBenchDecisionsSized(n, profile, perJiffy, iops, bps, 4096, 4096, 0);
}

/** The same with two bio sizes: every `everyB`-th decision (0 = none) is of
 *  `sizeB` bytes, the others of `sizeA`. */
export function throtlBenchDecisionsSized(n: i32, profile: i32, perJiffy: i32, iops: u64, bps: u64,
  sizeA: u32, sizeB: u32, everyB: i32): i32 {
  setClock(250, 4294892296 + 2500, 0);
  resetBios();
  resetCgroups(false);
  resetDevices();
  addDevice(1);
  T.resetThrottle();
  T.throtlConfigure(profile, 0, 0, false);
  T.throtlStageLimits(0, 0, bps, 0xffffffffffffffff, iops, 0xffffffff);
  T.throtlConfigEvent(0, 0);
  const slot = allocBio();
  bioAt(slot).size = sizeA;
  bioAt(slot).dir = 0;
  bioAt(slot).cg = 0;
  bioAt(slot).dev = 0;
  bioAt(slot).pieces = 1;
  T.benchStart();
  let passed = 0;
  let j: i64 = 0;
  let k = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    bioAt(slot).flags = 0;
    if (everyB > 0) {
      bioAt(slot).size = ++b == everyB ? sizeB : sizeA;
      if (b == everyB) b = 0;
    }
    if (T.benchDecide(slot, j)) passed++;
    if (++k == perJiffy) {
      k = 0;
      j++;
    }
  }
  return passed;
}

/** Sum of the waits (jiffies) of the decisions that failed in the last batch. */
export function throtlBenchWaitSum(): u64 {
  return T.benchWaitSum;
}
