// What a scenario may ask of the core, checked before the core sees it, and
// the budgets a run may not pass.
//
// Every loader (scenario YAML, fio job files, device files, the three trace
// kinds, Monte Carlo samples) ends in a Scenario; checkScenario is the last
// edge before WebAssembly, where a value the loaders let through becomes a
// trap ("divide by zero" for hz 0), a wrap (iodepth 4294967297 as 1) or an
// abort at the core's 4 GiB memory. Loaders name the line of a bad value
// themselves; this check names the scenario's file and field (and a job's
// line when it has one), so a value no loader checked is still exit 2.
//
// Budgets (RunLimits) bound what a run may cost: simulated events, time-series
// bins, recorded bios. Each is checked before the run where the scenario makes
// it predictable (a count-bounded job's bios, a duration's bins) and between
// batches of events otherwise; the error names the command-line option that
// raises it (--max-events, --max-series-bins, --max-records).
//
// Worked example: `series: 1ns` on a 1 h run asks for 3.6e12 bins; refused
// before the run: "series: 1ns over 3600 s is 3600000000000 bins, more than
// the 10000000 a run may hold (--max-series-bins raises it)".

import { InputError } from "./errors.js";
import type { JobSpec, Scenario } from "./types.js";

export interface RunLimits {
  /** simulated events (submissions, completions, timers) one run may process */
  maxEvents: number;
  /** time-series bins (run length / series bin) */
  maxSeriesBins: number;
  /** per-bio records when `record: true` */
  maxRecords: number;
  /**
   * MiB of the core's memory (its WebAssembly linear memory) one run may
   * use; checked between batches of events. What grows with a run: the page
   * cache of buffered reads (every page read stays cached unless the
   * cgroup's memory.max reclaims it: global memory pressure is not
   * modelled), recorded bios, series bins, queued bios. The core's own end
   * is 4 GiB (wasm32), where it would abort. 512 MiB keeps a run of a small
   * input under 1 GB of process memory (the fuzz suite's bound); a run of
   * listed IOs (a trace, a read_iolog) gets 1 KiB more per IO
   * (engine/simulation.ts).
   */
  maxMemoryMiB: number;
}

export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxEvents: 100_000_000,
  maxSeriesBins: 10_000_000,
  maxRecords: 1_000_000,
  maxMemoryMiB: 512,
});

export const LIMIT_OPTIONS: Readonly<Record<keyof RunLimits, string>> = Object.freeze({
  maxEvents: "--max-events",
  maxSeriesBins: "--max-series-bins",
  maxRecords: "--max-records",
  maxMemoryMiB: "--max-memory",
});

/** the deepest queue one job may have (fs.aio-max-nr's default) and all jobs together */
export const MAX_JOB_IODEPTH = 65536;
export const MAX_TOTAL_IODEPTH = 1 << 20;
export const MAX_JOBS = 65536;
/** PATH_MAX: the longest path a cgroup directory can be named by */
export const MAX_CGROUP_PATH = 4096;
/** the largest time the core's i64 nanoseconds hold with room to add: 2^62 ns (~146 years) */
export const MAX_TIME_NS = 2 ** 62;
/** CONFIG_HZ the kernel offers is 100..1000; trace headers are read as recorded, within reason */
export const MAX_HZ = 10000;
/** below 100 the kernel's HZ/10-style constants (the throttle slice, HZ/25 timers) are 0 jiffies and divide by zero */
export const MIN_HZ = 100;

function where(s: Scenario, j?: JobSpec): { file: string; line?: number } {
  return { file: j?.source?.file ?? s.source?.file ?? s.name ?? "scenario", line: j?.source?.line };
}

/** Refuse a scenario the core cannot run as asked (InputError naming file, line where known, and field). */
export function checkScenario(s: Scenario): void {
  const fail = (field: string, why: string, j?: JobSpec): never => {
    const w = where(s, j);
    throw new InputError(j ? `job "${j.name}": ${why}` : why, w.file, w.line, field);
  };
  const hz = s.clock?.hz;
  if (!Number.isInteger(hz) || hz < MIN_HZ || hz > MAX_HZ) fail("hz", `hz must be a whole number in [${MIN_HZ}, ${MAX_HZ}], got ${hz}`);
  const tick = 1e9 / hz;
  const z = s.clock.zeroAfterTickNs;
  if (!Number.isFinite(z) || z < 0 || z >= tick) fail("tick_phase_ns", `the tick phase must be in [0, ${tick}) ns, got ${z}`);
  if (typeof s.clock.jiffiesAtZero !== "bigint" || s.clock.jiffiesAtZero < 0n || s.clock.jiffiesAtZero >= 1n << 64n) fail("jiffies_at_zero", "jiffies must be an unsigned 64-bit number");
  if (!Number.isSafeInteger(s.seed) || s.seed < 0) fail("seed", `seed must be a whole number >= 0, got ${s.seed}`);
  if (!Array.isArray(s.devices) || s.devices.length === 0) fail("devices", "the scenario has no device (devices: needs at least one)");
  for (const d of s.devices) {
    const dn = `device ${d.name}: `;
    if (!Number.isInteger(d.channels) || d.channels < 1 || d.channels > 65536) fail("channels", `${dn}channels must be a whole number in [1, 65536], got ${d.channels}`);
    if (!Number.isInteger(d.nrRequests) || d.nrRequests < 1 || d.nrRequests > 65536) fail("nr_requests", `${dn}nr_requests must be a whole number in [1, 65536], got ${d.nrRequests}`);
    if (!Number.isFinite(d.latencyNs) || d.latencyNs < 0 || d.latencyNs > 1e12) fail("latency", `${dn}latency must be in [0, 1000 s], got ${d.latencyNs} ns`);
    if (!Number.isInteger(d.maxSectorsKb) || d.maxSectorsKb < 1 || d.maxSectorsKb > 1 << 21) fail("max_sectors_kb", `${dn}max_sectors_kb must be a whole number in [1, 2097152], got ${d.maxSectorsKb}`);
  }
  if (!Number.isFinite(s.seriesBinNs) || s.seriesBinNs < 0) fail("series", `the series bin must be a time >= 0, got ${s.seriesBinNs} ns`);
  if (s.durationNs !== undefined && !(Number.isFinite(s.durationNs) && s.durationNs >= 0 && s.durationNs <= MAX_TIME_NS)) fail("duration", `duration must be a time in [0, ${MAX_TIME_NS} ns], got ${s.durationNs}`);
  // a cgroup is a directory: its path is at most PATH_MAX (4096) bytes; a chain of 10,000 nested
  // cgroups named in a fio cgroup= option ran for minutes over its quadratic path strings
  // (UTF-8 bytes without Buffer: this module runs in the browser too)
  const longPath = (p: string) => p.length > MAX_CGROUP_PATH || (p.length * 3 > MAX_CGROUP_PATH && utf8Length(p) > MAX_CGROUP_PATH);
  for (const g of s.cgroups) if (longPath(g.path)) throw new InputError(`a cgroup path longer than ${MAX_CGROUP_PATH} bytes (PATH_MAX)`, g.source?.file ?? where(s).file, g.source?.line, "cgroups");
  for (const j of s.jobs) if (longPath(j.cgroup)) fail("cgroup", `the cgroup path is longer than ${MAX_CGROUP_PATH} bytes (PATH_MAX)`, j);
  for (const w of s.writes) if (longPath(w.cgroup)) throw new InputError(`a cgroup path longer than ${MAX_CGROUP_PATH} bytes (PATH_MAX)`, w.source?.file ?? where(s).file, w.source?.line, "cgroup");
  if (s.jobs.length > MAX_JOBS) fail("jobs", `${s.jobs.length} jobs, more than the ${MAX_JOBS} a run holds`);
  let depth = 0;
  const timeOk = (x: number | undefined) => x === undefined || (Number.isFinite(x) && x >= 0 && x <= MAX_TIME_NS);
  for (const j of s.jobs) {
    // a replay (recorded times) has a worker per IO it may hold in flight: its IOs bound it, not MAX_JOB_IODEPTH
    const listed = j.pattern.kind === "times" ? j.pattern.timesNs.length : j.pattern.kind === "replay" ? j.pattern.ios.length : 0;
    const maxDepth = listed ? Math.max(MAX_TOTAL_IODEPTH, listed) : MAX_JOB_IODEPTH;
    if (!Number.isInteger(j.iodepth) || j.iodepth < 1 || j.iodepth > maxDepth) fail("iodepth", `iodepth must be a whole number in [1, ${maxDepth}], got ${j.iodepth}`, j);
    // (a listed job's depth is bounded by its IOs, i.e. by its input file's size cap: only generated
    // jobs count against the total; a 2 M-IO trace over 4,096 jobs was refused here)
    if (!listed) depth += j.iodepth;
    for (const b of [...j.bs, ...(j.bsWrite ?? [])]) {
      if (!Number.isInteger(b.size) || b.size < 1 || b.size > 2 ** 31) fail("bs", `a block size must be a whole number of bytes in [1, 2 GiB], got ${b.size}`, j);
      if (!Number.isInteger(b.weight) || b.weight < 0 || b.weight > 2 ** 32 - 1) fail("bs", `a block size weight must be a whole number, got ${b.weight}`, j);
    }
    for (const [k, v] of [["startdelay", j.startNs], ["thinktime", j.thinktimeNs], ["runtime", j.runtimeNs]] as const) {
      if (!timeOk(v)) fail(k, `${k} must be a time in [0, ${MAX_TIME_NS} ns], got ${v}`, j);
    }
    for (const [k, v] of [["offset", j.offset], ["align", j.align], ["number_ios", j.count], ["io_size", j.bytes], ["thinktime_blocks", j.thinktimeBlocks]] as const) {
      if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) fail(k, `${k} must be a whole number >= 0, got ${v}`, j);
    }
    if (!Number.isInteger(j.mixReadPct) || j.mixReadPct < 0 || j.mixReadPct > 100) fail("rwmixread", `rwmixread must be in [0, 100], got ${j.mixReadPct}`, j);
    const p = j.pattern;
    if (p.kind === "times" && !p.timesNs.every((t) => timeOk(t))) fail("times", "submit times must be in [0, 2^62] ns", j);
    if (p.kind === "bursts" && (!p.gapsNs.every((t) => timeOk(t)) || !Number.isSafeInteger(p.burst) || p.burst < 0)) fail("bursts", "burst gaps must be times >= 0 and the burst a whole number", j);
    if (p.kind === "replay") {
      for (const io of p.ios) {
        if (!timeOk(io.tNs) || !Number.isSafeInteger(io.off) || io.off < 0 || !Number.isInteger(io.size) || io.size < 1 || io.size > 2 ** 31) {
          fail("read_iolog", `a replayed IO must have a time >= 0, an offset >= 0 and a size in [1, 2 GiB] (got t ${io.tNs} ns, offset ${io.off}, size ${io.size})`, j);
        }
      }
    }
    if (p.kind === "rate") {
      for (const r of [p.iops, p.bps, p.read?.iops, p.read?.bps, p.write?.iops, p.write?.bps]) {
        if (r !== undefined && !(Number.isFinite(r) && r >= 0)) fail("rate", `a rate must be a number >= 0, got ${r}`, j);
      }
    }
  }
  if (depth > MAX_TOTAL_IODEPTH) fail("iodepth", `the jobs' iodepths add up to ${depth}, more than the ${MAX_TOTAL_IODEPTH} bios in flight a run holds (jobs that replay listed IOs not counted)`);
  for (const w of s.writes) {
    if (!timeOk(w.atNs)) {
      throw new InputError(`a write to ${w.file} at ${w.atNs} ns: the time must be in [0, 2^62] ns`, w.source?.file ?? where(s).file, w.source?.line, w.source?.field ?? w.file);
    }
  }
}

/** The run's length where the scenario fixes it: its duration, else the end of its last time-bounded job (undefined: open-ended). */
export function plannedLengthNs(s: Scenario): number | undefined {
  if (s.durationNs !== undefined) return s.durationNs;
  let end = 0;
  for (const j of s.jobs) {
    if (j.runtimeNs === undefined || !j.timeBased) return undefined;
    end = Math.max(end, j.startNs + j.runtimeNs);
  }
  return s.jobs.length ? end : undefined;
}

function fmtNs(ns: number): string {
  return ns >= 1e9 ? `${+(ns / 1e9).toPrecision(6)} s` : ns >= 1e6 ? `${+(ns / 1e6).toPrecision(6)} ms` : `${ns} ns`;
}

/** Refuse, before a run, budgets the scenario plainly exceeds (the estimate in the message). */
export function checkBudgets(s: Scenario, limits: RunLimits): void {
  const file = s.source?.file ?? s.name ?? "scenario";
  const len = plannedLengthNs(s);
  if (s.seriesBinNs > 0 && len !== undefined) {
    const bins = Math.ceil(len / s.seriesBinNs);
    if (bins > limits.maxSeriesBins) {
      throw new InputError(`series: ${fmtNs(s.seriesBinNs)} over ${fmtNs(len)} is ${bins} bins, more than the ${limits.maxSeriesBins} a run may hold (a longer series bin, or ${LIMIT_OPTIONS.maxSeriesBins} raises it)`, file, undefined, "series");
    }
  }
  if (s.record) {
    let bios = 0;
    let known = true;
    for (const j of s.jobs) {
      if (j.pattern.kind === "replay") bios += j.pattern.ios.length;
      else if (j.pattern.kind === "times") bios += j.pattern.timesNs.length;
      else if (j.count !== undefined && !j.timeBased) bios += j.count;
      else known = false;
    }
    if (known && bios > limits.maxRecords) {
      throw new InputError(`record: the jobs ask for ${bios} bios, more than the ${limits.maxRecords} records a run may keep (~${Math.ceil((bios * 400) / 2 ** 20)} MiB; ${LIMIT_OPTIONS.maxRecords} raises it)`, file, undefined, "record");
    }
  }
}

/** The error for a budget passed during a run. */
export function budgetError(s: Scenario, which: keyof RunLimits, limits: RunLimits, atNs: number, coreSaid?: string): InputError {
  const file = s.source?.file ?? s.name ?? "scenario";
  if (which === "maxMemoryMiB") {
    return new InputError(
      (coreSaid
        ? `the run outgrew the simulator's memory at ${fmtNs(atNs)} simulated (the core: "${coreSaid}") and was stopped `
        : `the run passed ${limits.maxMemoryMiB} MiB of simulator memory at ${fmtNs(atNs)} simulated and was stopped `) +
        `(what grows with a run: the page cache of buffered reads, which keeps every page read unless memory.max reclaims it, recorded bios, series bins; ` +
        `direct=1, a smaller size or a shorter run bound it${coreSaid ? "" : `, or ${LIMIT_OPTIONS.maxMemoryMiB} raises the budget up to 4096 MiB`})`,
      file, undefined, "duration",
    );
  }
  const what = which === "maxEvents" ? `simulated events` : which === "maxSeriesBins" ? `time-series bins` : `recorded bios`;
  const field = which === "maxEvents" ? "duration" : which === "maxSeriesBins" ? "series" : "record";
  return new InputError(`the run passed ${limits[which]} ${what} at ${fmtNs(atNs)} simulated and was stopped (a shorter run, or ${LIMIT_OPTIONS[which]} raises the budget)`, file, undefined, field);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
