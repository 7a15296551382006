// `iosim mc SCENARIO --grid NAME=v1,v2,...`: a sweep over listed values.
//
// The option rewrites the scenario's text before anything reads it: the
// distribution of mc.params.NAME, or the draw named NAME in the document
// (`{bernoulli: 0.5, name: fix104526}`), becomes `{grid: [v1, v2, ...]}`
// (distributions.ts: run i takes value (i / stride) mod n, the first grid
// varying fastest), or mc.params gains NAME when the document reads
// {param: NAME} but mc.params does not define it. The journal records the
// rewritten text, so a --resume or a merge sees the same sweep, and a
// journal of the same file without the grid is another sweep.
//
// Each value is read as YAML reads a plain scalar: `--grid depth=1,8,32`
// gives numbers, `--grid landDelay=0ms,2500ms` texts with their unit,
// `--grid fix104526=false,true` booleans.
//
// Worked example: `--grid fix104526=false,true --runs 2000` beside the
// random landDelay: runs 0, 2, 4, ... run without the fix and 1, 3, 5, ...
// with it, each with its own landDelay; the summary is tabulated by
// fix104526 unless --by or mc.table says otherwise.
import { isMap, isScalar, parse, parseDocument, visit, type Document, type YAMLMap } from "yaml";
import { InputError } from "../scenario/errors.js";
import { PARSE_OPTIONS } from "../util/yaml-merge.js";

export interface GridSpec {
  name: string;
  values: unknown[];
}

const KINDS = ["uniform", "randint", "loguniform", "normal", "lognormal", "exponential", "bernoulli", "choice", "grid"];

export function parseGrid(list: readonly string[] | undefined): GridSpec[] {
  const out: GridSpec[] = [];
  for (const s of list ?? []) {
    const m = /^([^=\s]+)=(.+)$/.exec(s);
    if (!m) throw new InputError(`--grid takes NAME=v1,v2,...; got "${s}"`, "command line", undefined, "--grid");
    const values = m[2]!.split(",").map((v) => v.trim());
    if (values.some((v) => v === "")) throw new InputError(`--grid ${s}: an empty value`, "command line", undefined, "--grid");
    if (out.some((g) => g.name === m[1])) throw new InputError(`--grid ${m[1]} is given twice`, "command line", undefined, "--grid");
    out.push({ name: m[1]!, values: values.map((v) => parse(v) as unknown) });
  }
  return out;
}

/** The draws of a YAML document named `name` (a mapping with a distribution kind and `name: NAME`). */
function namedDraws(doc: Document): Map<string, YAMLMap> {
  const out = new Map<string, YAMLMap>();
  visit(doc, {
    Map(_k, node) {
      const n = node.get("name");
      if (typeof n === "string" && KINDS.some((k) => node.has(k)) && !out.has(n)) out.set(n, node);
    },
  });
  return out;
}

/** The scenario text with each grid written in (see the top of this file). */
export function applyGrid(text: string, file: string, grids: readonly GridSpec[]): string {
  if (!grids.length) return text;
  const doc = parseDocument(text, PARSE_OPTIONS);
  if (doc.errors.length) return text; // the loader reports it, with its line
  const params = doc.getIn(["mc", "params"]);
  const paramNames = isMap(params) ? params.items.map((p) => (isScalar(p.key) ? String(p.key.value) : "")).filter(Boolean) : [];
  const drawn = namedDraws(doc);
  const reads = new Set<string>();
  visit(doc, {
    Map(_k, node) {
      const p = node.get("param");
      if (node.items.length === 1 && typeof p === "string") reads.add(p);
    },
  });
  for (const g of grids) {
    const node = doc.createNode({ grid: g.values });
    if (paramNames.includes(g.name)) {
      doc.setIn(["mc", "params", g.name], node);
    } else if (drawn.has(g.name)) {
      const target = drawn.get(g.name)!;
      for (const k of KINDS) target.delete(k);
      for (const k of ["min", "max", "round", "weights"]) target.delete(k);
      target.set("grid", doc.createNode(g.values));
    } else if (reads.has(g.name)) {
      doc.setIn(["mc", "params", g.name], node);
    } else {
      const known = [...paramNames, ...drawn.keys()];
      throw new InputError(
        `--grid ${g.name}: ${file} has no parameter of that name${known.length ? ` (mc.params and named draws: ${known.join(", ")})` : ""}`,
        "command line",
        undefined,
        "--grid",
      );
    }
  }
  return doc.toString();
}
