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
//   jobs:
//     - {name: a, cgroup: capped, rw: randread, ioengine: libaio, iodepth: {choice: [1, 8, 32]},
//        bs: {choice: [4k, 64k]}, number_ios: 300}
//
// Each run writes the sampled document back to YAML and loads it with the
// same loadScenario() that `iosim run` uses (so a sweep accepts and rejects
// exactly what `iosim run` does, and a repro file is an ordinary scenario),
// then simulates it with the run seed.
//
// Metrics per job J and direction D (read/write) with IOs:
//   job.J.D.iops, job.J.D.bw (bytes/s over the job's runtime),
//   job.J.D.lat.mean / .p50 / .p99 (ns, fio's clat percentiles),
//   cgroup.C.throttleWaitNs.D, simulatedNs.
// Classes: the sweep's mc.expect failures (model.ts), plus
// "warning:<text>" for each engine warning and "error:..." if a run throws.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { stringify } from "yaml";
import { simulate } from "../../engine/simulation.js";
import "../../engine/modules/index.js";
import { InputError } from "../../scenario/errors.js";
import { loadScenario } from "../../scenario/load.js";
import type { Scenario } from "../../scenario/types.js";
import { yamlLines, type Json } from "../distributions.js";
import type { McDomain, McOutcome } from "../model.js";
import { mcHeader } from "../model.js";

export function ioMetrics(s: Scenario, r: ReturnType<typeof simulate>): Record<string, number> {
  const m: Record<string, number> = { simulatedNs: r.simulatedNs };
  for (const j of r.jobs) {
    for (const d of ["read", "write"] as const) {
      const st = j[d];
      if (st.ios === 0) continue;
      const sec = Math.max(1e-9, j.runtimeMs / 1e3);
      m[`job.${j.name}.${d}.iops`] = st.ios / sec;
      m[`job.${j.name}.${d}.bw`] = st.bytes / sec;
      m[`job.${j.name}.${d}.lat.mean`] = st.lat.mean;
      m[`job.${j.name}.${d}.lat.p50`] = st.lat.percentiles["50.000000"] ?? NaN;
      m[`job.${j.name}.${d}.lat.p99`] = st.lat.percentiles["99.000000"] ?? NaN;
    }
  }
  for (const g of r.cgroups) {
    if (g.path === "" || !s.cgroups.some((c) => c.path === g.path)) continue;
    m[`cgroup.${g.path}.throttleWaitNs.read`] = g.throttleWaitNs.read;
    m[`cgroup.${g.path}.throttleWaitNs.write`] = g.throttleWaitNs.write;
  }
  return m;
}

/**
 * The field path ("jobs[0].iodepth") at `line` of a sampled document's text:
 * the io loader names a fio option by its key alone and a line of the text it
 * was given, which is not the randomised file's. The path ending in `key` if
 * one does, else the shortest on that line.
 */
function pathAtLine(text: string, line: number, key?: string): string | undefined {
  const on = [...yamlLines(text).lines].filter(([p, l]) => l === line && p !== "").map(([p]) => p);
  if (on.length === 0) return undefined;
  const named = key !== undefined ? on.filter((p) => p === key || p.endsWith(`.${key}`)) : [];
  return (named.length ? named : on).reduce((a, b) => (b.length < a.length ? b : a));
}

/** the randomised file's line of `path`, or of its nearest enclosing field there */
function lineOfPath(lines: Map<string, number>, path: string): number | undefined {
  for (let p = path; ; ) {
    const l = lines.get(p);
    if (l !== undefined) return l;
    const i = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    if (i <= 0) return lines.get("");
    p = p.slice(0, i);
  }
}

export const ioDomain: McDomain<Scenario> = {
  name: "io",
  replayCommand: "iosim run",
  detect(doc) {
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return false;
    const o = doc as Record<string, Json>;
    return "jobs" in o || "fio" in o || "fio_file" in o;
  },
  prepare(doc, file, lines) {
    const text = stringify(doc, { lineWidth: 0 });
    try {
      return loadScenario(text, file, { readFile: (p, from) => readFileSync(resolve(dirname(from), p), "utf8") }).scenario;
    } catch (e) {
      // the loader saw the sampled document: point at the field's line in the randomised file instead
      if (e instanceof InputError) {
        const path = e.line !== undefined ? pathAtLine(text, e.line, e.field) : undefined;
        throw new InputError(e.message.replace(/^.*?: /, ""), file, path !== undefined ? lineOfPath(lines, path) : e.field ? lines.get(e.field) : undefined, path ?? e.field);
      }
      throw e;
    }
  },
  run(s, runSeed): McOutcome {
    const r = simulate({ ...s, seed: runSeed });
    return { classes: r.warnings.map((w) => `warning:${w.slice(0, 120)}`), metrics: ioMetrics(s, r) };
  },
  serialize(doc, runSeed, header, mc) {
    return mcHeader(header, mc) + stringify({ ...(doc as Record<string, Json>), seed: runSeed }, { lineWidth: 0 });
  },
};
