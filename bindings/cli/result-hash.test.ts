// The CLI prints a run's result hash (report/result-hash.ts), the one the
// playground shows for the same scenario and seed (test/browser/playground.test.ts
// checks the page against resultHash in Node), so a user can tell at a glance
// that the page and their terminal ran the same thing.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadScenario } from "../scenario/load.js";
import { simulate } from "../engine/simulation.js";
import { resultHash } from "../report/result-hash.js";
import { builtinK8sScenarios, runK8sScenario } from "../k8s/index.js";

const ROOT = resolve(__dirname, "..", "..");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const iosim = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
const printed = (out: string) => /^result sha256 ([0-9a-f]{64}) /m.exec(out)?.[1];

describe("the result hash the CLI prints", () => {
  const file = join(ROOT, "scenarios", "shared-log-writeback.yaml");

  it("iosim run: the SHA-256 of the run's canonical result JSON, for the scenario at the seed given", () => {
    const r = iosim("run", file, "--seed", "7", "-q");
    expect(r.status).toBe(0);
    const sc = loadScenario(readFileSync(file, "utf8"), file).scenario;
    sc.seed = 7;
    expect(printed(r.stdout)).toBe(resultHash(simulate(sc)));
  });

  it("another seed prints another hash (the hash is of the result, not of the file)", () => {
    const a = printed(iosim("run", file, "--seed", "7", "-q").stdout);
    const b = printed(iosim("run", file, "--seed", "8", "-q").stdout);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a).not.toBe(b);
  });

  it("iosim k8s run: the hash of the replay the playground runs (runK8sScenario with the version, no fix overrides and the seed)", () => {
    const sc = builtinK8sScenarios().find((s) => s.name === "rbd-unmap-busy")!;
    const r = iosim("k8s", "run", sc.name, "--version", "1.14", "--seed", "1");
    // what web/src/families/k8s.ts calls for #family=k8s&scenario=rbd-unmap-busy&seed=1&v=1.14
    expect(printed(r.stdout)).toBe(resultHash(runK8sScenario(sc, { version: "1.14", fixes: {}, seed: 1 })));
  });
});
