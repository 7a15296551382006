// What `iosim mc` tells on stderr about a sweep file's mc.metrics.
//
// A name in mc.metrics that no run reports (a misspelt `job.a.read.iopz`)
// just left its row out of the summary: the engineer saw the other rows and
// no word about the one asked for.
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { McSummary } from "./summary.js";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");
const ENTRY = join(ROOT, "dist", "bindings", "mc", "cli-entry.js");
const tmp = mkdtempSync(join(tmpdir(), "mc-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SWEEP = (metrics: string) => `mc:
  domain: io
  metrics: [${metrics}]
  params:
    d: {choice: [1, 4]}
scenario:
  name: m
  jobs:
    - {name: a, rw: randread, ioengine: libaio, direct: 1, iodepth: {param: d}, number_ios: 5, bs: 4k}
`;

function sweep(metrics: string, out: string): { stderr: string; status: number | null } {
  const file = join(tmp, `${out}.yaml`);
  writeFileSync(file, SWEEP(metrics));
  const r = spawnSync(process.execPath, [ENTRY, "mc", file, "--runs", "6", "--seed", "1", "--workers", "0", "--out", join(tmp, out), "--no-progress", "--json"],
    { encoding: "utf8" });
  return { stderr: r.stderr, status: r.status };
}

describe("mc.metrics", () => {
  it("a misspelt metric name is warned about on stderr, naming it and the file", () => {
    const r = sweep("job.a.read.iopz, job.a.read.iops", "typo");
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/mc: warning: mc\.metrics names "job\.a\.read\.iopz", which no run reported \(.*typo\.yaml, mc\.metrics\)/);
    expect(r.stderr).not.toMatch(/"job\.a\.read\.iops"/);
  });

  it("names every run reports give no warning", () => {
    expect(sweep("job.a.read.iops", "fine").stderr).not.toMatch(/warning/);
  });
});

// A fixed bad value (`bs: 8q` with no distribution) gave an error class in
// every run and a journal of them; it is bad input now, before anything is written.
describe("a sweep file whose fixed value no run can load", () => {
  it("bs: 8q is refused with exit 2 and the loader's file:line (field), and no output directory", () => {
    const file = join(tmp, "fixed-bad.yaml");
    writeFileSync(file, SWEEP("job.a.read.iops").replace("bs: 4k", "bs: 8q"));
    const out = join(tmp, "fixed-bad");
    const r = spawnSync(process.execPath, [ENTRY, "mc", file, "--runs", "6", "--seed", "1", "--workers", "0", "--out", out, "--no-progress"],
      { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/fixed-bad\.yaml:9 \(jobs\[0\]\.bs\): .*8q/);
    expect(existsSync(out)).toBe(false);
  });
});

// An mc.params draw that nothing reads ({param: name} renamed in the document
// but not in mc.params) was drawn in every run and changed none, unsaid.
describe("an mc.params draw that nothing reads", () => {
  it("is warned about once, with its file, line and field; a param read only by another param is read", () => {
    const file = join(tmp, "unread.yaml");
    writeFileSync(file, SWEEP("job.a.read.iops").replace("    d: {choice: [1, 4]}\n",
      "    base: {choice: [1, 2]}\n    d: {choice: [{param: base}, 4]}\n    depht: {choice: [8, 16]}\n"));
    const r = spawnSync(process.execPath, [ENTRY, "mc", file, "--runs", "6", "--seed", "1", "--workers", "2", "--out", join(tmp, "unread"), "--no-progress", "--json"],
      { encoding: "utf8" });
    expect(r.status).toBe(0);
    const warned = r.stderr.split("\n").filter((l) => l.includes("warning"));
    expect(warned).toEqual([expect.stringMatching(/^mc: warning: .*unread\.yaml:7 \(mc\.params\.depht\): the param "depht" is drawn in every run, but nothing reads it/)]);
  });
});

// `mc merge --no-progress` (a sweep's command line with `merge` put in front)
// was refused as an unknown option with the help text; --shrink-budget too.
describe("mc merge's options", () => {
  let made: string[] | undefined;
  const shards = (): string[] => {
    if (made) return made;
    const file = join(tmp, "shards.yaml");
    // every run fails the bound: a class with a repro to shrink
    writeFileSync(file, SWEEP("job.a.read.iops").replace("  params:", '  expect: [{name: never, metric: job.a.read.iops, "<": 0}]\n  params:'));
    for (const s of ["0/2", "1/2"]) {
      const r = spawnSync(process.execPath, [ENTRY, "mc", file, "--runs", "6", "--seed", "1", "--workers", "0", "--shard", s, "--out", join(tmp, "shards"), "--no-progress", "--json"],
        { encoding: "utf8" });
      expect(r.status).toBe(0);
    }
    return (made = [join(tmp, "shards", "runs.shard-0-of-2.jsonl"), join(tmp, "shards", "runs.shard-1-of-2.jsonl")]);
  };
  const merge = (args: string[]) => spawnSync(process.execPath, [ENTRY, "mc", "merge", ...args], { encoding: "utf8" });

  it("--no-progress and --shrink-budget, shared with a sweep, are taken; the summary is the plain merge's", () => {
    const j = shards();
    const plain = merge([...j, "--json", "--out", join(tmp, "m1")]);
    const withOpts = merge([...j, "--json", "--no-progress", "--shrink-budget", "50", "--out", join(tmp, "m2")]);
    expect([plain.status, withOpts.status, withOpts.stderr]).toEqual([0, 0, ""]);
    expect(JSON.parse(withOpts.stdout)).toEqual(JSON.parse(plain.stdout));
  });

  it("--no-shrink after merge writes no repro (mc's own default undid it), and mc's options before merge still count", () => {
    const j = shards();
    for (const args of [["merge", ...j, "--no-shrink"], ["--no-shrink", "merge", ...j]]) {
      const out = join(tmp, `m4-${args[0]}`);
      const r = spawnSync(process.execPath, [ENTRY, "mc", ...args, "--json", "--out", out], { encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(Object.values((JSON.parse(r.stdout) as McSummary).classes).some((c) => c.repro)).toBe(false);
      expect(readdirSync(out)).toEqual(["summary.json"]);
    }
  });

  it("a sweep's --runs, --seed, --workers, --shard, --resume or --force is refused with exit 2 and why, not the help", () => {
    const j = shards();
    for (const [args, why] of [[["--runs", "6"], /takes no --runs: the runs and seed of the sweep are in the journals' headers/],
      [["--shard", "0/2"], /takes no --shard: a merge combines the shards/], [["--resume"], /takes no --resume/]] as const) {
      const r = merge([...j, ...args, "--out", join(tmp, "m3")]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(why);
      expect(r.stderr).not.toMatch(/Usage:/);
    }
  });
});

// The hint a shard prints said `iosim mc merge DIR/runs.shard-*.jsonl`, which
// also took the journals of the same directory's sweep sharded another way
// (and split a directory with a space in two).
describe("a shard's merge hint", () => {
  it("names exactly the journals of its shard count, in a directory with a space and a quote", () => {
    const file = join(tmp, "hint.yaml");
    writeFileSync(file, SWEEP("job.a.read.iops"));
    const out = join(tmp, "it's sh ards");
    let hint = "";
    for (const s of ["0/3", "0/2", "1/2"]) {
      const r = spawnSync(process.execPath, [ENTRY, "mc", file, "--runs", "6", "--seed", "1", "--workers", "0", "--shard", s, "--out", out, "--no-progress", "--json"],
        { encoding: "utf8" });
      expect(r.status).toBe(0);
      hint = /combine the shards with: (iosim mc merge .*)$/m.exec(r.stderr)![1]!;
    }
    // what a shell gives the command: the two journals of the 2-shard sweep, not the 3-shard one's
    const sh = spawnSync("sh", ["-c", hint.replace(/^iosim mc merge /, "printf '%s\\n' ")], { encoding: "utf8" });
    expect(sh.stdout.trim().split("\n")).toEqual([join(out, "runs.shard-0-of-2.jsonl"), join(out, "runs.shard-1-of-2.jsonl")]);
  });
});
