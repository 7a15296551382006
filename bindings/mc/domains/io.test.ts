// The IO domain: a sampled value the io loader rejects is an error outcome
// naming the randomised file's line and the field's path, like the k8s
// domain's (the loader itself sees the sampled text, with other lines, and
// names a fio option by its key alone).
//
// A run loads the sample's values directly (scenarioFromValue), not the YAML
// text of the sample as it once did (scenarioViaText): the two must accept and
// reject the same documents and build the same scenario, or a sweep's
// outcomes would depend on the way in.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { modelFromText, runLine } from "../run-one.js";
import { runSeed } from "../rng.js";
import { TemplateModel } from "../model.js";
import { yamlLines, type Json } from "../distributions.js";
import { scenarioFromValue } from "../../scenario/load.js";
import type { Scenario } from "../../scenario/types.js";
import { ioDomain, scenarioViaText } from "./io.js";

const SWEEP = `mc:
  domain: io
scenario:
  name: t
  jobs:
    - name: a
      rw: randread
      number_ios: 20
      bs: {choice: [4k, 8q]}
      iodepth: 1
`;

/** The classes of `runs` runs of a sweep, each once. */
function classesOf(text: string, runs: number): string[] {
  const m = modelFromText(text, "sweep.yaml");
  const classes = new Set<string>();
  for (let i = 0; i < runs; i++) {
    const seed = runSeed(1n, i);
    for (const c of m.run(m.sample(seed), seed).classes) classes.add(c);
  }
  return [...classes].sort();
}

const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

describe("io domain: a sampled value the loader rejects", () => {
  it("is the class error:FILE:LINE (jobs[0].bs): ..., at the randomised file's line of the field", () => {
    const line = lineOf(SWEEP, "bs: {choice");
    expect(classesOf(SWEEP, 16).filter((c) => c.startsWith("error:"))).toEqual([`error:sweep.yaml:${line} (jobs[0].bs): bad value "8q" for bs: unknown size suffix "q"`]);
  });

  it("an option fio does not know is the error fio's parser gives, at the line and path of that key (a typo ran every sample at depth 1)", () => {
    const sweep = SWEEP.replace("iodepth: 1", "iodeph: 8").replace("bs: {choice: [4k, 8q]}", "bs: {choice: [4k, 8k]}");
    expect(classesOf(sweep, 4)).toEqual([
      `error:sweep.yaml:${lineOf(sweep, "iodeph")} (jobs[0].iodeph): fio does not know the option "iodeph" (fio: Bad option <iodeph=8>); did you mean "iodepth"?`,
    ]);
  });

  it("names the field's path and line wherever it sits: a device, a cgroup, a change, a job's non-scalar option", () => {
    const sweep = `mc:
  domain: io
scenario:
  name: t
  devices:
    - {preset: nvme, jitter: {choice: [0.1, -1]}}
  cgroups:
    a: {choice: [{io.weight: "default 100"}, [x]]}
  changes:
    - {at: {choice: [1ms, soon]}, cgroup: a, file: io.weight, value: "default 200"}
  jobs:
    - {name: j, cgroup: a, rw: randread, number_ios: 5, iodepth: {choice: [1, {deep: 2}]}}
`;
    expect(classesOf(sweep, 48).filter((c) => c.startsWith("error:"))).toEqual([
      `error:sweep.yaml:${lineOf(sweep, "- {preset")} (devices[0].jitter): "jitter" must be a non-negative number`,
      `error:sweep.yaml:${lineOf(sweep, "a: {choice")} (cgroups.a): cgroup "a": a mapping of interface file -> value`,
      `error:sweep.yaml:${lineOf(sweep, "- {at:")} (changes[0].at): "at": "soon" is not a time (got "soon")`,
      `error:sweep.yaml:${lineOf(sweep, "- {name: j")} (jobs[0].iodepth): fio option "iodepth" must be a single value`,
    ].sort());
  });
});

describe("io domain: a value the engine rejects, and its warnings", () => {
  // the scenario's source lines are the randomised file's: a run's error or
  // warning from the engine named the line of the sample's YAML text
  // (io.max at 8, the change at 10) before runs loaded the values directly
  const sweep = `mc:
  domain: io
scenario:
  name: t
  duration: 1s
  devices:
    - {preset: nvme}
  cgroups:
    capped:
      io.weight: "default 100"
      io.max: {choice: ["259:0 rbps=max", "259:0 rbps=zzz"]}
  changes:
    - {at: 50s, cgroup: capped, file: io.weight, value: "default 200"}
  jobs:
    - name: a
      cgroup: capped
      rw: randread
      direct: 1
      number_ios: 20
      iodepth: 1
`;
  it("name the randomised file's line of the io.max value and of the change", () => {
    expect(classesOf(sweep, 8)).toEqual([
      `error:sweep.yaml:${lineOf(sweep, "io.max:")} (io.max rbps): io.max: write rejected at "rbps=zzz": value must be a number or "max", got "zzz" [EINVAL]`,
      `warning:sweep.yaml:${lineOf(sweep, "- {at: 50s")}: the change of capped/io.weight at 50.000 s was not applied: the run ended at 0.002 s`,
    ]);
  });
});

/** A scenario without the lines its sources name (the direct load names the randomised file's, the text load the text's). */
function withoutLines(s: Scenario): unknown {
  return {
    ...s,
    cgroups: s.cgroups.map((g) => ({ ...g, fileLines: Object.keys(g.fileLines ?? {}), source: { ...g.source, line: 0 } })),
    jobs: s.jobs.map((j) => ({ ...j, source: { ...j.source, line: 0 } })),
    writes: s.writes.map((w) => ({ ...w, source: { ...w.source, line: 0 } })),
  };
}

type Outcome = { ok: true; s: unknown } | { ok: false; message: string };
function attempt(f: () => Scenario): Outcome {
  try {
    return { ok: true, s: withoutLines(f()) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

// documents near the loader's edges: each key absent, with a good value, or
// (less often) with a bad value or a value of the wrong shape
const any: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -0, 1, 6.1, 1e21, -5, "", "x", "4k", "8q", "1s", "259:0", [], {}, { a: 1 }, ["x"]),
  fc.string({ maxLength: 6 }),
);
const key = (good: Json[], bad: Json[] = []): fc.Arbitrary<Json | undefined> => fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: good.length ? fc.constantFrom(...good) : fc.constant(undefined) },
  { weight: 1, arbitrary: bad.length ? fc.oneof(fc.constantFrom(...bad), any) : any },
);
const mapping = (m: Record<string, fc.Arbitrary<Json | undefined>>) => fc.record(m) as fc.Arbitrary<Json>;
const list = (a: fc.Arbitrary<Json>, max: number) => fc.oneof({ weight: 9, arbitrary: fc.array(a, { maxLength: max }) as fc.Arbitrary<Json> }, { weight: 1, arbitrary: any });
const device = mapping({
  preset: key(["nvme", "ssd", "hdd"], ["bogus"]), name: key(["d0", "d1"]), devno: key(["8:0", "259:1"], ["8-0"]),
  jitter: key([0, 0.3, "0.2"], [-1, 10]), channels: key([4], [0]), latency: key(["20us", 0.001], ["later"]),
  rotational: key([true, "yes", 0]), colour: key([], [1]),
});
const files = fc.oneof(
  { weight: 1, arbitrary: any },
  { weight: 9, arbitrary: mapping({ "io.max": key(["8:0 riops=100", "259:0 rbps=1048576"], ["8:0 rbps=zzz"]), "io.weight": key(["default 100", 50], ["default 0"]) }) },
);
const job = fc.oneof({ weight: 1, arbitrary: any }, {
  weight: 9,
  arbitrary: mapping({
    name: key(["a", "b", 7]), cgroup: key(["t/a", "t/b", "/t/a/"]), rw: key(["randread", "write", "rw"], ["sideways"]),
    bs: key(["4k", 4096, "64k"], ["8q", true]), iodepth: key([1, 8, "4", null], [0]), number_ios: fc.constantFrom<Json>(4, 9),
    direct: key([1, true, false]), ioengine: key(["libaio", "psync"], ["nope"]), filename: key(["/dev/d0", "/dev/sda"], ["/dev/nope"]),
  }),
});
const change = fc.oneof({ weight: 1, arbitrary: any }, {
  weight: 9,
  arbitrary: mapping({
    at: fc.constantFrom<Json>("1ms", 0.5, "soon"), cgroup: key(["t/a", "t", ""], ["u"]), file: fc.constantFrom<Json>("io.weight", "io.max"),
    value: fc.constantFrom<Json>("default 200", "8:0 rbps=max"), when: key([], [1]),
  }),
});
const docArb = mapping({
  name: fc.oneof({ weight: 9, arbitrary: fc.constantFrom<Json>("s", 3) }, { weight: 1, arbitrary: key([], [[]]) }),
  description: key(["d", 5]),
  kernel: key(["6.1", 6.1, 6.12, "6.18", 6.18], [6.2, "5.4"]),
  cgroup_version: key([1, 2, "2"], [3]),
  seed: key([0, 7, "9"], [-1, 1.5]),
  hz: key([100, 250, 1000], [7]),
  jiffies_at_zero: key([4294969796, "12"], ["-1"]),
  tick_phase_ns: key([0, 1000], [-1, 5e6]),
  duration: key(["10ms", "1s"], [0, "0s", "x"]),
  series: key(["1ms", 0], ["x"]),
  record: key([true, "yes", "no", 1]),
  devices: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: list(device, 2) }),
  cgroups: fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom("t/a", "t/b", "/t/", "1", ""), files, { maxKeys: 3 }) as fc.Arbitrary<Json> },
    { weight: 1, arbitrary: any },
  ),
  jobs: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 4, arbitrary: list(job, 3) }),
  fio: key(["[f]\nrw=read\nnumber_ios=3\n"], ["[g]\nbs=9z\n"]),
  changes: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: list(change, 2) }),
  extra: fc.oneof({ weight: 19, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: any }),
});

describe("io domain: the sample's values load as its YAML text did", () => {
  it("the same documents accepted and rejected, the same scenarios built (but for their source lines)", () => {
    const lines = new Map([["", 1]]); // a parsed file's: every path falls back to the document's line
    let accepted = 0;
    fc.assert(fc.property(docArb, (doc) => {
      const direct = attempt(() => scenarioFromValue(doc, "f.yaml", {}, lines).scenario);
      const text = attempt(() => scenarioViaText(doc, "f.yaml", lines));
      expect(direct.ok).toBe(text.ok);
      if (direct.ok && text.ok) {
        accepted++;
        expect(direct.s).toEqual(text.s);
      } else {
        // and prepare() words a rejection as the text load does
        expect(attempt(() => ioDomain.prepare(doc, "f.yaml", lines))).toEqual(text);
      }
    }), { numRuns: 600, seed: 11 });
    expect(accepted).toBeGreaterThan(20);
  });

  it("io-depth.yaml: the same journal lines as runs that loaded each sample's YAML text", () => {
    const file = resolve(__dirname, "..", "examples", "io-depth.yaml");
    const fast = modelFromText(readFileSync(file, "utf8"), file);
    const viaText = new TemplateModel({ ...fast.spec, domain: { ...ioDomain, prepare: scenarioViaText } });
    for (let i = 0; i < 40; i++) expect(runLine(fast, 7n, i)).toBe(runLine(viaText, 7n, i));
  });

  it("the scenario's source lines are the randomised file's lines of the fields", () => {
    const text = "name: s\ncgroups:\n  t/a:\n    io.weight: \"default 100\"\n  t/b: {io.max: \"8:0 rbps=max\"}\njobs:\n  - {name: a, cgroup: t/a, rw: read, number_ios: 2}\n  - name: b\n    number_ios: 2\nchanges:\n  - {at: 1ms, cgroup: t/b, file: io.weight, value: \"default 50\"}\n";
    const { value, lines } = yamlLines(text);
    const s = scenarioFromValue(value, "f.yaml", {}, lines).scenario;
    // a cgroup at its key's line, as a YAML file's is (t/a: on line 3, its block on 4)
    expect(s.cgroups.map((g) => [g.source?.line, g.fileLines])).toEqual([[3, { "io.weight": 4 }], [5, { "io.max": 5 }]]);
    expect(s.jobs.map((j) => j.source?.line)).toEqual([7, 8]);
    expect(s.writes.map((w) => w.source?.line)).toEqual([11]);
  });
});

// The loader's warnings (what `iosim run` prints before it runs) were dropped
// by the io domain: a sweep of iodepth under ioengine=psync tabulated three
// depths that all ran at depth 1, and counted every run ok.
describe("io domain: the loader's warnings about a sample", () => {
  const PSYNC = `mc:
  domain: io
  params:
    depth: {choice: [1, 8, 32]}
scenario:
  name: t
  jobs:
    - {name: a, rw: randread, ioengine: psync, direct: 1, iodepth: {param: depth}, number_ios: 20, bs: 4k}
`;
  it("iodepth 8 or 32 under psync is a warning class naming the file's line, as iosim run warns; depth 1 stays ok", () => {
    const line = lineOf(PSYNC, "ioengine: psync");
    const m = modelFromText(PSYNC, "sweep.yaml");
    const byDepth = new Map<number, string[]>();
    for (let i = 0; i < 24; i++) {
      const seed = runSeed(1n, i);
      const c = m.sample(seed);
      byDepth.set(c.params.depth as number, m.run(c, seed).classes);
    }
    expect(byDepth.get(1)).toEqual([]);
    for (const d of [8, 32]) {
      expect(byDepth.get(d)).toEqual([`warning:sweep.yaml:${line}: iodepth=${d} with ioengine=psync: a synchronous engine keeps one IO in flight; iodepth 1 is used`]);
    }
  });
});

/**
 * The io sweep the fio-comparison tests below run: two cgroups on an NVMe
 * device, job a (capped, random io.max) first, `extra` jobs after it, job b
 * (free, numjobs=2) last.
 */
function ratesSweep(name: string, extra: readonly string[]): string {
  return `mc:
  domain: io
scenario:
  name: ${name}
  devices:
    - {preset: nvme, name: nvme0n1, jitter: {uniform: [0, 0.5]}}
  cgroups:
    capped: {io.max: {choice: ["259:0 rbps=max", "259:0 rbps=10485760", "259:0 riops=3000"]}}
    free: {}
  jobs:
    - {name: a, cgroup: capped, rw: {choice: [randread, randrw]}, ioengine: libaio, direct: 1, iodepth: {choice: [1, 8]}, number_ios: {randint: [50, 400]}, bs: {choice: [4k, 64k]}}
${extra.join("")}    - {name: b, cgroup: free, rw: randwrite, ioengine: libaio, direct: 1, iodepth: 4, bs: 16k, runtime: {choice: ["3ms", "40ms"]}, time_based: 1, numjobs: 2}
`;
}
const JOB_A2 = `    - {name: a2, cgroup: capped, rw: randread, ioengine: libaio, direct: 1, iodepth: 16, number_ios: {randint: [5, 40]}, bs: 128k, startdelay: {choice: ["0ms", "2ms"]}}
`;

// A run's job metrics claimed fio's names but not fio's values: `bw` was
// bytes/s where fio's JSON "bw" is KiB/s (a bound copied from a fio report,
// `job.a.read.bw >= 20480` for 20 MiB/s, held in every run), and iops/bw were
// over the exact runtime where fio divides by whole ms (a 8.1 ms job: 36,918
// IOPS in the sweep, 37,500 in `iosim run --json` of the same scenario).
describe("io domain: a run's job metrics are the values `iosim run --json` prints for that scenario", () => {
  const RATES = ratesSweep("rates", []);
  it("iops, bw (KiB/s), bw_bytes and clat mean / p50 / p90 / p99 (ns) of every job and direction, for eight sampled runs", async () => {
    await withSampledRuns(modelFromText(RATES, "rates.yaml"), "mc-io-rates-", async (runAsFio) => {
      let compared = 0;
      for (let i = 0; i < 8; i++) {
        const { rec, fio } = await runAsFio(i);
        const names = new Map<string, number>();
        for (const j of fio.jobs) {
          // numjobs=2: fio names both clones "b"; the sweep's metrics call them b.0 and b.1
          const k = names.get(j.jobname) ?? 0;
          names.set(j.jobname, k + 1);
          const name = j.jobname === "b" ? `b.${k}` : j.jobname;
          for (const d of ["read", "write"] as const) {
            const f = j[d];
            const at = `job.${name}.${d}`;
            if (f.total_ios === 0) {
              expect(rec.metrics[`${at}.iops`]).toBeUndefined();
              continue;
            }
            expectFioValues(rec.metrics, i, at, f);
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThanOrEqual(24);
    });
  });

  it("disk.N.util / read_ios / write_ios / in_queue are the run's fio disk_util, for four sampled runs", async () => {
    await withSampledRuns(modelFromText(RATES, "rates.yaml"), "mc-io-disks-", async (runAsFio) => {
      let compared = 0;
      for (let i = 0; i < 4; i++) {
        const { rec, fio } = await runAsFio(i);
        const disks = (fio as unknown as { disk_util: Array<{ name: string; util: number; read_ios: number; write_ios: number; in_queue: number }> }).disk_util;
        expect(disks.length).toBeGreaterThan(0);
        for (const d of disks) {
          const at = `disk.${d.name}`;
          expect({ run: i, util: rec.metrics[`${at}.util`], r: rec.metrics[`${at}.read_ios`], w: rec.metrics[`${at}.write_ios`], q: rec.metrics[`${at}.in_queue`] })
            .toEqual({ run: i, util: expect.closeTo(d.util, 5), r: d.read_ios, w: d.write_ios, q: d.in_queue });
          expect(d.read_ios + d.write_ios).toBeGreaterThan(0);
          compared++;
        }
      }
      expect(compared).toBeGreaterThanOrEqual(4);
    });
  });
});

// Issue #7 asks for latency per cgroup; the io domain had only per-job
// metrics and the cgroup's throttle wait. A cgroup's metrics are its jobs
// reported as one fio group: the same scenario run by `iosim run --json` with
// group_reporting on every job and new_group on the first of each cgroup
// prints one entry per cgroup, whose values they must be (percentiles over
// the cgroup's IOs together, not any one job's).
describe("io domain: a cgroup's metrics are its jobs reported as one group by `iosim run --json`", () => {
  const CGROUPS = ratesSweep("cgroups", [JOB_A2]);
  it("iops, bw (KiB/s), bw_bytes and clat mean / p50 / p90 / p99 (ns) per cgroup and direction, for six sampled runs", async () => {
    await withSampledRuns(modelFromText(CGROUPS, "cgroups.yaml"), "mc-io-cgroups-", async (runAsFio) => {
      let compared = 0;
      let differsFromEveryJob = 0;
      for (let i = 0; i < 6; i++) {
        // the template lists each cgroup's jobs together: one reporting group per cgroup
        const { rec, fio } = await runAsFio(i, (doc) =>
          doc.jobs.forEach((j, k) => {
            j.group_reporting = 1;
            if (k > 0 && doc.jobs[k - 1]!.cgroup !== j.cgroup) j.new_group = 1;
          }));
        expect(fio.jobs.map((j) => j.jobname)).toEqual(["a", "b"]);
        for (const [k, cg] of (["capped", "free"] as const).entries()) {
          for (const d of ["read", "write"] as const) {
            const f = fio.jobs[k]![d];
            const at = `cgroup.${cg}.${d}`;
            if (f.total_ios === 0) {
              expect(rec.metrics[`${at}.iops`]).toBeUndefined();
              continue;
            }
            expectFioValues(rec.metrics, i, at, f);
            compared++;
            // combined, not a copy of one job's value
            const jobs = cg === "capped" ? ["a", "a2"] : ["b.0", "b.1"];
            if (jobs.every((j) => rec.metrics[`job.${j}.${d}.lat.p99`] !== rec.metrics[`${at}.lat.p99`]
              || rec.metrics[`job.${j}.${d}.lat.mean`] !== rec.metrics[`${at}.lat.mean`])) differsFromEveryJob++;
          }
        }
      }
      expect(compared).toBeGreaterThanOrEqual(12);
      expect(differsFromEveryJob).toBeGreaterThanOrEqual(6);
    });
  });
});

interface FioDir { total_ios: number; iops: number; bw: number; bw_bytes: number; clat_ns: { mean: number; percentile: Record<string, number> } }
type FioRun = { jobs: { jobname: string; read: FioDir; write: FioDir }[] };

/**
 * `body` gets runAsFio(i): run i of the sweep (runOne) and `iosim run --json`
 * of the same sample written out as a plain scenario (after `edit`, if
 * given), in a temporary directory removed afterwards.
 */
async function withSampledRuns(
  m: TemplateModel,
  prefix: string,
  body: (runAsFio: (i: number, edit?: (doc: { jobs: Record<string, unknown>[] }) => void) => Promise<{ rec: ReturnType<typeof import("../run-one.js").runOne>; fio: FioRun }>) => Promise<void>,
): Promise<void> {
  const { execFileSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { parse, stringify } = await import("yaml");
  const { runOne } = await import("../run-one.js");
  const main = resolve(__dirname, "..", "..", "..", "dist", "bindings", "cli", "main.js");
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await body(async (i, edit) => {
      const rec = runOne(m, 1n, i);
      let text = m.serialize(m.sample(rec.seed), rec.seed, `run ${i}`);
      if (edit) {
        const doc = parse(text) as { jobs: Record<string, unknown>[] };
        edit(doc);
        text = stringify(doc);
      }
      const file = join(dir, `run${i}.yaml`);
      writeFileSync(file, text);
      return { rec, fio: JSON.parse(execFileSync(process.execPath, [main, "run", file, "--json"], { encoding: "utf8" })) as FioRun };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** a sweep run's metrics at `at` (job.J.D or cgroup.C.D) are the values of fio's JSON direction `f` */
function expectFioValues(metrics: Record<string, number>, i: number, at: string, f: FioDir): void {
  expect({ run: i, at, iops: metrics[`${at}.iops`], bw: metrics[`${at}.bw`], bw_bytes: metrics[`${at}.bw_bytes`],
    mean: metrics[`${at}.lat.mean`], p50: metrics[`${at}.lat.p50`], p90: metrics[`${at}.lat.p90`], p99: metrics[`${at}.lat.p99`] })
    .toEqual({ run: i, at, iops: expect.closeTo(f.iops, 4), bw: f.bw, bw_bytes: f.bw_bytes,
      mean: expect.closeTo(f.clat_ns.mean, 4), p50: f.clat_ns.percentile["50.000000"], p90: f.clat_ns.percentile["90.000000"],
      p99: f.clat_ns.percentile["99.000000"] });
}

describe("io domain: a drawn number inside io.max (concat)", () => {
  const SWEEP_RIOPS = `mc:
  domain: io
scenario:
  name: t
  devices: [{preset: nvme, name: nvme0n1}]
  cgroups:
    g: {io.max: {concat: ["259:0 riops=", {randint: [100, 1000], round: 100, name: riops}]}}
  jobs:
    - {name: a, cgroup: g, rw: randread, ioengine: libaio, direct: 1, iodepth: 8, bs: 4k, runtime: 1s, time_based: 1}
`;
  it("each run's IOPS is its drawn riops cap", () => {
    const m = modelFromText(SWEEP_RIOPS, "sweep.yaml");
    const caps = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const seed = runSeed(1n, i);
      const c = m.sample(seed);
      const out = m.run(c, seed);
      expect(out.classes).toEqual([]);
      const cap = c.params.riops as number;
      caps.add(cap);
      expect(Math.abs(out.metrics["job.a.read.iops"]! / cap - 1)).toBeLessThan(0.06);
    }
    expect(caps.size).toBeGreaterThan(2);
  });
});
