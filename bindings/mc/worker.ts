// Worker thread of a sweep: loads the model once (and so compiles the
// scenario once, model.ts TemplateModel.compiled()), then runs chunks of run
// indices and posts back their journal lines: one string per chunk, so the
// main thread, which owns the journal, only appends it (no per-record
// structured clone or JSON encoding on the thread that feeds every worker).
import { parentPort, workerData } from "node:worker_threads";
import { modelFromText, runLine } from "./run-one.js";

interface Init {
  text: string;
  file: string;
  seed: string;
  metrics?: string[];
}

/** What a worker posts per chunk. */
export interface ChunkDone {
  id: number;
  /** journal lines of the chunk's runs, each ending in "\n" */
  lines: string;
  runs: number;
  /** time the runs took in this worker */
  ms: number;
}

const init = workerData as Init;
const model = modelFromText(init.text, init.file);
const seed = BigInt(init.seed);

parentPort!.on("message", (msg: { id: number; indices: number[] }) => {
  const t0 = performance.now();
  let lines = "";
  for (const i of msg.indices) lines += runLine(model, seed, i, init.metrics) + "\n";
  const done: ChunkDone = { id: msg.id, lines, runs: msg.indices.length, ms: performance.now() - t0 };
  parentPort!.postMessage(done);
});
