// The Monte Carlo API for Node, `import { ... } from "iosim/mc"` (package.json
// "exports"; the library itself, "iosim", stays free of Node's built-ins for
// browser bundles, and this part writes journals and starts worker threads).
//
//  * a domain: `registerMcDomain({ name, replayCommand, detect, prepare, run,
//    serialize })` makes `mc: {domain: NAME}` scenarios of a new kind run
//    (model.ts McDomain); such a sweep runs in the registering thread
//    (runSweep's `workers: 0`: a worker thread has only the built-in domains);
//  * a model: anything implementing `McModel` (sample, run, shrinkCandidates,
//    size, params, serialize) runs with `runOne(model, seed, i)` and is
//    summarised by `summarise(header, records, model)`;
//  * a sweep of a randomised scenario file: `runSweep({ file, runs, seed, journal })`.
//
// Worked example (a domain whose run fails when its one number is above 0.9):
//
//   registerMcDomain({ name: "coin", replayCommand: "node coin.mjs", detect: () => false,
//     prepare: (doc) => doc, run: (doc) => ({ classes: doc.x > 0.9 ? ["high"] : [], metrics: { x: doc.x } }),
//     serialize: (doc) => JSON.stringify(doc) });
//   const m = modelFromText("mc: {domain: coin}\nscenario: {x: {uniform: [0, 1]}}\n", "coin.yaml");
//   for (let i = 0; i < 1000; i++) runOne(m, 1n, i);    // ~10 % of the records hold "high"
export {
  registerMcDomain,
  mcDomains,
  parseMcFile,
  TemplateModel,
  type McDomain,
  type McModel,
  type McOutcome,
  type Concrete,
  type McFile,
  type McSection,
  type MetricExpectation,
  type TableAxis,
} from "./model.js";
export { runOne, modelFromText } from "./run-one.js";
export { runSweep, parseSeed, type SweepOptions, type SweepResult, type SweepProgress } from "./runner.js";
export { summarise, SweepTally, OK_CLASS, type McSummary, type ClassSummary } from "./summary.js";
export { readJournal, type JournalHeader, type RunRecord } from "./journal.js";
export { runSeed } from "./rng.js";
export { applyGrid, parseGrid, type GridSpec } from "./grid.js";
export type { Json } from "./distributions.js";
