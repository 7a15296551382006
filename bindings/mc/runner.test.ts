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
import { GROW_MARGIN, GROW_MIN_WARM_MS, growthPays, parseSeed, WarmupMeter, WORKER_SEMI_SPACE_MB, workerSemiSpaceMb } from "./runner.js";

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

describe("workers started ahead of their sweep (prestartWorkers)", () => {
  it("the sweep takes the one of its settings and gives the records it gives without it; one it does not take ends with it, and an unused one keeps no process alive", () => {
    const r = inChild<Record<string, unknown>>((runner, file, tmp) => `
        import { readFileSync } from "node:fs";
        import { prestartWorkers, prestartedWorkers, runSweep } from ${JSON.stringify(runner)};
        const sweep = async (workers, tag) => {
          const j = ${JSON.stringify(tmp)} + "/" + tag + ".jsonl";
          await runSweep({ file: ${JSON.stringify(file)}, runs: 50, seed: 3n, workers, force: true, journal: j });
          return readFileSync(j, "utf8").split("\\n").filter(Boolean).slice(1).sort().join("\\n");
        };
        const plain = await sweep(1, "plain");
        prestartWorkers(1);
        const waiting = prestartedWorkers();
        const taken = await sweep(1, "taken");
        const takenLeft = prestartedWorkers();
        prestartWorkers(2);
        const inThread = await sweep(0, "in-thread");
        const inThreadLeft = prestartedWorkers();
        prestartWorkers(0);
        prestartWorkers(1e6);
        const refused = prestartedWorkers();
        prestartWorkers(1);
        console.log(JSON.stringify({ waiting, same: taken === plain, takenLeft, inThreadSame: inThread === plain, inThreadLeft, refused, lines: plain.split("\\n").length }));`);
    expect(r).toEqual({ waiting: 1, same: true, takenLeft: 0, inThreadSame: true, inThreadLeft: 0, refused: 0, lines: 50 });
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

describe("TurboFan's inlining budget during a sweep", () => {
  it("is lowered while a pool runs, V8's default again after it, and left alone when asked or when node's options set inlining", () => {
    const r = inChild<Record<string, { during: boolean[]; after: boolean }>>((runner, file, tmp) => `
        import { runSweep, inliningIsCapped } from ${JSON.stringify(runner)};
        const during = async (extra, tag) => {
          const seen = new Set();
          await runSweep({ file: ${JSON.stringify(file)}, runs: 40, seed: 3n, workers: 1, force: true, journal: ${JSON.stringify(tmp)} + "/" + tag + ".jsonl",
            onProgress: (p) => { if (p.doneNow > 0) seen.add(inliningIsCapped()); }, ...extra });
          return { during: [...seen], after: inliningIsCapped() };
        };
        const pool = await during({}, "pool");
        const asked = await during({ inlineBudget: 0 }, "asked");
        process.execArgv.push("--max-inlined-bytecode-size-cumulative=500");
        const user = await during({}, "user");
        console.log(JSON.stringify({ pool, asked, user }));`);
    expect(r.pool).toEqual({ during: [true], after: false });
    expect(r.asked).toEqual({ during: [false], after: false });
    expect(r.user).toEqual({ during: [false], after: false });
  });
});

describe("where the workers' optimising compiler runs", () => {
  it("on each worker's own thread when the pool fills the cores, on V8's helper threads when asked, and the main isolate's default after", () => {
    const root = resolve(__dirname, "..", "..");
    const runner = pathToFileURL(join(root, "dist", "bindings", "mc", "runner.js")).href;
    const file = join(root, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
    const tmp = mkdtempSync(join(tmpdir(), "mc-compile-"));
    try {
      const probe = join(tmp, "probe.mjs");
      writeFileSync(probe, `
        import { availableParallelism } from "node:os";
        import { runSweep, workersCompileOnOwnThread } from ${JSON.stringify(runner)};
        const sweep = (extra, tag) => runSweep({ file: ${JSON.stringify(file)}, runs: 600, seed: 3n, workers: availableParallelism(), force: true,
          journal: ${JSON.stringify(tmp)} + "/" + tag + ".jsonl", ...extra });
        await sweep({}, "full");
        const after = workersCompileOnOwnThread();
        console.log("=== asked");
        await sweep({ concurrentCompile: true }, "asked");
        console.log(JSON.stringify({ after, afterAsked: workersCompileOnOwnThread() }));`);
      // V8 prints each optimisation with its mode (--trace-opt, every isolate of the process)
      const out = execFileSync(process.execPath, ["--trace-opt", probe], { encoding: "utf8", maxBuffer: 1 << 26, env: { ...process.env, NODE_OPTIONS: "" } });
      const [full, asked] = out.split("=== asked");
      const sync = (s: string) => (s.match(/compiling method .*ConcurrencyMode::kSynchronous/g) ?? []).length;
      expect(sync(full!)).toBeGreaterThan(20);
      expect(sync(asked!)).toBe(0);
      expect(JSON.parse(asked!.trim().split("\n").pop()!)).toEqual({ after: false, afterAsked: false });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
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

// The default pool (the CLI's: one worker, growing to the cores): a worker is
// added only when what is left, at the first worker's steady time per run,
// saves more than GROW_MARGIN of the warm-up that worker paid.
describe("growing the pool (growthPays, WarmupMeter)", () => {
  it("grows when the runs left are long against the first worker's warm-up, not when they are short", () => {
    // a replay: ~1 s warm-up, 0.08 ms a run once fast
    expect(growthPays(1, 0.08, 1000, 16_000)).toBe(false); // 0.64 s saved < 2 s
    expect(growthPays(1, 0.08, 1000, 200_000)).toBe(true); // 8 s saved
    // a WebAssembly io run: 1 ms a run, little warm-up
    expect(growthPays(1, 1, 50, 1000)).toBe(true);
    expect(growthPays(1, 1, 50, 150)).toBe(false); // below the floor GROW_MIN_WARM_MS
    // a third worker saves a third, not a half
    expect(growthPays(2, 0.08, 1000, 100_000)).toBe(growthPays(1, 0.08, 1000, 100_000 * (1 / 3) / (1 / 2)));
    expect(GROW_MARGIN * GROW_MIN_WARM_MS).toBeGreaterThan(0);
  });

  it("has no steady time while the time per run still falls, or before a second of runs; then the median of the last six chunks", () => {
    const m = new WarmupMeter();
    // 2, 1, 0.5, 0.3 ms a run in chunks of 100 ms: still falling
    for (const c of [2, 1, 0.5, 0.3, 0.2, 0.12]) m.add(100 / c, 100);
    expect(m.steadyPerRunMs()).toBeUndefined();
    for (const c of [0.1, 0.1, 0.09, 0.1, 0.09, 0.1]) m.add(1000, 1000 * c, 100);
    expect(m.steadyPerRunMs()).toBeCloseTo(0.1, 5);
    // the warm-up: what the runs took beyond 0.1 ms each
    expect(m.warmMs(0.1)).toBeCloseTo(m.ms - m.runs * 0.1, 6);
    // chunks of a few ms of wall time are not measured (a tick, a scavenge): nothing changes
    const before = m.steadyPerRunMs();
    m.add(1, 5, 5);
    expect(m.steadyPerRunMs()).toBe(before);
    const short = new WarmupMeter();
    for (let k = 0; k < 10; k++) short.add(10, 50);
    expect(short.steadyPerRunMs()).toBeUndefined(); // 0.5 s of runs only
  });

  it("a sweep started with growTo runs on one worker when it is short, records how many it used, and gives the fixed pool's records", async () => {
    const { runSweep } = await import("./runner.js");
    const dir = mkdtempSync(join(tmpdir(), "mc-grow-"));
    try {
      const file = join(resolve(__dirname, "..", ".."), "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
      const grown = await runSweep({ file, runs: 60, seed: 5n, workers: 1, growTo: 4, journal: join(dir, "a.jsonl") });
      const fixed = await runSweep({ file, runs: 60, seed: 5n, workers: 2, journal: join(dir, "b.jsonl") });
      expect(grown.workersUsed).toBe(1);
      expect(fixed.workersUsed).toBe(2);
      expect(grown.records).toEqual(fixed.records);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
