// End-to-end behaviour of `iosim mc` through its built entry
// (dist/bindings/mc/cli-entry.js, produced by `npm run build`) and the
// programmatic runner, on the IO example sweep (examples/io-depth.yaml:
// about 30 % of runs break a p99 latency bound).
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readJournal } from "./journal.js";
import { runSweep } from "./runner.js";
import { canonicalRecords, summarise, type McSummary } from "./summary.js";

const ROOT = resolve(__dirname, "..", "..");
const ENTRY = join(ROOT, "dist", "bindings", "mc", "cli-entry.js");
const SCENARIO = join(ROOT, "bindings", "mc", "examples", "io-depth.yaml");
const K8S = join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "mc-e2e-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cli = (...args: string[]): string =>
  execFileSync(process.execPath, [ENTRY, ...args], { cwd: tmp, encoding: "utf8", env: { ...process.env, CI: "true" } });

async function sweepSummary(file: string, workers: number, runs: number, out: string, seed = 11n): Promise<McSummary> {
  const r = await runSweep({ file, runs, seed, workers, journal: join(tmp, `${out}.jsonl`) });
  const s = summarise(r.header, r.records, r.model, { table: r.model.spec.mc.table });
  // the runner's own tally (with workers: the chunk tallies they posted, merged) equals the journal's records summarised
  expect(r.tally.summary(r.header, r.model)).toEqual(s);
  const recs = canonicalRecords(r.records);
  for (const c of Object.keys(s.classes)) {
    if (c === "ok") continue;
    const withC = recs.filter((x) => x.classes.includes(c));
    const least = Math.min(...withC.map((x) => x.size));
    expect(r.tally.smallestRun(c)).toEqual(withC.find((x) => x.size === least));
  }
  return s;
}

describe("iosim mc", () => {
  it("the same seed gives the identical summary on 1, 2 and 4 workers (and in-thread)", async () => {
    expect(existsSync(ENTRY)).toBe(true);
    for (const [file, runs] of [[K8S, 300], [SCENARIO, 30]] as const) {
      const tag = file === K8S ? "k" : "io";
      const s1 = await sweepSummary(file, 1, runs, `${tag}w1`);
      const s2 = await sweepSummary(file, 2, runs, `${tag}w2`);
      const s4 = await sweepSummary(file, 4, runs, `${tag}w4`);
      const s0 = await sweepSummary(file, 0, runs, `${tag}w0`);
      expect(s1.completed).toBe(runs);
      expect(Object.keys(s1.classes).length).toBeGreaterThan(1);
      expect(s2).toEqual(s1);
      expect(s4).toEqual(s1);
      expect(s0).toEqual(s1);
      // and a different seed is a different sample
      const other = await sweepSummary(file, 2, runs, `${tag}w2b`, 12n);
      expect(other.metrics).not.toEqual(s1.metrics);
    }
  });

  it("4 shards merged give the summary of one run, repros included; each repro replays to its failure", () => {
    const one = JSON.parse(cli("mc", SCENARIO, "--runs", "300", "--seed", "5", "--out", "single", "--json", "--workers", "2")) as McSummary;
    for (let i = 0; i < 4; i++) cli("mc", SCENARIO, "--runs", "300", "--seed", "5", "--out", "sharded", "--shard", `${i}/4`, "--workers", "1", "--json");
    const merged = JSON.parse(cli("mc", "merge", ...[0, 1, 2, 3].map((i) => join("sharded", `runs.shard-${i}-of-4.jsonl`)), "--json")) as McSummary;
    expect(merged).toEqual(one);
    const failing = Object.entries(one.classes).filter(([k]) => k !== "ok");
    expect(failing.length).toBeGreaterThan(0);
    for (const [cls, c] of failing) {
      expect(c.repro).toBeDefined();
      const file = join(tmp, "single", c.repro!.file);
      expect(readFileSync(file, "utf8")).not.toMatch(/uniform|choice|randint|param:/);
      expect(c.repro!.sizeAfter).toBeLessThanOrEqual(c.repro!.sizeBefore);
      // exit 1: the repro shows a failure class
      const rr = spawnSync(process.execPath, [ENTRY, "mc", "replay", file, "--json"], { cwd: tmp, encoding: "utf8" });
      expect(rr.status).toBe(1);
      const replay = JSON.parse(rr.stdout) as { classes: string[]; seed: number };
      expect(replay.seed).toBe(c.repro!.seed);
      expect(replay.classes).toContain(cls);
      // and `iosim run` (the lead's CLI) reads it as an ordinary scenario and shows the same latency
      if (existsSync(MAIN)) {
        const fio = JSON.parse(execFileSync(process.execPath, [MAIN, "run", file, "--json"], { cwd: tmp, encoding: "utf8" })) as
          { jobs: Array<{ jobname: string; read: { clat_ns: { percentile: Record<string, number> } } }> };
        const a = fio.jobs.find((j) => j.jobname === "a")!;
        expect(a.read.clat_ns.percentile["99.000000"]).toBeGreaterThan(1_000_000);
      }
    }
  });

  it("a sweep tabulated with --by, sharded and merged without --by, gives the unsharded summary (its journal header keeps the axes)", () => {
    const args = ["--runs", "40", "--seed", "3", "--no-shrink", "--json", "--workers", "0", "--by", "bs"];
    const one = JSON.parse(cli("mc", SCENARIO, ...args, "--out", "by-single")) as McSummary;
    expect(one.table!.axes).toEqual(["bs"]);
    for (let i = 0; i < 2; i++) cli("mc", SCENARIO, ...args, "--out", "by-sharded", "--shard", `${i}/2`);
    const shards = [0, 1].map((i) => join("by-sharded", `runs.shard-${i}-of-2.jsonl`));
    expect(readJournal(join(tmp, shards[0]!)).header.table).toEqual([{ param: "bs" }]);
    const merged = JSON.parse(cli("mc", "merge", ...shards, "--json", "--no-shrink")) as McSummary;
    expect(merged).toEqual(one);
    // merge's own --by still overrides the recorded axes
    const byDepth = JSON.parse(cli("mc", "merge", ...shards, "--json", "--no-shrink", "--by", "depth")) as McSummary;
    expect(byDepth.table!.axes).toEqual(["depth"]);
    // a journal written before headers kept the axes (no `table`) merges by the scenario's mc.table, as it did
    const old = join(tmp, "by-sharded", "old.jsonl");
    const [head, ...rest] = readFileSync(join(tmp, shards[0]!), "utf8").split("\n");
    const h = JSON.parse(head!) as Record<string, unknown>;
    delete h.table;
    writeFileSync(old, [JSON.stringify(h), ...rest].join("\n"));
    const oldMerged = JSON.parse(cli("mc", "merge", old, "--json", "--no-shrink")) as McSummary;
    expect(oldMerged.table!.axes).toEqual(["depth"]);
    // shards tabulated differently need merge's --by to say which table
    const r = spawnSync(process.execPath, [ENTRY, "mc", "merge", shards[1]!, old, "--no-shrink"], { cwd: tmp, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`iosim: ${old}:1 (table): tabulated differently (--by bs vs no --by) from ${shards[1]}: give merge the --by to tabulate by`);
    // a resume without --by keeps tabulating by the journal's --by
    const resumed = JSON.parse(cli("mc", SCENARIO, "--runs", "40", "--seed", "3", "--no-shrink", "--json", "--workers", "0", "--out", "by-single", "--resume")) as McSummary;
    expect(resumed).toEqual(one);
  });

  it("kill -9 in the middle, then --resume: no run lost or repeated, and the summary of an uninterrupted sweep", async () => {
    const runs = 1500;
    const child = spawn(process.execPath, [ENTRY, "mc", K8S, "--runs", String(runs), "--seed", "9", "--out", "killed", "--workers", "1"],
      { cwd: tmp, stdio: "ignore", env: { ...process.env, CI: "true" } });
    const journal = join(tmp, "killed", "runs.jsonl");
    const lines = () => (existsSync(journal) ? readFileSync(journal, "utf8").split("\n").length - 2 : 0);
    const t0 = Date.now();
    while (lines() < 200 && Date.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const before = readJournal(journal).records.length;
    expect(before).toBeGreaterThanOrEqual(200);
    expect(before).toBeLessThan(runs);
    const resumed = JSON.parse(cli("mc", K8S, "--runs", String(runs), "--seed", "9", "--out", "killed", "--resume", "--json")) as McSummary;
    const idx = readJournal(journal).records.map((r) => r.i);
    expect(idx.length).toBe(runs);
    expect(new Set(idx).size).toBe(runs);
    const whole = JSON.parse(cli("mc", K8S, "--runs", String(runs), "--seed", "9", "--out", "whole", "--json")) as McSummary;
    expect(resumed).toEqual(whole);
  });

  it("a finished journal is not overwritten without --resume or --force, and bad options are named", () => {
    cli("mc", SCENARIO, "--runs", "20", "--out", "twice", "--no-shrink");
    expect(() => cli("mc", SCENARIO, "--runs", "20", "--out", "twice")).toThrow(/journal exists: pass --resume to continue it \(a finished sweep is then tabulated again, e\.g\. --by another parameter, and no run is repeated\)/);
    // the hint holds: --resume on the finished sweep tabulates it again by another parameter, running nothing
    const journal = readFileSync(join(tmp, "twice", "runs.jsonl"), "utf8");
    const again = JSON.parse(cli("mc", SCENARIO, "--runs", "20", "--out", "twice", "--resume", "--by", "depth", "--no-shrink", "--json")) as McSummary;
    expect(again.table?.axes).toEqual(["depth"]);
    expect(again.table!.cells.reduce((a, c) => a + c.runs, 0)).toBe(20);
    expect(readFileSync(join(tmp, "twice", "runs.jsonl"), "utf8")).toBe(journal);
    expect(() => cli("mc", SCENARIO, "--runs", "20", "--out", "x", "--shard", "4/4")).toThrow(/--shard 4\/4/);
    expect(() => cli("mc", SCENARIO, "--runs", "zero", "--out", "y")).toThrow(/--runs takes a whole number/);
    // 1000 workers took minutes for 1000 runs: more than 4 per core is refused
    expect(() => cli("mc", SCENARIO, "--runs", "20", "--out", "z", "--workers", "1000")).toThrow(/--workers 1000 is more than 4 per core/);
    expect(() => cli("mc", SCENARIO, "--runs", "20", "--out", "twice", "--resume", "--force")).toThrow(/--resume continues the journal and --force starts it over: give one/);
  });

  it("a bad --shrink-budget is refused before the sweep runs, leaving no journal behind", () => {
    const r = spawnSync(process.execPath, [ENTRY, "mc", SCENARIO, "--runs", "20", "--out", "budget", "--shrink-budget", "-1"], { cwd: tmp, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--shrink-budget/);
    expect(existsSync(join(tmp, "budget", "runs.jsonl"))).toBe(false);
  });

  it("a scenario, repro or journal that is not there is an input error (exit 2) naming the file, not a crash", () => {
    for (const [args, msg] of [
      [["mc", "nope.yaml", "--runs", "3"], "iosim: nope.yaml: cannot read the scenario: ENOENT"],
      [["mc", "replay", "nope.yaml"], "iosim: nope.yaml: cannot read the scenario: ENOENT"],
      [["mc", "merge", "nope.jsonl"], "iosim: nope.jsonl: cannot read the journal: ENOENT"],
      [["mc", "replay", "bad-repro.yaml"], 'iosim: bad-repro.yaml:4: timeline[0].at: expected a duration like "500ms" or "2m2s", got "soon"'],
    ] as const) {
      writeFileSync(join(tmp, "bad-repro.yaml"), "name: x\nversion: \"1.22\"\ntimeline:\n  - at: soon\n    action: nodeReady\n    node: n1\nobjects:\n  - {kind: Node, metadata: {name: n1}}\n");
      const r = spawnSync(process.execPath, [ENTRY, ...args], { cwd: tmp, encoding: "utf8" });
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toBe(msg);
    }
  });
});

describe("examples/k8s-indexed-job", () => {
  it("running the Indexed Job's command for every JOB_COMPLETION_INDEX, then the merge Job's, gives the single-run summary", async () => {
    const { parse } = await import("yaml");
    const { mkdirSync, writeFileSync, chmodSync } = await import("node:fs");
    const dir = join(ROOT, "examples", "k8s-indexed-job");
    const job = parse(readFileSync(join(dir, "sweep-job.yaml"), "utf8"));
    const merge = parse(readFileSync(join(dir, "merge-job.yaml"), "utf8"));
    expect(job.spec.completionMode).toBe("Indexed");
    // batch/v1: backoffLimitPerIndex needs completionMode Indexed and restartPolicy Never
    expect(job.spec.template.spec.restartPolicy).toBe("Never");
    // one pod per index at a time: a replacement started while the old pod terminates would write the same journal
    expect(job.spec.podReplacementPolicy).toBe("Failed");
    const c = job.spec.template.spec.containers[0];
    const env = Object.fromEntries(c.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(Number(env.SHARDS)).toBe(job.spec.completions);
    // `iosim` on PATH is this branch's entry; the pod's mounts are directories here
    const bin = join(tmp, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "iosim"), `#!/bin/sh\nexec "${process.execPath}" "${ENTRY}" "$@"\n`);
    chmodSync(join(bin, "iosim"), 0o755);
    const results = join(tmp, "job-results");
    mkdirSync(results, { recursive: true });
    const local = (s: string) => s.replaceAll("/sweep/sweep.yaml", K8S).replaceAll("/results", results);
    const runs = "200";
    for (let i = 0; i < job.spec.completions; i++) {
      execFileSync("sh", [...c.command.slice(1), local(c.args[0])], {
        env: { ...process.env, ...env, RUNS: runs, JOB_COMPLETION_INDEX: String(i), PATH: `${bin}:${process.env.PATH}` }, stdio: "ignore",
      });
    }
    const m = merge.spec.template.spec.containers[0];
    // the merge reads every shard the Job writes, and only those
    expect(m.args[0]).toContain(`/results/runs.shard-*-of-${job.spec.completions}.jsonl`);
    const merged = JSON.parse(execFileSync("sh", [...m.command.slice(1), local(m.args[0])], {
      encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    })) as McSummary;
    const single = JSON.parse(cli("mc", K8S, "--runs", runs, "--seed", env.SEED, "--out", "job-single", "--json")) as McSummary;
    expect(merged.completed).toBe(200);
    expect(merged).toEqual(single);
  });
});
