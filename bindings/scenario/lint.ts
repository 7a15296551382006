// Mistakes that pass quietly: settings the kernel accepts (so iosim runs
// them, as the kernel would) that a person surely did not mean. Each finding
// is a warning, printed before any result, and `iosim run --strict` makes it
// an error.
//
// Before the run (lintScenario):
//  * a job's cgroup= that no cgroup of the scenario configures: fio makes it,
//    and the job runs unlimited (the nearest configured name is suggested);
//  * io.weight on cgroup v2 with no io.cost.qos enable=1 for any device:
//    iosim, like a kernel whose scheduler is not bfq, gives io.weight effect
//    only through blk-iocost, so the weights do nothing;
//  * io.max / blkio.throttle.* limits on a device no job uses.
// After the run (lintResult):
//  * simulated time far beyond what the jobs were told to run (runtime,
//    duration): IOs submitted in time waited that long, usually a limit far
//    lower than meant (io.max rbps=50M is 50 bytes/s);
//  * latencies beyond fio's histogram (17.1 s): fio's percentiles stop at its
//    last bucket, so the run's own records give the true ones.
//
// Worked example: jobs: [{cgroup: tenant-a}] with cgroups {tenant_a: ...}
// -> 'job "j": cgroup=tenant-a is not a cgroup the scenario configures; the
// job runs in a new cgroup with no limits (did you mean "tenant_a"?)'.

import type { RunResult, Scenario } from "./types.js";

/** Levenshtein distance, for "did you mean" */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const t = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = t;
    }
  }
  return d[b.length]!;
}

export function nearest(name: string, among: readonly string[]): string | undefined {
  let best: string | undefined;
  let bd = Infinity;
  for (const c of among) {
    const x = editDistance(name, c);
    if (x < bd) {
      bd = x;
      best = c;
    }
  }
  return best !== undefined && bd <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

const where = (src: { file: string; line?: number } | undefined, fallback: string) =>
  src ? `${src.file}${src.line !== undefined ? `:${src.line}` : ""}` : fallback;

export function lintScenario(s: Scenario): string[] {
  const out: string[] = [];
  const name = s.source?.file ?? s.name;
  // every file write: at t = 0 and later
  const writes: Array<{ cgroup: string; file: string; value: string; at: string }> = [];
  for (const c of s.cgroups) for (const [f, v] of Object.entries(c.files ?? {})) writes.push({ cgroup: c.path, file: f, value: v, at: c.fileLines?.[f] !== undefined ? `${c.source?.file ?? name}:${c.fileLines[f]}` : where(c.source, name) });
  for (const w of s.writes) writes.push({ cgroup: w.cgroup, file: w.file, value: w.value, at: where(w.source, name) });

  // a job's cgroup that nothing configures
  const configured = new Set<string>();
  for (const c of s.cgroups) {
    const parts = c.path.split("/");
    for (let i = 1; i <= parts.length; i++) configured.add(parts.slice(0, i).join("/"));
  }
  for (const w of writes) configured.add(w.cgroup);
  const named = [...configured].filter((p) => p !== "");
  for (const j of s.jobs) {
    if (!j.cgroup || configured.has(j.cgroup) || named.length === 0) continue;
    const near = nearest(j.cgroup, named);
    out.push(`${where(j.source, name)}: job "${j.name}": cgroup=${j.cgroup} is not a cgroup the scenario configures; the job runs in a new cgroup with no limits${near ? ` (did you mean "${near}"?)` : ""}`);
  }

  // io.weight without blk-iocost
  if (s.cgroupVersion === 2) {
    const weight = writes.find((w) => w.file === "io.weight");
    const iocostOn = writes.some((w) => w.file === "io.cost.qos" && /(^|\s)enable=1(\s|$)/.test(w.value));
    if (weight && !iocostOn) {
      out.push(`${weight.at}: io.weight has no effect here: no io.cost.qos write enables blk-iocost (enable=1), and iosim, like a kernel whose scheduler is not bfq, applies io.weight only through blk-iocost`);
    }
  }

  // limits on a device no job uses
  const used = new Set(s.jobs.map((j) => s.devices.find((d) => d.name === j.device)?.devno).filter(Boolean));
  for (const w of writes) {
    if (w.file !== "io.max" && !w.file.startsWith("blkio.throttle.")) continue;
    for (const line of w.value.split("\n")) {
      const devno = /^\s*(\d+:\d+)\s/.exec(line + " ")?.[1];
      if (!devno || used.has(devno) || s.jobs.length === 0) continue;
      const dev = s.devices.find((d) => d.devno === devno);
      out.push(`${w.at}: ${w.file} limits ${devno}${dev ? ` (${dev.name})` : ""}, which no job uses${s.devices.length ? `; the jobs use ${[...used].join(", ") || "no device"}` : ""}`);
      break;
    }
  }
  return out;
}

/** fio's histogram tops out here (plat_idx_to_val of its last bucket, ns) */
export const FIO_PLAT_TOP_NS = 17_112_760_320;

/** Warnings from a finished run; `truePercentile(job, p)` reads the run's own records where given. */
export function lintResult(s: Scenario, r: RunResult, truePercentile?: (job: string, dir: "read" | "write", p: number) => number | undefined): string[] {
  const out: string[] = [];
  const stated = s.durationNs ?? (s.jobs.length && s.jobs.every((j) => j.runtimeNs !== undefined) ? Math.max(...s.jobs.map((j) => j.startNs + j.runtimeNs!)) : undefined);
  if (stated !== undefined && r.simulatedNs > 2 * stated + 1e9) {
    out.push(`the run simulated ${(r.simulatedNs / 1e9).toFixed(1)} s where its jobs were to run ${(stated / 1e9).toFixed(1)} s: IOs submitted in time waited until then (a limit far lower than meant? io.max takes bytes and IOs per second, no unit suffixes)`);
  }
  for (const j of r.jobs) {
    for (const dir of ["read", "write"] as const) {
      const d = j[dir];
      if (d.ios === 0 || d.lat.max <= FIO_PLAT_TOP_NS) continue;
      const p99 = truePercentile?.(j.name, dir, 99);
      out.push(`job "${j.name}" ${dir}s: latencies reach ${(d.lat.max / 1e9).toFixed(1)} s, beyond fio's histogram (${(FIO_PLAT_TOP_NS / 1e9).toFixed(2)} s): fio's percentiles stop there${p99 !== undefined ? `; the true p99 from iosim's own records is ${(p99 / 1e9).toFixed(2)} s` : ""}`);
    }
  }
  return out;
}
