// `iosim mc --grid NAME=v1,v2,...` and {grid: [...]} (grid.ts, distributions.ts):
// sweeps over listed values, alone or beside random draws, and --by on a
// finished sweep's journal tabulating it again without running.
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cli } from "../../test/helpers/cli-inproc.js";
import { applyGrid, parseGrid } from "./grid.js";
import { modelFromText } from "./run-one.js";

const ROOT = resolve(__dirname, "..", "..");
const K8S = join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
const tmp = mkdtempSync(join(tmpdir(), "mc-grid-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Rec {
  i: number;
  classes: string[];
  metrics: Record<string, number>;
  params: Record<string, unknown>;
}
const journal = (dir: string): Rec[] =>
  readFileSync(join(dir, "runs.jsonl"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as Rec)
    .sort((a, b) => a.i - b.i);

// an IO sweep whose only parameter is the queue depth: nothing else random (the ideal device spreads no latency)
const IO = `mc:
  domain: io
  params:
    depth: {choice: [1, 4, 16, 64]}
  metrics: [job.a.read.lat.p99]
scenario:
  name: grid-io
  devices: [{preset: ideal}]
  cgroups: {capped: {io.max: "7:1 riops=2000"}}
  jobs:
    - {name: a, cgroup: capped, rw: randread, ioengine: libaio, direct: 1, iodepth: {param: depth}, number_ios: 200, bs: 4k}
`;

describe("iosim mc --grid", () => {
  it("alone: run i takes the i-th value in turn, every value equally often, and the table is by the grid", async () => {
    const file = join(tmp, "io.yaml");
    writeFileSync(file, IO);
    const out = join(tmp, "io-out");
    const r = await cli("mc", file, "--runs", "8", "--seed", "3", "--workers", "0", "--no-progress", "-o", out, "--grid", "depth=1,32");
    expect(r.code, r.stderr).toBe(0);
    const recs = journal(out);
    expect(recs.map((x) => x.params.depth)).toEqual([1, 32, 1, 32, 1, 32, 1, 32]);
    // nothing else is drawn: one depth, one outcome; and the depths differ
    const p99 = (d: number) => new Set(recs.filter((x) => x.params.depth === d).map((x) => x.metrics["job.a.read.lat.p99"]));
    expect(p99(1).size).toBe(1);
    expect(p99(32).size).toBe(1);
    expect([...p99(32)][0]).toBeGreaterThan([...p99(1)][0]!);
    expect(r.stdout).toMatch(/\| depth \| runs \|/);
    expect(r.stdout).toMatch(/\| 1 +\| +4 \|/);
    expect(r.stdout).toMatch(/\| 32 +\| +4 \|/);
  });

  it("beside random draws: two grids give every combination equally often (the first varying fastest), the random draws go on", async () => {
    const out = join(tmp, "k8s-out");
    const r = await cli(
      "mc",
      K8S,
      "--runs",
      "200",
      "--seed",
      "1",
      "--workers",
      "0",
      "--no-progress",
      "--no-shrink",
      "-o",
      out,
      "--grid",
      "fix104526=false,true",
      "--grid",
      "busyDetaches=1,4",
    );
    expect(r.code, r.stderr).toBe(0);
    const recs = journal(out);
    // busyDetaches is an mc.param (taken first: stride 1), fix104526 a draw in the document (stride 2)
    recs.forEach((x) => {
      expect(x.params.busyDetaches).toBe([1, 4][x.i % 2]);
      expect(x.params.fix104526).toBe([false, true][Math.floor(x.i / 2) % 2]);
    });
    expect(new Set(recs.map((x) => x.params.landDelay)).size).toBeGreaterThan(150);
    // the fix holds in every run it is on; without it some runs fail
    expect(recs.filter((x) => x.params.fix104526 === true && x.classes.length)).toEqual([]);
    expect(recs.filter((x) => x.params.fix104526 === false && x.classes.length).length).toBeGreaterThan(0);
  });

  it("a grid in a scenario file: the same as --grid; refused inside a choice, maybe or repeat, and with a distribution among its values", () => {
    const text = readFileSync(K8S, "utf8");
    const m = modelFromText(applyGrid(text, K8S, parseGrid(["landDelay=0ms,3000ms"])), K8S);
    expect([0, 1, 2, 3].map((i) => m.sampleRun(7, i).params.landDelay)).toEqual(["0ms", "3000ms", "0ms", "3000ms"]);
    const bad = (doc: string) => () => modelFromText(`mc: {domain: io}\nscenario:\n  name: x\n${doc}`, "g.yaml");
    expect(bad("  seed: {choice: [1, {grid: [2, 3]}]}\n")).toThrow(/g\.yaml:4 .*a grid is taken once per run: not inside a choice, maybe or repeat/);
    expect(bad("  seed: {grid: [1, {uniform: [0, 1]}]}\n")).toThrow(/a grid lists values, not distributions/);
  });

  it("--grid on a name the scenario does not have is a usage error naming the ones it has", async () => {
    const r = await cli("mc", K8S, "--runs", "4", "--workers", "0", "--no-progress", "-o", join(tmp, "none"), "--grid", "landDelai=0ms");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--grid landDelai: .* has no parameter of that name \(mc\.params and named draws: landDelay, busyDetaches, fix104526\)/);
  });
});

describe("iosim mc --by on a finished sweep", () => {
  it("tabulates the journal again by another parameter without running anything", async () => {
    const out = join(tmp, "retab");
    const args = ["mc", K8S, "--runs", "120", "--seed", "5", "--workers", "0", "--no-progress", "--no-shrink", "-o", out];
    expect((await cli(...args)).code).toBe(0);
    const before = readFileSync(join(out, "runs.jsonl"), "utf8");
    const r = await cli(...args, "--by", "busyDetaches");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/runs\.jsonl exists: tabulating its runs again by busyDetaches/);
    expect(readFileSync(join(out, "runs.jsonl"), "utf8")).toBe(before);
    const recs = journal(out);
    for (const d of [1, 2, 3, 4]) {
      const n = recs.filter((x) => x.params.busyDetaches === d).length;
      expect(r.stdout).toMatch(new RegExp(`\\| ${d} +\\| +${n} \\|`));
    }
  });
});
