// Worker thread of a sweep: loads the model once, then runs chunks of run
// indices and posts their records back. The main thread owns the journal.
import { parentPort, workerData } from "node:worker_threads";
import { modelFromText, runOne } from "./run-one.js";

interface Init {
  text: string;
  file: string;
  seed: string;
  metrics?: string[];
}

const init = workerData as Init;
const model = modelFromText(init.text, init.file);
const seed = BigInt(init.seed);

parentPort!.on("message", (msg: { id: number; indices: number[] }) => {
  const t0 = performance.now();
  const records = msg.indices.map((i) => runOne(model, seed, i, init.metrics));
  parentPort!.postMessage({ id: msg.id, records, ms: performance.now() - t0 });
});
