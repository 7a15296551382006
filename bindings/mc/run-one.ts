// One run of a sweep: seed -> sample -> run -> record. Shared by the worker
// threads and the in-process runner, so both produce identical records.

import type { RunRecord } from "./journal.js";
import { TemplateModel, parseMcFile, type McModel } from "./model.js";
import { runSeed } from "./rng.js";
import { tidy } from "./stats.js";
import "./domains/index.js";

export function runOne<C>(model: McModel<C>, seed: bigint, i: number, metrics?: readonly string[]): RunRecord {
  const rs = runSeed(seed, i);
  const c = model.sample(rs);
  const out = model.run(c, rs);
  const m: Record<string, number> = {};
  for (const [k, v] of Object.entries(out.metrics)) {
    if (metrics && !metrics.includes(k)) continue;
    if (typeof v === "number" && Number.isFinite(v)) m[k] = tidy(v);
  }
  return { i, seed: rs, classes: [...new Set(out.classes)].sort(), metrics: m, params: model.params(c), size: tidy(model.size(c)) };
}

/** The model of a randomised scenario file's text. */
export function modelFromText(text: string, file: string): TemplateModel {
  return new TemplateModel(parseMcFile(text, file));
}
