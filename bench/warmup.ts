// What a sweep's worker costs before it runs at its steady rate, and what
// that makes of one and two workers: measured in CPU time, which a busy
// machine stretches far less than wall time, side by side with another build.
//
//   npm run build && node dist/bench/warmup.js [--runs N] [--rounds R] [--base DIR] [--scenario FILE] [--flags "V8 FLAGS"]
//
// Each round runs, in child processes and in alternating order, a one-worker
// sweep (bindings/mc/runner.ts runSweep, the real pool: worker thread,
// chunks, journal) of N runs of the scenario (default: the detach-backoff
// example, N = 20000) with this build and, with --base DIR, with another
// build (a checkout with dist/ built; e.g. `git worktree add /tmp/b 2e08014`
// and `npm run build` there). The child samples, at every progress report,
// the process's CPU time (every thread: the worker, the main thread, V8's
// compiler and GC helper threads) and the worker thread's own (Linux
// /proc/self/task). From those, per build (medians over the rounds):
//   start     CPU ms before the sweep begins (node, loading the CLI's modules)
//   steady    CPU us per run once warm: the slope over the runs from 60 % to
//             97 % of the sweep, process and worker thread
//   warm-up   CPU ms the runs took beyond N x steady: process (mostly V8's
//             optimising compiler on its helper threads) and worker thread
//             (the interpreter and baseline code before the optimised code)
//   w1, w2    the sweep's wall time on a quiet 2-core machine that these
//             imply: one worker runs N x steady + its thread's warm-up while
//             the compiler threads use the other core; two workers share
//             both cores for N x steady + two warm-ups (each worker warms up
//             on its own), so w2 = (N x steady + 2 x warm-up) / 2
//   w1 / w2   the speed-up a second worker gives (issue #34 asks >= 1.6).
// --flags "V8 FLAGS": a third side, this build's children run with these
// extra node/V8 flags (a variant to try before making it the default).
// Wall times are printed too, with the load average: on a loaded machine
// they say little; `node dist/bench/process.js --only mc20k --base DIR`
// times the whole processes when the machine is quiet.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (k: string): string | undefined => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCENARIO = resolve(opt("--scenario") ?? join(root, "bindings", "mc", "examples", "k8s-detach-backoff.yaml"));
const RUNS = Number(opt("--runs") ?? 20000);

/** a point of the sweep: runs done, process CPU ms and worker-thread CPU ms since the sweep began */
type Point = [done: number, procMs: number, workerMs: number];
interface ChildOut { startMs: number; wallMs: number; points: Point[] }

if (args.includes("--child")) {
  const dist = resolve(opt("--child")!);
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const { runSweep } = (await import(pathToFileURL(join(dist, "bindings", "mc", "runner.js")).href)) as typeof import("../bindings/mc/runner.js");
  const tmp = mkdtempSync(join(tmpdir(), "iosim-warmup-"));
  const main = String(process.pid);
  /** CPU ms of the busiest thread but the main one (the pool's worker) */
  const workerCpu = (): number => {
    let best = 0;
    for (const t of readdirSync("/proc/self/task")) {
      if (t === main) continue;
      try {
        best = Math.max(best, Number(readFileSync(`/proc/self/task/${t}/schedstat`, "latin1").split(" ", 1)[0]) / 1e6);
      } catch {
        // the thread ended
      }
    }
    return best;
  };
  const startMs = cpu();
  const points: Point[] = [];
  const t0 = performance.now();
  await runSweep({
    file: SCENARIO, runs: RUNS, seed: 1n, workers: 1, journal: join(tmp, "j.jsonl"), force: true,
    onProgress: (p) => void points.push([p.doneNow, cpu() - startMs, workerCpu()]),
  });
  const wallMs = performance.now() - t0;
  rmSync(tmp, { recursive: true, force: true });
  console.log(JSON.stringify({ startMs, wallMs, points } satisfies ChildOut));
  process.exit(0);
}

interface Figures { startMs: number; steadyUs: number; steadyWorkerUs: number; warmMs: number; warmWorkerMs: number; w1: number; w2: number; wallMs: number }

function figures(o: ChildOut): Figures {
  const at = (f: number): Point => o.points.find((p) => p[0] >= f * RUNS) ?? o.points[o.points.length - 1]!;
  const a = at(0.6);
  const b = at(0.97);
  const last = o.points[o.points.length - 1]!;
  const steady = (b[1] - a[1]) / (b[0] - a[0]);
  const steadyW = (b[2] - a[2]) / (b[0] - a[0]);
  const warm = Math.max(0, last[1] - RUNS * steady);
  const warmW = Math.max(0, last[2] - RUNS * steadyW);
  return {
    startMs: o.startMs, steadyUs: steady * 1000, steadyWorkerUs: steadyW * 1000, warmMs: warm, warmWorkerMs: warmW,
    w1: RUNS * steadyW + warmW, w2: (RUNS * steady + 2 * warm) / 2, wallMs: o.wallMs,
  };
}

function child(dist: string, flags: string[]): Figures {
  const out = execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url), "--child", dist, "--runs", String(RUNS), "--scenario", SCENARIO],
    { encoding: "utf8", maxBuffer: 1 << 26, stdio: ["ignore", "pipe", "inherit"] });
  return figures(JSON.parse(out) as ChildOut);
}

const ROUNDS = Number(opt("--rounds") ?? 3);
const base = opt("--base") ? resolve(opt("--base")!) : undefined;
if (base && !existsSync(join(base, "dist", "bindings", "mc", "runner.js"))) throw new Error(`bench: ${base}/dist/bindings/mc/runner.js is missing: build that checkout first`);
const sides: Array<{ name: string; dist: string; flags: string[]; rows: Figures[] }> = [{ name: "this", dist: join(root, "dist"), flags: [], rows: [] }];
if (base) sides.push({ name: "base", dist: join(base, "dist"), flags: [], rows: [] });
// --flags: a third side, this build with extra node/V8 flags
const flags = opt("--flags")?.split(" ").filter(Boolean) ?? [];
if (flags.length) sides.push({ name: `this ${flags.join(" ")}`, dist: join(root, "dist"), flags, rows: [] });

console.log(`bench/warmup: one-worker sweeps of ${RUNS} runs of ${SCENARIO}, node ${process.version}, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}${base ? `, base ${base}` : ""}`);
for (let r = 0; r < ROUNDS; r++) {
  for (let k = 0; k < sides.length; k++) {
    const s = sides[(k + r) % sides.length]!;
    s.rows.push(child(s.dist, s.flags));
  }
}
const med = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const f0 = (x: number) => x.toFixed(0);
for (const s of sides) {
  const m = (k: keyof Figures) => med(s.rows.map((x) => x[k]));
  console.log(`\n${s.name} (${ROUNDS} rounds, medians; load ${loadavg()[0]!.toFixed(1)})`);
  console.log(`  start ${f0(m("startMs"))} ms CPU; steady ${m("steadyUs").toFixed(1)} us/run (worker thread ${m("steadyWorkerUs").toFixed(1)})`);
  console.log(`  warm-up ${f0(m("warmMs"))} ms CPU per worker (worker thread ${f0(m("warmWorkerMs"))})`);
  console.log(`  quiet 2-core wall implied: w1 ${f0(m("w1"))} ms, w2 ${f0(m("w2"))} ms, w1/w2 ${med(s.rows.map((x) => x.w1 / x.w2)).toFixed(2)}x  (sweep wall here ${f0(m("wallMs"))} ms)`);
}
if (flags.length) {
  const t = sides[0]!;
  const v = sides[sides.length - 1]!;
  const ratioV = (k: keyof Figures) => med(t.rows.map((x, i) => x[k] / v.rows[i]![k])).toFixed(2);
  console.log(`\nthis / this with ${flags.join(" ")} per round (> 1: the flags make it cheaper): steady ${ratioV("steadyUs")}x, warm-up ${ratioV("warmMs")}x, w1 ${ratioV("w1")}x, w2 ${ratioV("w2")}x`);
}
if (base) {
  const [t, b] = sides;
  const ratio = (k: keyof Figures) => med(t!.rows.map((x, i) => b!.rows[i]![k] / x[k])).toFixed(2);
  console.log(`\nbase / this per round (> 1: this is cheaper): steady ${ratio("steadyUs")}x, warm-up ${ratio("warmMs")}x, w1 ${ratio("w1")}x, w2 ${ratio("w2")}x`);
  console.log(`base w1 / this w2 (the 1-worker base against this on two workers): ${med(t!.rows.map((x, i) => b!.rows[i]!.w1 / x.w2)).toFixed(2)}x`);
}
console.log(`\nload after: ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
