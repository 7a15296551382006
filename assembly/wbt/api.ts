// WASM exports of the wbt model: staged wbt_lat_usec writes and readers.
// Nothing here is called per bio.

import { schedule, EV_CONFIG } from "../engine/events";
import { now, CFG_WBT } from "../engine/path";
import { Vec } from "../engine/vec";
import * as W from "./wbt";

const cfgDev = new Vec<i32>(8);
const cfgLat = new Vec<i64>(8);
const cfgState = new Vec<i32>(8);

/** Stage a wbt_lat_usec write: latency in ns (-1 = the device's default) and the enable_state it leaves. */
export function wbtCfgAdd(dev: i32, latNs: i64, state: i32): i32 {
  cfgDev.push(dev);
  cfgState.push(state);
  return cfgLat.push(latNs);
}

export function wbtCfgApply(idx: i32): void {
  wbtConfigEvent(<u32>idx, now);
}

export function wbtCfgAt(idx: i32, atNs: i64): void {
  schedule(atNs, EV_CONFIG, (CFG_WBT << 20) | <u32>idx);
}

export function wbtConfigEvent(idx: u32, t: i64): void {
  const i = <i32>idx;
  W.wbtSetMinLat(cfgDev.get(i), cfgLat.get(i), cfgState.get(i), t);
}

/** wbt_init() with the device's defaults (wbt_enable_default). */
export function wbtEnableDefault(dev: i32): void {
  W.wbtInit(dev, now);
}

export function wbtDevStat(dev: i32, field: i32): i64 {
  return W.wbtStat(dev, field);
}

export function wbtReset(): void {
  cfgDev.length = 0;
  cfgLat.length = 0;
  cfgState.length = 0;
}
