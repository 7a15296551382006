// The throttle core's per-bio decision trace, read out of WASM memory after a
// run (one pass, no per-bio calls): arrivals, every decision at every group
// with its reason (which limit, wait in jiffies, slice, allowed vs charged),
// timers armed, dispatches, releases and limit writes.

import type { Simulation } from "../engine/simulation.js";

export const DECISION_KINDS = ["", "arrive", "pass", "queue", "dispatch", "release", "timer", "config", "bypass"] as const;
export const DECISION_REASONS = ["", "iops", "bps", "fifo", "cap"] as const;

export interface Decision {
  timeNs: number;
  job: string | null;
  /** the job's IO index in the simulation (submit order) */
  seq: number;
  kind: (typeof DECISION_KINDS)[number];
  reason: (typeof DECISION_REASONS)[number];
  cgroup: string | null;
  dir: "R" | "W";
  jiffies: bigint;
  waitJiffies: number;
  sliceStart: bigint;
  sliceEnd: bigint;
  allowed: number;
  dispatched: number;
}

interface TraceCore {
  memory: WebAssembly.Memory;
  throtlTraceLength(): number;
  throtlTraceColumn(id: number): number;
}

export function readDecisionTrace(sim: Simulation, shiftNs = 0): Decision[] {
  const core = sim.core as unknown as TraceCore;
  const n = core.throtlTraceLength();
  const buf = core.memory.buffer;
  const i64 = (id: number) => new BigInt64Array(buf, core.throtlTraceColumn(id) >>> 0, n);
  const u64 = (id: number) => new BigUint64Array(buf, core.throtlTraceColumn(id) >>> 0, n);
  const i32 = (id: number) => new Int32Array(buf, core.throtlTraceColumn(id) >>> 0, n);
  const u8 = (id: number) => new Uint8Array(buf, core.throtlTraceColumn(id) >>> 0, n);
  const time = i64(0), job = i32(1), seq = i32(2), kind = u8(3), reason = u8(4), cg = i32(5), dir = u8(6);
  const jf = u64(7), wait = i64(8), ss = u64(9), se = u64(10), al = i64(11), dp = i64(12);
  const jobs = sim.scenario.jobs;
  const paths = sim.context().cgroupPaths();
  const out: Decision[] = [];
  for (let k = 0; k < n; k++) {
    out.push({
      timeNs: Number(time[k]) + shiftNs,
      job: job[k]! >= 0 ? (jobs[job[k]!]?.name ?? null) : null,
      seq: seq[k]!,
      kind: DECISION_KINDS[kind[k]!] ?? "",
      reason: DECISION_REASONS[reason[k]!] ?? "",
      cgroup: cg[k]! >= 0 ? (paths[cg[k]!] ?? null) : null,
      dir: dir[k] ? "W" : "R",
      jiffies: jf[k]!,
      waitJiffies: Number(wait[k]),
      sliceStart: ss[k]!,
      sliceEnd: se[k]!,
      allowed: Number(al[k]),
      dispatched: Number(dp[k]),
    });
  }
  return out;
}
