// The block-IO families (plain engine, blk-throttle, blk-iocost, writeback)
// share one way to run and one view; each adds its own built-ins, its own
// availability check and its own extra panels.
//
// Running: a built-in Scenario (or the built-in with its cgroup.conf and
// jobs.fio replaced by the user's edited text), the seed and kernel version
// from the request, run in a fresh Simulation in batches of BATCH_EVENTS so
// the worker can report progress; the RunResult is hashed (bindings/report/result-hash.ts)
// before anything else touches it.
//
// The view, per cgroup that runs jobs ("capped", "free", ...):
//   MiB/s    = bytes the cgroup did itself (io.stat rbytes+wbytes, own)
//              / (last completion of its jobs - first job start), in 2^20 B/s
//   IOPS     = ios the same way
//   mean/p99 = from the merged fio latency histograms of its jobs
//   wait     = mean time a bio was held by blk-throttle (total / io.stat bios,
//              as the CLI's summary)
// With buffered writes (a job with direct=0 that writes) the table shows what
// the jobs wrote into the page cache next to what io.stat charged to the
// cgroup (bufferedSummary), since the flusher's writes happen after the jobs'
// span and are charged to the inode's owner.
// Worked example (io.max demo, capped at rbps=20971520 over 10 s): about
// 210 MiB done in 10.0 s -> "21.00" MiB/s shown; its jobs' 4 KiB reads
// -> ~5 400 IOPS.
// Charts: the same per 100 ms bin of the run's time series.

import {
  controlModules, fioDiskUtil, InputError, KERNEL_VERSIONS, parseFioJobFile, percentilesFromPlat, Simulation,
  type KernelVersion, type RunResult, type Scenario,
} from "../iosim.js";
import { DEVICE_CHOICES, deviceSizes, withDevice } from "./devices.js";
import { CGCONF_FILE, formatCgConf, parseCgConf } from "../lib/cgconf.js";
import { FIO_FILE, formatFioJobs, keepPatterns } from "../lib/fiofmt.js";
import { resultHash } from "../../../bindings/report/result-hash.js";
import type { ChartPanel, Family, FamilyInfo, Panel, RunRequest, RunView, ScenarioInfo, TablePanel } from "./types.js";

export const BATCH_EVENTS = 1 << 18;
const MiB = 1 << 20;

export interface BlockBuiltin {
  id: string;
  title: string;
  description: string;
  size?: string;
  build(): Scenario;
  /** for a family with its own file (BlockFamilyOptions.file): the file's text */
  text?: string;
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
  /**
   * The scenario is one file of the family's own (a whole `iosim run`
   * scenario YAML) instead of a built-in's cgroup.conf and jobs.fio: `load`
   * reads the edited text (or the built-in's `text`) into the Scenario.
   */
  file?: { name: string; syntax: string; load(text: string, name: string): { scenario: Scenario; warnings: string[] } };
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
    if (!(KERNEL_VERSIONS as readonly string[]).includes(req.version)) {
      throw new InputError(`unknown kernel version "${req.version}" (have ${KERNEL_VERSIONS.join(", ")})`, "url", undefined, "version");
    }
    if (o.file) {
      const loaded = o.file.load(req.files?.[o.file.name] ?? b.text ?? "", o.file.name);
      const own: Scenario = { ...withDevice(loaded.scenario, req.device), seed: req.seed, kernel: req.version as KernelVersion, record: loaded.scenario.record || !!o.record };
      (own as Scenario & { parseWarnings?: string[] }).parseWarnings = loaded.warnings;
      return o.prepare ? o.prepare(own) : own;
    }
    const base = b.build();
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
      s.durationNs = stopFor(s.jobs, base);
      s.source = { file: FIO_FILE };
      (s as Scenario & { parseWarnings?: string[] }).parseWarnings = parsed.warnings;
    }
    return o.prepare ? o.prepare(s) : s;
  }

  /**
   * The stop time for edited jobs: a built-in that stops at a set time (the
   * io.max demo at 11 s: its 10 s jobs + 1 s) moves it out with the edited
   * jobs' runtimes, keeping the same margin after the last one. Before, a
   * jobs.fio edited to runtime=30s was cut at 11 s with no word.
   */
  function stopFor(jobs: Scenario["jobs"], base: Scenario): number | undefined {
    if (base.durationNs === undefined) return undefined;
    const end = (js: Scenario["jobs"]) => Math.max(0, ...js.map((j) => j.startNs + (j.runtimeNs ?? 0)));
    const margin = Math.max(0, base.durationNs - end(base.jobs));
    return Math.max(base.durationNs, end(jobs) + margin);
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
        files: o.file ? [{ name: o.file.name, syntax: o.file.syntax }] : [
          { name: CGCONF_FILE, syntax: "cgroup interface writes" },
          { name: FIO_FILE, syntax: "fio job file" },
        ],
        scenarios: list.map((b): ScenarioInfo => {
          const s = b.build();
          return {
            id: b.id, title: b.title, description: b.description, size: b.size, version: s.kernel,
            files: o.file ? { [o.file.name]: b.text ?? "" } : { [CGCONF_FILE]: formatCgConf(s), [FIO_FILE]: formatFioJobs(s.jobs).text },
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
        summary: cgroupSummary(result, s), panels: [...blockCharts(result, s), ...diskPanels(result), ...extra], warnings,
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

/** Mean and p99 completion latency of a cgroup's jobs (both directions, merged fio histograms). */
function jobLatency(r: RunResult, cg: string): { mean: number; p99: number } {
  let n = 0, sum = 0;
  let hist: Uint32Array | undefined;
  for (const j of r.jobs.filter((x) => x.cgroup === cg)) {
    for (const d of [j.read, j.write]) {
      if (!d.ios) continue;
      n += d.ios;
      sum += d.lat.mean * d.ios;
      const h = d.lat.histogram;
      if (!hist) hist = new Uint32Array(h.length);
      for (let i = 0; i < h.length; i++) hist[i]! += h[i]!;
    }
  }
  return { mean: n ? sum / n : NaN, p99: hist ? (percentilesFromPlat(hist, [99])[0]?.ns ?? NaN) : NaN };
}

/**
 * Mean time a bio of the cgroup was held by blk-throttle: the total wait / the
 * bios io.stat counted for it (they reach io.stat after blk-throttle), as the
 * CLI's summary prints it ("2.64 ms avg"). The total alone (135 s for the
 * io.max demo's capped group, 16 bios waiting at once for 10 s) read as if the
 * run had lasted longer than it did.
 */
function meanThrottleWait(r: RunResult, cg: string): string {
  const c = r.cgroups.find((x) => x.path === cg);
  const waitNs = c ? c.throttleWaitNs.read + c.throttleWaitNs.write : 0;
  const ios = c ? Object.values(c.own).reduce((a, x) => a + x.rios + x.wios, 0) : 0;
  // no bio left blk-throttle (a starved or idle cgroup): there is no mean to show
  if (ios === 0) return "–";
  return waitNs ? fmtLat(waitNs / ios) : "0";
}

/**
 * Each disk's statistics as fio's "Disk stats" shows them (bindings/report
 * fioDiskUtil: /sys/block/<dev>/stat over the run), so one sees whether the
 * device itself was the bottleneck (util near 100 %) or the limits were.
 */
export function diskPanels(r: RunResult): TablePanel[] {
  const disks = fioDiskUtil(r);
  if (disks.length === 0) return [];
  return [{
    kind: "table", id: "disks", title: "Disks",
    columns: ["disk", "read IOs", "write IOs", "read ticks", "write ticks", "in queue", "util"],
    rows: disks.map((d) => ({
      key: d.name,
      cells: [d.name, String(d.read_ios), String(d.write_ios), `${d.read_ticks} ms`, `${d.write_ticks} ms`, `${d.in_queue} ms`, `${d.util.toFixed(2)} %`],
    })),
    note: "fio's Disk stats: requests from allocation to completion (ticks), util = time with a request in flight / the run",
  }];
}

/** Does any job write through the page cache? */
export function hasBufferedWrites(s: Scenario): boolean {
  return s.jobs.some((j) => !j.direct && j.rw !== "read");
}

export function cgroupSummary(r: RunResult, s: Scenario): TablePanel {
  return hasBufferedWrites(s) ? bufferedSummary(r, s) : directSummary(r, s);
}

function directSummary(r: RunResult, s: Scenario): TablePanel {
  const rates = cgroupRates(r, s);
  return {
    kind: "table", id: "cgroups", title: "Per cgroup",
    columns: ["cgroup", "read MiB/s", "write MiB/s", "IOPS", "mean latency", "p99 latency", "mean throttle wait"],
    rows: rates.map((x) => {
      const lat = jobLatency(r, x.cgroup);
      return {
        key: cgLabel(x.cgroup),
        cells: [cgLabel(x.cgroup), x.readMiBs.toFixed(2), x.writeMiBs.toFixed(2), Math.round(x.iops).toString(),
          fmtLat(lat.mean), fmtLat(lat.p99), meanThrottleWait(r, x.cgroup)],
      };
    }),
    note: "MiB/s = io.stat bytes of the cgroup itself / (last completion − first job start); throttle wait = time in blk-throttle / bios in io.stat",
  };
}

/**
 * With buffered writes, a job's write() completes into the page cache and the
 * flusher writes the pages later, charged (io.stat) to the inode's writeback
 * owner, which need not be the cgroup that dirtied them. io.stat bytes over
 * the jobs' span then mean nothing: in writeback-sharing, "a" writes 64 MiB
 * at 32 MiB/s and is charged 224 MiB (b's pages flushed while a still owned
 * the inode), which the direct table showed as "113.78 write MiB/s". So this
 * table shows both sides: what the jobs wrote and at what rate (fio's view),
 * and what io.stat charged to the cgroup.
 */
function bufferedSummary(r: RunResult, s: Scenario): TablePanel {
  const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;
  return {
    kind: "table", id: "cgroups", title: "Per cgroup",
    columns: ["cgroup", "read MiB/s", "jobs wrote", "write() MiB/s", "mean latency", "p99 latency", "io.stat wbytes", "io.stat wios"],
    rows: cgroupRates(r, s).map((x) => {
      const wrote = r.jobs.filter((j) => j.cgroup === x.cgroup).reduce((a, j) => a + j.write.bytes, 0);
      const own = Object.values(r.cgroups.find((c) => c.path === x.cgroup)?.own ?? {});
      const lat = jobLatency(r, x.cgroup);
      return {
        key: cgLabel(x.cgroup),
        cells: [cgLabel(x.cgroup), x.readMiBs.toFixed(2), mib(wrote), (wrote / MiB / (x.spanNs / 1e9)).toFixed(2),
          fmtLat(lat.mean), fmtLat(lat.p99), mib(own.reduce((a, c) => a + c.wbytes, 0)), String(own.reduce((a, c) => a + c.wios, 0))],
      };
    }),
    note: "buffered writes: jobs wrote, write() MiB/s and the latencies are the jobs' writes into the page cache (fio's view, over last completion − first job start); " +
      "io.stat wbytes/wios are the flusher's writes charged to the cgroup — the inode's writeback owner at the time, not always the cgroup that dirtied the pages",
  };
}

export function blockCharts(r: RunResult, s: Scenario): ChartPanel[] {
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
  // a bin's MiB/s over the part of it the run covered: the last bin is cut by
  // the run's end (10.0-10.1 s of a 10.01 s run), and dividing its bytes by the
  // whole bin drew a drop to ~0 at the end of every run
  const covered = (t0: number) => Math.max(1, Math.min(r.seriesBinNs, r.simulatedNs - t0)) / 1e9;
  const bw = perCg((b) => b.bytes / MiB / covered(b.t0Ns), "sum");
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
