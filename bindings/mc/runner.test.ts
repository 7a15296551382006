// The workers' young generation (runner.ts, workerSemiSpaceMb): 32 MB
// semi-spaces unless the pool's young generations would take more than an
// eighth of the memory.
import { describe, expect, it } from "vitest";
import { totalmem } from "node:os";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseSeed, WORKER_SEMI_SPACE_MB, workerSemiSpaceMb } from "./runner.js";

describe("workerSemiSpaceMb", () => {
  it("32 MB while the pool's semi-spaces fit in an eighth of the memory, halved beyond, V8's default below 16 MB", () => {
    const fits = (w: number, mb: number) => w * 2 * mb * 2 ** 20 <= totalmem() / 8;
    for (const w of [1, 2, 4, 16, 64, 1024, 1 << 20]) {
      const mb = workerSemiSpaceMb(w);
      if (fits(w, WORKER_SEMI_SPACE_MB)) expect(mb).toBe(WORKER_SEMI_SPACE_MB);
      else if (mb > 0) {
        expect(fits(w, mb)).toBe(true);
        expect(fits(w, mb * 2)).toBe(false);
        expect(mb).toBeGreaterThanOrEqual(16);
      } else expect(fits(w, 16)).toBe(false);
    }
    expect(workerSemiSpaceMb(1 << 20)).toBe(0);
  });
});

/**
 * Run `script(runnerUrl, sweepFile, tmpDir)` (an ES module's text) in a child
 * process and return the JSON of its last line: V8 flags are per process, and
 * vitest's own workers must not see them.
 */
function inChild<T>(script: (runner: string, file: string, tmp: string) => string): T {
  const root = resolve(__dirname, "..", "..");
  const runner = pathToFileURL(join(root, "dist", "bindings", "mc", "runner.js")).href;
  const file = join(root, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
  const tmp = mkdtempSync(join(tmpdir(), "mc-flags-"));
  try {
    const probeFile = join(tmp, "probe.mjs");
    writeFileSync(probeFile, script(runner, file, tmp));
    const out = execFileSync(process.execPath, [probeFile], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
    return JSON.parse(out.trim().split("\n").pop()!) as T;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe("the workers' young-generation flag", () => {
  it("is process-wide only while the pool starts: a worker the program creates after a sweep gets V8's default new space again", () => {
    const { before, flagged, after } = inChild<Record<string, number>>((runner, file, tmp) => `
        import { Worker } from "node:worker_threads";
        import { setFlagsFromString } from "node:v8";
        import { runSweep } from ${JSON.stringify(runner)};
        const probe = () => new Promise((res) => {
          const w = new Worker("const v8 = require('v8'); require('worker_threads').parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)", { eval: true });
          w.on("message", (m) => { res(m); w.terminate(); });
        });
        const before = await probe();
        setFlagsFromString("--min-semi-space-size=32");
        const flagged = await probe();
        setFlagsFromString("--min-semi-space-size=0");
        await runSweep({ file: ${JSON.stringify(file)}, runs: 6, seed: 3n, workers: 2, journal: ${JSON.stringify(join(tmp, "runs.jsonl"))} });
        const after = await probe();
        console.log(JSON.stringify({ before, flagged, after }));`);
    expect(flagged).toBeGreaterThan(before); // the probe sees the flag
    expect(after).toBe(before);
  });
});

describe("V8's parallel scavenging during a sweep", () => {
  it("is off while a pool's workers fill the cores, on again after it, and left on when asked or when cores are left idle", () => {
    const r = inChild<Record<string, { during: boolean[]; after: boolean }>>((runner, file, tmp) => `
        import { availableParallelism } from "node:os";
        import { runSweep, scavengeIsSerial } from ${JSON.stringify(runner)};
        const cores = availableParallelism();
        const during = async (workers, extra, tag) => {
          const seen = new Set();
          await runSweep({ file: ${JSON.stringify(file)}, runs: 40, seed: 3n, workers, force: true, journal: ${JSON.stringify(tmp)} + "/" + tag + ".jsonl",
            onProgress: () => seen.add(scavengeIsSerial()), ...extra });
          return { during: [...seen], after: scavengeIsSerial() };
        };
        const full = await during(cores, {}, "full");
        const asked = await during(cores, { parallelScavenge: true }, "asked");
        const fewer = cores > 1 ? await during(cores - 1, {}, "fewer") : { during: [false], after: false };
        console.log(JSON.stringify({ full, asked, fewer }));`);
    // (progress is reported once before the pool starts too)
    expect(r.full!.during).toContain(true);
    expect(r.full!.after).toBe(false);
    expect(r.asked).toEqual({ during: [false], after: false });
    expect(r.fewer).toEqual({ during: [false], after: false });
  });
});

// `--seed "$SEED"` with SEED unset is `--seed ""`, which BigInt reads as 0:
// the sweep ran with seed 0 and every shard of an Indexed Job agreed on it.
describe("parseSeed", () => {
  it("an empty or blank seed is refused, naming --seed; decimal and 0x seeds below 2^64 are read", () => {
    for (const bad of ["", "  ", "-1", "1.5", "abc", String(1n << 64n)]) {
      expect(() => parseSeed(bad)).toThrow(/command line \(--seed\): --seed takes an integer in \[0, 2\^64\)/);
    }
    expect(parseSeed("7")).toBe(7n);
    expect(parseSeed("0x10")).toBe(16n);
    expect(parseSeed(String((1n << 64n) - 1n))).toBe((1n << 64n) - 1n);
  });
});
