// The IO domain: a block-IO scenario in the format of `iosim run`
// (bindings/scenario/load.ts: devices from presets, cgroups with io.max /
// io.weight / io.cost files, fio job options, timed `changes`), run by
// `simulate()`.
//
// Any value may be a distribution, fio's own units included:
//
//   devices:
//     - {preset: nvme, name: nvme0n1, jitter: {uniform: [0, 0.5]}}
//   cgroups:
//     capped: {io.max: {choice: ["259:0 rbps=10485760", "259:0 rbps=52428800"]}}
//     other: {io.max: {concat: ["259:0 riops=", {randint: [100, 5000], round: 100}]}}   # a drawn number in the line
//   jobs:
//     - {name: a, cgroup: capped, rw: randread, ioengine: libaio, iodepth: {choice: [1, 8, 32]},
//        bs: {choice: [4k, 64k]}, number_ios: 300}
//
// Each run loads the sampled document with scenarioFromValue: the loader of
// `iosim run` (bindings/scenario/load.ts) reading the sample's values instead
// of a YAML file, so a sweep accepts and rejects exactly what `iosim run`
// does, and a repro file is an ordinary scenario. The sample is not written
// back to YAML and parsed again (that round trip was ~38 % of a run's CPU in
// examples/io-depth.yaml, the whole load ~48 %; the load is ~17 % now, most
// of it the jobs' fio parse). The scenario's source lines (a cgroup file's,
// a job's, a change's, which the engine's errors and warnings name) are the
// randomised file's lines of those fields (lineOfPath). Then it simulates
// the scenario with the run seed.
//
// A sampled value the loader rejects is worded as it always was: the sample
// is written to YAML once more (for that run only), loaded from the text, and
// the error's line there mapped to the field's path ("jobs[0].bs") and that
// path's line in the randomised file (the loader names a fio option by its
// key alone). Only rejected samples pay for the text.
//
// No compiled preparer (the k8s domain's constant keys loaded once, a frozen
// base): the io loader's keys depend on one another (jobs on the devices,
// changes on the cgroups and jobs), so there is no key to load on its own.
//
// Metrics per job J and direction D (read/write) with IOs, the values of the
// same names in the job's `iosim run --json` (fio's JSON: runtime in whole
// ms, so a job done in under 1 ms reports 0, as fio does):
//   job.J.D.iops, job.J.D.bw (KiB/s, fio's "bw"), job.J.D.bw_bytes (bytes/s),
//   job.J.D.lat.mean / .p50 / .p90 / .p99 (ns: fio's clat_ns mean and percentiles),
//   cgroup.C.D.iops / .bw / .bw_bytes / .lat.mean / .p50 / .p90 / .p99: the same
//     over the IOs of all the jobs in cgroup C together, as fio reports a
//     group of jobs with group_reporting (runtime the longest job's,
//     percentiles from the merged histograms);
//   cgroup.C.throttleWaitNs.D (ns summed over the cgroup's bios), simulatedNs;
//   disk.N.util / .read_ios / .write_ios / .in_queue for each disk N a job
//     used: fio's disk_util (util in %, in_queue in ms) of the same run.
// (Before, iops and bw were over the exact runtime and bw was in bytes/s: a
// bound in fio's KiB/s was off by 1024 and every run passed it.)
// check() configures the engine on a scenario without running it (its
// cgroup-file and job checks), for the load-time test of a value the file
// fixes that no run can load (model.ts fixedError).
// Classes: the sweep's mc.expect failures (model.ts), plus
// "warning:<text>" for each warning of the loader (as `iosim run` prints
// them: an option ignored, iodepth under a synchronous engine) and of the
// engine, and "error:..." if a run throws.

import { readInputFile } from "../../cli/read-input.js";
import { dirname, resolve } from "node:path";
import { stringify } from "yaml";
import { instantiateCore, type CoreExports } from "../../core/core.js";
import { Simulation, simulate } from "../../engine/simulation.js";
import "../../engine/modules/index.js";
import { fioDiskUtil, fioRates, groupDir } from "../../report/fio-json.js";
import { percentileKey, percentilesFromPlat } from "../../report/percentiles.js";
import { InputError } from "../../scenario/errors.js";
import { loadScenario, scenarioFromValue, type LoadOptions } from "../../scenario/load.js";
import { lineOfPath } from "../../util/line-of-path.js";
import type { JobResult, Scenario } from "../../scenario/types.js";
import { yamlLines, type Json } from "../distributions.js";
import type { McDomain, McOutcome } from "../model.js";
import { mcHeader } from "../model.js";

/** the latency percentiles every job and cgroup direction reports (fio's clat_ns keys) */
const LAT_PCTS = [50, 90, 99] as const;

export function ioMetrics(s: Scenario, r: ReturnType<typeof simulate>): Record<string, number> {
  const m: Record<string, number> = { simulatedNs: r.simulatedNs };
  for (const j of r.jobs) {
    for (const d of ["read", "write"] as const) {
      const st = j[d];
      if (st.ios === 0) continue;
      // fio's own arithmetic and units (fio-json.ts fioRates): what `iosim run
      // --json` prints for the job, so a bound copied from a fio report means
      // the same here (bw in KiB/s as fio's "bw", bw_bytes in bytes/s)
      const f = fioRates(st.ios, st.bytes, j.runtimeMs);
      m[`job.${j.name}.${d}.iops`] = f.iops;
      m[`job.${j.name}.${d}.bw`] = f.bw;
      m[`job.${j.name}.${d}.bw_bytes`] = f.bw_bytes;
      m[`job.${j.name}.${d}.lat.mean`] = st.lat.mean;
      for (const p of LAT_PCTS) m[`job.${j.name}.${d}.lat.p${p}`] = st.lat.percentiles[percentileKey(p)] ?? NaN;
    }
  }
  // per cgroup: the IOs of the jobs in it (not its descendants'), summed as
  // fio sums one reporting group (fio-json.ts groupDir: runtime the longest
  // job's, histograms merged), so its percentiles are over all those IOs
  // together and every value is what `iosim run --json` prints for the
  // cgroup's jobs reporting as one group (group_reporting)
  const byCg = new Map<string, JobResult[]>();
  for (const j of r.jobs) if (j.cgroup !== "") byCg.set(j.cgroup, [...(byCg.get(j.cgroup) ?? []), j]);
  for (const [cg, jobs] of byCg) {
    for (const d of ["read", "write"] as const) {
      const a = groupDir(jobs, d);
      if (a.ios === 0) continue;
      const f = fioRates(a.ios, a.bytes, a.runtimeMs);
      m[`cgroup.${cg}.${d}.iops`] = f.iops;
      m[`cgroup.${cg}.${d}.bw`] = f.bw;
      m[`cgroup.${cg}.${d}.bw_bytes`] = f.bw_bytes;
      m[`cgroup.${cg}.${d}.lat.mean`] = a.mean;
      const pct = percentilesFromPlat(a.hist, LAT_PCTS, a.n);
      for (const p of LAT_PCTS) m[`cgroup.${cg}.${d}.lat.p${p}`] = pct.find((x) => x.pct === p)?.ns ?? NaN;
    }
  }
  for (const g of r.cgroups) {
    if (g.path === "" || !s.cgroups.some((c) => c.path === g.path)) continue;
    m[`cgroup.${g.path}.throttleWaitNs.read`] = g.throttleWaitNs.read;
    m[`cgroup.${g.path}.throttleWaitNs.write`] = g.throttleWaitNs.write;
  }
  // each disk a job used, as fio's disk_util reports it (report/fio-json.ts fioDiskUtil)
  for (const d of fioDiskUtil(r)) {
    m[`disk.${d.name}.util`] = d.util;
    m[`disk.${d.name}.read_ios`] = d.read_ios;
    m[`disk.${d.name}.write_ios`] = d.write_ios;
    m[`disk.${d.name}.in_queue`] = d.in_queue;
  }
  return m;
}

/**
 * The field path ("jobs[0].iodepth") at `line` of a sampled document's text:
 * the io loader names a fio option by its key alone and a line of the text it
 * was given, which is not the randomised file's. The path ending in `key` if
 * one does on that line, else the nearest such path above it (the loader
 * names a block value by its first line, a field by its key's: `iodepth:` and
 * then `  deep: 2`), else the shortest on that line.
 */
function pathAtLine(text: string, line: number, key?: string): string | undefined {
  const all = [...yamlLines(text).lines].filter(([p]) => p !== "");
  const named = (l: number): string[] => (key === undefined ? [] : all.filter(([p, at]) => at === l && (p === key || p.endsWith(`.${key}`))).map(([p]) => p));
  const shortest = (ps: string[]): string | undefined => (ps.length ? ps.reduce((a, b) => (b.length < a.length ? b : a)) : undefined);
  const here = named(line);
  if (here.length) return shortest(here);
  const above = key === undefined ? [] : all.filter(([p, at]) => at < line && (p === key || p.endsWith(`.${key}`)));
  if (above.length) return shortest(named(Math.max(...above.map(([, at]) => at))));
  return shortest(all.filter(([, at]) => at === line).map(([p]) => p));
}

/** Files a scenario names (device files, fio_file), relative to the randomised file. */
const READ: LoadOptions = { readFile: (p, from) => readInputFile(resolve(dirname(from), p), `file ${p}`, from, "trace") };

/**
 * A sample loaded from its YAML text, as every run did before: the loader on
 * the text, and a rejected value's error pointed at the randomised file (its
 * line in the text mapped to the field's path, and that path's line in the
 * randomised file). prepare() uses it only to word the error of a sample the
 * loader rejects; tests compare it with the direct load. The scenario it
 * returns carries the text's lines, not the randomised file's.
 */
export function scenarioViaText(doc: Json, file: string, lines: Map<string, number>): Scenario {
  const text = stringify(doc, { lineWidth: 0 });
  try {
    return loadScenario(text, file, READ).scenario;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const path = e.line !== undefined ? pathAtLine(text, e.line, e.field) : undefined;
    throw new InputError(e.detail, file, path !== undefined ? lineOfPath(lines, path) : e.field ? lines.get(e.field) : undefined, path ?? e.field, e.errno);
  }
}

/**
 * The loader's warnings about a prepared scenario (what `iosim run` prints
 * before it runs: `iodepth=8 with ioengine=psync: ... iodepth 1 is used`, an
 * option not modelled and ignored), so run() reports them as classes beside
 * the engine's: dropped, a sweep of iodepth under psync tabulated three depths
 * that all ran at depth 1, every run ok.
 */
const loadWarnings = new WeakMap<Scenario, string[]>();

/** the core check() configures scenarios on (never run) */
let probeCore: CoreExports | undefined;

export const ioDomain: McDomain<Scenario> = {
  name: "io",
  replayCommand: "iosim run",
  detect(doc) {
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return false;
    const o = doc as Record<string, Json>;
    return "jobs" in o || "fio" in o || "fio_file" in o;
  },
  prepare(doc, file, lines) {
    try {
      const loaded = scenarioFromValue(doc, file, READ, lines);
      if (loaded.warnings.length) loadWarnings.set(loaded.scenario, loaded.warnings);
      return loaded.scenario;
    } catch (e) {
      // rejected: the error as a sweep has always worded it (the same loader
      // rejects the text, so this throws; were it not to, the values' own error)
      scenarioViaText(doc, file, lines);
      throw e;
    }
  },
  run(s, runSeed): McOutcome {
    const r = simulate({ ...s, seed: runSeed });
    const warnings = [...(loadWarnings.get(s) ?? []), ...r.warnings];
    return { classes: warnings.map((w) => `warning:${w.slice(0, 120)}`), metrics: ioMetrics(s, r) };
  },
  check(s) {
    // the engine's own checks (cgroup files as the kernel parses them, jobs
    // against devices) run when a Simulation is configured: configure one,
    // run nothing (a core kept for it: configure resets a reused core)
    new Simulation({ ...s, seed: 1 }, (probeCore ??= instantiateCore()));
  },
  serialize(doc, runSeed, header, mc) {
    return mcHeader(header, mc) + stringify({ ...(doc as Record<string, Json>), seed: runSeed }, { lineWidth: 0 });
  },
};
