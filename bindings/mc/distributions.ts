// Randomised scenarios: values that are distributions, sampled once per run.
//
// 1. Syntax. Any value of a scenario document (IO or Kubernetes) may be a
//    one-key mapping that names a distribution instead of a value:
//
//      {uniform: [a, b]}            real in [a, b)
//      {randint: [a, b]}            integer in [a, b], both ends included
//      {loguniform: [a, b]}         real whose log is uniform: scales (io.max bps, IOPS)
//      {normal: {mean, sd}}         clamp with min/max
//      {lognormal: {median, sigma}} median = e^mu; clamp with min/max
//      {exponential: {mean}}        clamp with max
//      {bernoulli: p}               true with probability p
//      {choice: [v1, v2, ...]}      one of the values (each may hold distributions);
//                                   optional weights: [w1, w2, ...]
//      {param: name}                the run's value of mc.params.name (params are drawn
//                                   in order, and may read those above them)
//      {maybe: X, p: 0.3}           X with probability p, else the list element /
//                                   mapping key is left out (a fault that may not happen)
//      {repeat: X, count: N}        in a list: N copies of X spliced in, each sampled
//                                   on its own; N may be a distribution of whole numbers >= 0
//      {literal: X}                 X as written, even if it looks like a distribution
//      {grid: [v1, v2, ...]}        not drawn: run i takes value (i / stride) mod n, where
//                                   stride is the product of the sizes of the grids before
//                                   it (the first grid varies fastest), so --runs a multiple
//                                   of all the grids' sizes gives every combination equally
//                                   often; beside random draws, each combination gets its
//                                   own draws. Not inside a choice, maybe or repeat (it must
//                                   be taken once per run). `iosim mc --grid NAME=v1,v2`
//                                   writes one over mc.params.NAME or a draw named NAME.
//
//    A one-key mapping whose key is a near miss of a kind ({unifrom: [0, 1]},
//    {params: d}; util/nearest-name.ts decides) is refused with the kind
//    meant: taken as a literal mapping it ran every sample with one value.
//
//    Modifiers on the numeric kinds: `min`, `max` (clamp), `round` (quantum,
//    rounding down: `round: 4096` gives whole 4 KiB multiples, randint too; a
//    unit must be the draw's), `name` (record the draw as a named parameter,
//    for tables and repro headers; bernoulli and choice take it too). Each
//    kind reads its own modifiers (MODIFIERS_OF) and any other key beside it,
//    or inside normal's / lognormal's / exponential's mapping, is refused:
//    a dropped `min` or `round` would give values the file rules out. Ends may carry a unit
//    suffix, the same on both ends ("0ms", "250ms"; "4k", "1M"): the number is
//    sampled and the unit written back, rounded down to a whole unit unless
//    `round` says otherwise. So `{uniform: ["0ms", "5000ms"]}` gives e.g. "1734ms",
//    which the domain's own loader reads as it reads any duration.
//
// 2. Draws. Sampling walks the compiled template depth-first in document order
//    and records every random choice as a Draw keyed by its path
//    ("scenario.faults#2.atMs": the third copy of a repeat). A run is fully
//    described by (template, run seed); its draws let the shrinker replay it
//    with some values changed and the rest held (overrides by key), so
//    changing one draw never reshuffles the others.
//
// 3. Shrink targets. Each draw has a simplest value the shrinker moves it
//    towards: a numeric draw towards the end of its range nearest zero (earlier
//    times, smaller values), a choice towards its first option, bernoulli
//    towards false, maybe / repeat copies towards "left out". Worked example:
//    `{uniform: ["0ms", "5000ms"]}` drawn as "3120ms" shrinks by bisection on
//    [0, 3120] to the earliest time that still shows the failure.

import { shown } from "../util/shown.js";
import { parseYaml, yamlToJS } from "../util/yaml-guard.js";
import { yamlFieldLines } from "../util/line-of-path.js";
import { deepFreeze } from "../util/deep-freeze.js";
import { nearestName } from "../util/nearest-name.js";
import { internStrings } from "../util/intern.js";
import { InputError } from "../scenario/errors.js";
import type { Rng } from "./rng.js";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** One random choice of a run. */
export interface Draw {
  key: string;
  kind: "real" | "int" | "choice" | "bool" | "keep" | "count";
  /** sampled value (choice: index; keep/bool: 0/1; real/int: number in the unit of the ends) */
  value: number;
  /** the simplest value, where the shrinker moves the draw */
  target: number;
  /** range of the draw, for size measures and bisection */
  lo: number;
  hi: number;
  /** value quantum (int draws: 1; rounded reals: the quantum; else 0) */
  quantum: number;
  /** named draw */
  name?: string;
}

interface Src {
  file: string;
  line?: number;
  field: string;
}

type NumEnds = { a: number; b: number; unit: string };

type Tpl =
  | { t: "lit"; v: Json }
  | { t: "obj"; entries: Array<[string, Tpl]> }
  | { t: "arr"; items: Tpl[] }
  | { t: "num"; kind: "uniform" | "randint" | "loguniform" | "normal" | "lognormal" | "exponential"; p1: number; p2: number;
      unit: string; min: number; max: number; round: number; path: string; name?: string; src: Src }
  | { t: "bool"; p: number; path: string; name?: string; src: Src }
  | { t: "choice"; options: Tpl[]; cum: number[]; path: string; name?: string; src: Src;
      /** a {grid: [...]}: the option is the run index's digit (run / stride) mod options.length, not drawn */
      grid?: { stride: number } }
  | { t: "param"; name: string; src: Src }
  | { t: "maybe"; p: number; value: Tpl; path: string; src: Src }
  | { t: "repeat"; count: Tpl; item: Tpl; path: string; src: Src }
  | { t: "concat"; parts: Tpl[]; src: Src };

const DIST_KEYS = ["uniform", "randint", "loguniform", "normal", "lognormal", "exponential", "bernoulli", "choice", "param",
  "maybe", "repeat", "literal", "concat", "grid"] as const;
const MODIFIERS = new Set(["min", "max", "round", "name", "weights", "p", "count"]);
/** The modifiers each kind reads (any other beside it is refused). */
const NUMERIC_MODIFIERS = ["min", "max", "round", "name"];
const MODIFIERS_OF: Record<string, readonly string[]> = {
  uniform: NUMERIC_MODIFIERS, randint: NUMERIC_MODIFIERS, loguniform: NUMERIC_MODIFIERS,
  normal: NUMERIC_MODIFIERS, lognormal: NUMERIC_MODIFIERS, exponential: NUMERIC_MODIFIERS,
  bernoulli: ["name"], choice: ["weights", "name"], param: [], maybe: ["p"], repeat: ["count"], literal: [], concat: [], grid: ["name"],
};
const UNIT_RE = /^\s*(-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*$/;

/** A compiled randomised document. */
export interface Template {
  root: Tpl;
  /** named draws sampled before the document (mc.params) */
  params: Array<[string, Tpl]>;
  file: string;
  /** does the document hold any distribution at all? */
  random: boolean;
  /** the number of combinations of its {grid}s (1: none) */
  gridSize: number;
}

/** Where each path of a YAML document starts (1-based lines), for error messages. */
export function yamlLines(text: string): { value: unknown; lines: Map<string, number> } {
  const { doc, lc, problem } = parseYaml(text);
  if (problem) throw new InputError(problem.message, "", problem.line);
  const lines = yamlFieldLines(doc.contents, lc, doc);
  // (strings internalised: a k8s scenario's names are map keys the replay compares; util/intern.ts)
  return { value: internStrings(yamlToJS(doc)), lines };
}

/** Compile a document (plain JS values) whose values may be distributions. */
export function compileTemplate(doc: unknown, file: string, lines?: Map<string, number>, params?: Record<string, unknown>,
  docPath = ""): Template {
  let random = false;
  const src = (path: string, field?: string): Src => ({ file, line: lines?.get(path), field: field ?? (path || "(document)") });
  const fail = (path: string, msg: string): never => {
    const s = src(path);
    throw new InputError(msg, s.file, s.line, s.field);
  };
  const num = (v: unknown, path: string, what: string): { n: number; unit: string } => {
    if (typeof v === "number" && Number.isFinite(v)) return { n: v, unit: "" };
    if (typeof v === "string") {
      const m = UNIT_RE.exec(v);
      if (m) return { n: Number(m[1]), unit: m[2]! };
    }
    return fail(path, `${what} must be a number (optionally with a unit, e.g. "250ms"), got ${shown(v)}`);
  };
  const ends = (v: unknown, path: string, kind: string): NumEnds => {
    if (!Array.isArray(v) || v.length !== 2) fail(path, `${kind} takes [low, high], got ${shown(v)}`);
    const x = num((v as unknown[])[0], path, `${kind} low end`);
    const y = num((v as unknown[])[1], path, `${kind} high end`);
    const unit = x.unit || y.unit;
    if (x.unit && y.unit && x.unit !== y.unit) fail(path, `${kind} ends have different units ("${x.unit}", "${y.unit}")`);
    if ((!x.unit && x.n !== 0) || (!y.unit && y.n !== 0)) if (unit && (!x.unit || !y.unit)) fail(path, `${kind}: give both ends the unit "${unit}"`);
    if (!(x.n <= y.n)) fail(path, `${kind}: low end ${x.n} is above high end ${y.n}`);
    return { a: x.n, b: y.n, unit };
  };
  const prob = (v: unknown, path: string, what: string): number => {
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) fail(path, `${what} must be a probability in [0, 1], got ${shown(v)}`);
    return v as number;
  };

  // mc.params compiled so far (while compiling one, the ones above it: a param may read only those)
  const pmap = new Map<string, Tpl>();
  let compilingParam: string | undefined;
  // {grid}s so far (their sizes multiplied: the next one's stride), and whether the node compiled now is under a choice, maybe or repeat
  let gridSize = 1;
  let nested = 0;
  const under = <T>(f: () => T): T => {
    nested++;
    try {
      return f();
    } finally {
      nested--;
    }
  };
  const compile = (v: unknown, path: string, rel: string, inList = false): Tpl => {
    if (Array.isArray(v)) {
      const items = v.map((x, i) => compile(x, `${path}[${i}]`, `${rel}[${i}]`, true));
      return items.every((x) => x.t === "lit") ? { t: "lit", v: items.map((x) => (x as { v: Json }).v) } : { t: "arr", items };
    }
    if (v === null || typeof v !== "object") return { t: "lit", v: v as Json };
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    const dk = keys.filter((k) => (DIST_KEYS as readonly string[]).includes(k));
    if (dk.length === 0) {
      // a one-key mapping whose key is a near miss of a kind ({unifrom: [0, 1]})
      // is a misspelt distribution: taken as a literal mapping it reached the
      // domain's loader as a value of that shape, or a field it ignores, and
      // every run used one value. A mapping meant as written: {literal: ...}.
      if (keys.length === 1) {
        const k = keys[0]!;
        const near = nearestName(k, DIST_KEYS);
        if (near !== undefined) {
          fail(path ? `${path}.${k}` : k, `"${k}" is not a distribution kind: did you mean ${near}? (a mapping meant as written is {literal: {${k}: ...}})`);
        }
      }
      const entries: Array<[string, Tpl]> = keys.map((k) => [k, compile(o[k], path ? `${path}.${k}` : k, `${rel}.${k}`)]);
      if (entries.every(([, x]) => x.t === "lit")) {
        return { t: "lit", v: Object.fromEntries(entries.map(([k, x]) => [k, (x as { v: Json }).v])) };
      }
      return { t: "obj", entries };
    }
    if (dk.length > 1) fail(path, `a distribution names one kind, this one names ${dk.join(" and ")}`);
    const kind = dk[0]!;
    const extra = keys.filter((k) => k !== kind && !MODIFIERS.has(k));
    if (extra.length) {
      fail(path, `unexpected key(s) ${extra.map((k) => `"${k}"`).join(", ")} beside "${kind}" (modifiers: ${[...MODIFIERS].join(", ")}; wrap a plain mapping in {literal: ...})`);
    }
    // a modifier the kind does not read is refused, not dropped (`min` on a choice, `round` on a bernoulli)
    const takes = MODIFIERS_OF[kind] ?? [];
    const unread = keys.filter((k) => k !== kind && !takes.includes(k));
    if (unread.length) {
      fail(`${path}.${unread[0]}`, `${kind} takes no ${unread.map((k) => `"${k}"`).join(", ")}${takes.length ? ` (it takes ${takes.join(", ")})` : ""}`);
    }
    if (kind === "literal") return { t: "lit", v: o.literal as Json };
    if (o.min !== undefined && o.max !== undefined) {
      const lo = num(o.min, `${path}.min`, "min").n, hi = num(o.max, `${path}.max`, "max").n;
      if (lo > hi) fail(`${path}.min`, `min ${lo} is above max ${hi}`);
    }
    random = true;
    const s = src(path, path ? `${path}.${kind}` : kind);
    const name = o.name === undefined ? undefined : String(o.name);
    const clampOf = (k: "min" | "max", unit: string) => {
      if (o[k] === undefined) return k === "min" ? -Infinity : Infinity;
      const x = num(o[k], `${path}.${k}`, k);
      if (x.unit && x.unit !== unit) fail(`${path}.${k}`, `${k} has unit "${x.unit}", the distribution "${unit}"`);
      return x.n;
    };
    const roundOf = (unit: string, dflt: number, whole = false) => {
      if (o.round === undefined) return unit ? 1 : dflt;
      const x = num(o.round, `${path}.round`, "round");
      if (x.unit && x.unit !== unit) fail(`${path}.round`, `round has unit "${x.unit}", the distribution ${unit ? `"${unit}"` : "none"}`);
      if (!(x.n > 0) || (whole && !Number.isInteger(x.n))) fail(`${path}.round`, `round must be a ${whole ? "whole number" : "number"} above 0, got ${shown(o.round)}`);
      return x.n;
    };
    /**
     * A value in a unit is rounded down to a whole unit unless round: says
     * otherwise, so ends (mean, sd) that are not whole in it would give values
     * the file does not say ({uniform: ["0.1s", "0.9s"]} gave "0s" every run,
     * below its own low end); and no rounding may leave the range without a
     * value. Both refused here.
     */
    const checked = (t: Extract<Tpl, { t: "num" }>, given: Array<[string, number]>): Tpl => {
      if (t.unit && o.round === undefined) {
        for (const [what, x] of given) {
          if (!Number.isInteger(x)) {
            fail(path, `${kind}: ${what} ${x}${t.unit} is not a whole number of "${t.unit}", and a value in "${t.unit}" is rounded down to a whole ${t.unit}: `
              + `give the values in a smaller unit (e.g. "1500ms" for "1.5s") or set round:`);
          }
        }
      }
      const lo = Math.max(t.min, rangeLo(t)), hi = Math.min(t.max, rangeHi(t));
      if (t.round > 0 && Number.isFinite(lo) && Number.isFinite(hi) && Math.ceil(lo / t.round - 1e-9) * t.round > hi * (1 + 1e-12) + 1e-12) {
        fail(path, `${kind}: no multiple of round ${t.round}${t.unit} lies in [${lo}, ${hi}]${t.unit}`);
      }
      return t;
    };
    switch (kind) {
      case "uniform": case "randint": case "loguniform": {
        const e = ends(o[kind], `${path}.${kind}`, kind);
        if (kind === "loguniform" && !(e.a > 0)) fail(path, "loguniform needs a low end above 0");
        return checked({ t: "num", kind, p1: e.a, p2: e.b, unit: e.unit, min: clampOf("min", e.unit), max: clampOf("max", e.unit),
          round: roundOf(e.unit, kind === "randint" ? 1 : 0, kind === "randint"), path: rel, name, src: s }, [["low end", e.a], ["high end", e.b]]);
      }
      case "normal": case "lognormal": case "exponential": {
        const spec = o[kind];
        if (!spec || typeof spec !== "object" || Array.isArray(spec)) {
          fail(path, kind === "normal" ? "normal takes {mean, sd}" : kind === "lognormal" ? "lognormal takes {median, sigma}" : "exponential takes {mean}");
        }
        const sp = spec as Record<string, unknown>;
        const k1 = kind === "normal" ? "mean" : kind === "lognormal" ? "median" : "mean";
        const k2 = kind === "normal" ? "sd" : kind === "lognormal" ? "sigma" : undefined;
        for (const k of Object.keys(sp)) {
          if (k !== k1 && k !== k2) {
            fail(`${path}.${kind}.${k}`, `${kind} takes {${[k1, k2].filter(Boolean).join(", ")}}, not "${k}"${MODIFIERS.has(k) ? ` (write ${k} beside ${kind}:, not inside it)` : ""}`);
          }
        }
        const a = num(sp[k1], `${path}.${kind}.${k1}`, k1);
        let p2 = 0;
        if (k2) {
          const b = num(sp[k2], `${path}.${kind}.${k2}`, k2);
          // sd is in the mean's unit (a plain number: that unit); sigma is a factor on the log scale, no unit
          if (kind === "normal" && b.unit && b.unit !== a.unit) fail(`${path}.${kind}.sd`, `sd has unit "${b.unit}", the mean ${a.unit ? `"${a.unit}"` : "none"}: give both the same unit`);
          if (kind === "lognormal" && b.unit) fail(`${path}.${kind}.sigma`, `sigma is the spread of the logarithm, a plain number (got "${b.unit}")`);
          if (!(b.n >= 0)) fail(`${path}.${kind}.${k2}`, `${k2} must be 0 or more, got ${b.n}`);
          p2 = b.n;
        }
        if (kind === "lognormal" && !(a.n > 0)) fail(path, "lognormal median must be above 0");
        if (kind === "exponential" && !(a.n > 0)) fail(path, "exponential mean must be above 0");
        return checked({ t: "num", kind, p1: a.n, p2, unit: a.unit, min: clampOf("min", a.unit), max: clampOf("max", a.unit),
          round: roundOf(a.unit, 0), path: rel, name, src: s }, kind === "normal" ? [[k1, a.n], ["sd", p2]] : [[k1, a.n]]);
      }
      case "bernoulli":
        return { t: "bool", p: prob(o.bernoulli, path, "bernoulli"), path: rel, name, src: s };
      case "choice": {
        const opts = o.choice;
        if (!Array.isArray(opts) || opts.length === 0) fail(path, "choice takes a non-empty list of values");
        const arr = opts as unknown[];
        const w = o.weights === undefined ? arr.map(() => 1) : (o.weights as unknown[]);
        if (!Array.isArray(w) || w.length !== arr.length || w.some((x) => typeof x !== "number" || !(x >= 0))) {
          fail(`${path}.weights`, `weights must be ${arr.length} non-negative numbers`);
        }
        const ws = w as number[];
        const tot = ws.reduce((x, y) => x + y, 0);
        if (!(tot > 0)) fail(`${path}.weights`, "weights sum to 0");
        let acc = 0;
        const cum = ws.map((x) => (acc += x / tot));
        return { t: "choice", options: under(() => arr.map((x, i) => compile(x, `${path}.choice[${i}]`, `${rel}=${i}`))), cum, path: rel, name, src: s };
      }
      case "grid": {
        const opts = o.grid;
        if (!Array.isArray(opts) || opts.length === 0) fail(path, "grid takes a non-empty list of values");
        if (nested) fail(path, "a grid is taken once per run: not inside a choice, maybe or repeat");
        const options = (opts as unknown[]).map((x, i) => compile(x, `${path}.grid[${i}]`, `${rel}=${i}`));
        options.forEach((t, i) => { if (t.t !== "lit") fail(`${path}.grid[${i}]`, "a grid lists values, not distributions"); });
        const stride = gridSize;
        gridSize *= options.length;
        if (!Number.isSafeInteger(gridSize) || gridSize > 2 ** 31) fail(path, `the grids have ${gridSize} combinations, more than a sweep's ${2 ** 31} runs`);
        return { t: "choice", options, cum: options.map((_, i) => (i + 1) / options.length), path: rel, name, src: s, grid: { stride } };
      }
      case "param": {
        const n = String(o.param);
        if (!params || !(n in params)) {
          const known = params ? Object.keys(params) : [];
          if (namesDraw(doc, n)) {
            fail(path, `{param: ${n}} reads mc.params only, and "${n}" is the name: of a draw in the document: move that distribution to mc.params.${n} and write {param: ${n}} where it was`);
          }
          fail(path, `unknown parameter "${n}"${known.length ? ` (mc.params defines ${known.join(", ")})` : " (no mc.params section)"}`);
        }
        if (compilingParam !== undefined && !pmap.has(n)) {
          fail(path, n === compilingParam ? `parameter "${n}" reads itself` : `parameter "${n}" is used before it is defined: mc.params are drawn in order, so define "${n}" above "${compilingParam}"`);
        }
        return { t: "param", name: n, src: s };
      }
      case "maybe":
        return { t: "maybe", p: prob(o.p ?? 0.5, `${path}.p`, "p"), value: under(() => compile(o.maybe, `${path}.maybe`, `${rel}?`)), path: rel, src: s };
      case "repeat": {
        // found here, not in the middle of a sweep (sampling would throw there)
        if (!inList) fail(path, "repeat is only allowed as an element of a list (it splices its copies into the list)");
        if (o.count === undefined) fail(path, "repeat needs count: N (a number or a distribution)");
        const count = under(() => compile(o.count, `${path}.count`, `${rel}.count`));
        if (count.t === "lit" && !(typeof count.v === "number" && Number.isInteger(count.v) && count.v >= 0)) {
          fail(`${path}.count`, "count must be a whole number >= 0");
        }
        if (!wholeCount(count, pmap)) {
          fail(`${path}.count`, "count must draw whole numbers >= 0: a randint (or a choice of them) with a low end >= 0, or a distribution with min >= 0 and a whole round:");
        }
        return { t: "repeat", count, item: under(() => compile(o.repeat, `${path}.repeat`, "")), path: rel, src: s };
      }
      case "concat": {
        // a text built from parts, some drawn: io.max "259:0 rbps=" + a loguniform
        const parts = o.concat;
        if (!Array.isArray(parts) || parts.length === 0) fail(path, "concat takes a non-empty list of parts");
        return { t: "concat", parts: (parts as unknown[]).map((x, i) => {
          const at = `${path}.concat[${i}]`;
          const t = compile(x, at, `${rel}+${i}`);
          if (t.t === "maybe") fail(at, "a part of concat is always there (a maybe would leave a hole in the text)");
          if ((t.t === "lit" && t.v !== null && typeof t.v === "object") || t.t === "obj" || t.t === "arr") fail(at, "a part of concat is a text, number or boolean, not a list or mapping");
          return t;
        }), src: s };
      }
    }
    return fail(path, `unknown distribution ${kind}`);
  };

  const ps: Array<[string, Tpl]> = [];
  for (const [k, v] of Object.entries(params ?? {})) {
    compilingParam = k;
    const t = compile(v, `mc.params.${k}`, `$${k}`);
    if (t.t === "maybe") fail(`mc.params.${k}`, `parameter "${k}" cannot be a maybe (a param always has a value)`);
    if (t.t === "num" || t.t === "bool" || t.t === "choice") t.name ??= k;
    ps.push([k, t]);
    pmap.set(k, t);
  }
  compilingParam = undefined;
  const root = compile(doc, docPath, docPath);
  checkNames(ps, root);
  return { root, params: ps, file, random, gridSize };
}

/**
 * One name, one draw: a run's params hold one value per name, so a second
 * draw of the same name (a copied line left unrenamed, or a document draw
 * named like an mc.params key) overwrote the first in tables and repro
 * headers without a word. Two draws may share a name only in different
 * options of one choice (one of them is drawn in a run).
 */
function checkNames(params: Array<[string, Tpl]>, root: Tpl): void {
  type Named = { t: Extract<Tpl, { name?: string }>; opts: Array<[Tpl, number]> };
  const byName = new Map<string, Named[]>();
  const walk = (t: Tpl, opts: Array<[Tpl, number]>): void => {
    if ((t.t === "num" || t.t === "bool" || t.t === "choice") && t.name !== undefined) {
      let l = byName.get(t.name);
      if (!l) byName.set(t.name, (l = []));
      l.push({ t: t as Named["t"], opts });
    }
    if (t.t === "choice") t.options.forEach((c, i) => walk(c, [...opts, [t, i]]));
    else eachChild(t, (c) => walk(c, opts));
  };
  for (const [, t] of params) walk(t, []);
  walk(root, []);
  const exclusive = (a: Named, b: Named) => a.opts.some(([c, i]) => b.opts.some(([d, j]) => c === d && i !== j));
  for (const [name, l] of byName) {
    for (let i = 1; i < l.length; i++) {
      for (let j = 0; j < i; j++) {
        if (exclusive(l[i]!, l[j]!)) continue;
        const a = l[j]!.t.src, b = l[i]!.t.src;
        const first = params.some(([k]) => k === name) ? `mc.params.${name}` : `${a.field}${a.line !== undefined ? ` at line ${a.line}` : ""}`;
        throw new InputError(`the name "${name}" is given to two draws (this one and ${first}): a run records one value per name, so tables and repros would show one of them; rename one`,
          b.file, b.line, b.field);
      }
    }
  }
}

/** Does a draw of the raw document carry `name: n`? (for the error of a {param: n} that means it) */
function namesDraw(v: unknown, n: string): boolean {
  if (Array.isArray(v)) return v.some((x) => namesDraw(x, n));
  if (!v || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  if ("literal" in o) return false;
  if (String(o.name) === n && DIST_KEYS.some((k) => k in o)) return true;
  return Object.values(o).some((x) => namesDraw(x, n));
}

/** the most copies one {repeat} splices into a list (a sweep repeating a huge list exhausted the heap) */
export const MAX_REPEAT = 10_000;

/** Does a repeat count always draw a whole number >= 0? (`params`: the compiled mc.params a {param} reads) */
function wholeCount(t: Tpl, params: ReadonlyMap<string, Tpl>, seen = new Set<string>()): boolean {
  switch (t.t) {
    case "lit": return typeof t.v === "number" && Number.isInteger(t.v) && t.v >= 0;
    case "num": {
      // quantise keeps a draw to multiples of a whole round (randint: 1) inside [max(min, low end), ...]
      const lo = Math.max(t.min, rangeLo(t));
      return t.unit === "" && Number.isInteger(t.round) && t.round >= 1 && lo >= 0;
    }
    case "choice": return t.options.every((c) => wholeCount(c, params, seen));
    case "param": {
      if (seen.has(t.name)) return false;
      seen.add(t.name);
      const p = params.get(t.name);
      return p !== undefined && wholeCount(p, params, seen);
    }
    default: return false;
  }
}

const namesCache = new WeakMap<Tpl, string[]>();

/** The names of the named draws under `t` (a part that may be left out: its draws must not stay in the run's params). */
function namesIn(t: Tpl): string[] {
  let out = namesCache.get(t);
  if (out) return out;
  const set = new Set<string>();
  const walk = (x: Tpl): void => {
    if ((x.t === "num" || x.t === "bool" || x.t === "choice") && x.name !== undefined) set.add(x.name);
    eachChild(x, walk);
  };
  walk(t);
  namesCache.set(t, (out = [...set]));
  return out;
}

/**
 * What the named params `names` hold before a part that is left out is
 * sampled (it is sampled anyway, to keep the stream): restored after it, so
 * a fault that did not happen records no parameter (`kubeletRestartAt` of a
 * restart that a maybe left out was tabulated and printed in its repro).
 */
function saveNames(names: readonly string[], params: Record<string, Json>): Array<[string, Json | undefined]> | undefined {
  return names.length ? names.map((n) => [n, Object.hasOwn(params, n) ? params[n] : undefined]) : undefined;
}

function restoreNames(saved: ReadonlyArray<[string, Json | undefined]>, params: Record<string, Json>): void {
  for (const [n, v] of saved) {
    if (v === undefined) delete params[n];
    else params[n] = v;
  }
}

/** Call `fn` on each node a walk of the document descends into from `t` (its direct children). */
function eachChild(t: Tpl, fn: (c: Tpl) => void): void {
  switch (t.t) {
    case "obj": for (const [, c] of t.entries) fn(c); break;
    case "arr": for (const c of t.items) fn(c); break;
    case "choice": for (const c of t.options) fn(c); break;
    case "maybe": fn(t.value); break;
    case "repeat": fn(t.count); fn(t.item); break;
    case "concat": for (const c of t.parts) fn(c); break;
    default: break;
  }
}

/**
 * The units the named draw `name` can give its value ("" for a plain number),
 * as far as the template tells: a number distribution's unit, a choice's
 * literal options (and the units of distributions among them), a param
 * reference followed. Undefined when no draw has that name. A table bins a
 * value by its number, so a binned param must keep to one unit.
 */
export function drawUnits(tpl: Template, name: string): string[] | undefined {
  const byName = new Map<string, Tpl>();
  for (const [k, t] of tpl.params) byName.set(k, t);
  const find = (t: Tpl): void => {
    if ((t.t === "num" || t.t === "bool" || t.t === "choice") && t.name !== undefined && !byName.has(t.name)) byName.set(t.name, t);
    eachChild(t, find);
  };
  find(tpl.root);
  const root = byName.get(name);
  if (!root) return undefined;
  const units = new Set<string>();
  const seen = new Set<string>();
  const walk = (t: Tpl): void => {
    switch (t.t) {
      case "num": units.add(t.unit); break;
      case "lit":
        if (typeof t.v === "number") units.add("");
        else if (typeof t.v === "string") { const m = UNIT_RE.exec(t.v); if (m) units.add(m[2]!); }
        break;
      case "choice": for (const c of t.options) walk(c); break;
      case "maybe": walk(t.value); break;
      case "param": {
        if (seen.has(t.name)) break;
        seen.add(t.name);
        const p = byName.get(t.name);
        if (p) walk(p);
        break;
      }
      default: break;
    }
  };
  walk(root);
  return [...units].sort();
}

/**
 * The mc.params no {param: name} reads, in the document or in another param:
 * such a draw changes nothing in a run (a param renamed in the document but
 * not in mc.params, or a {param} misplaced as a literal), so a table by it
 * shows the same odds in every row.
 */
export function unreadParams(tpl: Template): string[] {
  const read = new Set<string>();
  const walk = (t: Tpl): void => {
    if (t.t === "param") read.add(t.name);
    eachChild(t, walk);
  };
  for (const [, t] of tpl.params) walk(t);
  walk(tpl.root);
  return tpl.params.map(([k]) => k).filter((k) => !read.has(k));
}

/**
 * Freeze the literal parts of a template (deeply). Every sample shares them
 * (sampling returns a literal as is, not a copy), so a domain's fast path may
 * keep references to them across runs; frozen, a write into one throws
 * instead of leaking into the next run's sample.
 */
export function freezeLiterals(tpl: Template): void {
  const walk = (t: Tpl): void => {
    if (t.t === "lit") deepFreeze(t.v);
    else eachChild(t, walk);
  };
  for (const [, t] of tpl.params) walk(t);
  walk(tpl.root);
}

/** What sampling a template gives: the concrete document and every draw. */
export interface Sampled {
  doc: Json;
  draws: Draw[];
  /** named draws: name -> value as written into the document */
  params: Record<string, Json>;
}

const OMIT = Symbol("omit");

/**
 * Sample a template. `overrides` (draw key -> value) replaces draws (the
 * shrinker's edits); every other draw comes from `rng`.
 */
export function sampleTemplate(tpl: Template, rng: Rng, overrides?: ReadonlyMap<string, number>, run = 0): Sampled {
  const draws: Draw[] = [];
  const params: Record<string, Json> = {};
  const pvals = new Map<string, Json>();
  const take = (key: string, fresh: () => number): number => {
    const o = overrides?.get(key);
    // always consume the stream, so an override does not shift later draws
    const v = fresh();
    return o === undefined ? v : o;
  };
  const gen = (t: Tpl, prefix: string): Json | typeof OMIT => {
    switch (t.t) {
      case "lit": return t.v;
      case "obj": {
        const out: Record<string, Json> = {};
        for (const [k, c] of t.entries) {
          const v = gen(c, prefix);
          if (v !== OMIT) out[k] = v;
        }
        return out;
      }
      case "arr": {
        const out: Json[] = [];
        for (const c of t.items) {
          if (c.t === "repeat") {
            const key = prefix + c.path;
            const n = Number(gen(c.count, prefix));
            if (!(Number.isInteger(n) && n >= 0)) throw new InputError(`repeat count must be a whole number >= 0, drew ${n}`, c.src.file, c.src.line, c.src.field);
            if (n > MAX_REPEAT) throw new InputError(`repeat count ${n} is more than the ${MAX_REPEAT} copies one list may splice in`, c.src.file, c.src.line, c.src.field);
            for (let k = 0; k < n; k++) {
              const ik = `${key}#${k}`;
              const keep = take(`${ik}!`, () => 1);
              draws.push({ key: `${ik}!`, kind: "keep", value: keep, target: 0, lo: 0, hi: 1, quantum: 1 });
              const saved = keep ? undefined : saveNames(namesIn(c.item), params);
              const v = gen(c.item, `${ik}`);
              if (saved) restoreNames(saved, params);
              if (keep && v !== OMIT) out.push(v);
            }
            continue;
          }
          const v = gen(c, prefix);
          if (v !== OMIT) out.push(v);
        }
        return out;
      }
      case "num": {
        const key = prefix + t.path;
        const raw = take(key, () => sampleNum(t, rng));
        const q = t.round > 0 ? t.round : 0;
        const lo = Math.max(t.min, rangeLo(t));
        const hi = Math.min(t.max, rangeHi(t));
        const target = lo <= 0 && hi >= 0 ? 0 : Math.abs(lo) < Math.abs(hi) ? lo : hi;
        draws.push({ key, kind: t.kind === "randint" ? "int" : "real", value: raw, target: q ? quantise(target, q, lo, hi) : target,
          lo, hi, quantum: q, name: t.name });
        const out: Json = t.unit ? `${fmt(raw)}${t.unit}` : raw;
        if (t.name) params[t.name] = out;
        return out;
      }
      case "bool": {
        const key = prefix + t.path;
        const v = take(key, () => (rng.next() < t.p ? 1 : 0));
        draws.push({ key, kind: "bool", value: v, target: 0, lo: 0, hi: 1, quantum: 1, name: t.name });
        if (t.name) params[t.name] = v === 1;
        return v === 1;
      }
      case "choice": {
        const key = prefix + t.path;
        // a grid's option is the run's, and the shrinker keeps it (target, lo and hi are it); it takes nothing from the stream
        const idx = t.grid ? (overrides?.get(key) ?? Math.floor(run / t.grid.stride) % t.options.length) : take(key, () => {
          const u = rng.next();
          let i = 0;
          while (i < t.cum.length - 1 && u >= t.cum[i]!) i++;
          return i;
        });
        if (!(idx >= 0 && idx < t.options.length)) throw new InputError(`choice index ${idx} out of range`, t.src.file, t.src.line, t.src.field);
        draws.push(t.grid ? { key, kind: "choice", value: idx, target: idx, lo: idx, hi: idx, quantum: 1, name: t.name }
          : { key, kind: "choice", value: idx, target: 0, lo: 0, hi: t.options.length - 1, quantum: 1, name: t.name });
        const v = gen(t.options[idx]!, prefix);
        if (t.name && v !== OMIT) params[t.name] = v;
        return v;
      }
      case "param": {
        if (!pvals.has(t.name)) throw new InputError(`parameter "${t.name}" used before it is defined`, t.src.file, t.src.line, t.src.field);
        return pvals.get(t.name)!;
      }
      case "maybe": {
        const key = `${prefix}${t.path}`;
        const v = take(key, () => (rng.next() < t.p ? 1 : 0));
        draws.push({ key, kind: "keep", value: v, target: 0, lo: 0, hi: 1, quantum: 1 });
        // sample the value either way, so the draws after it do not depend on this one
        const saved = v === 1 ? undefined : saveNames(namesIn(t.value), params);
        const x = gen(t.value, prefix);
        if (saved) restoreNames(saved, params);
        return v === 1 ? x : OMIT;
      }
      case "repeat":
        throw new InputError("repeat is only allowed as an element of a list", t.src.file, t.src.line, t.src.field);
      case "concat": {
        let out = "";
        for (const c of t.parts) out += concatPart(gen(c, prefix), t.src);
        return out;
      }
    }
  };
  for (const [name, t] of tpl.params) {
    const v = gen(t, "");
    if (v === OMIT) throw new InputError(`parameter "${name}" cannot be a maybe`, tpl.file, undefined, `mc.params.${name}`);
    pvals.set(name, v);
    params[name] = v;
  }
  const doc = gen(tpl.root, "");
  return { doc: doc === OMIT ? null : doc, draws, params };
}

// ---- compiled sampler (the sweep's hot path) ----------------------------------
//
// sampleTemplate interprets the template node by node, with an override
// lookup per draw (the shrinker's edits). A sweep samples one template
// millions of times without overrides, so each template is also compiled
// once into a tree of closures that do the same steps in the same order (the
// same stream draws, the same Draw records, the same params in the same key
// order) with the per-node constants (draw ranges, shrink targets, draw
// kinds) worked out in advance. distributions.test.ts checks both agree on
// every example sweep.

type Gen = (prefix: string) => Json | typeof OMIT;

const compiledSamplers = new WeakMap<Template, (rng: Rng, run: number) => Sampled>();

/** Sample a template without overrides: the same result as sampleTemplate(tpl, rng), faster. */
export function sampleCompiled(tpl: Template, rng: Rng, run = 0): Sampled {
  let f = compiledSamplers.get(tpl);
  if (!f) compiledSamplers.set(tpl, (f = compileSampler(tpl)));
  return f(rng, run);
}

/** Can sampling this node leave its value out (a maybe, or a choice of one)? */
function canOmit(t: Tpl): boolean {
  return t.t === "maybe" || (t.t === "choice" && t.options.some(canOmit));
}

function compileSampler(tpl: Template): (rng: Rng, run: number) => Sampled {
  // the state of the sample in progress (sampling never re-enters itself)
  let rng!: Rng;
  let runIndex = 0;
  let draws!: Draw[];
  let params!: Record<string, Json>;
  let pvals!: Map<string, Json>;
  const comp = (t: Tpl): Gen => {
    switch (t.t) {
      case "lit": {
        const v = t.v;
        return () => v;
      }
      case "obj": {
        const keys = t.entries.map(([k]) => k);
        const gens = t.entries.map(([, c]) => comp(c));
        const n = keys.length;
        if (!t.entries.some(([, c]) => canOmit(c)) && !keys.includes("__proto__")) {
          // every key is always present: one object literal with the keys
          // written out (its shape is known to V8), the values generated in
          // order, instead of a store per key whose name V8 cannot predict
          const body = keys.map((k, i) => `${JSON.stringify(k)}: g[${i}](p)`).join(", ");
          // eslint-disable-next-line @typescript-eslint/no-implied-eval
          const make = new Function("g", "p", `return { ${body} };`) as (g: Gen[], p: string) => Record<string, Json>;
          return (prefix) => make(gens, prefix);
        }
        return (prefix) => {
          const out: Record<string, Json> = {};
          for (let i = 0; i < n; i++) {
            const v = gens[i]!(prefix);
            if (v !== OMIT) out[keys[i]!] = v;
          }
          return out;
        };
      }
      case "arr": {
        const items = t.items.map((c) => (c.t === "repeat"
          ? { repeat: c, count: comp(c.count), item: comp(c.item) }
          : { repeat: undefined, count: undefined, item: comp(c) }));
        return (prefix) => {
          const out: Json[] = [];
          for (const it of items) {
            const c = it.repeat;
            if (c) {
              const key = prefix + c.path;
              const n = Number(it.count!(prefix));
              if (!(Number.isInteger(n) && n >= 0)) throw new InputError(`repeat count must be a whole number >= 0, drew ${n}`, c.src.file, c.src.line, c.src.field);
            if (n > MAX_REPEAT) throw new InputError(`repeat count ${n} is more than the ${MAX_REPEAT} copies one list may splice in`, c.src.file, c.src.line, c.src.field);
              for (let k = 0; k < n; k++) {
                const ik = `${key}#${k}`;
                draws.push({ key: `${ik}!`, kind: "keep", value: 1, target: 0, lo: 0, hi: 1, quantum: 1 });
                const v = it.item(`${ik}`);
                if (v !== OMIT) out.push(v);
              }
              continue;
            }
            const v = it.item(prefix);
            if (v !== OMIT) out.push(v);
          }
          return out;
        };
      }
      case "num": {
        const q = t.round > 0 ? t.round : 0;
        const lo = Math.max(t.min, rangeLo(t));
        const hi = Math.min(t.max, rangeHi(t));
        const target0 = lo <= 0 && hi >= 0 ? 0 : Math.abs(lo) < Math.abs(hi) ? lo : hi;
        const target = q ? quantise(target0, q, lo, hi) : target0;
        const kind = t.kind === "randint" ? "int" : "real";
        const { unit, name, path } = t;
        return (prefix) => {
          const raw = sampleNum(t, rng);
          draws.push({ key: prefix + path, kind, value: raw, target, lo, hi, quantum: q, name });
          const out: Json = unit ? `${fmt(raw)}${unit}` : raw;
          if (name) params[name] = out;
          return out;
        };
      }
      case "bool": {
        const { p, name, path } = t;
        return (prefix) => {
          const v = rng.next() < p ? 1 : 0;
          draws.push({ key: prefix + path, kind: "bool", value: v, target: 0, lo: 0, hi: 1, quantum: 1, name });
          if (name) params[name] = v === 1;
          return v === 1;
        };
      }
      case "choice": {
        const { cum, name, path } = t;
        const opts = t.options.map(comp);
        const last = cum.length - 1;
        const hi = t.options.length - 1;
        if (t.grid) {
          const { stride } = t.grid;
          const n = t.options.length;
          return (prefix) => {
            const i = Math.floor(runIndex / stride) % n;
            draws.push({ key: prefix + path, kind: "choice", value: i, target: i, lo: i, hi: i, quantum: 1, name });
            const v = opts[i]!(prefix);
            if (name && v !== OMIT) params[name] = v;
            return v;
          };
        }
        return (prefix) => {
          const u = rng.next();
          let i = 0;
          while (i < last && u >= cum[i]!) i++;
          draws.push({ key: prefix + path, kind: "choice", value: i, target: 0, lo: 0, hi, quantum: 1, name });
          const v = opts[i]!(prefix);
          if (name && v !== OMIT) params[name] = v;
          return v;
        };
      }
      case "param": {
        const { name, src } = t;
        return () => {
          const v = pvals.get(name);
          if (v === undefined && !pvals.has(name)) throw new InputError(`parameter "${name}" used before it is defined`, src.file, src.line, src.field);
          return v!;
        };
      }
      case "maybe": {
        const { p, path } = t;
        const value = comp(t.value);
        const names = namesIn(t.value);
        return (prefix) => {
          const v = rng.next() < p ? 1 : 0;
          draws.push({ key: `${prefix}${path}`, kind: "keep", value: v, target: 0, lo: 0, hi: 1, quantum: 1 });
          // sample the value either way, so the draws after it do not depend on this one
          const saved = v === 1 || names.length === 0 ? undefined : saveNames(names, params);
          const x = value(prefix);
          if (saved) restoreNames(saved, params);
          return v === 1 ? x : OMIT;
        };
      }
      case "repeat": {
        const { src } = t;
        return () => {
          throw new InputError("repeat is only allowed as an element of a list", src.file, src.line, src.field);
        };
      }
      case "concat": {
        const { src } = t;
        const parts = t.parts.map(comp);
        return (prefix) => {
          let out = "";
          for (const g of parts) out += concatPart(g(prefix), src);
          return out;
        };
      }
    }
  };
  const ps = tpl.params.map(([name, t]) => [name, comp(t)] as const);
  const root = comp(tpl.root);
  return (r, run) => {
    rng = r;
    runIndex = run;
    draws = [];
    params = {};
    pvals = new Map();
    for (const [name, g] of ps) {
      const v = g("");
      if (v === OMIT) throw new InputError(`parameter "${name}" cannot be a maybe`, tpl.file, undefined, `mc.params.${name}`);
      pvals.set(name, v);
      params[name] = v;
    }
    const doc = root("");
    const out: Sampled = { doc: doc === OMIT ? null : doc, draws, params };
    rng = undefined!;
    draws = undefined!;
    params = undefined!;
    pvals = undefined!;
    return out;
  };
}

/** One part of a concat as text: a number as a draw writes it (fmt), a text as is. */
function concatPart(v: Json | typeof OMIT, src: Src): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return fmt(v);
  if (typeof v === "boolean") return String(v);
  throw new InputError(`a part of concat drew ${v === OMIT ? "nothing" : JSON.stringify(v)}: a part is a text, number or boolean`, src.file, src.line, src.field);
}

function sampleNum(t: Extract<Tpl, { t: "num" }>, rng: Rng): number {
  let x: number;
  switch (t.kind) {
    case "uniform": x = t.p1 + (t.p2 - t.p1) * rng.next(); break;
    case "randint": x = rng.int(Math.ceil(t.p1), Math.floor(t.p2)); break;
    case "loguniform": x = Math.exp(Math.log(t.p1) + (Math.log(t.p2) - Math.log(t.p1)) * rng.next()); break;
    case "normal": x = t.p1 + t.p2 * gauss(rng); break;
    case "lognormal": x = t.p1 * Math.exp(t.p2 * gauss(rng)); break;
    case "exponential": x = -t.p1 * Math.log(1 - rng.next()); break;
  }
  x = Math.min(t.max, Math.max(t.min, x));
  if (t.round > 0) x = quantise(x, t.round, Math.max(t.min, rangeLo(t)), Math.min(t.max, rangeHi(t)));
  return x;
}

function rangeLo(t: Extract<Tpl, { t: "num" }>): number {
  return t.kind === "uniform" || t.kind === "randint" || t.kind === "loguniform" ? t.p1 : t.kind === "normal" ? -Infinity : 0;
}

function rangeHi(t: Extract<Tpl, { t: "num" }>): number {
  return t.kind === "uniform" || t.kind === "randint" || t.kind === "loguniform" ? t.p2 : Infinity;
}

/** Round down to a multiple of q (so a uniform [a, b) stays below b), kept inside [lo, hi]. */
export function quantise(x: number, q: number, lo: number, hi: number): number {
  let v = Math.floor(x / q + 1e-9) * q;
  if (v < lo) v += q;
  if (v > hi) v -= q;
  // an integer below 1e15 is its own 15-digit rounding (+ 0: -0 prints as 0)
  if (Number.isInteger(v) && v < 1e15 && v > -1e15) return v + 0;
  return Number(v.toPrecision(15));
}

/** Box-Muller, one normal deviate per call (the pair's second half is dropped to keep the stream position simple). */
function gauss(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function fmt(x: number): string {
  if (Number.isInteger(x) && x < 1e12 && x > -1e12) return String(x + 0);
  return String(Number(x.toPrecision(12)));
}
