// Monte Carlo throughput: seed-incident runs per second on one worker and on
// all cores, measured side by side in one process, and where a run's time
// goes (the mc layer's sampling/loading vs the Kubernetes replay itself).
//
//   node dist/bench/mc.js [--runs N] [--workers W] [--scenario FILE]
//
// Targets (issue 7): >= 20k seed-incident runs/s per core, >= 1.8x on 2 cores.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runSweep } from "../bindings/mc/runner.js";
import { modelFromText } from "../bindings/mc/run-one.js";
import { runSeed } from "../bindings/mc/rng.js";
import { runOne } from "../bindings/mc/run-one.js";
import { execFile } from "node:child_process";

const args = process.argv.slice(2);
const arg = (k: string, d: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1]! : d;
};
const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "..", "..");
const SCENARIO = arg("--scenario", join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml"));
const RUNS = Number(arg("--runs", "2000"));
const CORES = Number(arg("--workers", String(availableParallelism())));

// --solo: one in-thread loop, prints runs/s (used to measure the machine's own parallel ceiling)
if (args.includes("--solo")) {
  const m = modelFromText(readFileSync(SCENARIO, "utf8"), SCENARIO);
  const n = Math.min(RUNS, 1500);
  for (let i = 0; i < 200; i++) runOne(m, 2n, i);
  const t = performance.now();
  for (let i = 0; i < n; i++) runOne(m, 1n, i);
  console.log(String((n * 1000) / (performance.now() - t)));
  process.exit(0);
}

/** runs/s of k independent processes running the in-thread loop at once: what the machine allows */
async function processes(k: number): Promise<number> {
  const outs = await Promise.all(Array.from({ length: k }, () => new Promise<number>((res, rej) => {
    execFile(process.execPath, [fileURLToPath(import.meta.url), "--solo", "--runs", String(RUNS), "--scenario", SCENARIO],
      (err, stdout) => (err ? rej(err) : res(Number(stdout.trim()))));
  })));
  return outs.reduce((a, b) => a + b, 0);
}

const tmp = mkdtempSync(join(tmpdir(), "mc-bench-"));

/** steady-state runs/s: from the first finished chunk to the last (worker start-up excluded) */
const util: Record<number, number> = {};
async function rate(workers: number, tag: string): Promise<number> {
  let first: { done: number; ms: number } | undefined;
  let last = { done: 0, ms: 0 };
  const r = await runSweep({
    file: SCENARIO, runs: RUNS, seed: 1n, workers, journal: join(tmp, `${tag}.jsonl`), force: true,
    onProgress: (p) => {
      if (p.doneNow > 0 && !first) first = { done: p.doneNow, ms: p.elapsedMs };
      last = { done: p.doneNow, ms: p.elapsedMs };
    },
  });
  util[workers] = r.busyMs / (r.wallMs * workers);
  return ((last.done - first!.done) * 1000) / (last.ms - first!.ms);
}

// where the time of one run goes, in this thread
function breakdown(): { sampleUs: number; runUs: number } {
  const text = readFileSync(SCENARIO, "utf8");
  const m = modelFromText(text, SCENARIO);
  const n = Math.min(RUNS, 500);
  const cs = [];
  let t = performance.now();
  for (let i = 0; i < n; i++) cs.push(m.sample(runSeed(1n, i)));
  const sampleUs = ((performance.now() - t) * 1000) / n;
  t = performance.now();
  for (let i = 0; i < n; i++) m.run(cs[i]!, runSeed(1n, i));
  const runUs = ((performance.now() - t) * 1000) / n;
  return { sampleUs, runUs };
}

breakdown(); // warm up
const b = breakdown();
// alternate to spread machine noise over both
const one: number[] = [];
const all: number[] = [];
for (let k = 0; k < 2; k++) {
  one.push(await rate(1, `w1-${k}`));
  all.push(await rate(CORES, `wN-${k}`));
}
const p1 = await processes(1);
const pN = await processes(CORES);
rmSync(tmp, { recursive: true, force: true });
const r1 = Math.max(...one);
const rN = Math.max(...all);
console.log(`mc: ${RUNS} runs of ${SCENARIO.replace(ROOT + "/", "")}, best of 2, steady state (worker start-up excluded)`);
console.log(`  per run (this thread): sample ${b.sampleUs.toFixed(0)} us, load+replay ${b.runUs.toFixed(0)} us (mc layer ${((100 * b.sampleUs) / (b.sampleUs + b.runUs)).toFixed(1)} %)`);
console.log(`  1 worker       ${r1.toFixed(0)} runs/s   (workers busy ${(100 * util[1]!).toFixed(0)} % of wall time)`);
console.log(`  ${CORES} workers      ${rN.toFixed(0)} runs/s   (${(rN / CORES).toFixed(0)} runs/s per core; workers busy ${(100 * util[CORES]!).toFixed(0)} % of wall time)`);
console.log(`  machine load average ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores (other processes share the cores: the speed-up is only meaningful on an idle machine)`);
console.log(`  speed-up ${(rN / r1).toFixed(2)}x on ${CORES} cores   (targets: >= 20000 runs/s per core, >= 1.8x on 2 cores)`);
console.log(`  machine ceiling: ${CORES} independent processes ${pN.toFixed(0)} runs/s vs 1 process ${p1.toFixed(0)} runs/s = ${(pN / p1).toFixed(2)}x; pool efficiency ${((100 * (rN / r1)) / (pN / p1)).toFixed(0)} % of that`);
