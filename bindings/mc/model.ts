// The Monte Carlo model interface: what the sweep runner needs from a domain.
//
// A model turns a run seed into a concrete scenario, runs it, and says what
// happened as outcome classes ("pod-stuck-containercreating",
// "expect:capped-p99", ...) and metrics (time to pod Running, MB/s, p99 ns).
// The runner never looks inside a concrete scenario: sampling, running,
// shrinking and writing a repro file are the model's business, so the IO
// engine and the Kubernetes replay plug in the same way (domains/io.ts,
// domains/k8s.ts), and a scenario that drives both is one more domain.
//
//   McModel            one randomised scenario, ready to sample and run
//     sample(seed)     -> concrete (a plain scenario + the draws that made it)
//     run(c, seed)     -> { classes, metrics }
//     shrink(c)        -> smaller concretes (fewer faults, earlier, smaller)
//     serialize(c, s)  -> scenario file text that `iosim run` / `iosim k8s run` replays
//
// Most models are TemplateModels: a scenario document of some domain whose
// values may be distributions (distributions.ts) plus an `mc:` section, run by
// a McDomain adapter that knows how to load and run a plain document of its
// kind.

import { shown } from "../util/shown.js";
import { isDeepStrictEqual } from "node:util";
import { InputError } from "../scenario/errors.js";
import { compileTemplate, drawUnits, freezeLiterals, quantise, sampleCompiled, sampleTemplate, yamlLines, type Draw, type Json, type Template } from "./distributions.js";
import { samplingRng } from "./rng.js";

/** What one run showed. */
export interface McOutcome {
  /** failed invariants / expectations and symptoms; [] = the run was fine ("ok") */
  classes: string[];
  metrics: Record<string, number>;
}

/** A concrete (sampled) scenario of a template model. */
export interface Concrete {
  doc: Json;
  draws: Draw[];
  params: Record<string, Json>;
  /** the run seed it was sampled with (new draws of shrink candidates come from the same stream) */
  seed: number;
}

export interface McModel<C = Concrete> {
  /** scenario name, for summaries and file names */
  name: string;
  /** domain adapter name ("io", "k8s", ...) */
  domain: string;
  /** the command that replays a repro file */
  replayCommand: string;
  /** the command that replays a repro of class `cls`, when not replayCommand (a class only `iosim mc replay` judges) */
  replayCommandFor?(cls: string): string;
  sample(runSeed: number): C;
  /** run `run`'s sample (a model with {grid}s takes the run's grid point from its index; default: sample(runSeed)) */
  sampleRun?(runSeed: number, run: number): C;
  run(c: C, runSeed: number): McOutcome;
  /** candidates one step simpler than `c`, simplest first */
  shrinkCandidates(c: C): Iterable<C>;
  /** how big a concrete is (for picking the smallest failing run): fewer/earlier/smaller = lower */
  size(c: C): number;
  /** named parameters of a concrete (for tables) */
  params(c: C): Record<string, Json>;
  serialize(c: C, runSeed: number, note: string): string;
}

/** An expectation on a metric: the run fails it (class "expect:<name>") when the comparison is false. */
export interface MetricExpectation {
  name: string;
  metric: string;
  op: "<" | "<=" | ">" | ">=" | "==";
  value: number;
}

/** The `mc:` section of a randomised scenario file. */
export interface McSection {
  domain?: string;
  params?: Record<string, unknown>;
  expect?: MetricExpectation[];
  /** metrics to report distributions for (default: all the domain reports) */
  metrics?: string[];
  /** tabulate class probabilities by these named parameters */
  table?: TableAxis[];
}

export interface TableAxis {
  param: string;
  /** bin edges for a numeric parameter (value v goes to [e_k, e_k+1)); absent = one row per value */
  bins?: number[];
}

/** A domain: loads and runs a plain (no distributions) scenario document of its kind. */
export interface McDomain<S = unknown> {
  name: string;
  replayCommand: string;
  /** does this document look like one of ours? (when mc.domain is not given) */
  detect(doc: Json): boolean;
  /**
   * Validate a concrete document; throws InputError. `lines` maps field paths
   * of the document ("timeline[1].delay") to lines of the randomised file,
   * so errors point into it.
   */
  prepare(doc: Json, file: string, lines: Map<string, number>): S;
  run(s: S, runSeed: number): McOutcome;
  /**
   * Optional: throw what run() would refuse about a prepared scenario before
   * it simulates anything (the io engine's checks of its cgroup files and
   * jobs), without running it. Used, with prepare(), to find a value the
   * template fixes that no run can load (TemplateModel.fixedError).
   */
  check?(s: S): void;
  /**
   * Optional fast path for sweeps: prepare the parts of the document that are
   * the same in every run once, and per run only the top-level keys in
   * `randomKeys` (those whose value holds a distribution). `doc` is one
   * sample. Returns a function giving what prepare() gives for any sample of
   * the same template, or undefined when the domain cannot tell (then every
   * run calls prepare()). The TemplateModel checks the two agree on `doc`
   * before it uses the fast path.
   */
  preparer?(doc: Json, randomKeys: readonly string[], file: string, lines: Map<string, number>): ((doc: Json) => S) | undefined;
  /**
   * File text that the domain's replay command runs, with `seed` set to
   * runSeed. `mc` holds the sweep's metric expectations (when it has any),
   * which the file must carry for the replay to judge the run the same way.
   */
  serialize(doc: Json, runSeed: number, header: string, mc?: { domain: string; expect: MetricExpectation[] }): string;
  /** optional: the same document with its seed replaced (when the domain keeps the seed elsewhere) */
  withSeed?(doc: Json, runSeed: number): Json;
}

const domains = new Map<string, McDomain>();

export function registerMcDomain(d: McDomain): void {
  domains.set(d.name, d as McDomain);
}

export function mcDomains(): McDomain[] {
  return [...domains.values()];
}

/** Marks the comment line of a repro file that carries the sweep's metric expectations. */
export const MC_COMMENT_PREFIX = "# mc: ";

/**
 * Comment header of a repro file: the note, and (when the sweep judged runs by
 * metric expectations) a `# mc: {json}` line, so the file stays a plain
 * scenario for `iosim run` / `iosim k8s run` while `iosim mc replay` can judge
 * it the same way the sweep did.
 */
export function mcHeader(note: string, mc?: { domain: string; expect: MetricExpectation[] }): string {
  const lines = note.split("\n").map((l) => `# ${l}`);
  if (mc) lines.push(`${MC_COMMENT_PREFIX}${JSON.stringify(mc)}`);
  return lines.join("\n") + "\n";
}

/** A randomised scenario file, parsed. */
export interface McFile {
  file: string;
  text: string;
  mc: McSection;
  template: Template;
  domain: McDomain;
  /** document field path -> line in the file */
  docLines: Map<string, number>;
  /** field path of the whole file ("mc.params.depth") -> line */
  lines: Map<string, number>;
}

/**
 * Parse a randomised scenario: either `{mc: {...}, scenario: {...}}` or a plain
 * scenario document (with distributions, and optionally an `mc:` key).
 */
export function parseMcFile(text: string, file: string): McFile {
  let value: unknown;
  let lines: Map<string, number>;
  try {
    ({ value, lines } = yamlLines(text));
  } catch (e) {
    if (e instanceof InputError) throw new InputError(e.detail, file, e.line);
    throw e;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new InputError("a scenario file holds a mapping", file, 1);
  const top = value as Record<string, unknown>;
  let fromComment: McSection | undefined;
  if (top.mc === undefined) {
    const ln = text.split("\n").findIndex((l) => l.startsWith(MC_COMMENT_PREFIX));
    if (ln >= 0) {
      try {
        fromComment = JSON.parse(text.split("\n")[ln]!.slice(MC_COMMENT_PREFIX.length)) as McSection;
      } catch {
        throw new InputError("the # mc: comment is not JSON", file, ln + 1, "mc");
      }
    }
  }
  const mc = (top.mc ?? fromComment ?? {}) as McSection;
  if (typeof mc !== "object" || Array.isArray(mc)) throw new InputError("mc: must be a mapping", file, lines.get("mc"), "mc");
  let doc: unknown;
  let docPath: string;
  if ("scenario" in top && "mc" in top) {
    doc = top.scenario;
    docPath = "scenario";
  } else {
    const { mc: _drop, ...rest } = top;
    doc = rest;
    docPath = "";
  }
  validateSection(mc, file, lines);
  const template = compileTemplate(doc, file, lines, mc.params, docPath);
  const domain = pickDomain(mc.domain, doc as Json, file, lines.get("mc.domain"));
  checkTableUnits(template, mc.table, (i, k) => ({ file, line: lines.get(`mc.table[${i}].${k}`) ?? lines.get(`mc.table[${i}]`), field: `mc.table[${i}].${k}` }));
  const docLines = new Map<string, number>();
  for (const [p, l] of lines) {
    if (docPath === "") { if (!p.startsWith("mc")) docLines.set(p, l); }
    else if (p === docPath) docLines.set("", l);
    else if (p.startsWith(`${docPath}.`)) docLines.set(p.slice(docPath.length + 1), l);
  }
  return { file, text, mc, template, domain, docLines, lines };
}

function pickDomain(name: string | undefined, doc: Json, file: string, line?: number): McDomain {
  if (name !== undefined) {
    const d = domains.get(name);
    if (!d) throw new InputError(`unknown domain "${name}" (known: ${[...domains.keys()].join(", ")})`, file, line, "mc.domain");
    return d;
  }
  const hits = [...domains.values()].filter((d) => d.detect(doc));
  if (hits.length === 1) return hits[0]!;
  throw new InputError(hits.length ? `the document looks like ${hits.map((d) => d.name).join(" and ")}: set mc.domain`
    : `cannot tell the scenario's domain: set mc.domain (one of ${[...domains.keys()].join(", ")})`, file, 1, "mc.domain");
}

/** The keys of `mc:`, of an expectation and of a table axis: any other is refused, not ignored. */
const MC_KEYS = ["domain", "params", "expect", "metrics", "table"];
const EXPECT_KEYS = ["name", "metric", "<", "<=", ">", ">=", "=="];
const AXIS_KEYS = ["param", "bins"];

/**
 * Refuse a key that is not in `known`: a misspelt one (`expects:`, `bin:`)
 * would otherwise be dropped, and a sweep without its expectations counts
 * every run ok.
 */
function onlyKeys(o: unknown, known: readonly string[], at: string, file: string, lines: Map<string, number>, what: string): void {
  if (!o || typeof o !== "object" || Array.isArray(o)) return;
  for (const k of Object.keys(o)) {
    if (known.includes(k)) continue;
    const field = at ? `${at}.${k}` : k;
    throw new InputError(`unknown key "${k}" in ${what} (known: ${known.join(", ")})`, file, lines.get(field) ?? lines.get(at), field);
  }
}

function validateSection(mc: McSection, file: string, lines: Map<string, number>): void {
  onlyKeys(mc, MC_KEYS, "mc", file, lines, "mc:");
  for (const k of ["expect", "metrics", "table"] as const) {
    if (mc[k] !== undefined && !Array.isArray(mc[k])) throw new InputError(`mc.${k} is a list`, file, lines.get(`mc.${k}`), `mc.${k}`);
  }
  if (mc.params !== undefined && (!mc.params || typeof mc.params !== "object" || Array.isArray(mc.params))) {
    throw new InputError("mc.params is a mapping of names to distributions", file, lines.get("mc.params"), "mc.params");
  }
  (mc.metrics ?? []).forEach((m, i) => {
    if (typeof m !== "string") throw new InputError(`a metric name is a string, got ${shown(m)}`, file, lines.get(`mc.metrics[${i}]`) ?? lines.get("mc.metrics"), `mc.metrics[${i}]`);
  });
  (mc.expect ?? []).forEach((e, i) => {
    const at = `mc.expect[${i}]`;
    const raw = e as unknown as Record<string, unknown>;
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new InputError("an expectation is a mapping {name, metric, <op>: bound}", file, lines.get(at), at);
    onlyKeys(raw, EXPECT_KEYS, at, file, lines, "an expectation");
    const ops = (["<", "<=", ">", ">=", "=="] as const).filter((o) => o in raw);
    if (typeof raw.metric !== "string") throw new InputError("an expectation names a metric", file, lines.get(at), `${at}.metric`);
    if (ops.length !== 1) throw new InputError("an expectation has one comparison: <, <=, >, >= or ==", file, lines.get(at), at);
    const b = raw[ops[0]!];
    const v = typeof b === "number" || (typeof b === "string" && b.trim() !== "") ? Number(b) : NaN;
    if (!Number.isFinite(v)) throw new InputError("the bound must be a number", file, lines.get(at), `${at}.${ops[0]}`);
    e.op = ops[0]!;
    e.value = v;
    e.name = String(raw.name ?? `${raw.metric}${ops[0]}${v}`);
  });
  (mc.table ?? []).forEach((a, i) => {
    if (!a || typeof a.param !== "string") throw new InputError("a table axis names a param", file, lines.get(`mc.table[${i}]`), `mc.table[${i}].param`);
    onlyKeys(a, AXIS_KEYS, `mc.table[${i}]`, file, lines, "a table axis");
    if (a.bins && (!Array.isArray(a.bins) || a.bins.some((b, k) => typeof b !== "number" || (k > 0 && b <= a.bins![k - 1]!)))) {
      throw new InputError("bins are increasing numbers", file, lines.get(`mc.table[${i}].bins`), `mc.table[${i}].bins`);
    }
  });
}

/**
 * A table axis must name a param or named draw of the sweep (a typo would
 * tabulate every run as "(unset)"), and a binned one compares a value's
 * number with the bins, so its param must give every value in one unit: "2s"
 * and "500ms" would land in the bins of 2 and 500. Throws, naming the axis.
 */
export function checkTableUnits(template: Template, table: readonly TableAxis[] | undefined,
  where: (i: number, key: "param" | "bins") => { file: string; line?: number; field: string }): void {
  (table ?? []).forEach((a, i) => {
    const units = drawUnits(template, a.param);
    if (!units) {
      const w = where(i, "param");
      throw new InputError(`table axis "${a.param}" names no param or named draw of the sweep`, w.file, w.line, w.field);
    }
    if (!a.bins || units.length <= 1) return;
    const w = where(i, "bins");
    const shown = units.map((u) => (u === "" ? "plain numbers" : `"${u}"`)).join(", ");
    throw new InputError(`table axis "${a.param}" is binned by number, but its values come in more than one unit (${shown}): `
      + `write every value of "${a.param}" in one unit, or drop the bins`, w.file, w.line, w.field);
  });
}

/**
 * Check a run's metrics against the file's expectations; the failed ones as
 * classes. A run that does not report the metric has not shown the bound
 * holds, so it fails it too (`expect:<name>`), with `expect:<name>:no-metric`
 * beside it saying why: a pod that never reaches Running has no
 * `runningAtMs`, and is the slowest start of all, not one to leave out of
 * P(expect:slow-start).
 */
export function failedExpectations(exp: readonly MetricExpectation[], metrics: Record<string, number>): string[] {
  const out: string[] = [];
  for (const e of exp) {
    const v = metrics[e.metric];
    if (v === undefined) {
      out.push(`expect:${e.name}`, `expect:${e.name}:no-metric`);
      continue;
    }
    const ok = e.op === "<" ? v < e.value : e.op === "<=" ? v <= e.value : e.op === ">" ? v > e.value : e.op === ">=" ? v >= e.value : v === e.value;
    if (!ok) out.push(`expect:${e.name}`);
  }
  return out;
}

/** fixedError(): samples tried beside probe 0 and its one-draw changes, and the most loads it spends. */
const FIXED_PROBES = 8;
const FIXED_MAX_LOADS = 400;

/** How many bisection steps a real-valued draw gets while shrinking. */
export const SHRINK_BISECT_STEPS = 12;

/** A model over a randomised document, run by a domain adapter. */
export class TemplateModel implements McModel<Concrete> {
  readonly name: string;
  readonly domain: string;
  readonly replayCommand: string;
  /** the domain's compiled preparer (undefined: not built yet; null: none, use prepare()) */
  private fast: ((doc: Json) => unknown) | null | undefined;
  constructor(readonly spec: McFile) {
    const doc = spec.template.root;
    const nm = doc.t === "lit" && doc.v && typeof doc.v === "object" && !Array.isArray(doc.v) ? (doc.v as Record<string, Json>).name
      : doc.t === "obj" ? (doc.entries.find(([k]) => k === "name")?.[1] as { v?: Json } | undefined)?.v : undefined;
    this.name = typeof nm === "string" ? nm : spec.file.replace(/^.*\//, "").replace(/\.[^.]*$/, "");
    this.domain = spec.domain.name;
    this.replayCommand = spec.domain.replayCommand;
    // samples share the template's literal parts: a fast preparer may keep them without copying
    freezeLiterals(spec.template);
  }

  /**
   * A class of the sweep's own metric expectations is judged only by `iosim
   * mc replay` (it reads them from the repro's `# mc:` comment): `iosim run`
   * runs the file, prints the metric and exits 0, so it is no command to
   * replay that failure with.
   */
  replayCommandFor(cls: string): string {
    const own = (this.spec.mc.expect ?? []).some((e) => cls === `expect:${e.name}` || cls === `expect:${e.name}:no-metric`);
    return own ? "iosim mc replay" : this.replayCommand;
  }

  sample(runSeed: number, overrides?: ReadonlyMap<string, number>, run = 0): Concrete {
    const s = overrides ? sampleTemplate(this.spec.template, samplingRng(runSeed), overrides, run) : sampleCompiled(this.spec.template, samplingRng(runSeed), run);
    return { doc: s.doc, draws: s.draws, params: s.params, seed: runSeed };
  }

  sampleRun(runSeed: number, run: number): Concrete {
    return this.sample(runSeed, undefined, run);
  }

  /**
   * The top-level keys of the document whose values vary between runs, or
   * undefined when the document itself is random (a choice at the root).
   */
  randomKeys(): string[] | undefined {
    const root = this.spec.template.root;
    if (root.t === "lit") return [];
    if (root.t !== "obj") return undefined;
    return root.entries.filter(([, t]) => t.t !== "lit").map(([k]) => k);
  }

  /** Does a run use the domain's compiled preparer (the scenario prepared once, per run only its random keys)? */
  compiled(): boolean {
    return this.fastPrepare() !== null;
  }

  /** The domain's fast preparer, built and checked against prepare() on one sample. */
  private fastPrepare(): ((doc: Json) => unknown) | null {
    if (this.fast !== undefined) return this.fast;
    this.fast = null;
    const d = this.spec.domain;
    const keys = this.randomKeys();
    if (!d.preparer || !keys) return null;
    try {
      const f = d.preparer(this.sample(0).doc, keys, this.spec.file, this.spec.docLines);
      if (!f) return null;
      // check it on the first sample the domain accepts
      for (let s = 0; s < 16; s++) {
        const doc = this.sample(s).doc;
        let want: unknown;
        try {
          want = d.prepare(doc, this.spec.file, this.spec.docLines);
        } catch {
          continue;
        }
        if (isDeepStrictEqual(f(doc), want)) this.fast = f;
        break;
      }
    } catch {
      // constant parts the domain rejects: keep the general path, which reports it per run
    }
    return this.fast;
  }

  /** The error the domain's loader (and its pre-run check) gives a document, or undefined when it loads. */
  private loadError(doc: Json): InputError | undefined {
    try {
      const d = this.spec.domain;
      const s = d.prepare(doc, this.spec.file, this.spec.docLines);
      d.check?.(s);
      return undefined;
    } catch (e) {
      if (e instanceof InputError) return e;
      throw e;
    }
  }

  /**
   * A value the template fixes that the domain refuses in every run (`bs: 8q`
   * written in a job, no distribution involved): the loader's own error, to
   * refuse the file when it is read rather than count the same error class in
   * every run; undefined when there is none. An error that depends on drawn
   * values stays a per-run class, so the error is fixed only if it is the
   * same (same message, line and field) for the sample of probe seed 0, for
   * that sample with each of its draws changed on its own (every other option
   * of a choice, the other value of a bernoulli or maybe, a number's ends and
   * simplest value), and for FIXED_PROBES more samples. A sample that loads,
   * or that fails otherwise, shows the error depends on the draws. Checks at
   * most FIXED_MAX_LOADS loads; past that, the error is left to the runs.
   */
  fixedError(): InputError | undefined {
    const base = this.sample(0);
    const e0 = this.loadError(base.doc);
    if (!e0) return undefined;
    const same = (doc: Json): boolean => this.loadError(doc)?.message === e0.message;
    let loads = 0;
    const variants = function* (this: TemplateModel): Iterable<Json> {
      for (let k = 1; k <= FIXED_PROBES; k++) yield this.sample(k).doc;
      const values = new Map(base.draws.map((d) => [d.key, d.value]));
      for (const d of base.draws) {
        const alts = new Set<number>();
        if (d.kind === "choice") for (let k = 0; k <= d.hi; k++) alts.add(k);
        else if (d.kind === "bool" || d.kind === "keep") alts.add(1 - d.value);
        else for (const v of [d.lo, d.hi, d.target]) if (Number.isFinite(v)) alts.add(d.quantum > 0 ? quantise(v, d.quantum, d.lo, d.hi) : v);
        alts.delete(d.value);
        for (const v of alts) yield this.sample(0, new Map(values).set(d.key, v)).doc;
      }
    }.call(this);
    for (const doc of variants) {
      if (++loads > FIXED_MAX_LOADS) return undefined;
      if (!same(doc)) return undefined;
    }
    return e0;
  }

  /** What the domain runs for a concrete (its compiled preparer when it has one); throws what the domain's loader throws. */
  prepare(c: Concrete): unknown {
    const fast = this.fastPrepare();
    return fast ? fast(c.doc) : this.spec.domain.prepare(c.doc, this.spec.file, this.spec.docLines);
  }

  run(c: Concrete, runSeed: number): McOutcome {
    let out: McOutcome | undefined;
    const fast = this.fastPrepare();
    if (fast) {
      try {
        out = this.spec.domain.run(fast(c.doc), runSeed);
      } catch {
        // the general path below decides: the same outcome, or the error as the
        // domain's own loader words it (and a write into a shared frozen part of
        // the compiled scenario costs a second run, not a different outcome)
      }
    }
    if (!out) {
      try {
        out = this.spec.domain.run(this.spec.domain.prepare(c.doc, this.spec.file, this.spec.docLines), runSeed);
      } catch (e) {
        // a sampled value the domain rejects is an outcome ("error:<why>"); anything else is a bug
        // in iosim, not a class of the sweep: it ends the sweep with exit 3 (it was counted as a
        // class and the sweep exited 0)
        if (!(e instanceof InputError)) throw e;
        const msg = e.message;
        return { classes: [`error:${msg.split("\n")[0]!.slice(0, 160)}`], metrics: {} };
      }
    }
    const exp = failedExpectations(this.spec.mc.expect ?? [], out.metrics);
    if (exp.length === 0) return out;
    return { classes: [...out.classes, ...exp], metrics: out.metrics };
  }

  *shrinkCandidates(c: Concrete): Iterable<Concrete> {
    const base = new Map(c.draws.map((d) => [d.key, d.value]));
    const withValue = (key: string, v: number) => {
      const m = new Map(base);
      m.set(key, v);
      return this.resample(m, c);
    };
    // 1. leave out optional parts (fewer faults), last first
    for (const d of [...c.draws].reverse()) if (d.kind === "keep" && d.value !== d.target) yield withValue(d.key, d.target);
    // 2. fewer copies of repeats
    for (const d of c.draws) {
      if (d.key.endsWith(".count") && d.kind === "int" && d.value > d.target) {
        yield withValue(d.key, d.target);
        if (d.value - 1 > d.target) yield withValue(d.key, d.value - 1);
      }
    }
    // 3. simpler choices (earlier options first) and flags
    for (const d of c.draws) {
      if (d.kind === "bool" && d.value !== d.target) yield withValue(d.key, d.target);
      if (d.kind === "choice") for (let k = d.target; k < d.value; k++) yield withValue(d.key, k);
    }
    // 4. numbers towards their simplest end: the end itself, then bisection
    for (const d of c.draws) {
      if ((d.kind !== "real" && d.kind !== "int") || d.value === d.target) continue;
      yield withValue(d.key, d.target);
      let lo = d.target;
      const hi = d.value;
      for (let k = 0; k < SHRINK_BISECT_STEPS; k++) {
        let mid = (lo + hi) / 2;
        if (d.quantum > 0) mid = Math.round(mid / d.quantum) * d.quantum;
        if (mid === lo || mid === hi) break;
        yield withValue(d.key, mid);
        // the runner's shrink loop restarts from an accepted candidate; when a
        // candidate is rejected we move the bracket towards the value
        lo = mid;
      }
    }
  }

  private resample(overrides: Map<string, number>, from: Concrete): Concrete {
    return this.sample(from.seed, overrides);
  }

  size(c: Concrete): number {
    let kept = 0;
    let spread = 0;
    for (const d of c.draws) {
      if (d.kind === "keep") kept += d.value;
      else if (d.kind === "count") kept += d.value;
      else if (d.hi > d.lo && Number.isFinite(d.hi - d.lo)) spread += Math.abs(d.value - d.target) / (d.hi - d.lo);
      else if (d.value !== d.target) spread += Math.min(1, Math.abs(d.value - d.target) / (Math.abs(d.target) + 1));
    }
    return kept * 1000 + spread;
  }

  params(c: Concrete): Record<string, Json> {
    return c.params;
  }

  serialize(c: Concrete, runSeed: number, note: string): string {
    const exp = this.spec.mc.expect ?? [];
    const mc = exp.length ? { domain: this.domain, expect: exp.map((e) => ({ name: e.name, metric: e.metric, [e.op]: e.value }) as unknown as MetricExpectation) } : undefined;
    return this.spec.domain.serialize(c.doc, runSeed, note, mc);
  }
}
