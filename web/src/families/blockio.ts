// The block-IO families (plain engine, blk-throttle, blk-iocost, writeback)
// share one way to run and one view; each adds its own built-ins, its own
// availability check and its own extra panels.
//
// Running: a built-in Scenario (or the built-in with its cgroup.conf and
// jobs.fio replaced by the user's edited text), the seed and kernel version
// from the request, run in a fresh Simulation in batches of BATCH_EVENTS so
// the worker can report progress; the RunResult is hashed (lib/digest.ts)
// before anything else touches it.
//
// The view, per cgroup that runs jobs ("capped", "free", ...):
//   MiB/s    = bytes the cgroup did itself (io.stat rbytes+wbytes, own)
//              / (last completion of its jobs - first job start), in 2^20 B/s
//   IOPS     = ios the same way
//   mean/p99 = from the merged fio latency histograms of its jobs
//   wait     = total time its bios were held by blk-throttle
// Worked example (io.max demo, capped at rbps=20971520 over 10 s): about
// 210 MiB done in 10.0 s -> "21.00" MiB/s shown; its jobs' 4 KiB reads
// -> ~5 400 IOPS.
// Charts: the same per 100 ms bin of the run's time series.

import {
  controlModules, InputError, KERNEL_VERSIONS, parseFioJobFile, percentilesFromPlat, Simulation,
  type KernelVersion, type RunResult, type Scenario,
} from "../iosim.js";
import { DEVICE_CHOICES, deviceSizes, withDevice } from "./devices.js";
import { CGCONF_FILE, formatCgConf, parseCgConf } from "../lib/cgconf.js";
import { FIO_FILE, formatFioJobs, keepPatterns } from "../lib/fiofmt.js";
import { resultHash } from "../lib/digest.js";
import type { ChartPanel, Family, FamilyInfo, Panel, RunRequest, RunView, ScenarioInfo, TablePanel } from "./types.js";

export const BATCH_EVENTS = 1 << 18;
const MiB = 1 << 20;

export interface BlockBuiltin {
  id: string;
  title: string;
  description: string;
  size?: string;
  build(): Scenario;
}

export interface BlockFamilyOptions {
  id: string;
  title: string;
  /** undefined when the capability is in this build, else why not */
  missing(): Promise<string | undefined>;
  builtins(): Promise<BlockBuiltin[]>;
  /** adjust the scenario before it runs (e.g. turn a module's trace on) */
  prepare?(s: Scenario): Scenario;
  /** panels beyond throughput and latency, from the result and the finished simulation */
  extras?(result: RunResult, sim: Simulation, s: Scenario): Promise<Panel[]>;
  /** ask the core to keep one record per bio (for per-bio panels) */
  record?: boolean;
}

export interface BlockFamily extends Family {
  /** the exact Scenario a request runs (for Node-side checks) */
  scenario(req: RunRequest): Promise<Scenario>;
}

/** Is there a control module for this interface file in the build? */
export function hasControlFile(file: string): boolean {
  return controlModules().some((m) => m.handles(file));
}

export function blockFamily(o: BlockFamilyOptions): BlockFamily {
  let cache: Promise<BlockBuiltin[]> | undefined;
  const builtins = () => (cache ??= o.builtins());

  async function scenario(req: RunRequest): Promise<Scenario> {
    const list = await builtins();
    const b = list.find((x) => x.id === req.scenario);
    if (!b) throw new InputError(`no built-in scenario "${req.scenario}" in ${o.title}`, "url", undefined, "scenario");
    const base = b.build();
    if (!(KERNEL_VERSIONS as readonly string[]).includes(req.version)) {
      throw new InputError(`unknown kernel version "${req.version}" (have ${KERNEL_VERSIONS.join(", ")})`, "url", undefined, "version");
    }
    const s: Scenario = { ...withDevice(base, req.device), seed: req.seed, kernel: req.version as KernelVersion, record: base.record || !!o.record };
    if (!req.files) return o.prepare ? o.prepare(s) : s;
    const conf = req.files[CGCONF_FILE];
    if (conf !== undefined) Object.assign(s, parseCgConf(conf));
    const fio = req.files[FIO_FILE];
    const formatted = formatFioJobs(base.jobs);
    if (fio !== undefined && fio !== formatted.text) {
      const devices = s.devices.map((d) => d.name);
      const parsed = parseFioJobFile(fio, FIO_FILE, { devices, defaultDevice: devices[0], deviceSizes: deviceSizes(s.devices) });
      s.jobs = keepPatterns(parsed.jobs, base.jobs);
      s.source = { file: FIO_FILE };
      (s as Scenario & { parseWarnings?: string[] }).parseWarnings = parsed.warnings;
    }
    return o.prepare ? o.prepare(s) : s;
  }

  return {
    id: o.id,
    title: o.title,
    scenario,
    async load(): Promise<FamilyInfo> {
      const reason = await o.missing();
      const list = reason ? [] : await builtins();
      return {
        id: o.id,
        title: o.title,
        available: !reason,
        reason,
        versions: [...KERNEL_VERSIONS],
        defaultVersion: "6.18",
        versionLabel: "kernel",
        devices: [...DEVICE_CHOICES],
        fixes: [],
        files: [
          { name: CGCONF_FILE, syntax: "cgroup interface writes" },
          { name: FIO_FILE, syntax: "fio job file" },
        ],
        scenarios: list.map((b): ScenarioInfo => {
          const s = b.build();
          return {
            id: b.id, title: b.title, description: b.description, size: b.size, version: s.kernel,
            files: { [CGCONF_FILE]: formatCgConf(s), [FIO_FILE]: formatFioJobs(s.jobs).text },
          };
        }),
      };
    },
    async run(req, onProgress): Promise<RunView> {
      const s = await scenario(req);
      const sim = new Simulation(s);
      while (!sim.step(BATCH_EVENTS)) {
        const p = sim.progress();
        onProgress(p.fraction, p.simulatedNs);
      }
      const result = sim.result();
      const hash = resultHash(result);
      const extra = (await o.extras?.(result, sim, s)) ?? [];
      const warnings = [...((s as Scenario & { parseWarnings?: string[] }).parseWarnings ?? []), ...result.warnings];
      return {
        family: o.id, scenario: req.scenario, label: `Linux ${s.kernel}`, seed: s.seed, hash,
        wallMs: result.wallMs, simulatedNs: result.simulatedNs, events: result.events,
        summary: cgroupSummary(result, s), panels: [...blockCharts(result, s), ...extra], warnings,
      };
    },
  };
}

/** cgroups that run jobs, in the order the jobs name them. */
export function jobCgroups(s: Scenario): string[] {
  const out: string[] = [];
  for (const j of s.jobs) {
    const p = j.cgroup.split("/").filter(Boolean).join("/");
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

export const cgLabel = (p: string) => (p === "" ? "(root)" : p);

/** Per-cgroup MiB/s as the page shows it (see the header). */
export function cgroupRates(r: RunResult, s: Scenario): Array<{ cgroup: string; readMiBs: number; writeMiBs: number; iops: number; spanNs: number }> {
  return jobCgroups(s).map((cg) => {
    const jobs = r.jobs.filter((j) => j.cgroup === cg);
    const specs = s.jobs.filter((j) => j.cgroup.split("/").filter(Boolean).join("/") === cg);
    const start = Math.min(...specs.map((j) => j.startNs));
    const end = Math.max(...jobs.map((j) => j.lastDoneNs));
    const spanNs = Math.max(1, end - start);
    const own = Object.values(r.cgroups.find((c) => c.path === cg)?.own ?? {});
    const sum = (f: (c: (typeof own)[number]) => number) => own.reduce((a, c) => a + f(c), 0);
    return {
      cgroup: cg,
      readMiBs: sum((c) => c.rbytes) / MiB / (spanNs / 1e9),
      writeMiBs: sum((c) => c.wbytes) / MiB / (spanNs / 1e9),
      iops: sum((c) => c.rios + c.wios) / (spanNs / 1e9),
      spanNs,
    };
  });
}

function fmtLat(ns: number): string {
  if (!Number.isFinite(ns) || ns <= 0) return "–";
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  return `${(ns / 1e3).toFixed(1)} µs`;
}

function cgroupSummary(r: RunResult, s: Scenario): TablePanel {
  const rates = cgroupRates(r, s);
  return {
    kind: "table", id: "cgroups", title: "Per cgroup",
    columns: ["cgroup", "read MiB/s", "write MiB/s", "IOPS", "mean latency", "p99 latency", "throttle wait"],
    rows: rates.map((x) => {
      const jobs = r.jobs.filter((j) => j.cgroup === x.cgroup);
      let n = 0, sum = 0;
      let hist: Uint32Array | undefined;
      for (const j of jobs) {
        for (const d of [j.read, j.write]) {
          if (!d.ios) continue;
          n += d.ios;
          sum += d.lat.mean * d.ios;
          const h = d.lat.histogram;
          if (!hist) hist = new Uint32Array(h.length);
          for (let i = 0; i < h.length; i++) hist[i]! += h[i]!;
        }
      }
      const p99 = hist ? (percentilesFromPlat(hist, [99])[0]?.ns ?? NaN) : NaN;
      const wait = r.cgroups.find((c) => c.path === x.cgroup)?.throttleWaitNs;
      const waitNs = wait ? wait.read + wait.write : 0;
      return {
        key: cgLabel(x.cgroup),
        cells: [cgLabel(x.cgroup), x.readMiBs.toFixed(2), x.writeMiBs.toFixed(2), Math.round(x.iops).toString(),
          fmtLat(n ? sum / n : NaN), fmtLat(p99), waitNs ? `${(waitNs / 1e9).toFixed(2)} s` : "0"],
      };
    }),
    note: "MiB/s = io.stat bytes of the cgroup itself / (last completion − first job start)",
  };
}

function blockCharts(r: RunResult, s: Scenario): ChartPanel[] {
  if (!r.seriesBinNs || r.series.length === 0) return [];
  const cgs = jobCgroups(s);
  const bins = Math.max(...r.series.map((b) => b.t0Ns / r.seriesBinNs)) + 1;
  const x = Array.from({ length: bins }, (_, i) => ((i + 0.5) * r.seriesBinNs) / 1e9);
  const perCg = (f: (b: RunResult["series"][number]) => number, agg: "sum" | "max") =>
    cgs.map((cg) => {
      const v: Array<number | null> = new Array(bins).fill(agg === "sum" ? 0 : null);
      for (const b of r.series) {
        if (b.cgroup !== cg) continue;
        const i = b.t0Ns / r.seriesBinNs;
        const val = f(b);
        v[i] = agg === "sum" ? (v[i] as number) + val : Math.max(v[i] ?? 0, val);
      }
      return { label: cgLabel(cg), values: v };
    });
  const bw = perCg((b) => b.bytes / MiB / (r.seriesBinNs / 1e9), "sum");
  // mean latency per bin across directions, weighted by ios
  const mean = cgs.map((cg) => {
    const n = new Array(bins).fill(0), t = new Array(bins).fill(0);
    for (const b of r.series) if (b.cgroup === cg) { const i = b.t0Ns / r.seriesBinNs; n[i] += b.ios; t[i] += b.meanLatNs * b.ios; }
    return { label: cgLabel(cg), values: n.map((k, i) => (k ? t[i] / k / 1e6 : null)) };
  });
  const p99 = perCg((b) => b.p99LatNs / 1e6, "max");
  const binMs = r.seriesBinNs / 1e6;
  return [
    { kind: "chart", id: "throughput", title: "Throughput per cgroup", unit: "MiB/s", x, series: bw, note: `per ${binMs} ms bin` },
    { kind: "chart", id: "latency", title: "Mean completion latency", unit: "ms", x, series: mean },
    { kind: "chart", id: "p99", title: "p99 completion latency", unit: "ms", x, series: p99 },
  ];
}
