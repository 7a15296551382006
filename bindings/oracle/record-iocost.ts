// io.cost traces made by `iosim record` (bindings/record): replay them the way
// the oracle's guest iocost traces are replayed (iocost.ts), not IO by IO at
// their recorded submit times.
//
// Why not the throttle replay: a recorded job is a closed loop (each thread
// submits its next IO when the previous one completes). Under io.max that does
// not matter: the replay submits each IO at its recorded time and blk-throttle
// decides when it leaves, from the jiffies alone. Under io.cost it does: a
// cgroup that submits exactly at its share (B at hweight 3/4 of 200 IOs/s: one
// IO per 6.67 ms) waits 4.67 ms per IO in the kernel because its vtime is at
// the edge of the budget; replayed open-loop at the same times, the model's
// iocg starts with the activation margin in hand and never reaches the edge,
// so its IOs pass at once (guest-iocost-fixed run1: B 0.2 ms instead of 6.6 ms,
// A 10 ms instead of 20; 19.6 % of IOs within 4 ms). The replay below runs the
// jobs as the closed loops they were:
//
//   jobs    per recorded job one closed-loop job with the recorded queue depth,
//           direction, block size (the most common recorded size), random or
//           sequential, over the recorded offset span, from the job's first
//           recorded submit to its last; think time = the recorder's own
//           turnaround (median time from a thread's completion to its next
//           submit), a measurement of the recording machine.
//   device  fitted to the trace's own requests (block_rq_issue to
//           block_rq_complete: their median and the log-normal spread from
//           the median absolute deviation, robust to the few requests an
//           emulated guest completes tens of ms late) when the recorder had
//           tracefs; else null_blk's completion_nsec from the header's
//           device facts; else the ideal device.
//   cgroups the header's limits_written (io.cost.model, io.cost.qos,
//           io.weight) at their recorded times.
//   clock   HZ and the jiffies map from the header (or the estimated phase,
//           as for every trace whose map is marked unreliable).
//   timer   the iocost period timer's recorded firings when the trace holds
//           iocost tracepoints ({"type":"trace", "event":"iocost_*"}), as
//           iocost.ts does; else the kernel's own expiry.
//
// Score, per cgroup and direction: the k-th recorded completion against the
// k-th simulated one (within 4 ms, score.ts MATCH_NS; a recorded IO the model
// did not complete is a miss), the IO count (the controller's share), and the
// mean latency (submit to completion) recorded vs simulated. Worked example
// (guest-iocost-fixed run1, 6.1 guest, weights 100:300, vrate pinned, model
// 200 random reads/s): A 253 recorded IOs at 20.0 ms each; the closed-loop
// replay completes A's k-th IO within 4 ms of the kernel's for most k, where the
// open-loop one matched 196 of 1002.

import { InputError } from "../scenario/errors.js";
import { jobDefaults } from "../scenario/defaults.js";
import type { JobSpec, KernelVersion, Scenario } from "../scenario/types.js";
import { Simulation } from "../engine/simulation.js";
import "../engine/modules/index.js";
import { readTrace, type RecordedIo, type RecordedTrace } from "./traces.js";
import { scenarioFromTrace } from "./replay.js";
import { MATCH_NS } from "./score.js";
import { recordedTimerFirings, type IocostTrace } from "./iocost.js";
import { readIocostTrace } from "../engine/modules/iocost.js";
import { registerTraceHandler, type ReplayOptions, type TraceHandler } from "./registry.js";

export interface GroupScore {
  cgroup: string;
  dir: "R" | "W";
  real: number;
  sim: number;
  matched: number;
  share: number;
  p50ErrNs: number;
  maxErrNs: number;
  realLatNs: number;
  simLatNs: number;
  /** the group's last simulated completion less its last recorded one */
  lastDriftNs: number;
  /** the recorded IO (job#seq) with the largest latency error, for `iosim explain` */
  worst?: { job: string; seq: number; errNs: number };
}

export interface RecordIocostScore {
  file: string;
  name: string;
  groups: GroupScore[];
  total: { ios: number; matched: number; share: number };
  device: string;
  timer: string;
}

type Obj = Record<string, any>;

function records(text: string): Obj[] {
  const out: Obj[] = [];
  for (const l of text.split("\n")) {
    if (!l.trim()) continue;
    try {
      out.push(JSON.parse(l));
    } catch {
      /* readTrace already named the bad line */
    }
  }
  return out;
}

/** Requests' issue-to-complete times from the recorder's block tracepoints, paired by sector and length FIFO. */
export function fitBlockEvents(recs: readonly Obj[]): { meanNs: number; sigma: number } | undefined {
  const open = new Map<string, number[]>();
  const lat: number[] = [];
  for (const r of recs) {
    if (r.type !== "block") continue;
    const k = `${r.sector}+${r.nr_sector}`;
    if (r.ev === "issue") {
      const l = open.get(k) ?? [];
      l.push(Number(r.t_ns));
      open.set(k, l);
    } else if (r.ev === "complete") {
      const t0 = open.get(k)?.shift();
      if (t0 !== undefined && Number(r.t_ns) > t0) lat.push(Number(r.t_ns) - t0);
    }
  }
  if (lat.length < 10) return undefined;
  // robust: the median and the median absolute deviation of the logarithm (x 1.4826, sigma of a
  // normal), so that a few requests the emulated guest completed 10-50 ms late (its vCPUs not
  // scheduled) do not widen every simulated request's spread
  const logs = lat.map((x) => Math.log(x));
  const ml = median(logs);
  const mad = median(logs.map((x) => Math.abs(x - ml)));
  return { meanNs: Math.exp(ml), sigma: 1.4826 * mad };
}

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function mode(xs: number[]): number {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  let best = xs[0] ?? 4096;
  let n = -1;
  for (const [k, v] of m) if (v > n || (v === n && k < best)) [best, n] = [k, v];
  return best;
}

export function isRecordIocost(h: Obj): boolean {
  return h.type === "header" && typeof h.jiffies === "object" && !!h.scenario_spec && Array.isArray(h.limits_written) &&
    h.limits_written.some((w: Obj) => w && w.file === "io.cost.qos" && /enable=1/.test(String(w.value)));
}

export interface RecordIocostRun {
  trace: RecordedTrace;
  scenario: Scenario;
  shiftNs: number;
  /** recorded IOs per job, in submit order */
  real: Map<string, RecordedIo[]>;
  /** simulated completions per job (trace time), in completion order */
  sims: Map<string, Array<{ submitNs: number; issueNs: number; completeNs: number }>>;
  device: string;
  timer: string;
  sim: Simulation;
}

/** The closed-loop scenario that replays an io.cost recording (see the top of the file). */
export function recordIocostScenario(text: string, file: string, opts: ReplayOptions = {}): Omit<RecordIocostRun, "sims" | "sim"> {
  const t0 = readTrace(text, file);
  const recs = records(text);
  const h = recs[0]!;
  const fit = fitBlockEvents(recs);
  const nb = (h.device?.null_blk ?? {}) as Obj;
  let device = "ideal device (no block tracepoints, no null_blk facts)";
  let t: RecordedTrace = t0;
  if (fit) {
    t = { ...t0, device: { ...t0.device, fit } };
    device = `fitted to ${recs.filter((r) => r.type === "block" && r.ev === "complete").length} recorded requests: median ${(fit.meanNs / 1e6).toFixed(2)} ms, log-normal sigma ${fit.sigma.toFixed(2)}`;
  } else if (nb.completion_nsec !== undefined) {
    t = { ...t0, device: { ...t0.device, latencyNs: Number(nb.completion_nsec) } };
    device = `null_blk completion_nsec=${nb.completion_nsec}`;
  }
  const o = { kernel: opts.kernel as KernelVersion | undefined, seed: opts.seed };
  // a trace without a reliable jiffies map: the tick phase from the throttle calibration is
  // meaningless here (nothing is held by jiffies); the estimate stands
  const { scenario, shiftNs } = scenarioFromTrace(t, o);
  const real = new Map<string, RecordedIo[]>();
  for (const io of t.ios) {
    const l = real.get(io.job) ?? [];
    l.push(io);
    real.set(io.job, l);
  }
  const specs = new Map<string, Obj>();
  for (const j of (h.scenario_spec?.jobs ?? []) as Obj[]) specs.set(String(j.name), j);
  const jobs: JobSpec[] = [];
  for (const [name, list] of real) {
    list.sort((a, b) => a.submitNs - b.submitNs || a.seq - b.seq);
    const spec = specs.get(name) ?? {};
    const qd = Math.max(1, Number(spec.qd ?? 1));
    // the recorder's turnaround: a thread's completion to its next submit
    const byThread = new Map<number, RecordedIo[]>();
    for (const io of list) byThread.set(io.thread, [...(byThread.get(io.thread) ?? []), io]);
    const gaps: number[] = [];
    for (const l of byThread.values()) for (let k = 1; k < l.length; k++) gaps.push(l[k]!.submitNs - l[k - 1]!.completeNs);
    const think = Math.max(0, Math.round(median(gaps.filter((g) => g >= 0))));
    const offs = list.map((io) => io.off);
    const lo = Math.min(...offs);
    const bs = mode(list.map((io) => io.size));
    const hi = Math.max(...list.map((io) => io.off + io.size));
    const reads = list.filter((io) => io.dir === "R").length;
    const rw = reads === list.length ? "read" : reads === 0 ? "write" : "mixed";
    const start = list[0]!.submitNs - shiftNs;
    const end = list[list.length - 1]!.submitNs - shiftNs + 1;
    jobs.push(jobDefaults({
      name, device: t.device.name, cgroup: list[0]!.cgroup, rw: rw as JobSpec["rw"], mixReadPct: Math.round((100 * reads) / list.length),
      random: spec.random !== false, bs: [{ size: bs, weight: 1 }], offset: lo, regionLen: Math.max(bs, hi - lo), align: bs,
      iodepth: qd, thinktimeNs: think, thinktimeBlocks: 1, startNs: start, runtimeNs: end - start, timeBased: true, direct: true,
      source: { file, line: list[0]!.line },
    }));
  }
  scenario.jobs = jobs;
  // iocost tracepoints, when recorded: the period timer's firings (iocost.ts recordedTimerFirings)
  let timer = "the kernel's own expiry (no iocost tracepoints in the trace)";
  const events = recs.filter((r) => r.type === "trace" && typeof r.event === "string" && r.event.startsWith("iocost_"));
  if (events.length && (opts.periodTimer ?? "recorded") === "recorded") {
    // the recorder's t_ns are relative to t0, the timer's `now` is the kernel's absolute µs
    const t0 = Number(h.t0_mono_ns ?? 0);
    const abs = events.map((e) => ({ ...e, t_ns: Number(e.t_ns) + t0 }));
    const firings = recordedTimerFirings({ events: abs, startNs: t0 + shiftNs } as unknown as IocostTrace);
    if (firings.length) {
      scenario.devices[0]!.iocostTimerNs = firings;
      timer = `${firings.length} recorded firings`;
    }
  }
  scenario.record = true;
  return { trace: t, scenario, shiftNs, real, device, timer };
}

export function replayRecordIocost(text: string, file: string, opts: ReplayOptions = {}): RecordIocostRun {
  const base = recordIocostScenario(text, file, opts);
  const sim = new Simulation(base.scenario);
  const res = sim.runToEnd();
  const sims = new Map<string, Array<{ submitNs: number; issueNs: number; completeNs: number }>>();
  for (const r of res.records ?? []) {
    if (r.readahead) continue;
    const l = sims.get(r.job) ?? [];
    l.push({ submitNs: r.submitNs + base.shiftNs, issueNs: r.issueNs + base.shiftNs, completeNs: r.completeNs + base.shiftNs });
    sims.set(r.job, l);
  }
  for (const l of sims.values()) l.sort((a, b) => a.completeNs - b.completeNs);
  return { ...base, sims, sim };
}

export function scoreRecordIocost(run: RecordIocostRun): RecordIocostScore {
  const groups: GroupScore[] = [];
  const keyed = new Map<string, { cgroup: string; dir: "R" | "W"; real: RecordedIo[]; sim: Array<{ submitNs: number; completeNs: number }> }>();
  for (const [job, list] of run.real) {
    for (const io of list) {
      const k = `${io.cgroup}\u0000${io.dir}`;
      const g = keyed.get(k) ?? { cgroup: io.cgroup, dir: io.dir, real: [], sim: [] };
      g.real.push(io);
      keyed.set(k, g);
    }
    const dirOf = list[0]!.dir;
    const k = `${list[0]!.cgroup}\u0000${dirOf}`;
    keyed.get(k)!.sim.push(...(run.sims.get(job) ?? []));
  }
  let ios = 0;
  let matched = 0;
  for (const g of [...keyed.values()].sort((a, b) => (a.cgroup < b.cgroup ? -1 : a.cgroup > b.cgroup ? 1 : a.dir < b.dir ? -1 : 1))) {
    // the k-th IO by submit order, recorded and simulated: its latency (submit to completion)
    const real = [...g.real].sort((a, b) => a.submitNs - b.submitNs || a.seq - b.seq);
    const sim = [...g.sim].sort((a, b) => a.submitNs - b.submitNs || a.completeNs - b.completeNs);
    const errs: number[] = [];
    let m = 0;
    let worst: GroupScore["worst"];
    for (let k = 0; k < real.length; k++) {
      const s = sim[k];
      const r = real[k]!;
      const e = s === undefined ? Infinity : Math.abs((r.completeNs - r.submitNs) - (s.completeNs - s.submitNs));
      errs.push(e);
      if (e <= MATCH_NS) m++;
      if (Number.isFinite(e) && (!worst || e > worst.errNs)) worst = { job: r.job, seq: r.seq, errNs: e };
    }
    const fin = errs.filter(Number.isFinite).sort((a, b) => a - b);
    const lat = (l: Array<{ submitNs: number; completeNs: number }>) => (l.length ? l.reduce((a, x) => a + x.completeNs - x.submitNs, 0) / l.length : 0);
    const last = (l: Array<{ completeNs: number }>) => l.reduce((a, x) => Math.max(a, x.completeNs), -Infinity);
    groups.push({
      cgroup: g.cgroup, dir: g.dir, real: real.length, sim: sim.length, matched: m, share: real.length ? m / real.length : 1,
      p50ErrNs: fin.length ? fin[fin.length >> 1]! : 0, maxErrNs: fin.length ? fin[fin.length - 1]! : 0,
      realLatNs: lat(real), simLatNs: lat(sim), lastDriftNs: sim.length ? last(sim) - last(real) : 0, worst,
    });
    ios += real.length;
    matched += m;
  }
  return { file: run.trace.file, name: run.trace.name, groups, total: { ios, matched, share: ios ? matched / ios : 1 }, device: run.device, timer: run.timer };
}

export function formatRecordIocost(s: RecordIocostScore): string {
  const ms = (x: number) => (x / 1e6).toFixed(2);
  const l = [`${s.name} (io.cost, closed-loop replay): ${s.total.matched}/${s.total.ios} IO latencies within 4 ms (${(100 * s.total.share).toFixed(2)}%)`,
    `  device ${s.device}; period timer ${s.timer}`];
  const tot = (k: "real" | "sim") => s.groups.reduce((a, g) => a + g[k], 0) || 1;
  for (const g of s.groups) {
    l.push(`  ${g.cgroup || "/"} ${g.dir}: ${g.matched}/${g.real} within 4 ms (${(100 * g.share).toFixed(1)}%); IOs ${g.real} real, ${g.sim} sim ` +
      `(share ${(100 * g.real / tot("real")).toFixed(1)}% vs ${(100 * g.sim / tot("sim")).toFixed(1)}%); mean latency ${ms(g.realLatNs)} vs ${ms(g.simLatNs)} ms; latency err p50 ${ms(g.p50ErrNs)} max ${ms(g.maxErrNs)} ms; last completion ${g.lastDriftNs >= 0 ? "+" : ""}${ms(g.lastDriftNs)} ms`);
    if (g.worst && g.share < 0.95) l.push(`    largest error: iosim explain ${s.file} --job ${g.worst.job} --seq ${g.worst.seq}`);
  }
  return l.join("\n");
}

/** `iosim explain` for one IO of an io.cost recording: what the model's io.cost did with the same IO. */
export function explainRecordIocost(text: string, file: string, job: string, seq: number): string[] {
  const run = replayRecordIocost(text, file);
  const list = run.real.get(job);
  if (!list) throw new InputError(`no job "${job}" in the trace (jobs: ${[...run.real.keys()].join(", ")})`, file, undefined, "--job");
  const k = list.findIndex((io) => io.seq === seq);
  if (k < 0) throw new InputError(`no IO ${job}#${seq} in the trace`, file, undefined, "--seq");
  const io = list[k]!;
  const sims = [...(run.sims.get(job) ?? [])].sort((a, b) => a.submitNs - b.submitNs);
  const s = sims[k];
  const ms = (x: number) => `${(x / 1e6).toFixed(2)} ms`;
  const out = [`IO ${job}#${seq} (${io.dir} ${io.size} B at ${io.off}) is the ${k + 1}th of job ${job} in cgroup ${io.cgroup || "/"} (io.cost; closed-loop replay, see \`iosim compare\`).`,
    `Recorded: submitted ${ms(io.submitNs)}, completed ${ms(io.completeNs)} (${ms(io.completeNs - io.submitNs)}).`];
  if (!s) {
    out.push(`The model completed only ${sims.length} IOs of ${job}: it gave this cgroup less than the kernel did.`);
    return out;
  }
  const simLat = s.completeNs - s.submitNs;
  const realLat = io.completeNs - io.submitNs;
  out.push(`Simulated ${k + 1}th IO: submitted ${ms(s.submitNs)}, waited ${ms(s.issueNs - s.submitNs)} in io.cost (its vtime over the budget: each IO costs ` +
    `its model cost / hweight_inuse), device ${ms(s.completeNs - s.issueNs)}, completed ${ms(s.completeNs)}: latency ${ms(simLat)} against the kernel's ${ms(realLat)} ` +
    `(${Math.abs(simLat - realLat) <= MATCH_NS ? "within" : "outside"} 4 ms).`);
  // the cgroup's last iocost event before then, in the model and (when recorded) in the kernel
  const ctx = run.sim.context();
  const simTr = readIocostTrace(run.sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name));
  type Ev = { t: number; cg: string; event: string; hw?: number };
  const last = (evs: Ev[], at: number) => {
    let v: Ev | undefined;
    for (const e of evs) if (e.t <= at && e.cg.endsWith("/" + io.cgroup)) v = e;
    return v;
  };
  const hwOf = (e: Record<string, any>) => (Array.isArray(e.hw_inuse) ? e.hw_inuse[1] : Array.isArray(e.hweight) ? e.hweight[0] : undefined);
  const say = (e: Ev | undefined) => (e ? `${e.event.replace(/^iocost_/, "")} at ${ms(e.t)}${e.hw !== undefined ? ` (hweight_inuse ${((100 * e.hw) / 65536).toFixed(1)} %)` : ""}` : "none");
  const simLast = last(simTr.map((e) => ({ t: e.tNs + run.shiftNs, cg: e.cgroup ?? "", event: e.event, hw: hwOf(e as Record<string, any>) })), s.issueNs);
  const recs = records(text).filter((r) => r.type === "trace" && typeof r.cgroup === "string");
  const realLast = last(recs.map((r) => ({ t: Number(r.t_ns), cg: r.cgroup, event: r.event, hw: hwOf(r) })), io.completeNs);
  out.push(`Cgroup ${io.cgroup}'s last iocost event before then: model ${say(simLast)}; kernel ${recs.length ? say(realLast) : "(no iocost tracepoints recorded)"}.`);
  return out;
}

export const recordIocostTraceHandler: TraceHandler = {
  kind: "record-iocost",
  detect: (h) => isRecordIocost(h as Obj),
  replay(text, file, opts) {
    const run = replayRecordIocost(text, file, opts);
    const out = [JSON.stringify({ type: "replay", source: file, trace_kind: "record-iocost", name: run.trace.name, kernel: run.scenario.kernel,
      recorded_kernel: run.trace.kernelString, device: run.device, timer: run.timer, shift_ns: run.shiftNs })];
    for (const [job, l] of run.sims) {
      const real = [...(run.real.get(job) ?? [])].sort((a, b) => a.completeNs - b.completeNs);
      l.forEach((s, k) => out.push(JSON.stringify({ job, k, cgroup: real[0]?.cgroup ?? "", submit_ns: s.submitNs, issue_ns: s.issueNs, complete_ns: s.completeNs,
        recorded_complete_ns: real[k]?.completeNs ?? null })));
    }
    return out;
  },
  compare(text, file, opts) {
    const s = scoreRecordIocost(replayRecordIocost(text, file, opts));
    return { score: s as unknown as Record<string, unknown>, text: formatRecordIocost(s) };
  },
};

registerTraceHandler(recordIocostTraceHandler);
