// Guest iocost traces (Linux 6.1 guest oracle: iocost_{met,fixed,miss,donate}.jsonl):
// rebuild what was run, replay it in the simulator and score it.
//
// What the guest ran (guest/tests/iocost_common.sh): null_blk (blk-mq, timer
// completion after completion_nsec, hw_queue_depth 128, no scheduler), the
// io.cost.model / io.cost.qos / io.weight values recorded in the header's
// `config`, and per cgroup one `iotest` (QD threads doing synchronous 4 KiB
// O_DIRECT random reads for dur_ms, optionally on/off duty cycle -P on:off
// measured from the program's start t0). The replay uses:
//
//   device  latency = completion_nsec; channels = calibration QD; channel
//           occupancy = calib_qd / calib_iops - completion_nsec, so that the
//           calibration run (QD 32, no controller) gives the calibrated IOPS
//   jobs    per iotest one closed-loop job (iodepth = qd, random reads over
//           its span) starting at the cgroup's first recorded submit, ending
//           dur_ms after t0; with a duty cycle one job per "on" window
//   t = 0   config.start_ns (the bins' origin)
//   timer   the period timer's recorded deliveries (opts.periodTimer "recorded",
//           the default): ioc_timer_fn re-arms itself at jiffies +
//           usecs_to_jiffies(period), but a guest's host delivers that tick
//           late or early, so the guest's periods run 40-48 ms where the
//           kernel's own arithmetic says 44 (iocost_donate: 136 periods,
//           mean 44.5 ms). Drift moves the period boundaries against the
//           workload; "is B idle" is decided per period, so a boundary 5 ms
//           off decides whether B's last IO falls in the period before or
//           after it (iocost_donate: B first marked idle at 593 ms real; the
//           kernel's timing says 628, one period later). The deliveries are
//           read from the timer's own tracepoints (see recordedTimerFirings)
//           and each simulated run fires at its recorded delivery, the one
//           nearest its kernel expiry from half a period before it to a
//           period after it (assembly/iocost hintedExpiry()); everything the
//           timer decides is still the model's. "kernel" ignores them.
//
// Outputs: 100 ms bins of completions per cgroup (same shape as
// iocost_*_bins.jsonl) and vrate samples from iocost_ioc_vrate_adj.

import { maxOf, minOf } from "../util/extent.js";
import { Simulation } from "../engine/simulation.js";
import { defaultClock, jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import type { DeviceSpec, JobSpec, KernelVersion, Scenario } from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import { readIocostTrace, type IocostTraceEvent, VTIME_PER_USEC, iocostCore } from "../engine/modules/iocost.js";
import "../engine/modules/iocost.js";
import { registerTraceHandler, type ReplayOptions, type TraceHandler } from "./registry.js";

const BIN_NS = 100_000_000;

export interface IocostTrace {
  file: string;
  test: string;
  header: Record<string, any>;
  config: Record<string, string>;
  startNs: number;
  endNs: number;
  iotests: Array<{ cg: string; iotest: Record<string, any>; n: number }>;
  ios: Map<string, Array<{ submit: number; complete: number }>>;
  events: Array<Record<string, any>>;
}

export function parseIocostTrace(text: string, file: string): IocostTrace {
  const lines = text.split("\n");
  let header: Record<string, any> | undefined;
  const iotests: IocostTrace["iotests"] = [];
  const ios = new Map<string, Array<{ submit: number; complete: number }>>();
  const events: Array<Record<string, any>> = [];
  lines.forEach((l, i) => {
    if (!l.trim()) return;
    let r: any;
    try {
      r = JSON.parse(l);
    } catch {
      throw new InputError("not JSON", file, i + 1);
    }
    if (r.type === "test") header = r;
    else if (r.type === "iotest") iotests.push(r);
    else if (r.type === "io") {
      if (!ios.has(r.cg)) ios.set(r.cg, []);
      ios.get(r.cg)!.push({ submit: r.submit_ns, complete: r.complete_ns });
    } else if (r.type === "trace") events.push(r);
  });
  if (!header) throw new InputError("no header record ({\"type\":\"test\"})", file, 1);
  const config = header.config as Record<string, string>;
  if (!config || !config["io.cost.qos"] || !config["start_ns"]) {
    throw new InputError("header has no iocost config (io.cost.qos, start_ns)", file, 1, "config");
  }
  return {
    file, test: String(header.test ?? ""), header, config, startNs: Number(config["start_ns"]),
    endNs: Number(config["end_ns"] ?? 0), iotests, ios, events,
  };
}

// Tracepoints emitted only from ioc_timer_fn (6.1), and the field holding the timer's `now`.
const TIMER_FN_EVENTS = new Set(["iocost_iocg_idle", "iocost_inuse_shortage", "iocost_inuse_transfer", "iocost_iocg_forgive_debt"]);
const SAME_FIRING_NS = 5_000_000; // one ioc_timer_fn's tracepoints lie within ~3 ms; periods are >= 20 ms

function timerNowNs(e: Record<string, any>): number | undefined {
  const v = e.now;
  const us = typeof v === "number" ? v : typeof v === "string" ? Number(v.split(":")[0]) : NaN;
  return Number.isFinite(us) ? us * 1000 : undefined;
}

/**
 * When the period timer ran, from the trace's tracepoints (ns, t = 0 at config.start_ns).
 * ioc_timer_fn emits iocg_idle, inuse_shortage, inuse_transfer and iocg_forgive_debt (each with
 * the timer's `now`, in µs) and ends with ioc_vrate_adj (no `now`; emitted only when the busy
 * level moves or cgroups lag). Events within 5 ms form one run; its time is the earliest `now`,
 * else the earliest trace timestamp less the median tracepoint lag (timestamp - now) measured on
 * the runs that have both.
 */
export function recordedTimerFirings(tr: IocostTrace): number[] {
  const pts = tr.events
    .filter((e) => e.event === "iocost_ioc_vrate_adj" || TIMER_FN_EVENTS.has(e.event))
    .map((e) => ({ t: Number(e.t_ns), now: TIMER_FN_EVENTS.has(e.event) ? timerNowNs(e) : undefined }))
    .filter((p) => Number.isFinite(p.t))
    .sort((a, b) => a.t - b.t);
  const runs: Array<{ t: number; now?: number }> = [];
  let cur: { t: number; now?: number; last: number } | undefined;
  for (const p of pts) {
    if (!cur || p.t - cur.last > SAME_FIRING_NS) {
      cur = { t: p.t, now: p.now, last: p.t };
      runs.push(cur);
    } else {
      cur.last = p.t;
      if (p.now !== undefined && (cur.now === undefined || p.now < cur.now)) cur.now = p.now;
    }
  }
  const lags = runs.filter((r) => r.now !== undefined).map((r) => r.t - r.now!).sort((a, b) => a - b);
  const lag = lags.length ? lags[lags.length >> 1]! : 0;
  return runs.map((r) => (r.now ?? r.t - lag) - tr.startNs).filter((t) => t > 0);
}

/** The scenario the guest test ran, t = 0 at config.start_ns. */
export function iocostScenario(tr: IocostTrace, opts: ReplayOptions = {}): Scenario {
  const dev = tr.header.device ?? {};
  const nb = String(dev.null_blk ?? "");
  const kv = (k: string, d: number) => {
    const m = new RegExp(`(?:^|\\s)${k}=(\\d+)`).exec(nb);
    return m ? Number(m[1]) : d;
  };
  const latencyNs = kv("completion_nsec", 2_000_000);
  const calib = tr.header.calib ?? { qd: 32, dur_ms: 1000, ios: 10000 };
  const perIoNs = (calib.qd * calib.dur_ms * 1e6) / calib.ios;
  const occNs = Math.max(1000, perIoNs - latencyNs);
  const channels = Number(calib.qd) || 32;
  const iops = (channels * 1e9) / occNs;
  const devno = String(dev.dev ?? "253:0");
  const devName = String(tr.events.find((e) => e.dev)?.dev ?? "nullb0");
  const pts: Array<[number, number]> = [[4096, iops]];
  const device: DeviceSpec = {
    name: devName, devno, kind: "custom", channels, nrRequests: Number(dev.nr_requests ?? 128), latencyNs,
    jitterSigma: 0, maxSectorsKb: 128, rotational: String(dev.rotational ?? "0") === "1",
    curve: { read: { seq: pts, rand: pts }, write: { seq: pts, rand: pts } },
  };
  if ((opts.periodTimer ?? "recorded") === "recorded") {
    const firings = recordedTimerFirings(tr);
    if (firings.length) device.iocostTimerNs = firings;
  }
  const cgNames = tr.iotests.map((t) => t.cg);
  const cgroups = cgNames.map((cg) => {
    const w = tr.config[`${cg}.io.weight`];
    const files: Record<string, string> = {};
    if (w) files["io.weight"] = w.trim().split(/\s+/).slice(0, 2).join(" ");
    return { path: cg, files };
  });
  const root = {
    path: "",
    files: {} as Record<string, string>,
  };
  // io.cost.model first, as the test script does (it creates the ioc with enable=0)
  if (tr.config["io.cost.model"]) root.files["io.cost.model"] = tr.config["io.cost.model"];
  root.files["io.cost.qos"] = tr.config["io.cost.qos"]!;
  const jobs: JobSpec[] = [];
  for (const t of tr.iotests) {
    const it = t.iotest;
    const t0 = Number(it.t0_ns) - tr.startNs;
    const endT = t0 + Number(it.dur_ms) * 1e6;
    const rec = tr.ios.get(t.cg) ?? [];
    const first = rec.length ? minOf(rec.map((r) => r.submit)) - tr.startNs : t0;
    const base = jobDefaults({
      name: t.cg, device: devName, cgroup: t.cg, rw: it.op === "write" ? "write" : "read",
      random: it.pattern === "rand", bs: [{ size: Number(it.bs), weight: 1 }], regionLen: Number(it.span),
      align: Number(it.bs), iodepth: Number(it.qd), direct: true,
    });
    const on = Number(it.on_ms ?? 0) * 1e6;
    const off = Number(it.off_ms ?? 0) * 1e6;
    if (on > 0) {
      for (let k = 0, w0 = t0; w0 < endT; k++, w0 = t0 + k * (on + off)) {
        const s = Math.max(w0, first);
        const e = Math.min(w0 + on, endT);
        if (e <= s) continue;
        jobs.push({ ...base, name: `${t.cg}.${k}`, startNs: Math.round(s), runtimeNs: Math.round(e - s), timeBased: true });
      }
    } else {
      jobs.push({ ...base, startNs: Math.round(first), runtimeNs: Math.round(endT - first), timeBased: true });
    }
  }
  const kernel = (opts.kernel ?? "6.1") as KernelVersion;
  return scenarioDefaults({
    name: `replay ${tr.test || tr.file}`, kernel, seed: opts.seed ?? 1, clock: defaultClock(250),
    devices: [device], cgroups: [root, ...cgroups], jobs, seriesBinNs: BIN_NS,
    // the guest booted with blk_cgroup.blkcg_debug_stats=1 (test/fixtures/oracle/guest/README.md),
    // so its io.stat samples carry cost.wait/indebt/indelay
    blkcgDebugStats: true,
    durationNs: Math.max(tr.endNs - tr.startNs, ...jobs.map((j) => j.startNs + (j.runtimeNs ?? 0))) + 1e9,
    source: { file: tr.file },
  });
}

export interface IocostOutcome {
  bins: Array<Record<string, number>>;
  vrate: Array<{ t_ms: number; pct: number }>;
  events: Array<{ event: string; t_ms: number; cgroup?: string }>;
  vrateMaxPct: number;
}

/** Run the replay and collect bins, vrate samples and iocg events. */
export function simulateIocostTrace(tr: IocostTrace, opts: ReplayOptions = {}): IocostOutcome & { trace: IocostTraceEvent[] } {
  const sc = iocostScenario(tr, opts);
  const sim = new Simulation(sc);
  const res = sim.runToEnd();
  const names = tr.iotests.map((t) => t.cg);
  const perBin = new Map<number, Record<string, number>>();
  let nb = 0;
  for (const s of res.series) {
    const k = Math.round(s.t0Ns / BIN_NS);
    if (!names.includes(s.cgroup)) continue;
    const row = perBin.get(k) ?? {};
    row[s.cgroup] = (row[s.cgroup] ?? 0) + s.ios;
    perBin.set(k, row);
    nb = Math.max(nb, k + 1);
  }
  const bins: Array<Record<string, number>> = [];
  for (let k = 0; k < nb; k++) {
    const row: Record<string, number> = { bin: k, t0_ms: k * 100 };
    for (const n of names) row[n] = perBin.get(k)?.[n] ?? 0;
    bins.push(row);
  }
  const ctx = sim.context();
  const trace = readIocostTrace(sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name));
  const vrateMax = Number(iocostCore(sim.core).iocostIocStat(0, 10));
  return {
    bins,
    vrate: trace.filter((e) => e.event === "iocost_ioc_vrate_adj")
      .map((e) => ({ t_ms: e.tNs / 1e6, pct: ((e.vrate as number[])[1]! / VTIME_PER_USEC) * 100 })),
    events: trace.filter((e) => e.event === "iocost_iocg_activate" || e.event === "iocost_iocg_idle")
      .map((e) => ({ event: e.event, t_ms: e.tNs / 1e6, cgroup: e.cgroup })),
    vrateMaxPct: (vrateMax / VTIME_PER_USEC) * 100,
    trace,
  };
}

/** The same measures from the recorded trace. */
export function recordedIocost(tr: IocostTrace): IocostOutcome {
  const names = tr.iotests.map((t) => t.cg);
  const per = new Map<number, Record<string, number>>();
  let nb = 0;
  for (const n of names) {
    for (const r of tr.ios.get(n) ?? []) {
      const k = Math.floor((r.complete - tr.startNs) / BIN_NS);
      const row = per.get(k) ?? {};
      row[n] = (row[n] ?? 0) + 1;
      per.set(k, row);
      nb = Math.max(nb, k + 1);
    }
  }
  const bins: Array<Record<string, number>> = [];
  for (let k = 0; k < nb; k++) {
    const row: Record<string, number> = { bin: k, t0_ms: k * 100 };
    for (const n of names) row[n] = per.get(k)?.[n] ?? 0;
    bins.push(row);
  }
  const maxM = /max=([\d.]+)/.exec(tr.config["io.cost.qos"] ?? "");
  return {
    bins,
    vrate: tr.events.filter((e) => e.event === "iocost_ioc_vrate_adj")
      .map((e) => ({ t_ms: (e.t_ns - tr.startNs) / 1e6, pct: (e.vrate[1] / VTIME_PER_USEC) * 100 })),
    events: tr.events.filter((e) => e.event === "iocost_iocg_activate" || e.event === "iocost_iocg_idle")
      .map((e) => ({ event: e.event, t_ms: (e.t_ns - tr.startNs) / 1e6, cgroup: e.cgroup })),
    vrateMaxPct: maxM ? Number(maxM[1]) : 10000,
  };
}

export interface IocostScore {
  test: string;
  shareBA: { real: number; sim: number; relErr: number };
  perBinShareB: { maxAbsErr: number; meanAbsErr: number; bins: number };
  vrate: { meanAbsErrPct: number; reachBoundMs: { real: number | null; sim: number | null } };
  firstIdleMs: Record<string, { real: number | null; sim: number | null }>;
  /**
   * Per cgroup with an on/off duty cycle: for each "on" window, the delay from the window's end to
   * the cgroup's iocost_iocg_idle (ms), real and simulated, and their means over windows where
   * both have one.
   */
  idleAfterBurstMs: Record<string, { real: Array<number | null>; sim: Array<number | null>; meanReal: number | null; meanSim: number | null }>;
  /** mean completions per bin of the others while a cgroup is idle (bins where it completed nothing) */
  aloneRate: Record<string, { real: number | null; sim: number | null }>;
  activations: { real: Array<[string, number]>; sim: Array<[string, number]> };
}

function vrateAt(samples: Array<{ t_ms: number; pct: number }>, t: number): number {
  let v = 100;
  for (const s of samples) {
    if (s.t_ms > t) break;
    v = s.pct;
  }
  return v;
}

export function scoreIocost(tr: IocostTrace, real: IocostOutcome, sim: IocostOutcome): IocostScore {
  const [a, b] = tr.iotests.map((t) => t.cg) as [string, string];
  const tot = (o: IocostOutcome, n: string) => o.bins.reduce((s, r) => s + (r[n] ?? 0), 0);
  const rShare = tot(real, b) / Math.max(1, tot(real, a));
  const sShare = tot(sim, b) / Math.max(1, tot(sim, a));
  // per-bin B share after the first bin, over bins where both runs completed something
  const errs: number[] = [];
  const n = Math.min(real.bins.length, sim.bins.length);
  for (let k = 1; k < n; k++) {
    const r = real.bins[k]!, s = sim.bins[k]!;
    const rt = (r[a] ?? 0) + (r[b] ?? 0), st = (s[a] ?? 0) + (s[b] ?? 0);
    if (rt < 20 || st < 20) continue; // the tail after the run
    errs.push(Math.abs((r[b] ?? 0) / rt - (s[b] ?? 0) / st));
  }
  const end = Math.min(real.bins.length, sim.bins.length) * 100;
  const grid: number[] = [];
  for (let t = 0; t < end; t += 10) grid.push(t);
  const vErr = grid.length ? grid.reduce((s, t) => s + Math.abs(vrateAt(real.vrate, t) - vrateAt(sim.vrate, t)), 0) / grid.length : 0;
  const reach = (o: IocostOutcome) => o.vrate.find((v) => v.pct >= o.vrateMaxPct - 1e-6)?.t_ms ?? null;
  const firstIdle: IocostScore["firstIdleMs"] = {};
  const alone: IocostScore["aloneRate"] = {};
  for (const [x, y] of [[a, b], [b, a]] as Array<[string, string]>) {
    const fi = (o: IocostOutcome) => o.events.find((e) => e.event === "iocost_iocg_idle" && e.cgroup === "/" + x &&
      e.t_ms < (tr.endNs - tr.startNs) / 1e6 - 50)?.t_ms ?? null;
    firstIdle[x] = { real: fi(real), sim: fi(sim) };
    const al = (o: IocostOutcome) => {
      const rows = o.bins.slice(1, -2).filter((r) => (r[x] ?? 0) === 0 && (r[y] ?? 0) > 0);
      return rows.length ? rows.reduce((s, r) => s + (r[y] ?? 0), 0) / rows.length : null;
    };
    alone[y + " while " + x + " idles"] = { real: al(real), sim: al(sim) };
  }
  const idleAfter: IocostScore["idleAfterBurstMs"] = {};
  for (const t of tr.iotests) {
    const on = Number(t.iotest.on_ms ?? 0), off = Number(t.iotest.off_ms ?? 0);
    if (!(on > 0)) continue;
    const t0 = (Number(t.iotest.t0_ns) - tr.startNs) / 1e6;
    const endMs = t0 + Number(t.iotest.dur_ms);
    const delays = (o: IocostOutcome): Array<number | null> => {
      const idles = o.events.filter((e) => e.event === "iocost_iocg_idle" && e.cgroup === "/" + t.cg).map((e) => e.t_ms);
      const out: Array<number | null> = [];
      for (let w = t0 + on; w < endMs; w += on + off) {
        const next = idles.find((x) => x >= w && x < w + off);
        out.push(next === undefined ? null : next - w);
      }
      return out;
    };
    const r = delays(real), sm = delays(sim);
    const both = r.map((x, i) => [x, sm[i]] as const).filter(([x, y]) => x !== null && y !== null && y !== undefined) as Array<[number, number]>;
    const mean = (v: number[]) => (v.length ? v.reduce((a2, b2) => a2 + b2, 0) / v.length : null);
    idleAfter[t.cg] = { real: r, sim: sm, meanReal: mean(both.map((x) => x[0])), meanSim: mean(both.map((x) => x[1])) };
  }
  const acts = (o: IocostOutcome) => o.events.filter((e) => e.event === "iocost_iocg_activate")
    .map((e) => [e.cgroup ?? "", Math.round(e.t_ms)] as [string, number]);
  return {
    test: tr.test,
    shareBA: { real: rShare, sim: sShare, relErr: Math.abs(sShare - rShare) / rShare },
    perBinShareB: { maxAbsErr: errs.length ? maxOf(errs) : 0, meanAbsErr: errs.length ? errs.reduce((s, e) => s + e, 0) / errs.length : 0, bins: errs.length },
    vrate: { meanAbsErrPct: vErr, reachBoundMs: { real: reach(real), sim: reach(sim) } },
    firstIdleMs: firstIdle,
    idleAfterBurstMs: idleAfter,
    aloneRate: alone,
    activations: { real: acts(real), sim: acts(sim) },
  };
}

function fmt(x: number | null, d = 1): string {
  return x === null ? "-" : x.toFixed(d);
}

export function formatIocostScore(s: IocostScore): string {
  const l: string[] = [];
  l.push(`iocost trace ${s.test}: real vs simulated`);
  l.push(`  B/A share         ${s.shareBA.real.toFixed(3)} vs ${s.shareBA.sim.toFixed(3)}  (error ${(s.shareBA.relErr * 100).toFixed(2)}%)`);
  l.push(`  per-bin B share   max |err| ${(s.perBinShareB.maxAbsErr * 100).toFixed(2)} pp, mean ${(s.perBinShareB.meanAbsErr * 100).toFixed(2)} pp over ${s.perBinShareB.bins} bins`);
  l.push(`  vrate             mean |err| ${s.vrate.meanAbsErrPct.toFixed(2)} pp; reaches bound at ${fmt(s.vrate.reachBoundMs.real)} vs ${fmt(s.vrate.reachBoundMs.sim)} ms`);
  for (const [k, v] of Object.entries(s.firstIdleMs)) l.push(`  ${k} first idle      ${fmt(v.real)} vs ${fmt(v.sim)} ms`);
  for (const [k, v] of Object.entries(s.idleAfterBurstMs)) {
    const list = (a: Array<number | null>) => a.map((x) => fmt(x, 0)).join(" ");
    l.push(`  ${k} idle after burst mean ${fmt(v.meanReal)} vs ${fmt(v.meanSim)} ms  (real ${list(v.real)}; sim ${list(v.sim)})`);
  }
  for (const [k, v] of Object.entries(s.aloneRate)) l.push(`  ${k}: ${fmt(v.real)} vs ${fmt(v.sim)} IOs per 100 ms`);
  l.push(`  activations real  ${s.activations.real.map(([c, t]) => `${c}@${t}`).join(" ")}`);
  l.push(`  activations sim   ${s.activations.sim.map(([c, t]) => `${c}@${t}`).join(" ")}`);
  return l.join("\n");
}

export const iocostTraceHandler: TraceHandler = {
  kind: "guest-iocost",
  detect(header: Record<string, unknown>): boolean {
    const cfg = header["config"] as Record<string, unknown> | undefined;
    // (buffered-read traces under io.cost are bufread.ts's: their reads are not O_DIRECT)
    return header["type"] === "test" && !!cfg && typeof cfg["io.cost.qos"] === "string" && !String(header["test"] ?? "").startsWith("bufread");
  },
  replay(text: string, file: string, opts: ReplayOptions): string[] {
    const tr = parseIocostTrace(text, file);
    const sim = simulateIocostTrace(tr, opts);
    const out = [JSON.stringify({ type: "replay", kind: "guest-iocost", test: tr.test, source: file, kernel: opts.kernel ?? "6.1" })];
    for (const b of sim.bins) out.push(JSON.stringify(b));
    for (const v of sim.vrate) out.push(JSON.stringify({ type: "vrate", t_ms: Math.round(v.t_ms * 1000) / 1000, pct: Math.round(v.pct * 100) / 100 }));
    return out;
  },
  compare(text: string, file: string, opts: ReplayOptions) {
    const tr = parseIocostTrace(text, file);
    const score = scoreIocost(tr, recordedIocost(tr), simulateIocostTrace(tr, opts));
    return { score: score as unknown as Record<string, unknown>, text: formatIocostScore(score) };
  },
};

registerTraceHandler(iocostTraceHandler);
