// YAML merge keys (`<<: *defaults`) in every file iosim reads.
//
// A merge key is YAML 1.1 (yaml.org/type/merge.html), not 1.2, so the `yaml`
// package reads `<<` as a plain key unless asked; Kubernetes' reader
// (sigs.k8s.io/yaml over go-yaml) and docker compose take it, and a
// scenario with five pods of one spec is written with it. Every loader parses
// with PARSE_OPTIONS, and the two kinds of loader see the same mappings:
//
//   - loaders of plain values (doc.toJS(): the k8s scenario, a Monte Carlo
//     file) get the merged objects from `yaml` itself; lines of fields come
//     from yamlFieldLines (line-of-path.ts), which walks merges with
//     mergedPairs below, so a merged field is named at the line it is
//     written on (under the anchor);
//   - loaders that walk the syntax tree (the io scenario, a device file) ask
//     mergedPairs for a mapping's entries.
//
// The rule, as YAML 1.1 and `yaml`'s toJS have it: a key written in the
// mapping wins over a merged one, an earlier merge source over a later one
// (`<<: [*a, *b]`), and a key keeps the place where it was first given
// (written, or merged: a key written after the merge that gave it replaces
// the value there).
// A merge source that is not a mapping is an error (mergeProblem): `yaml`'s
// toJS throws it without a position, so loaders check first and name the line.
//
// Worked example:
//   objects:
//     - kind: Pod
//       metadata: {name: web-0}
//       spec: &web                 <- line 4
//         nodeName: node-1
//         containers: [{name: app}]
//     - kind: Pod
//       metadata: {name: web-1}
//       spec:
//         <<: *web
//         nodeName: node-2        <- written here: wins
// web-1's spec is {nodeName: node-2, containers: [{name: app}]}; its
// `containers` field is at line 6, where the anchor's mapping has it.

import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Pair } from "yaml";
import { resolveAlias } from "./yaml-guard.js";

/** parseDocument options of every loader: merge keys on */
export const PARSE_OPTIONS = { merge: true } as const;

/** a `<<` key (with merge on, `yaml` reads it as a scalar holding a symbol) */
export function isMergeKey(key: unknown): boolean {
  return isScalar(key) && (typeof key.value === "symbol" || key.value === "<<");
}

/** an alias's node (yaml-guard.ts's cached resolution), anything else itself */
function resolved(doc: Document, n: unknown): unknown {
  return isAlias(n) ? resolveAlias(doc, n) : n;
}

/** mergedPairs of each mapping, once: a merge source named by many merges (or a diamond of them) is expanded once */
const mergedOf = new WeakMap<object, Pair[]>();

/** the mappings a merge key's value names, in order; null if one is not a mapping */
function sources(doc: Document, value: unknown): unknown[] | null {
  const v = resolved(doc, value);
  const list = isSeq(v) ? v.items.map((x) => resolved(doc, x)) : [v];
  return list.every((x) => isMap(x)) ? list : null;
}

/** the key's text of a pair (a non-scalar key as `yaml` prints it) */
const keyText = (p: Pair): string => (isScalar(p.key) ? String(p.key.value) : String(p.key));

/**
 * The entries of mapping node `m` with its merge keys expanded (the rule
 * above); a merge source that is not a mapping is skipped (mergeProblem
 * reports it). Pairs are the document's own: their keys and values keep
 * their positions in the file.
 */
export function mergedPairs(doc: Document, m: unknown): Pair[] {
  if (!isMap(m)) return [];
  const items = m.items.filter((p): p is Pair => isPair(p));
  if (!items.some((p) => isMergeKey(p.key))) return items;
  const memo = mergedOf.get(m);
  if (memo) return memo;
  // in the order toJS builds the object: a key takes its place when first
  // given (written, or by a merge); a key written after a merge that gave it
  // replaces the merged value in that place; a merge never replaces
  const out: Pair[] = [];
  const at = new Map<string, number>();
  for (const p of items) {
    if (!isMergeKey(p.key)) {
      const k = keyText(p);
      const i = at.get(k);
      if (i === undefined) at.set(k, out.push(p) - 1);
      else out[i] = p;
      continue;
    }
    for (const src of sources(doc, p.value) ?? []) {
      for (const q of mergedPairs(doc, src)) {
        const k = keyText(q);
        if (!at.has(k)) at.set(k, out.push(q) - 1);
      }
    }
  }
  mergedOf.set(m, out);
  return out;
}

/** The first merge key whose value is not a mapping (or a list of them): its offset in the text and what is wrong. */
export function mergeProblem(doc: Document): { offset: number; message: string } | null {
  let found: { offset: number; message: string } | null = null;
  const walk = (n: unknown, depth: number): void => {
    if (found || depth > 200) return;
    if (isMap(n)) {
      for (const p of n.items) {
        if (!isPair(p)) continue;
        if (isMergeKey(p.key) && sources(doc, p.value) === null) {
          const r = (p.key as { range?: [number, number, number] }).range;
          found = { offset: r?.[0] ?? 0, message: "<<: a merge key takes a mapping, an alias of one (*name) or a list of them" };
          return;
        }
        walk(p.value, depth + 1);
      }
    } else if (isSeq(n)) for (const x of n.items) walk(x, depth + 1);
  };
  walk(doc.contents, 0);
  return found;
}
