// WASM exports of the blk-iolatency model: staged io.latency writes and
// per-grp readers. Nothing here is called per bio.

import { schedule, EV_CONFIG } from "../engine/events";
import { now, CFG_IOLAT } from "../engine/path";
import { Vec } from "../engine/vec";
import * as L from "./iolatency";
import { logBuf, LOG_WORDS } from "./log";

const cfgDev = new Vec<i32>(8);
const cfgCg = new Vec<i32>(8);
const cfgLat = new Vec<u64>(8);

export function iolatSetKernel(v: i32): void {
  L.iolatSetKernel(v);
}

/** Stage an io.latency write (target in ns, 0 = none); returns its index. */
export function iolatCfgAdd(cg: i32, dev: i32, latNs: u64): i32 {
  cfgDev.push(dev);
  cfgCg.push(cg);
  return cfgLat.push(latNs);
}

export function iolatCfgApply(idx: i32): void {
  iolatConfigEvent(<u32>idx, now);
}

export function iolatCfgAt(idx: i32, atNs: i64): void {
  schedule(atNs, EV_CONFIG, (CFG_IOLAT << 20) | <u32>idx);
}

export function iolatConfigEvent(idx: u32, t: i64): void {
  const i = <i32>idx;
  L.iolatSetTarget(cfgDev.get(i), cfgCg.get(i), cfgLat.get(i), t);
}

/** 6.1: the policy exists from disk init; call for every device at setup. */
export function iolatInitDevice(dev: i32): void {
  L.iolatInit(dev, now);
}

export function iolatGrpStat(cg: i32, dev: i32, field: i32): i64 {
  return L.iolatStat(cg, dev, field);
}

export function iolatReset(): void {
  cfgDev.length = 0;
  cfgCg.length = 0;
  cfgLat.length = 0;
}

export function iolatLogPtr(): usize {
  return logBuf.ptr();
}

/** Records in the state-change log (LOG_WORDS i64 each). */
export function iolatLogCount(): i32 {
  return logBuf.length / LOG_WORDS;
}
