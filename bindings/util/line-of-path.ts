// The line of a field of a parsed document, from a map of field paths
// ("jobs[0].bs", "cgroups.capped.io.max") to 1-based lines, as
// yamlFieldLines() records them from a YAML document (for
// bindings/mc/distributions.ts yamlLines and the k8s loader): the line of
// `path`, else of its nearest enclosing field that has one, else of the
// document. For loaders that read plain values (a Monte Carlo sample, a k8s
// scenario) and still name lines in their errors.

import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter } from "yaml";
import { mergedPairs } from "./yaml-merge.js";
import { resolveAlias } from "./yaml-guard.js";

/**
 * The 1-based line of every node of a parsed YAML document by field path:
 * "" the document, "a.b" a mapping key (its key's line), "a[2]" a list item.
 * With `doc`, the fields an alias (*name) or a merge key (<<: *name) brings
 * in are named where they are written, under the anchor (yaml-merge.ts).
 */
export function yamlFieldLines(contents: unknown, lc: LineCounter, doc?: Document): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (node: unknown, path: string, depth = 0): void => {
    if (depth > 200) return;
    // a mapping value keeps its key's line (set below): a block value starts a line later
    const r = (node as { range?: [number, number, number] } | null)?.range;
    if (r && !out.has(path)) out.set(path, lc.linePos(r[0]).line);
    if (doc !== undefined && isAlias(node)) node = resolveAlias(doc, node);
    if (isMap(node)) {
      for (const it of doc !== undefined ? mergedPairs(doc, node) : node.items) {
        if (!isPair(it)) continue;
        const key = isScalar(it.key) ? String(it.key.value) : String(it.key);
        const p = path ? `${path}.${key}` : key;
        const kr = (it.key as { range?: [number, number, number] } | null)?.range;
        if (kr) out.set(p, lc.linePos(kr[0]).line);
        walk(it.value, p, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((it, i) => walk(it, `${path}[${i}]`, depth + 1));
    }
  };
  walk(contents, "");
  return out;
}

/** The line of `path` in `lines`, or of its nearest enclosing field there, or of the document (""). */
export function lineOfPath(lines: ReadonlyMap<string, number>, path: string): number | undefined {
  for (let p = path; ; ) {
    const l = lines.get(p);
    if (l !== undefined) return l;
    const i = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    if (i <= 0) return lines.get("");
    p = p.slice(0, i);
  }
}
