// The summary of a sweep, computed from the set of run records alone.
//
// Records are de-duplicated by run index (the first record of an index
// counts) and everything counted is independent of the order records come
// in (the least index, the smallest size then least index, sorted metric
// values, sorted classes and table cells), so the summary does not depend on
// worker count, finishing order, resumes or shard merges. Wall-clock figures
// (runs/s) are not part of it. A SweepTally takes records one at a time and
// keeps only what the summary needs: a bit per run index, counts, one record
// per failing class, the metric values (8 bytes each) and the table's counts,
// so a sweep of millions of runs does not hold its records.
//
//   classes   per outcome class ("ok" = no class): count, probability,
//             Wilson 95 % interval, and for failing classes the repro: the
//             smallest run showing it (least size, then lowest index),
//             shrunk, written as a plain scenario file
//   metrics   per metric: n, min, p50, p90, p99, max, mean (nearest rank)
//   table     class probabilities per value / bin of named parameters

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Json } from "./distributions.js";
import type { JournalHeader, RunRecord } from "./journal.js";
import type { McModel, TableAxis } from "./model.js";
import { shrinkToClass, SHRINK_BUDGET_RUNS } from "./shrink.js";
import { summariseValues, tidy, wilson, type MetricSummary } from "./stats.js";

export const OK_CLASS = "ok";

export interface ClassSummary {
  count: number;
  probability: number;
  wilson95: [number, number];
  /** lowest run index that showed the class */
  firstRun: number;
  repro?: ReproInfo;
  /**
   * the other classes seen in exactly the same runs (say an expect: and the
   * symptom: that always come together): the text prints them as one row,
   * one repro file serves them all, and the table as one column
   */
  sameRunsAs?: string[];
}

export interface ReproInfo {
  /** the run it was shrunk from */
  run: number;
  seed: number;
  /** file name, relative to the summary's directory */
  file: string;
  /** command that replays it */
  replay: string;
  shrinkSteps: number;
  shrinkRuns: number;
  sizeBefore: number;
  sizeAfter: number;
  /** named parameters of the shrunk scenario */
  params: Record<string, Json>;
}

export interface TableCell {
  key: Record<string, string>;
  runs: number;
  classes: Record<string, { count: number; probability: number; wilson95: [number, number] }>;
}

export interface McSummary {
  scenario: string;
  domain: string;
  digest: string;
  seed: string;
  runs: number;
  completed: number;
  classes: Record<string, ClassSummary>;
  metrics: Record<string, MetricSummary>;
  table?: { axes: string[]; cells: TableCell[] };
}

export interface SummaryOptions {
  /** write shrunk repro files here; undefined = no repros */
  outDir?: string;
  shrinkBudget?: number;
  table?: TableAxis[];
  /** only these metrics (default all) */
  metrics?: string[];
}

/** Unique records by run index, sorted. */
export function canonicalRecords(records: Iterable<RunRecord>): RunRecord[] {
  const byI = new Map<number, RunRecord>();
  for (const r of records) if (!byI.has(r.i)) byI.set(r.i, r);
  return [...byI.values()].sort((a, b) => a.i - b.i);
}

export function summarise<C>(header: JournalHeader, records: Iterable<RunRecord>, model: McModel<C>,
  opts: SummaryOptions = {}): McSummary {
  const t = new SweepTally(opts);
  for (const r of records) t.add(r);
  return t.summary(header, model, opts);
}

/** What a pool worker counted in one chunk (SweepTally.delta); plain data, so it crosses postMessage. */
export interface TallyDelta {
  runs: number[];
  classes: Array<[string, ClassTally]>;
  metrics: Array<[string, number[]]>;
  cells: Array<[string, TallyCell]>;
}

/**
 * A class's count, least run, smallest run, and a 64-bit fingerprint of the
 * set of runs it was seen in (two 32-bit XORs of mixed run indices: order
 * free, so workers' tallies merge, and two different sets agree only by a
 * 2^-64 chance). Classes with the same count, least run and fingerprint came
 * in the same runs.
 */
interface ClassTally {
  count: number;
  first: number;
  best?: RunRecord;
  h1?: number;
  h2?: number;
}

function mixA(i: number): number {
  let x = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function mixB(i: number): number {
  let x = Math.imul((i + 0x7f4a7c15) | 0, 0x27d4eb2f);
  x ^= x >>> 15;
  x = Math.imul(x, 0x165667b1);
  return (x ^ (x >>> 13)) >>> 0;
}

/** A failing class's repro comes from its smallest run (size), ties to the lower index: is run (size, i) smaller than `best`? */
function smaller(size: number, i: number, best: RunRecord): boolean {
  return size < best.size || (size === best.size && i < best.i);
}

interface TallyCell {
  key: Record<string, string>;
  order: number[];
  runs: number;
  classes: Map<string, number>;
}

/** The summary's state, fed one record at a time (in any order; a repeated run index is ignored). */
export class SweepTally {
  /** records counted (distinct run indices) */
  completed = 0;
  private seen = new Uint8Array(1024);
  private readonly counts = new Map<string, ClassTally>();
  private readonly metricVals = new Map<string, number[]>();
  private readonly cells = new Map<string, TallyCell>();
  /** cellOf's lookup tree (a cache of `cells`) and labelOf's caches */
  private readonly cellTree = new Map<string, unknown>();
  private readonly labelCache: Array<Map<unknown, BinLabel>> = [];
  /** The parameters the table reads (a worker passes only these to count()). */
  readonly tableParams: readonly string[];

  constructor(private readonly opts: Pick<SummaryOptions, "table" | "metrics"> = {}) {
    this.tableParams = (opts.table ?? []).map((a) => a.param);
  }

  /** Has run index i been counted? */
  has(i: number): boolean {
    return (i >> 3) < this.seen.length && (this.seen[i >> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Count a record; false (and nothing counted) when its run index was counted already. */
  add(r: RunRecord): boolean {
    if (this.has(r.i)) return false;
    this.count(r.i, r.classes, r.metrics, r.params, r.size, r);
    return true;
  }

  /**
   * Count run i (not counted yet) from the parts its record holds: what add()
   * does, for a caller that has the parts but not the record object (a pool
   * worker writing journal lines). `params` needs only the table's parameters;
   * `record` is the run's record or its journal line, parsed only when the run
   * becomes a failing class's smallest.
   */
  count(i: number, classes: readonly string[], metrics: Record<string, number>, params: Record<string, Json | undefined>,
    size: number, record: RunRecord | string): void {
    this.mark(i);
    const cls = classes.length ? classes : [OK_CLASS];
    let rec: RunRecord | undefined;
    for (const c of cls) {
      let e = this.counts.get(c);
      if (!e) this.counts.set(c, (e = { count: 0, first: i, h1: 0, h2: 0 }));
      e.count++;
      if (i < e.first) e.first = i;
      e.h1 = ((e.h1 ?? 0) ^ mixA(i)) >>> 0;
      e.h2 = ((e.h2 ?? 0) ^ mixB(i)) >>> 0;
      // the smallest run, ties to the lower index
      if (c !== OK_CLASS && (!e.best || smaller(size, i, e.best))) e.best = rec ??= typeof record === "string" ? (JSON.parse(record) as RunRecord) : record;
    }
    for (const k in metrics) {
      const v = metrics[k];
      if (this.opts.metrics && !this.opts.metrics.includes(k)) continue;
      if (typeof v !== "number" || !Number.isFinite(v)) continue;
      let a = this.metricVals.get(k);
      if (!a) this.metricVals.set(k, (a = []));
      a.push(v);
    }
    if (this.opts.table?.length) {
      const c = this.cellOf(params);
      c.runs++;
      for (const k of cls) c.classes.set(k, (c.classes.get(k) ?? 0) + 1);
    }
  }

  /**
   * The table cell of a run's parameters: found through a tree of Maps keyed
   * by the cell's labels, one level per axis (a worker counts every run; the
   * labels come from per-axis caches, so a run costs a number parse and a few
   * lookups), built the first time a combination of labels comes.
   */
  private cellOf(params: Record<string, Json | undefined>): TallyCell {
    const axes = this.opts.table!;
    let level: Map<string, unknown> = this.cellTree;
    for (let k = 0; k < axes.length; k++) {
      const { label } = this.labelOf(k, params[axes[k]!.param]);
      let next = level.get(label);
      if (next === undefined) level.set(label, (next = k === axes.length - 1 ? this.cellByLabels(params) : new Map()));
      if (k === axes.length - 1) return next as TallyCell;
      level = next as Map<string, unknown>;
    }
    return this.cellByLabels(params);
  }

  /** binLabel of axis k, from a cache: a binned axis's label per bin, another axis's per primitive value */
  private labelOf(k: number, v: Json | undefined): BinLabel {
    const axis = this.opts.table![k]!;
    if (v !== null && typeof v === "object") return binLabel(v, axis);
    let cache = this.labelCache[k];
    if (!cache) this.labelCache[k] = cache = new Map();
    if (axis.bins && v !== undefined) {
      const x = numericOf(v);
      if (x === undefined) return binLabel(v, axis);
      const b = axis.bins;
      let order = b.length;
      if (x < b[0]!) order = -1;
      else for (let j = 0; j < b.length - 1; j++) if (x < b[j + 1]!) { order = j; break; }
      let l = cache.get(order);
      if (!l) cache.set(order, (l = binLabel(x, axis)));
      return l;
    }
    let l = cache.get(v);
    if (!l) cache.set(v, (l = binLabel(v, axis)));
    return l;
  }

  private cellByLabels(params: Record<string, Json | undefined>): TallyCell {
    const axes = this.opts.table!;
    const labels = axes.map((_, k) => this.labelOf(k, params[axes[k]!.param]));
    const id = JSON.stringify(labels.map((l) => l.label));
    let c = this.cells.get(id);
    if (!c) {
      const key: Record<string, string> = {};
      axes.forEach((a, k) => (key[a.param] = labels[k]!.label));
      this.cells.set(id, (c = { key, order: labels.map((l) => l.order), runs: 0, classes: new Map() }));
    }
    return c;
  }

  private mark(i: number): void {
    if ((i >> 3) >= this.seen.length) {
      let n = this.seen.length * 2;
      while ((i >> 3) >= n) n *= 2;
      const g = new Uint8Array(n);
      g.set(this.seen);
      this.seen = g;
    }
    this.seen[i >> 3]! |= 1 << (i & 7);
    this.completed++;
  }

  /**
   * What this tally counted, as a message a pool worker posts with a chunk
   * (`runs`: the chunk's run indices, all counted here). merge() adds it to
   * the sweep's tally: the sums, least indices and smallest runs come out as
   * if the records had been added one by one, so the main thread, which feeds
   * every worker, never parses the chunk's journal lines.
   */
  delta(runs: number[]): TallyDelta {
    return { runs, classes: [...this.counts], metrics: [...this.metricVals], cells: [...this.cells] };
  }

  /** Add a worker's delta (its runs must not be counted yet). */
  merge(d: TallyDelta): void {
    for (const i of d.runs) {
      if (this.has(i)) throw new Error(`mc: run ${i} was counted twice`);
      this.mark(i);
    }
    for (const [c, x] of d.classes) {
      let e = this.counts.get(c);
      if (!e) this.counts.set(c, (e = { count: 0, first: x.first, h1: 0, h2: 0 }));
      e.count += x.count;
      if (x.first < e.first) e.first = x.first;
      e.h1 = ((e.h1 ?? 0) ^ (x.h1 ?? 0)) >>> 0;
      e.h2 = ((e.h2 ?? 0) ^ (x.h2 ?? 0)) >>> 0;
      const b = x.best;
      if (b && (!e.best || smaller(b.size, b.i, e.best))) e.best = b;
    }
    for (const [k, vs] of d.metrics) {
      let a = this.metricVals.get(k);
      if (!a) this.metricVals.set(k, (a = []));
      for (const v of vs) a.push(v);
    }
    for (const [id, x] of d.cells) {
      let c = this.cells.get(id);
      if (!c) this.cells.set(id, (c = { key: x.key, order: x.order, runs: 0, classes: new Map() }));
      c.runs += x.runs;
      for (const [k, n] of x.classes) c.classes.set(k, (c.classes.get(k) ?? 0) + n);
    }
  }

  /** The run a failing class's repro is shrunk from: the smallest (size), ties to the lower index. */
  smallestRun(cls: string): RunRecord | undefined {
    return this.counts.get(cls)?.best;
  }

  /** The summary of what was counted (writes the repro files when opts.outDir is set). */
  summary<C>(header: JournalHeader, model: McModel<C>, opts: Pick<SummaryOptions, "outDir" | "shrinkBudget"> = {}): McSummary {
    const n = this.completed;
    const classes: Record<string, ClassSummary> = {};
    // classes seen in exactly the same runs share one row, one repro, one column
    const sameRuns = new Map<string, string[]>();
    for (const c of [...this.counts.keys()].sort()) {
      const e = this.counts.get(c)!;
      const k = `${e.count}:${e.first}:${e.h1}:${e.h2}`;
      sameRuns.set(k, [...(sameRuns.get(k) ?? []), c]);
    }
    for (const c of [...this.counts.keys()].sort()) {
      const e = this.counts.get(c)!;
      const [lo, hi] = wilson(e.count, n);
      classes[c] = { count: e.count, probability: tidy(e.count / n), wilson95: [tidy(lo), tidy(hi)], firstRun: e.first };
      const group = sameRuns.get(`${e.count}:${e.first}:${e.h1}:${e.h2}`)!;
      if (group.length > 1) classes[c].sameRunsAs = group.filter((x) => x !== c);
      const lead = classes[group[0]!];
      if (e.best && opts.outDir !== undefined) {
        // one repro for the group: the first class's, shrunk to keep that class (the others come with it)
        classes[c].repro = lead !== undefined && lead !== classes[c] && lead.repro ? lead.repro : writeRepro(model, e.best, c, opts.outDir, opts.shrinkBudget);
      }
    }
    const metrics: Record<string, MetricSummary> = {};
    for (const k of [...this.metricVals.keys()].sort()) {
      const s = summariseValues(this.metricVals.get(k)!);
      metrics[k] = { n: s.n, min: tidy(s.min), p50: tidy(s.p50), p90: tidy(s.p90), p99: tidy(s.p99), max: tidy(s.max), mean: tidy(s.mean) };
    }
    const out: McSummary = {
      scenario: model.name, domain: model.domain, digest: header.scenario.digest, seed: header.seed, runs: header.runs,
      completed: n, classes, metrics,
    };
    if (this.opts.table?.length) out.table = this.tableOut(this.opts.table);
    return out;
  }

  private tableOut(axes: TableAxis[]): { axes: string[]; cells: TableCell[] } {
    const sorted = [...this.cells.values()].sort((a, b) => {
      for (let k = 0; k < a.order.length; k++) {
        if (a.order[k] !== b.order[k]) return a.order[k]! - b.order[k]!;
        const la = Object.values(a.key)[k]!, lb = Object.values(b.key)[k]!;
        if (la !== lb) return la < lb ? -1 : 1;
      }
      return 0;
    });
    return {
      axes: axes.map((a) => a.param),
      cells: sorted.map((c) => {
        const classes: TableCell["classes"] = {};
        for (const k of [...c.classes.keys()].sort()) {
          const m = c.classes.get(k)!;
          const [lo, hi] = wilson(m, c.runs);
          classes[k] = { count: m, probability: tidy(m / c.runs), wilson95: [tidy(lo), tidy(hi)] };
        }
        return { key: c.key, runs: c.runs, classes };
      }),
    };
  }
}

/** A file-name-safe slug for a class. */
/**
 * The unit a metric's name implies, for the summary's table (the values are
 * not converted: a bound in mc.expect is in the same unit). The io domain's
 * fio names: `.bw` KiB/s (fio's "bw"), `.bw_bytes` bytes/s, `.iops` IOPS,
 * `.lat.mean` / `.lat.pNN` ns (fio's clat_ns); a name ending in `Ns`, `Us`
 * or `Ms` (`simulatedNs`, `throttleWaitNs.read`, `runningAtMs`) that unit;
 * the k8s domain's counters (`nodePatches`, `storageCalls`, `events`,
 * `pods.running`) a count. A multi part's `part/` prefix does not matter.
 * "" for a name that implies none.
 */
export function metricUnit(name: string): string {
  const m = name.slice(name.lastIndexOf("/") + 1);
  if (/\.bw$/.test(m)) return "KiB/s";
  if (/\.bw_bytes$/.test(m)) return "bytes/s";
  if (/\.iops$/.test(m)) return "IOPS";
  if (/\.lat\.(mean|p\d+(\.\d+)?)$/.test(m)) return "ns";
  const seg = /\.throttleWaitNs\.(read|write)$/.test(m) ? "throttleWaitNs" : m.slice(m.lastIndexOf(".") + 1);
  const t = /[a-z](Ns|Us|Ms)$/.exec(seg);
  if (t) return t[1]!.toLowerCase();
  if (["nodePatches", "storageCalls", "events", "pods.running"].includes(m)) return "count";
  return "";
}

/**
 * A metric's value as a person reads it, from the unit its name implies
 * (metricUnit): times scaled to ns, µs, ms or s; bytes/s and KiB/s to
 * B/s ... GiB/s (1024-based, as fio's bw); IOPS and counts with k and M; three
 * significant digits. 536576 ns -> "537 µs"; 1.536e8 bytes/s -> "146 MiB/s".
 */
export function humanValue(x: number, unit: string): string {
  if (!Number.isFinite(x)) return String(x);
  const sig = (v: number) => (Math.abs(v) >= 100 ? String(Math.round(v)) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
  const scale = (v: number, steps: Array<[number, string]>) => {
    let [f, u] = steps[0]!;
    for (const s of steps) if (Math.abs(v) >= s[0]) [f, u] = s;
    return `${sig(v / f)} ${u}`;
  };
  if (x === 0) return unit ? `0 ${unit === "bytes/s" ? "B/s" : unit === "count" ? "" : unit === "us" ? "µs" : unit}`.trim() : "0";
  switch (unit) {
    case "ns":
    case "us":
    case "ms": {
      const ns = x * (unit === "ns" ? 1 : unit === "us" ? 1e3 : 1e6);
      return scale(ns, [[1, "ns"], [1e3, "µs"], [1e6, "ms"], [1e9, "s"]]);
    }
    case "bytes/s":
      return scale(x, [[1, "B/s"], [1024, "KiB/s"], [1024 ** 2, "MiB/s"], [1024 ** 3, "GiB/s"]]);
    case "KiB/s":
      return scale(x * 1024, [[1, "B/s"], [1024, "KiB/s"], [1024 ** 2, "MiB/s"], [1024 ** 3, "GiB/s"]]);
    case "IOPS":
      return scale(x, [[1, "IOPS"], [1e3, "k IOPS"], [1e6, "M IOPS"]]);
    default:
      return Math.abs(x) >= 1e6 ? scale(x, [[1, ""], [1e6, "M"], [1e9, "G"]]).trim() : String(Number(x.toPrecision(6)));
  }
}

export function classSlug(c: string): string {
  const s = c.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return s || "class";
}

function writeRepro<C>(model: McModel<C>, rec: RunRecord, cls: string, outDir: string, budget = SHRINK_BUDGET_RUNS): ReproInfo {
  const start = model.sampleRun ? model.sampleRun(rec.seed, rec.i) : model.sample(rec.seed);
  const r = shrinkToClass(model, start, rec.seed, cls, budget);
  const file = `repro-${classSlug(cls)}.yaml`;
  const replay = model.replayCommandFor?.(cls) ?? model.replayCommand;
  const note = [
    `repro of outcome class "${cls}"`,
    `shrunk from run ${rec.i} (seed ${rec.seed}) of sweep ${model.name}: ${r.steps} steps, ${r.runs} runs, size ${tidy(r.sizeBefore)} -> ${tidy(r.sizeAfter)}`,
    `replay: ${replay} ${file}`,
  ].join("\n");
  writeFileSync(join(outDir, file), model.serialize(r.concrete, rec.seed, note));
  return {
    run: rec.i, seed: rec.seed, file, replay: `${replay} ${file}`, shrinkSteps: r.steps, shrinkRuns: r.runs,
    sizeBefore: tidy(r.sizeBefore), sizeAfter: tidy(r.sizeAfter), params: model.params(r.concrete),
  };
}

const NUM_RE = /^\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*[A-Za-z%]*\s*$/;

function numericOf(v: Json | undefined): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    const m = NUM_RE.exec(v);
    if (m) return Number(m[1]);
  }
  return undefined;
}

interface BinLabel {
  label: string;
  order: number;
}

function binLabel(v: Json | undefined, axis: TableAxis): BinLabel {
  if (v === undefined) return { label: "(unset)", order: Number.MAX_SAFE_INTEGER };
  if (!axis.bins) {
    const x = numericOf(v);
    return { label: typeof v === "string" ? v : JSON.stringify(v), order: x ?? Number.MAX_SAFE_INTEGER - 1 };
  }
  const x = numericOf(v);
  if (x === undefined) return { label: String(v), order: Number.MAX_SAFE_INTEGER - 1 };
  const b = axis.bins;
  if (x < b[0]!) return { label: `<${b[0]}`, order: -1 };
  for (let k = 0; k < b.length - 1; k++) if (x < b[k + 1]!) return { label: `[${b[k]}, ${b[k + 1]})`, order: k };
  return { label: `>=${b[b.length - 1]}`, order: b.length };
}
