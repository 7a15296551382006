// `iosim run [SCENARIO | JOBFILE.fio]`: run a scenario and report it.
import "../../engine/modules/index.js"; // control modules: io.max, io.weight, io.cost.*, writeback
import { mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { makeDirs } from "../make-dirs.js";
import { basename, dirname, extname, join, resolve } from "node:path";
import { Simulation } from "../../engine/simulation.js";
import { InputError } from "../../scenario/errors.js";
import { inputCap, readCapped, readInputFile } from "../read-input.js";
import { loadScenario } from "../../scenario/load.js";
import { iomaxDemo } from "../../scenario/builtin/iomax-demo.js";
import { scenarioDefaults } from "../../scenario/defaults.js";
import { type DeviceSpec, type RunResult, type Scenario } from "../../scenario/types.js";
import { kernelOption, outputFormatOption, seedOption, wholeNumberOption } from "../options.js";
import { type RunLimits } from "../../scenario/limits.js";
import { parseFioJobFile } from "../../workload/index.js";
import { deviceFromHwdb, devicePreset, loadDeviceFile, type PresetName } from "../../device/index.js";
import { toFioJson, fioJsonText, toFioText, toIoStat, toSeriesCsv, toSeriesJson, type FioJobInfo } from "../../report/index.js";
import { iocostSeries, throttleSeries, type ControlSeries } from "../../report/control-series.js";
import { seriesBinCount } from "../../report/series.js";
import { scenarioFromThrotlJson } from "../../oracle/throtl-scenario.js";
import { capNotes, resultHashOrNote, summaryJson, summaryRows, summaryText, tailNotes, warningBlock } from "../summary.js";
import { htmlReport } from "../../report/html-report.js";
import { fioJobLogs } from "../../report/fio-logs.js";
import { readIocostTrace, VTIME_PER_USEC } from "../../engine/modules/iocost.js";
import { createRequire } from "node:module";
import { playgroundLink } from "../playground-link.js";
import { lintResult, lintScenario } from "../../scenario/lint.js";

export interface RunCliOptions {
  device?: string;
  json?: boolean;
  outputFormat?: string;
  out?: string;
  seed?: string;
  kernel?: string;
  quiet?: boolean;
  maxEvents?: string;
  maxSeriesBins?: string;
  maxRecords?: string;
  maxMemory?: string;
  strict?: boolean;
  summaryJson?: string;
  report?: string;
}

/** --max-events / --max-series-bins / --max-records / --max-memory (scenario/limits.ts) */
export function limitsOption(o: RunCliOptions): Partial<RunLimits> {
  const out: Partial<RunLimits> = {};
  if (o.maxEvents !== undefined) out.maxEvents = wholeNumberOption("--max-events", o.maxEvents);
  if (o.maxSeriesBins !== undefined) out.maxSeriesBins = wholeNumberOption("--max-series-bins", o.maxSeriesBins);
  if (o.maxRecords !== undefined) out.maxRecords = wholeNumberOption("--max-records", o.maxRecords);
  if (o.maxMemory !== undefined) {
    out.maxMemoryMiB = wholeNumberOption("--max-memory", o.maxMemory);
    if (out.maxMemoryMiB > 4096) throw new InputError(`--max-memory takes MiB up to 4096 (the core's 4 GiB), got ${o.maxMemory}`, "command line", undefined, "--max-memory");
  }
  return out;
}

const PRESETS = ["ssd", "nvme", "hdd", "ideal", "nullb"];

export function readRelative(path: string, from: string): string {
  return readInputFile(resolve(dirname(from), path), `file ${path}`, from, "trace");
}

export function sizesOf(devs: DeviceSpec[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of devs) if (d.sizeBytes) out[d.name] = d.sizeBytes;
  return out;
}

function deviceFromFlag(flag: string | undefined): DeviceSpec {
  let v = flag ?? "ssd";
  if (PRESETS.includes(v)) return devicePreset(v as PresetName);
  // iocost-benchmarks' hwdb: FILE.hwdb[#MODEL[@SOLUTION]] (device/hwdb.ts)
  const hw = /^(.*\.hwdb)(?:#(.*))?$/.exec(v);
  if (hw) {
    v = hw[1]!;
    let text: string;
    try {
      text = readCapped(v, inputCap("text"), v, "hwdb file");
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`--device: cannot read the hwdb file "${v}"`, "command line", undefined, "--device");
    }
    return deviceFromHwdb(text, v, hw[2]);
  }
  let text: string;
  try {
    text = readCapped(v, inputCap("text"), v, "device file");
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`--device: "${v}" is neither a preset (${PRESETS.join(", ")}) nor a readable device file`, "command line", undefined, "--device");
  }
  return loadDeviceFile(text, v);
}

/** Build the scenario a `run` invocation names. */
export interface RunInput {
  scenario: Scenario;
  warnings: string[];
  /** fio reporting data when the jobs came from fio syntax */
  fioJobs: FioJobInfo[];
  fioGlobalOptions: Record<string, string>;
  /** the file's text (undefined for the demo) */
  text?: string;
}

export function scenarioForRun(target: string | undefined, o: RunCliOptions): RunInput {
  let scenario: Scenario;
  let warnings: string[] = [];
  let fioJobs: FioJobInfo[] = [];
  let fioGlobalOptions: Record<string, string> = {};
  let text: string | undefined;
  if (!target || target === "demo" || target === "iomax-demo") {
    scenario = iomaxDemo(deviceFromFlag(o.device));
  } else {
    text = readInputFile(target, "scenario");
    const ext = extname(target).toLowerCase();
    if (ext === ".fio" || ext === ".ini" || (!ext.match(/\.(ya?ml|json)$/) && /^\s*\[/m.test(text))) {
      const dev = deviceFromFlag(o.device);
      const parsed = parseFioJobFile(text, target, { readFile: readRelative, defaultDevice: dev.name, deviceSizes: sizesOf([dev]) });
      // a job file names devices by path; the simulation has the one --device
      const named = [...new Set(parsed.jobs.map((j) => j.device).filter((d) => d !== dev.name))];
      if (named.length) {
        parsed.warnings.push(`${target}: filename ${named.map((d) => "/dev/" + d).join(", ")} simulated as the --device ${dev.kind} (${dev.name} ${dev.devno})`);
      }
      for (const j of parsed.jobs) j.device = dev.name;
      scenario = scenarioDefaults({
        name: target.replace(/^.*\//, "").replace(/\.[^.]*$/, ""),
        devices: [dev],
        jobs: parsed.jobs,
        seriesBinNs: 100e6,
        source: { file: target },
      });
      warnings = parsed.warnings;
      fioJobs = parsed.meta;
      fioGlobalOptions = parsed.globalOptions;
    } else if (ext === ".json" && /"jobs"\s*:/.test(text) && /"qd"\s*:|"loop_device"\s*:/.test(text)) {
      // an oracle blk-throttle scenario (../oracle/throtl/scenarios/*.json format)
      scenario = scenarioFromThrotlJson(text, target);
      if (o.device) scenario.devices = [{ ...deviceFromFlag(o.device), name: scenario.devices[0]!.name, devno: scenario.devices[0]!.devno }];
    } else {
      const loaded = loadScenario(text, target, { readFile: readRelative, env: process.env as Record<string, string> });
      scenario = loaded.scenario;
      warnings = loaded.warnings;
      fioJobs = loaded.fioMeta;
      fioGlobalOptions = loaded.fioGlobalOptions;
      if (o.device) {
        const dev = deviceFromFlag(o.device);
        scenario.devices = scenario.devices.map((d, i) => (i === 0 ? { ...dev, name: d.name, devno: d.devno } : d));
      }
    }
  }
  if (o.seed !== undefined) scenario.seed = seedOption(o.seed)!;
  if (o.kernel !== undefined) {
    scenario.kernel = kernelOption(o.kernel)!;
  }
  return { scenario, warnings, fioJobs, fioGlobalOptions, text };
}

/** `iosim run`'s action (declared in commands/index.ts, which loads this module only when `run` is the command). */
export async function runAction(target: string | undefined, o: RunCliOptions): Promise<void> {
  const format = outputFormatOption(o.outputFormat, o.json);
  const limits = limitsOption(o);
  const { scenario, warnings, fioJobs, fioGlobalOptions, text } = scenarioForRun(target, o);
  // fio's write_bw_log / write_lat_log / write_iops_log: from the per-bio records, into --out
  const logJobs = (fioJobs ?? []).map((j, k) => ({ j, k })).filter(({ j }) => j.logs);
  if (logJobs.length > 0 && o.out) scenario.record = true;
  const pre = [...warnings, ...lintScenario(scenario)];
  if (logJobs.length > 0 && !o.out) pre.push(`${target}: write_*_log: fio's logs are written with --out DIR (none given)`);
  const sim = new Simulation(scenario, undefined, limits);
  if (o.strict && pre.length + sim.setupWarnings().length > 0) {
    const all = [...pre, ...sim.setupWarnings()];
    process.stderr.write(warningBlock(all));
    throw new InputError(`${all.length} warning${all.length === 1 ? "" : "s"} (above) with --strict; nothing was run`, target ?? "demo", undefined, "--strict");
  }
  // the progress bar's module (cli-progress) only when a bar is drawn: -q runs start without it
  const bar = o.quiet ? undefined : (await import("../progress.js")).progressBar(scenario.name);
  const result = sim.runToEnd((p) => bar?.update(p.fraction, `${(p.simulatedNs / 1e9).toFixed(2)} s simulated`), 1 << 20);
  bar?.stop();
  result.warnings.unshift(...pre);
  result.warnings.push(...lintResult(scenario, result, truePercentileOf(scenario, result, limits)));
  const fioOpts = { jobs: fioJobs, globalOptions: fioGlobalOptions };
  const ioStat = toIoStat(result);
  const ioStatText = Object.entries(ioStat)
    .map(([cg, text]) => `# ${cg ? cg + "/" : ""}io.stat\n${text}`)
    .join("");
  const summaryDoc = o.summaryJson || o.out ? summaryJson(result, ioStat, scenario) : undefined;
  if (o.summaryJson) writeFileSync(o.summaryJson, JSON.stringify(summaryDoc, null, 2) + "\n");
  const report = o.report || o.out ? runReportHtml(sim, result, ioStat, scenario) : undefined;
  if (o.report) writeFileSync(o.report, report!);
  if (o.out) {
    // written whole into a temporary directory beside DIR, then moved in file by file: a run
    // that dies part-way leaves DIR as it was (and a ".DIR.iosim-partial-PID" directory that
    // says it is incomplete), never a DIR with some of this run's files and some of the last's
    makeDirs(o.out);
    const tmp = join(dirname(resolve(o.out)), `.${basename(resolve(o.out))}.iosim-partial-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    const files: Array<[string, () => string]> = [
      ["summary.json", () => JSON.stringify(summaryDoc, null, 2) + "\n"],
      ["report.html", () => report!],
      ["fio.json", () => fioJsonText(toFioJson(result, fioOpts))],
      ["io.stat", () => ioStatText],
    ];
    // a run without a time series (series: 0, oracle scenarios) has none to write
    if (result.seriesBinNs > 0) {
      const control = controlSeriesOf(sim, scenario, result, limits);
      files.push(["series.csv", () => toSeriesCsv(result, control)], ["series.json", () => toSeriesJson(result, control)]);
    }
    files.push(["summary.txt", () => summaryText(result, { scenario })]);
    if (result.records) files.push(["records.jsonl", () => recordsText(result.records!)]);
    for (const { j, k } of logJobs) {
      const l = j.logs!;
      const logs = fioJobLogs(result, { spec: j.spec, jobname: j.jobname, threadNumber: k + 1, avgMsec: l.avgMsec, perJob: l.perJob,
        ...(l.bw !== undefined ? { bw: l.bw } : {}), ...(l.lat !== undefined ? { lat: l.lat } : {}), ...(l.iops !== undefined ? { iops: l.iops } : {}),
        ...(l.fixedBs ? { fixedBs: l.fixedBs } : {}) });
      for (const [name, text] of logs) {
        if (name.includes("/")) throw new InputError(`log name "${name}": a path; iosim writes fio's logs into --out`, target ?? "job file", undefined, "write_*_log");
        files.push([name, () => text]);
      }
    }
    try {
      for (const [name, text] of files) writeFileSync(join(tmp, name), text());
      for (const [name] of files) renameSync(join(tmp, name), join(o.out, name));
      rmdirSync(tmp);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      throw e;
    }
  }
  if (format !== "normal") {
    const json = toFioJson(result, { ...fioOpts, plus: format === "json+" });
    // stdout stays one JSON document that says its warnings (a key fio's readers skip); stderr too, where fio's go
    if (result.warnings.length) json.iosim_warnings = [...result.warnings];
    process.stdout.write(fioJsonText(json));
    for (const w of result.warnings) process.stderr.write(`iosim: warning: ${w}\n`);
  } else {
    // the warnings first: a result read under a mistaken setting is no result
    if (result.warnings.length) process.stdout.write(warningBlock(result.warnings) + "\n");
    process.stdout.write(toFioText(result, fioOpts));
    process.stdout.write("\n" + summaryText(result, { warningsAbove: true, scenario }));
    process.stdout.write("\n" + ioStatText);
    if (o.out) process.stdout.write(`\nwrote fio.json, io.stat, ${result.seriesBinNs > 0 ? "series.csv, series.json, " : ""}summary.txt, summary.json, report.html to ${o.out}${result.seriesBinNs > 0 ? "" : " (no time series: the scenario has series: 0)"}\n`);
  }
  // the same run in the playground, with its charts (bindings/cli/playground-link.ts)
  const link = o.quiet ? undefined : playgroundLink({ target, text, scenario, device: o.device });
  if (link) process.stderr.write(`iosim: this run in the playground (npm run web): ${link}\n`);
  if (o.strict && result.warnings.length) {
    process.stderr.write(`iosim: --strict: ${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"}\n`);
    process.exitCode = 2;
  }
}

export function jsonReplacer(_k: string, v: unknown): unknown {
  if (v instanceof Uint32Array) return undefined;
  if (typeof v === "bigint") return v.toString();
  return v;
}

/** records.jsonl: one line per bio, built in pieces (one string of 5 M records would pass V8's string limit) */
function recordsText(records: ReadonlyArray<unknown>): string {
  const parts: string[] = [];
  for (let i = 0; i < records.length; i += 10000) parts.push(records.slice(i, i + 10000).map((r) => JSON.stringify(r)).join("\n"));
  return parts.join("\n") + "\n";
}

/**
 * The true percentile of a job's latencies from the run's own records, for
 * lintResult when fio's histogram tops out: the scenario is run again with
 * every bio recorded (deterministic, so the same run), only when asked.
 */
function truePercentileOf(s: Scenario, r: RunResult, limits: Partial<RunLimits> = {}): (job: string, dir: "read" | "write", p: number) => number | undefined {
  let recs: RunResult["records"] | undefined = r.records;
  return (job, dir, p) => {
    if (recs === undefined) {
      try {
        recs = new Simulation({ ...s, record: true }, undefined, limits).runToEnd().records ?? [];
      } catch (e) {
        // more bios than the record budget: no true percentile (the lint says less), not a failed run
        if (!(e instanceof InputError)) throw e;
        recs = [];
      }
    }
    const lat = recs
      .filter((b) => b.job === job && (b.dir === "W") === (dir === "write"))
      .map((b) => b.completeNs - b.submitNs)
      .sort((a, b) => a - b);
    return lat.length ? lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)] : undefined;
  };
}

/** Does the scenario write io.max (or v1's blkio.throttle.*) anywhere? */
function hasThrottle(s: Scenario): boolean {
  const isThrottleFile = (f: string) => f === "io.max" || f.startsWith("blkio.throttle.");
  return s.cgroups.some((c) => Object.keys(c.files ?? {}).some(isThrottleFile)) || s.writes.some((w) => isThrottleFile(w.file));
}

/**
 * The controllers' series for series.csv / series.json (report/control-series.ts):
 * blk-iocost's from its tracepoints in this run's core; blk-throttle's queue
 * depth and waits from per-bio times, so the scenario runs again with records
 * on (deterministic: the same run) unless it kept them; a run with more bios
 * than --max-records allows goes without those columns, and says so.
 */
export function controlSeriesOf(sim: Simulation, s: Scenario, result: RunResult, limits: Partial<RunLimits> = {}): ControlSeries {
  const nBins = seriesBinCount(result);
  const ctx = sim.context();
  const trace = readIocostTrace(sim.core, ctx.cgroupPaths(), ctx.devices().map((d) => d.spec.name));
  const out: ControlSeries = trace.length ? iocostSeries(trace, result.seriesBinNs, nBins) : {};
  if (hasThrottle(s)) {
    try {
      const again = s.record ? sim : new Simulation({ ...s, record: true }, undefined, limits);
      while (!again.step()) { /* to the end */ }
      out.throttle = throttleSeries(again.recordTimes()!, result.seriesBinNs, nBins);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      process.stderr.write(`iosim: series.csv without throttle_queued/throttle_wait_ns: ${e.message}\n`);
    }
  }
  return out;
}

/** The run as one web page (bindings/report/html-report.ts), with blk-iocost's vrate where the run had it. */
export function runReportHtml(sim: Simulation, result: RunResult, ioStat: Record<string, string>, scenario?: Scenario): string {
  const req = createRequire(import.meta.url);
  const uplot = {
    js: readFileSync(req.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"),
    css: readFileSync(req.resolve("uplot/dist/uPlot.min.css"), "utf8"),
  };
  const ctx = sim.context();
  const devs = ctx.devices().map((d) => d.spec.name);
  const vr = readIocostTrace(sim.core, ctx.cgroupPaths(), devs).filter((e) => e.event === "iocost_ioc_vrate_adj");
  const end = result.simulatedNs / 1e9;
  const vrate = devs
    .map((dev) => {
      const ev = vr.filter((e) => e.dev === dev);
      if (!ev.length) return undefined;
      const pct = (v: number) => (v * 100) / VTIME_PER_USEC;
      const first = (ev[0]!.vrate as number[])[0]!;
      return { dev, x: [0, ...ev.map((e) => e.tNs / 1e9), end], y: [pct(first), ...ev.map((e) => pct((e.vrate as number[])[1]!)), pct((ev[ev.length - 1]!.vrate as number[])[1]!)] };
    })
    .filter((v): v is NonNullable<typeof v> => v !== undefined);
  const rows = summaryRows(result);
  return htmlReport({ result, rows, ioStat, hash: resultHashOrNote(result), notes: [...tailNotes(result), ...(scenario ? capNotes(result, scenario) : [])], vrate, uplot });
}

