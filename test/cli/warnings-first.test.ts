// Mistakes that pass quietly in the kernel are said before any result
// (bindings/scenario/lint.ts), `--strict` makes them errors, and iosim's own
// summary has a machine-readable form (--summary-json, summary.json in --out).
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { lintScenario, nearest } from "../../bindings/scenario/lint.js";
import { loadScenario } from "../../bindings/scenario/load.js";
import { SUMMARY_SCHEMA } from "../../bindings/cli/summary.js";

const ROOT = resolve(__dirname, "..", "..");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "iosim-warn-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const iosim = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: tmp, encoding: "utf8" });
const file = (name: string, text: string) => {
  writeFileSync(join(tmp, name), text);
  return join(tmp, name);
};
const lint = (yaml: string) => lintScenario(loadScenario(yaml, "s.yaml").scenario);
const DEV = `devices: [{ preset: ssd }]\n`;

describe("lintScenario: settings the kernel takes that were surely not meant", () => {
  it("a job's cgroup= that nothing configures, with the nearest configured name", () => {
    const w = lint(`name: s\n${DEV}cgroups:\n  tenant_a: { io.max: "8:0 riops=100" }\njobs:\n  - { name: j, cgroup: tenant-a, rw: read, bs: 4k, size: 8k, direct: 1 }\n`);
    expect(w).toEqual([expect.stringMatching(/^s\.yaml:6: job "j": cgroup=tenant-a is not a cgroup the scenario configures; the job runs in a new cgroup with no limits \(did you mean "tenant_a"\?\)$/)]);
    expect(nearest("zzzzzz", ["tenant_a"])).toBeUndefined();
  });

  it("io.weight without io.cost.qos enable=1, and not when blk-iocost is on", () => {
    const off = lint(`name: s\n${DEV}cgroups:\n  a: { io.weight: "200" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, size: 8k, direct: 1 }\n`);
    expect(off).toEqual([expect.stringMatching(/^s\.yaml:4: io\.weight has no effect here: no io\.cost\.qos write enables blk-iocost/)]);
    const on = lint(`name: s\n${DEV}cgroups:\n  /: { io.cost.qos: "8:0 enable=1" }\n  a: { io.weight: "200" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, size: 8k, direct: 1 }\n`);
    expect(on).toEqual([]);
  });

  it("io.max on a device no job uses", () => {
    const w = lint(`name: s\n${DEV}cgroups:\n  a: { io.max: "259:0 riops=100" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, size: 8k, direct: 1 }\n`);
    expect(w).toEqual([expect.stringMatching(/io\.max limits 259:0, which no job uses; the jobs use 8:0/)]);
  });

  it("nothing on the shipped scenarios and oracle scenarios (--strict runs them)", () => {
    for (const f of ["scenarios/iocost-bursty.yaml", "scenarios/shared-log-writeback.yaml", "test/fixtures/oracle/throtl/scenarios/limit_change_iops.json"]) {
      const r = iosim("run", join(ROOT, f), "-q", "--strict");
      expect(r.status, `${f}: ${r.stderr}`).toBe(0);
    }
  });
});

describe("iosim run: warnings before the results, --strict, --summary-json", () => {
  const slow = () => file("slow.yaml", `name: slow\n${DEV}cgroups:\n  a: { io.max: "8:0 rbps=50M" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, iodepth: 1, direct: 1, runtime: 1s, size: 8k }\n`);

  it("prints the warnings in a block above fio's report, and the summary points to them", () => {
    const r = iosim("run", slow(), "-q");
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("iosim: 3 warnings (run with --strict to make them errors):");
    expect(lines[1]).toMatch(/rbps=50M.*the kernel reads 50/);
    expect(lines[2]).toMatch(/^  the run simulated 81\.9 s where its jobs were to run 1\.0 s/);
    expect(lines[3]).toMatch(/latencies reach 81\.9 s, beyond fio's histogram \(17\.11 s\).*true p99 from iosim's own records is 81\.94 s/);
    expect(r.stdout.indexOf("Starting 1 process")).toBeGreaterThan(r.stdout.indexOf("true p99"));
    expect(r.stdout).toContain("3 warnings: see the top of this output");
  });

  it("--strict refuses before running when set-up warns (exit 2), and exits 2 after a run that warns", () => {
    const typo = file("typo.yaml", `name: t\n${DEV}cgroups:\n  a: { io.max: "8:0 riops=100" }\njobs:\n  - { name: j, cgroup: b, rw: read, bs: 4k, size: 8k, direct: 1 }\n`);
    const a = iosim("run", typo, "-q", "--strict");
    expect(a.status).toBe(2);
    expect(a.stdout).toBe("");
    expect(a.stderr).toMatch(/cgroup=b is not a cgroup the scenario configures[\s\S]*1 warning \(above\) with --strict; nothing was run/);
    const b = iosim("run", file("late.yaml", `name: l\n${DEV}cgroups:\n  a: { io.max: "8:0 rbps=50" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, iodepth: 1, direct: 1, runtime: 1s, size: 8k }\n`), "-q", "--strict");
    expect(b.status).toBe(2);
    expect(b.stdout).toContain("Starting 1 process");
    expect(b.stderr).toMatch(/--strict: 2 warnings/);
  });

  it("--summary-json and summary.json hold the summary's rows, io.stat, warnings and the result hash", () => {
    const out = join(tmp, "s.json");
    const r = iosim("run", slow(), "-q", "--summary-json", out, "--out", join(tmp, "o"));
    expect(r.status).toBe(0);
    const j = JSON.parse(readFileSync(out, "utf8"));
    expect(j.schema).toBe(SUMMARY_SCHEMA);
    expect(j.warnings).toHaveLength(3);
    expect(j.cgroups).toEqual([expect.objectContaining({ cgroup: "a", dir: "read", ios: 1, bytes: 4096 })]);
    expect(j.cgroups[0].throttleWaitNs).toBeGreaterThan(80e9);
    expect(j.ioStat.a).toMatch(/^8:0 rbytes=4096 wbytes=0 rios=1/);
    expect(r.stdout).toContain(`result sha256 ${j.resultSha256}`);
    expect(JSON.parse(readFileSync(join(tmp, "o", "summary.json"), "utf8")).resultSha256).toBe(j.resultSha256);
  });
});
