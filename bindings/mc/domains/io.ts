// The IO domain: a scenario of the block-IO engine (devices, cgroups with
// io.max / io.weight / io.cost files, fio-like jobs, timed config writes),
// run by `simulate()`.
//
// Document shape (the fields of bindings/scenario/types.ts Scenario, with
// jobDefaults()/scenarioDefaults() filling what is left out):
//
//   name: two-tenants
//   durationNs: 2000000000
//   devices:
//     - {name: nvme0n1, devno: "259:0", iops: 200000, channels: 8}   # iops: a flat curve
//   cgroups:
//     - {path: capped, files: {io.max: "259:0 rbps=20971520"}}
//   jobs:
//     - {name: a, cgroup: capped, device: nvme0n1, rw: read, random: true, iodepth: 16, runtimeNs: 1e9, timeBased: true}
//
// Until the IO scenario loader lands in bindings/scenario/, this adapter reads
// that shape itself; a repro file is the same shape with every value fixed,
// which `iosim mc replay` runs (and `iosim run` once its loader reads it).
//
// Metrics per job J and direction D (read/write) with IOs:
//   job.J.D.iops, job.J.D.bw (bytes/s over the job's runtime),
//   job.J.D.lat.mean / .p50 / .p99 (ns, fio's clat percentiles),
//   cgroup.C.throttleWaitNs.D, simulatedNs.
// Classes: the scenario's mc.expect failures (model.ts), plus
// "warning:<text>" for each engine warning and "error:..." if a run throws.

import { stringify } from "yaml";
import { simulate } from "../../engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../scenario/defaults.js";
import { InputError } from "../../scenario/errors.js";
import type { CurvePoints, DeviceSpec, JobSpec, Scenario } from "../../scenario/types.js";
import type { Json } from "../distributions.js";
import type { McDomain, McOutcome } from "../model.js";

const flat = (iops: number): CurvePoints => [[512, iops], [1 << 20, iops]];

function device(d: Record<string, unknown>, file: string, k: number): DeviceSpec {
  if (typeof d.name !== "string") throw new InputError("a device needs a name", file, undefined, `devices[${k}].name`);
  const iops = Number(d.iops ?? 100000);
  if (!(iops > 0)) throw new InputError(`iops must be > 0, got ${String(d.iops)}`, file, undefined, `devices[${k}].iops`);
  const { iops: _i, ...rest } = d;
  return {
    name: d.name, devno: String(d.devno ?? `8:${k * 16}`), kind: "custom", channels: 1, nrRequests: 64, latencyNs: 0, jitterSigma: 0,
    maxSectorsKb: 1280, rotational: false,
    curve: { read: { seq: flat(iops), rand: flat(iops) }, write: { seq: flat(iops), rand: flat(iops) } },
    ...(rest as Partial<DeviceSpec>),
  };
}

export function ioScenarioFromDoc(doc: Json, file: string): Scenario {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new InputError("an IO scenario is a mapping", file);
  const o = doc as Record<string, Json>;
  const devices = ((o.devices ?? []) as Json[]).map((d, k) => device(d as Record<string, unknown>, file, k));
  const jobs = ((o.jobs ?? []) as Json[]).map((j0, k): JobSpec => {
    const j = j0 as Record<string, unknown>;
    if (typeof j.name !== "string") throw new InputError("a job needs a name", file, undefined, `jobs[${k}].name`);
    const dev = String(j.device ?? devices[0]?.name ?? "");
    const bs = typeof j.bs === "number" ? [{ size: j.bs, weight: 1 }] : j.bs;
    return jobDefaults({ ...(j as Partial<JobSpec>), name: j.name, device: dev, ...(bs ? { bs: bs as JobSpec["bs"] } : {}) });
  });
  const { devices: _d, jobs: _j, ...rest } = o;
  return scenarioDefaults({ name: "io", ...(rest as Partial<Scenario>), devices, jobs });
}

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

export const ioDomain: McDomain<Scenario> = {
  name: "io",
  replayCommand: "iosim mc replay",
  detect(doc) {
    return !!doc && typeof doc === "object" && !Array.isArray(doc) && Array.isArray((doc as Record<string, Json>).jobs)
      && Array.isArray((doc as Record<string, Json>).devices);
  },
  prepare(doc, file) {
    return ioScenarioFromDoc(doc, file);
  },
  run(s, runSeed): McOutcome {
    const r = simulate({ ...s, seed: runSeed });
    return { classes: r.warnings.map((w) => `warning:${w.slice(0, 120)}`), metrics: ioMetrics(s, r) };
  },
  serialize(doc, runSeed, header, mc) {
    const d = { ...(doc as Record<string, Json>), seed: runSeed };
    const body = mc ? { mc, scenario: d } : d;
    return header.split("\n").map((l) => `# ${l}`).join("\n") + "\n" + stringify(body);
  },
};
