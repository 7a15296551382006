// Replay a recorded trace in the simulator: same cgroups, same limit writes
// at their recorded times, same device, the recorded jiffies phase, and each
// IO submitted at its recorded submit time (job pattern "replay").
//
// Time: the core never sees negative times, so the run is shifted to start at
// the earliest event of the trace (a limit write 200 ms before t0 becomes
// t = 0) and every output time is shifted back. The clock is set so the
// simulated jiffies equal the kernel's at every instant:
//   jiffies_sim(s) = jiffies_trace(s + shift).

import type { DeviceSpec, JobSpec, KernelVersion, Scenario } from "../scenario/types.js";
import { jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import { Simulation } from "../engine/simulation.js";
import "../engine/modules/index.js"; // control modules (io.max, blkio.throttle.*)
import type { ScenarioWithThrottle } from "../engine/modules/throttle.js";
import { idealDevice, WORK_LATENCY_NS, RELEASE_LATENCY_MIN_NS } from "./device.js";
import { readTrace, traceJiffies, type RecordedIo, type RecordedTrace } from "./traces.js";
import { readDecisionTrace, type Decision } from "./decisions.js";

export interface SimIo {
  io: RecordedIo;
  submitNs: number;
  releaseNs: number;
  completeNs: number;
}

export interface ReplayRun {
  trace: RecordedTrace;
  scenario: Scenario;
  shiftNs: number;
  sims: SimIo[];
  /** buffered reads: the readahead bios the page cache issued (trace time) */
  bios?: Array<{ job: string; cgroup: string; off: number; size: number; submitNs: number; issueNs: number; completeNs: number }>;
  decisions?: Decision[];
  /** a closed-loop replay (io.cost buffered reads): sims pair the k-th recorded read with the model's k-th */
  closedLoop?: { simReads: number };
}

export interface ReplayOpts {
  kernel?: KernelVersion;
  seed?: number;
  trace?: boolean;
  workLatencyNs?: number;
}

/** Build the iosim scenario that replays `t`. */
export function scenarioFromTrace(t: RecordedTrace, opts: ReplayOpts = {}): { scenario: ScenarioWithThrottle; shiftNs: number; order: Map<string, RecordedIo[]> } {
  const work = opts.workLatencyNs ?? WORK_LATENCY_NS;
  let shift = Infinity;
  for (const w of t.writes) shift = Math.min(shift, w.atNs);
  for (const io of t.ios) shift = Math.min(shift, io.submitNs);
  if (!Number.isFinite(shift)) shift = 0;
  shift = Math.floor(shift) - 1_000_000; // 1 ms of margin before the first event
  // clock: an estimated phase is where held IOs' completions start, i.e. the
  // tick plus the fastest release path
  let clock = t.clock;
  if (clock.source === "estimated" || clock.source === "calibrated") {
    clock = { ...clock, originAfterTickNs: clock.originAfterTickNs + RELEASE_LATENCY_MIN_NS };
  }
  const tick = clock.tickNs;
  const x = shift + clock.originAfterTickNs;
  const after = ((x % tick) + tick) % tick;
  const jiffiesAtZero = traceJiffies(clock, shift);
  const order = new Map<string, RecordedIo[]>();
  for (const io of t.ios) {
    const l = order.get(io.job) ?? [];
    l.push(io);
    order.set(io.job, l);
  }
  const jobs: JobSpec[] = [];
  // a read the guest got to late (RecordedIo.enterNs) is submitted then
  const at = (io: RecordedIo) => io.enterNs ?? io.submitNs;
  for (const [name, list] of order) {
    list.sort((a, b) => at(a) - at(b) || a.submitNs - b.submitNs || a.seq - b.seq);
    const pc = t.pageCache;
    jobs.push(jobDefaults({
      name, device: t.device.name, cgroup: list[0]!.cgroup, iodepth: list.length,
      ...(pc ? { direct: false, fadvise: pc.fadvise[name] ?? "none", invalidate: false, ...(pc.raServiceNs?.[name] ? { readaheadServiceNs: pc.raServiceNs[name] } : {}),
        ...(pc.raCpuNs?.[name] ? { readaheadCpuNs: pc.raCpuNs[name] } : {}) } : {}),
      pattern: { kind: "replay", ios: list.map((io) => ({ tNs: at(io) - shift, off: io.off, size: io.size, dir: io.dir })) },
      source: { file: t.file, line: list[0]!.line },
    }));
  }
  const scenario: ScenarioWithThrottle = scenarioDefaults({
    name: `replay:${t.name}`,
    kernel: opts.kernel ?? t.kernel,
    cgroupVersion: t.cgroupVersion,
    seed: opts.seed ?? 1,
    clock: { hz: clock.hz, jiffiesAtZero, zeroAfterTickNs: after },
    devices: [{
      ...idealDevice(t.device.name, t.device.devno, { maxSectorsKb: t.device.maxSectorsKb, rotational: t.device.rotational, nrRequests: t.device.nrRequests }),
      ...(t.pageCache ? { readAheadKb: t.pageCache.readAheadKb, sizeBytes: t.pageCache.sizeBytes } : {}),
      ...(t.pageCache?.guestStallsNs?.length ? { guestStallsNs: t.pageCache.guestStallsNs.map(([a, b]): [number, number] => [a - shift, b - shift]) } : {}),
      ...(t.pageCache?.iocostTimerNs?.length ? { iocostTimerNs: t.pageCache.iocostTimerNs.map((x) => x - shift).filter((x) => x > 0) } : {}),
      ...(t.device.latencyNs !== undefined ? { latencyNs: t.device.latencyNs } : {}),
      ...(t.device.fit ? fittedDevice(t.device.fit) : {}),
    }],
    cgroups: t.cgroups.map((p) => ({ path: p })),
    jobs,
    writes: t.writes.map((w) => ({ atNs: w.atNs - shift, cgroup: w.cgroup, file: w.file, value: w.value, source: { file: t.file, line: w.line, field: w.file } })),
    record: true,
    source: { file: t.file },
  });
  scenario.throttle = { workLatencyNs: work, trace: opts.trace ?? false };
  return { scenario, shiftNs: shift, order };
}

/** A device whose service time is the recorded mean with the recorded spread (log-normal). */
export function fittedDevice(fit: { meanNs: number; sigma: number }): Pick<DeviceSpec, "latencyNs" | "jitterSigma" | "curve" | "channels"> {
  const channels = 256;
  const iops = (channels * 1e9) / Math.max(1, fit.meanNs);
  const flat: Array<[number, number]> = [[512, iops], [1 << 20, iops]];
  return { channels, latencyNs: 0, jitterSigma: fit.sigma, curve: { read: { seq: flat, rand: flat }, write: { seq: flat, rand: flat } } };
}

/** Calibrate the tick phase of a trace recorded without a jiffies map.
 *
 * The first guess (estimateTickPhase: where held IOs' completions start,
 * minus the fastest release path) is only as good as the recording host's
 * release latency is short and steady; under emulation (the 6.1 guest runs
 * on TCG) a release takes 2-5 ms and the guess can land a jiffy off, which
 * moves every slice started by a limit write. The phase is the one unknown
 * of such a trace, so we replay it under 16 phases across the tick (250 us
 * apart) and keep the one whose completions match the recording best (ties:
 * nearest the first guess). A user's own trace without a jiffies map gets
 * the same calibration; traces with a map are never calibrated. */
export function calibrateClock(t: RecordedTrace, opts: ReplayOpts = {}, score: (sims: SimIo[]) => number): RecordedTrace {
  if (t.clock.source !== "estimated") return t;
  const tick = t.clock.tickNs;
  const steps = 16;
  let best = t;
  let bestScore = -1;
  let bestDist = Infinity;
  for (let k = 0; k < steps; k++) {
    const delta = Math.round((k * tick) / steps);
    const cand: RecordedTrace = { ...t, clock: { ...t.clock, originAfterTickNs: t.clock.originAfterTickNs + delta, source: "calibrated" } };
    const run = replayTrace(cand, opts);
    const sc = score(run.sims);
    const dist = Math.min(delta, tick - delta);
    if (sc > bestScore || (sc === bestScore && dist < bestDist)) {
      best = cand;
      bestScore = sc;
      bestDist = dist;
    }
  }
  return best;
}

/** Replay a parsed trace. */
export function replayTrace(t: RecordedTrace, opts: ReplayOpts = {}): ReplayRun {
  const { scenario, shiftNs, order } = scenarioFromTrace(t, opts);
  const sim = new Simulation(scenario);
  const res = sim.runToEnd();
  const sims: SimIo[] = [];
  const bios: NonNullable<ReplayRun["bios"]> = [];
  for (const r of res.records ?? []) {
    if (r.readahead) {
      bios.push({ job: r.job, cgroup: r.cgroup, off: r.off, size: r.size, submitNs: r.submitNs + shiftNs, issueNs: r.issueNs + shiftNs, completeNs: r.completeNs + shiftNs });
      continue;
    }
    const io = order.get(r.job)?.[r.seq];
    if (!io) continue;
    sims.push({ io, submitNs: r.submitNs + shiftNs, releaseNs: r.releaseNs + shiftNs, completeNs: r.completeNs + shiftNs });
  }
  const decisions = opts.trace ? readDecisionTrace(sim, shiftNs) : undefined;
  return { trace: t, scenario, shiftNs, sims, decisions, ...(t.pageCache ? { bios } : {}) };
}

export function replayText(text: string, file: string, opts: ReplayOpts = {}): ReplayRun {
  return replayTrace(readTrace(text, file), opts);
}

/** JSON Lines for `iosim replay`: the header, then one record per IO. */
export function replayLines(run: ReplayRun): string[] {
  const t = run.trace;
  const out: string[] = [];
  out.push(JSON.stringify({
    type: "replay", source: t.file, trace_kind: t.kind, name: t.name, kernel: run.scenario.kernel, recorded_kernel: t.kernelString,
    cgroup_version: t.cgroupVersion, clock: { hz: t.clock.hz, source: t.clock.source, jiffies_at_zero: run.scenario.clock.jiffiesAtZero.toString(), zero_after_tick_ns: run.scenario.clock.zeroAfterTickNs, shift_ns: run.shiftNs },
    header: t.header,
  }));
  const sorted = [...run.sims].sort((a, b) => a.io.submitNs - b.io.submitNs || a.io.seq - b.io.seq);
  for (const s of sorted) {
    out.push(JSON.stringify({
      job: s.io.job, seq: s.io.seq, cgroup: s.io.cgroup, dir: s.io.dir, size: s.io.size, submit_ns: s.io.submitNs,
      release_ns: s.releaseNs, complete_ns: s.completeNs, recorded_complete_ns: s.io.completeNs,
    }));
  }
  return out;
}
