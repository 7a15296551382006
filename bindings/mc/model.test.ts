// The `mc:` section of a sweep file: what it accepts, and how a metric
// expectation judges a run.
//
// A misspelt key of `mc:` (`expects:`) was dropped, so the sweep ran without
// its expectations and counted every run ok; a run that never reported an
// expectation's metric (a pod that never reached Running has no runningAtMs)
// was counted only as `expect:<name>:no-metric`, so P(expect:slow-start) left
// out the slowest starts of all.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InputError } from "../scenario/errors.js";
import { failedExpectations } from "./model.js";
import { modelFromText, runOne } from "./run-one.js";
import { SweepTally } from "./summary.js";

const ROOT = resolve(__dirname, "..", "..");
const K8S = join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");

const IO = (mc: string) => `mc:
  domain: io
${mc}
scenario:
  name: t
  jobs:
    - {name: a, rw: randread, ioengine: libaio, direct: 1, iodepth: {param: d}, number_ios: 5, bs: 4k}
`;

function inputError(text: string): InputError {
  try {
    modelFromText(text, "sweep.yaml");
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("no InputError");
}

describe("the mc: section refuses what it does not know", () => {
  it("a misspelt `expects:` is refused with file, line and field (dropped, every run counted ok)", () => {
    const e = inputError(IO(`  params: {d: {choice: [1, 4]}}
  expects: [{name: x, metric: job.a.read.lat.p99, "<=": 1}]`));
    expect(e.file).toBe("sweep.yaml");
    expect(e.line).toBe(4);
    expect(e.field).toBe("mc.expects");
    expect(e.message).toMatch(/unknown key "expects" in mc:/);
  });

  it("an unknown key of an expectation or of a table axis (`bin:` for bins) is refused", () => {
    const a = inputError(IO(`  params: {d: {choice: [1, 4]}}
  expect:
    - {name: x, metric: job.a.read.lat.p99, "<=": 1, unit: ms}`));
    expect(a.field).toBe("mc.expect[0].unit");
    expect(a.line).toBe(5);
    const b = inputError(IO(`  params: {d: {choice: [1, 4]}}
  table:
    - {param: d, bin: [0, 2]}`));
    expect(b.field).toBe("mc.table[0].bin");
    expect(b.message).toMatch(/unknown key "bin" in a table axis \(known: param, bins\)/);
  });

  it("a bound that is not a number (null read as 0 before) and a metrics list that is not a list are refused", () => {
    const a = inputError(IO(`  params: {d: {choice: [1, 4]}}
  expect:
    - {name: x, metric: job.a.read.lat.p99, "<=": null}`));
    expect(a.field).toBe("mc.expect[0].<=");
    const b = inputError(IO(`  params: {d: {choice: [1, 4]}}
  metrics: job.a.read.iops`));
    expect(b.field).toBe("mc.metrics");
  });

  it("a well-formed section still loads", () => {
    expect(() => modelFromText(IO(`  params: {d: {choice: [1, 4]}}
  metrics: [job.a.read.iops]
  expect:
    - {name: x, metric: job.a.read.lat.p99, "<=": 1e6}
  table:
    - {param: d, bins: [0, 2]}`), "sweep.yaml")).not.toThrow();
  });
});

describe("a metric expectation judges a run", () => {
  it("a run without the metric fails the expectation, with a no-metric class saying why", () => {
    const exp = [{ name: "slow-start", metric: "pod.default/web-0.runningAtMs", op: "<=" as const, value: 90000 }];
    expect(failedExpectations(exp, { "pod.default/web-0.runningAtMs": 81420 })).toEqual([]);
    expect(failedExpectations(exp, { "pod.default/web-0.runningAtMs": 95000 })).toEqual(["expect:slow-start"]);
    expect(failedExpectations(exp, { nodePatches: 7 })).toEqual(["expect:slow-start", "expect:slow-start:no-metric"]);
  });

  it("detach backoff: a pod stuck ContainerCreating (no runningAtMs) counts as a slow start", () => {
    const text = readFileSync(K8S, "utf8")
      .replace('landDelay: {uniform: ["0ms", "6000ms"]}', 'landDelay: "0ms"')
      .replace('busyDetaches: {randint: [1, 4]}', "busyDetaches: 1")
      .replace("{bernoulli: 0.5, name: fix104526}", "{bernoulli: 0, name: fix104526}")
      .replace("  metrics:", '  expect:\n    - {name: slow-start, metric: pod.default/web-0.runningAtMs, "<=": 90000}\n  metrics:');
    const m = modelFromText(text, "sweep.yaml");
    const out = m.run(m.sample(1), 1);
    expect(out.classes).toContain("incident");
    expect(out.metrics["pod.default/web-0.runningAtMs"]).toBeUndefined();
    expect(out.classes).toContain("expect:slow-start");
    expect(out.classes).toContain("expect:slow-start:no-metric");
  });
});

// The repro of a class of the sweep's own metric expectations said "replay:
// iosim run repro-expect-capped-p99-over-1ms.yaml", which runs the file,
// prints the latency and exits 0: only `iosim mc replay` reads the `# mc:`
// comment and judges the bound.
describe("the replay command of a repro", () => {
  const IO_DEPTH = join(ROOT, "bindings", "mc", "examples", "io-depth.yaml");

  it("is iosim mc replay for a class of mc.expect, the domain's command for any other", () => {
    const m = modelFromText(readFileSync(IO_DEPTH, "utf8"), IO_DEPTH);
    expect(m.replayCommandFor("expect:capped-p99-over-1ms")).toBe("iosim mc replay");
    expect(m.replayCommandFor("expect:capped-p99-over-1ms:no-metric")).toBe("iosim mc replay");
    expect(m.replayCommandFor("warning:x")).toBe("iosim run");
    const k = modelFromText(readFileSync(K8S, "utf8"), K8S);
    expect(k.replayCommandFor('expect:podRunning "web-0"')).toBe("iosim k8s run");
  });

  it("the summary and the repro's header name it", () => {
    const m = modelFromText(readFileSync(IO_DEPTH, "utf8"), IO_DEPTH);
    const dir = mkdtempSync(join(tmpdir(), "mc-replay-"));
    try {
      const t = new SweepTally();
      for (let i = 0; i < 40 && !t.smallestRun("expect:capped-p99-over-1ms"); i++) t.add(runOne(m, 1n, i));
      const header = { mc: 1 as const, scenario: { file: IO_DEPTH, digest: "d", text: "" }, seed: "1", runs: 40, shard: { index: 0, count: 1 } };
      const s = t.summary(header, m, { outDir: dir, shrinkBudget: 0 });
      const repro = s.classes["expect:capped-p99-over-1ms"]!.repro!;
      expect(repro.replay).toBe("iosim mc replay repro-expect-capped-p99-over-1ms.yaml");
      expect(readFileSync(join(dir, repro.file), "utf8")).toContain("# replay: iosim mc replay repro-expect-capped-p99-over-1ms.yaml\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A value the template fixes that no run can load (`bs: 8q` in a job, no
// distribution involved) ran every sample into the same error class, a
// journal of "error:..." lines; it is refused when the file is read, with the
// loader's own message. An error that only some draws give stays a per-run
// class, even when the field it names is written without a distribution.
describe("a fixed bad value in the template", () => {
  const JOB = (job: string, extra = "") => `mc:
  domain: io
scenario:
  name: t
  cgroups:
    a: {io.max: ${extra || '"259:0 rbps=max"'}}
  devices: [{preset: nvme, name: nvme0n1}]
  jobs:
    - {name: a, cgroup: a, rw: randread, ioengine: libaio, direct: 1, number_ios: 5, ${job}}
`;

  it("bs: 8q beside a drawn iodepth is refused with the loader's error (file, line, field), as every run gave it", () => {
    const m = modelFromText(JOB("iodepth: {choice: [1, 8, 32]}, bs: 8q"), "sweep.yaml");
    const e = m.fixedError()!;
    expect(e).toBeInstanceOf(InputError);
    expect([e.file, e.line, e.field]).toEqual(["sweep.yaml", 9, "jobs[0].bs"]);
    // the same words a run's error class carried
    for (let s = 0; s < 3; s++) expect(m.run(m.sample(s), s).classes).toEqual([`error:${e.message}`.slice(0, 166)]);
  });

  it("an io.max the engine refuses, fixed in the file, is refused too (the engine's check, nothing simulated)", () => {
    const m = modelFromText(JOB("iodepth: {choice: [1, 8]}, bs: 4k", '"259:0 rbps=lots"'), "sweep.yaml");
    const e = m.fixedError()!;
    expect(e).toBeInstanceOf(InputError);
    expect(e.line).toBe(6);
    expect(e.message).toMatch(/rbps=lots/);
  });

  it("a drawn bs of which one option is bad stays a per-run error class", () => {
    expect(modelFromText(JOB("iodepth: 1, bs: {choice: [4k, 8q]}"), "sweep.yaml").fixedError()).toBeUndefined();
  });

  it("a fixed size that only the larger of two drawn block sizes breaks stays a per-run error class, though every probe sample draws the larger", () => {
    // size: 16k with bs 64k: the loader refuses the job at jobs[0].size, a
    // field with no distribution, in the first nine samples (weights 1000:1);
    // the same sample with bs 4k (its one draw changed) runs
    const m = modelFromText(JOB("iodepth: 1, size: 16k, bs: {choice: [64k, 4k], weights: [1000, 1]}"), "sweep.yaml");
    for (let s = 0; s <= 8; s++) expect(m.run(m.sample(s), s).classes).toEqual(["error:sweep.yaml:9 (jobs[0].size): the region (16384 bytes) is smaller than the block size 65536"]);
    const c = m.sample(0);
    expect(m.run(m.sample(0, new Map([[c.draws[0]!.key, 1]])), 0).classes).toEqual([]);
    expect(m.fixedError()).toBeUndefined();
  });

  it("a valid sweep has none (one load)", () => {
    expect(modelFromText(readFileSync(join(ROOT, "bindings", "mc", "examples", "io-depth.yaml"), "utf8"), "io-depth.yaml").fixedError()).toBeUndefined();
    expect(modelFromText(readFileSync(K8S, "utf8"), K8S).fixedError()).toBeUndefined();
  });
});
