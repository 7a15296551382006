// The iocost trace buffer: the kernel's iocost tracepoints as fixed-size
// records in WASM memory, read by JavaScript in one batch after a run.
//
// Record layout: TRACE_WORDS u64 words per event
//   [0] event kind   [1] t (ns)   [2] device   [3] cgroup id
//   [4..11] the event's fields, in the order of include/trace/events/iocost.h:
//   iocg_activate / iocg_idle : now, vnow, vrate, last_period, cur_period,
//                               vtime, inuse<<32|weight, hwi<<32|hwa
//   inuse_shortage/transfer/adjust: now, old_inuse, new_inuse, old_hwi, new_hwi
//   ioc_vrate_adj             : old_vrate, new_vrate, busy_level, rmissed_ppm,
//                               wmissed_ppm, rq_wait_pct, nr_lagging, nr_shortages
//   iocg_forgive_debt         : now, vnow, usage_pct, old_debt, new_debt,
//                               old_delay, new_delay
// The buffer stops at `traceCap` records and counts what it dropped, like a
// full ring that does not overwrite.

import { Vec } from "../engine/vec";

export const TRACE_WORDS: i32 = 12;

export const TR_IOCG_ACTIVATE: u64 = 1;
export const TR_IOCG_IDLE: u64 = 2;
export const TR_INUSE_SHORTAGE: u64 = 3;
export const TR_INUSE_TRANSFER: u64 = 4;
export const TR_INUSE_ADJUST: u64 = 5;
export const TR_VRATE_ADJ: u64 = 6;
export const TR_FORGIVE_DEBT: u64 = 7;

export const traceBuf = new Vec<u64>(1024);
export let traceOn: bool = true;
export let traceCap: i32 = 1 << 20;
export let traceDropped: i32 = 0;

export function resetTrace(): void {
  traceBuf.length = 0;
  traceDropped = 0;
  traceOn = true;
  traceCap = 1 << 20;
}

export function setTrace(on: bool, cap: i32): void {
  traceOn = on;
  traceCap = cap;
}

@inline export function traceCount(): i32 {
  return traceBuf.length / TRACE_WORDS;
}

export function emit(kind: u64, t: i64, dev: i32, cg: i32, a: u64, b: u64, c: u64, d: u64, e: u64, f: u64,
  g: u64, h: u64): void {
  if (!traceOn) return;
  if (traceBuf.length / TRACE_WORDS >= traceCap) {
    traceDropped++;
    return;
  }
  traceBuf.push(kind);
  traceBuf.push(<u64>t);
  traceBuf.push(<u64>dev);
  traceBuf.push(<u64>cg);
  traceBuf.push(a);
  traceBuf.push(b);
  traceBuf.push(c);
  traceBuf.push(d);
  traceBuf.push(e);
  traceBuf.push(f);
  traceBuf.push(g);
  traceBuf.push(h);
}
