// Worker thread of a sweep: loads the model once (and so compiles the
// scenario once, model.ts TemplateModel.compiled()), then runs chunks of run
// indices and posts back their journal lines, one string per chunk, and the
// chunk's runs counted into a SweepTally (summary.ts, delta/merge). The main
// thread, which owns the journal and feeds every worker, only appends the
// lines and adds the counts: no per-record structured clone, JSON encoding
// or parsing there (parsing each line took ~6 us a run of the main thread,
// which on two cores is taken from the workers).
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { TableAxis } from "./model.js";
import { modelFromText, runLine } from "./run-one.js";
import { SweepTally, type TallyDelta } from "./summary.js";

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
let model: ReturnType<typeof modelFromText>;
let seed: bigint;
function start(i: Init): void {
  init = i;
  model = modelFromText(i.text, i.file);
  seed = BigInt(i.seed);
}
if (workerData) start(workerData as Init);

parentPort!.on("message", (msg: ToWorker) => {
  if ("init" in msg) return start(msg.init);
  const t0 = performance.now();
  const c0 = threadCpuMs();
  let lines = "";
  const tally = new SweepTally({ table: init.table, metrics: init.metrics });
  for (const i of msg.indices) lines += runLine(model, seed, i, init.metrics, tally) + "\n";
  const ms = performance.now() - t0;
  const c1 = c0 === undefined ? undefined : threadCpuMs();
  const done: ChunkDone = { id: msg.id, lines, runs: msg.indices.length, ms, cpuMs: c1 === undefined ? undefined : c1 - c0!, tally: tally.delta(msg.indices) };
  parentPort!.postMessage(done);
});
