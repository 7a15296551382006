// Worker thread of a sweep: loads the model once (and so compiles the
// scenario once, model.ts TemplateModel.compiled()), then runs chunks of run
// indices and posts back their journal lines, one string per chunk, and the
// chunk's runs counted into a SweepTally (summary.ts, delta/merge). The main
// thread, which owns the journal and feeds every worker, only appends the
// lines and adds the counts: no per-record structured clone, JSON encoding
// or parsing there (parsing each line took ~6 us a run of the main thread,
// which on two cores is taken from the workers).
//
// The sweep (Init) comes as workerData, or as the first message to a worker
// started before its sweep (pool.ts prestartWorkers: `iosim mc` starts it
// while its main thread loads the command and the scenario). The sweep's
// code (the scenario loaders, the replay, the WebAssembly core: ~600 KB of
// modules, ~30 ms to load) is imported once the sweep is known, so a
// prestarted worker that no sweep takes (an input error) costs only Node's
// start-up of a thread; messages wait for it in order.
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { TableAxis } from "./model.js";
import type { modelFromText as ModelFromText, runLine as RunLine } from "./run-one.js";
import type { SweepTally as Tally, TallyDelta } from "./summary.js";

export interface Init {
  text: string;
  file: string;
  seed: string;
  metrics?: string[];
  /** the summary's table axes */
  table?: TableAxis[];
}

/** What a worker posts per chunk. */
export interface ChunkDone {
  id: number;
  /** journal lines of the chunk's runs, each ending in "\n" */
  lines: string;
  runs: number;
  /** time the runs took in this worker */
  ms: number;
  /** CPU time this worker's thread spent on them (Linux; undefined elsewhere): unlike ms, not stretched when the machine is busy */
  cpuMs?: number;
  /** the chunk's runs counted for the summary (the main thread merges it instead of parsing the lines) */
  tally: TallyDelta;
}

/** This thread's time on a CPU in ms (Linux's /proc/thread-self/schedstat, ns), or undefined where there is none. */
let schedstat = true;
function threadCpuMs(): number | undefined {
  if (!schedstat) return undefined;
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ", 1)[0]) / 1e6;
  } catch {
    schedstat = false;
    return undefined;
  }
}

/** What the main thread posts: the sweep, when it did not come as workerData, then chunks of run indices. */
export type ToWorker = { init: Init } | { id: number; indices: number[] };

let init: Init;
let model: ReturnType<typeof ModelFromText>;
let seed: bigint;
let runLine: typeof RunLine;
let SweepTally: typeof Tally;
/** the sweep's code is loaded and its model made */
let ready = false;
async function start(i: Init): Promise<void> {
  const [one, summary] = await Promise.all([import("./run-one.js"), import("./summary.js")]);
  runLine = one.runLine;
  SweepTally = summary.SweepTally;
  init = i;
  model = one.modelFromText(i.text, i.file);
  seed = BigInt(i.seed);
  ready = true;
}

function runChunk(msg: { id: number; indices: number[] }): void {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  let lines = "";
  const tally = new SweepTally({ table: init.table, metrics: init.metrics });
  for (const i of msg.indices) lines += runLine(model, seed, i, init.metrics, tally) + "\n";
  const ms = performance.now() - t0;
  const c1 = c0 === undefined ? undefined : threadCpuMs();
  const done: ChunkDone = { id: msg.id, lines, runs: msg.indices.length, ms, cpuMs: c1 === undefined ? undefined : c1 - c0!, tally: tally.delta(msg.indices) };
  parentPort!.postMessage(done);
}

let loading: Promise<void> | undefined = workerData ? start(workerData as Init) : undefined;
parentPort!.on("message", (msg: ToWorker) => {
  if ("init" in msg) loading = start(msg.init);
  else if (ready) runChunk(msg);
  // a chunk that came before the sweep's code was loaded runs after it, in order (the queued
  // ones run before the next message is read); a failed load or chunk is the worker's uncaught
  // error, which the pool reports
  else loading = loading!.then(() => runChunk(msg));
});
