// One run of a sweep: seed -> sample -> run -> record. Shared by the worker
// threads and the in-process runner, so both produce identical records.
//
// runLine is runOne for the workers: the same run, written straight into its
// journal line (the text JSON.stringify(runOne(...)) gives, checked by
// run-one.test.ts) without building the record object first.

import type { RunRecord } from "./journal.js";
import { TemplateModel, parseMcFile, type McModel } from "./model.js";
import { runSeed } from "./rng.js";
import { tidy } from "./stats.js";
import type { Json } from "./distributions.js";
import type { SweepTally } from "./summary.js";
import "./domains/index.js";

export function runOne<C>(model: McModel<C>, seed: bigint, i: number, metrics?: readonly string[]): RunRecord {
  const rs = runSeed(seed, i);
  const c = model.sampleRun ? model.sampleRun(rs, i) : model.sample(rs);
  const out = model.run(c, rs);
  const m: Record<string, number> = {};
  for (const [k, v] of Object.entries(out.metrics)) {
    if (metrics && !metrics.includes(k)) continue;
    if (typeof v === "number" && Number.isFinite(v)) m[k] = tidy(v);
  }
  return { i, seed: rs, classes: uniqueSorted(out.classes), metrics: m, params: model.params(c), size: tidy(model.size(c)) };
}

// JSON text of strings that recur in every line (metric and param names, classes)
const quoted = new Map<string, string>();
function q(s: string): string {
  let v = quoted.get(s);
  if (v === undefined) {
    v = JSON.stringify(s);
    if (quoted.size < 4096) quoted.set(s, v);
  }
  return v;
}

/** A number as JSON writes it (non-finite: null). */
function num(x: number): string {
  // a run seed (a 53-bit integer) in two 9-digit halves: ~6x faster than String(x), same digits
  if (x >= 1e9 && x <= Number.MAX_SAFE_INTEGER && Number.isInteger(x)) {
    const hi = Math.floor(x / 1e9);
    const lo = String(x - hi * 1e9);
    return String(hi) + "000000000".slice(lo.length) + lo;
  }
  return Number.isFinite(x) ? String(x) : "null";
}

/**
 * [...new Set(xs)].sort() for the handful of classes a run has (runOne's
 * record and runLine's line both use it): an insertion
 * sort by UTF-16 code units (what sort() without a comparator compares
 * strings by) that drops repeats, without the Set, its spread and the sort's
 * string conversions (~0.15-0.25 us -> ~0.06 us for four classes).
 */
export function uniqueSorted(xs: readonly string[]): string[] {
  const u: string[] = [];
  for (const x of xs) {
    let i = u.length;
    while (i > 0 && u[i - 1]! > x) i--;
    if (i > 0 && u[i - 1] === x) continue;
    u.push(x);
    for (let k = u.length - 1; k > i; k--) u[k] = u[k - 1]!;
    u[i] = x;
  }
  return u;
}

/**
 * The journal line of run i (no trailing newline): JSON.stringify(runOne(model, seed, i, metrics)), built directly.
 * With `tally`, the run is also counted there, with the values the line's record holds (a pool worker's chunk tally).
 */
export function runLine<C>(model: McModel<C>, seed: bigint, i: number, metrics?: readonly string[], tally?: SweepTally): string {
  const rs = runSeed(seed, i);
  const c = model.sampleRun ? model.sampleRun(rs, i) : model.sample(rs);
  const out = model.run(c, rs);
  let s = `{"i":${num(i)},"seed":${num(rs)},"classes":[`;
  const cl = out.classes;
  const classes = cl.length <= 1 ? cl : uniqueSorted(cl);
  for (let k = 0; k < classes.length; k++) s += (k ? "," : "") + q(classes[k]!);
  s += `],"metrics":{`;
  let sep = "";
  const om = out.metrics;
  // for the tally: the values as the line's record reads back (backOf)
  const mBack: Record<string, number> | undefined = tally ? {} : undefined;
  for (const k of Object.keys(om)) {
    const v = om[k];
    if (metrics && !metrics.includes(k)) continue;
    if (typeof v === "number" && Number.isFinite(v)) {
      const tv = tidy(v);
      s += `${sep}${q(k)}:${num(tv)}`;
      sep = ",";
      if (mBack) mBack[k] = backOf(tv) as number;
    }
  }
  s += `},"params":{`;
  sep = "";
  const p = model.params(c) as Record<string, unknown>;
  const axes = tally?.tableParams;
  const pBack: Record<string, Json> | undefined = tally ? {} : undefined;
  for (const k of Object.keys(p)) {
    const v = p[k];
    let t: string | undefined;
    switch (typeof v) {
      case "string": t = JSON.stringify(v); break;
      case "number": t = num(v); break;
      case "boolean": t = v ? "true" : "false"; break;
      default: t = JSON.stringify(v); // null, lists, mappings (undefined: left out, as JSON.stringify does)
    }
    if (t === undefined) continue;
    s += `${sep}${q(k)}:${t}`;
    sep = ",";
    if (pBack && axes!.includes(k)) pBack[k] = typeof v === "number" ? backOf(v) : typeof v === "object" ? (JSON.parse(t) as Json) : (v as Json);
  }
  const size = tidy(model.size(c));
  const line = `${s}},"size":${num(size)}}`;
  if (tally) tally.count(i, classes, mBack!, pBack!, backOf(size) as number, line);
  return line;
}

/** A number as it reads back from its JSON text (num): itself, but -0 is 0 and a non-finite one null (JSON.parse(String(x)) === x for finite x). */
function backOf(x: number): number | null {
  return Number.isFinite(x) ? (x === 0 ? 0 : x) : null;
}

/** The model of a randomised scenario file's text. */
export function modelFromText(text: string, file: string): TemplateModel {
  return new TemplateModel(parseMcFile(text, file));
}
