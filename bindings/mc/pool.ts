// Starting a sweep's worker threads (runner.ts runs the pool): the V8 flags
// a worker's isolate is created with, and workers started ahead of their
// sweep. A module of its own, with Node's built-ins as its only imports, so
// that `iosim mc` can start the first worker before it loads the rest of
// the sweep's code (the scenario loaders, the replay, the WebAssembly core:
// ~40 ms here), which runner.ts imports.

import { existsSync } from "node:fs";
import { availableParallelism, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { Init } from "./worker.js";

/** the most --workers per core: more only adds heaps and switching */
export const MAX_WORKERS_PER_CORE = 4;

/**
 * Young generation of a worker. A replay allocates ~90 KB and keeps almost
 * none of it, but with V8's default sizing (semi-spaces grown from 1 MB only
 * while many objects survive, so they stay at ~8 MB here) a worker scavenges
 * every ~90 runs, and each scavenge copies (and promotes) what the run in
 * flight holds plus a share of the recent past. Starting the semi-spaces at
 * 32 MB: 4x fewer scavenges, ~40 % fewer bytes copied and ~3x fewer promoted
 * per run (--trace-gc-nvp, in-thread), and the pool's CPU per run ~15-20 %
 * lower on one worker (README, Speed).
 */
export const WORKER_SEMI_SPACE_MB = 32;

/** Semi-space size for `workers` workers: WORKER_SEMI_SPACE_MB, halved until the pool's young generations (2 semi-spaces each) take at most 1/8 of the memory. */
export function workerSemiSpaceMb(workers: number, wanted = WORKER_SEMI_SPACE_MB): number {
  let mb = wanted;
  while (mb > 8 && workers * 2 * mb * 2 ** 20 > totalmem() / 8) mb /= 2;
  return mb > 8 ? mb : 0;
}

/** Did the user size V8's young generation on the command line or in NODE_OPTIONS? Then the workers keep it. */
function userSizedYoungGen(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /semi[-_]space/.test(a));
}

/**
 * The workers' V8 heap. The initial semi-space size is a process-wide V8 flag,
 * read when an isolate is created: it is set before the workers start (the
 * main isolate, created already, keeps its own); the maximum goes per worker
 * in resourceLimits (a young generation is 3 semi-spaces: the two halves and
 * as much again for large objects).
 */
function workerHeap(mb: number): ResourceLimits | undefined {
  if (userSizedYoungGen()) return undefined;
  setFlagsFromString(`--min-semi-space-size=${Math.max(0, mb)}`); // 0: V8's default
  return mb > 0 ? { maxYoungGenerationSizeMb: 3 * mb } : undefined;
}

/** Undo workerHeap()'s process-wide flag once the pool's isolates exist, so
 *  isolates the embedding program creates later get V8's default again. */
function restoreYoungGenFlag(): void {
  if (!userSizedYoungGen()) setFlagsFromString("--min-semi-space-size=0");
}

/** Did the user choose V8's concurrent recompilation on the command line or in NODE_OPTIONS? Then it stays as they set it. */
function userSetRecompilation(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => /concurrent[-_]recompilation|single[-_]threaded|predictable/.test(a));
}

let compileOnWorkerFlag = false;
/** Are the workers being created now set to compile on their own threads? (for tests) */
export function workersCompileOnOwnThread(): boolean {
  return compileOnWorkerFlag;
}
/**
 * TurboFan on each worker's own thread while the pool fills the cores. By
 * default V8 compiles a hot function on a helper thread while the isolate
 * runs on in its interpreter; with a worker on every core the helper only
 * takes turns with the workers, and the worker interprets (~25x its
 * optimised speed, bench/mc.ts) for the whole compile. Compiled on the
 * worker's thread, the function runs optimised as soon as it is compiled.
 * V8 reads --concurrent-recompilation when it creates an isolate (its
 * OptimizingCompileDispatcher), so the process-wide flag is set before the
 * workers start and restored once they are online, as the young
 * generation's size is; the main isolate keeps V8's default. Left alone
 * when node's options choose it.
 */
function compileOnWorker(on: boolean): void {
  if (userSetRecompilation() || on === compileOnWorkerFlag) return;
  compileOnWorkerFlag = on;
  setFlagsFromString(on ? "--no-concurrent-recompilation" : "--concurrent-recompilation");
}

/**
 * Workers created whose isolates do not exist yet. The young generation's
 * size and the compile mode are process-wide V8 flags read when an isolate
 * is created (workerHeap, compileOnWorker): set before a worker is created,
 * they are restored once every worker created meanwhile is online (or gone).
 */
let awaitingIsolates = 0;

/** A sweep's worker thread with `mb` MB semi-spaces (0: V8's default), compiling on its own thread or not; `workerData`: the sweep, or undefined for one sent later ({init}). */
export function createWorker(url: URL, mb: number, ownThread: boolean, workerData: Init | undefined): Worker {
  const resourceLimits = workerHeap(mb);
  compileOnWorker(ownThread);
  awaitingIsolates++;
  const w = new Worker(url, { workerData, resourceLimits });
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    if (--awaitingIsolates === 0) {
      restoreYoungGenFlag();
      compileOnWorker(false);
    }
  };
  w.once("online", settle);
  w.once("exit", settle);
  return w;
}

interface Prestarted {
  worker: Worker;
  url: string;
  mb: number;
  ownThread: boolean;
  failed: boolean;
  onError: () => void;
}
const prestarted: Prestarted[] = [];

/**
 * Start the first workers of a sweep before the sweep: `iosim mc` starts
 * them as soon as it has read its options, so a worker's own start-up (node
 * in a new thread, loading the worker's modules: ~70 ms here) runs while the
 * main thread loads and checks the scenario (~60 ms), instead of after it.
 * `workers` and the options are the sweep's (runner.ts SweepOptions); the sweep's pool
 * takes a prestarted worker whose heap and compile settings are the ones it
 * would give its worker and posts it the sweep, and runSweep ends the ones it
 * did not take. Until then they do not keep the process alive (an input
 * error found meanwhile exits as before).
 */
export function prestartWorkers(workers: number, o: { semiSpaceMb?: number; concurrentCompile?: boolean } = {}): void {
  // (a count the sweep refuses starts none: runCommand reports it)
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= MAX_WORKERS_PER_CORE * availableParallelism())) return;
  const url = workerUrl();
  const mb = o.semiSpaceMb ?? workerSemiSpaceMb(workers);
  const ownThread = !(o.concurrentCompile ?? workers < availableParallelism());
  for (let k = 0; k < workers; k++) {
    const worker = createWorker(url, mb, ownThread, undefined);
    worker.unref();
    const p: Prestarted = { worker, url: url.href, mb, ownThread, failed: false, onError: () => (p.failed = true) };
    // (an error before a sweep takes it: the sweep starts a new worker instead, whose error it reports)
    worker.on("error", p.onError);
    worker.once("exit", p.onError);
    prestarted.push(p);
  }
}

/** A prestarted worker of these settings, now the caller's, or undefined. */
export function takePrestarted(url: URL, mb: number, ownThread: boolean): Worker | undefined {
  const k = prestarted.findIndex((p) => !p.failed && p.url === url.href && p.mb === mb && p.ownThread === ownThread);
  if (k < 0) return undefined;
  const p = prestarted.splice(k, 1)[0]!;
  p.worker.off("error", p.onError);
  p.worker.off("exit", p.onError);
  p.worker.ref();
  return p.worker;
}

/** Prestarted workers no sweep has taken yet (for tests). */
export function prestartedWorkers(): number {
  return prestarted.length;
}

/** End the prestarted workers no sweep took. */
export function releasePrestarted(): void {
  for (const p of prestarted.splice(0)) void p.worker.terminate();
}

/** The compiled worker (dist/bindings/mc/worker.js), also when running from the TypeScript sources. */
export function workerUrl(): URL {
  const here = fileURLToPath(import.meta.url);
  const sibling = join(dirname(here), "worker.js");
  if (existsSync(sibling)) return pathToFileURL(sibling);
  const root = resolve(dirname(here), "..", "..");
  const built = join(root, "dist", "bindings", "mc", "worker.js");
  if (existsSync(built)) return pathToFileURL(built);
  throw new Error(`mc: no compiled worker at ${built}: run \`npm run build\` first`);
}
