// Parsing a user's YAML so that no file can crash or stall a loader.
//
// The `yaml` package parses any text, but three things it leaves to its caller
// reached iosim's loaders as crashes or hangs:
//
//   - aliases that expand to far more than the file holds (the "billion
//     laughs": nine lists of nine aliases of the list above, 9^8 nodes):
//     the package's toJS throws its own ReferenceError ("Excessive alias
//     count indicates a resource exhaustion attack", no line), and a walk of
//     the expanded tree (line-of-path.ts, the merge expansion) ran for
//     minutes before that;
//   - an alias inside the mapping its anchor marks (`a: &a {<<: *a}`): a
//     cycle; toJS recursed until the stack overflowed;
//   - Alias.resolve(doc) visits the whole document on each call, so a chain
//     of 3,000 merge keys (`m2: &m2 {<<: *m1}` ...) took half a minute.
//
// checkYaml() reads the document once: each alias's target (the last anchor
// of its name before it, as YAML says), undefined aliases, cycles, nesting
// deeper than MAX_DEPTH and the size of the fully expanded tree, and reports
// the first problem at its line. After it passes, toJS may be called with the
// package's own alias guard off (`maxAliasCount: -1`): the expansion is
// bounded here, by MAX_EXPANDED_NODES, which a file written by a person
// does not approach (the largest built-in scenario expands to ~1,000 nodes).
//
// The package's parse errors are reported in iosim's words (yamlErrorText),
// not the package's, which name its internals ("Implicit map keys need to
// be followed by map values").
//
// Worked example: `b: &b [*a, *a, ...]` nine times over nine levels is
// refused at the line of the alias where the expansion passes 100,000 nodes:
// "YAML: aliases expand this file past 100000 values (an alias bomb?)".

import { isAlias, isCollection, isMap, isPair, isScalar, LineCounter, parseDocument, type Document, type Node as YNode, type Alias } from "yaml";
import { isMergeKey, mergeProblem, PARSE_OPTIONS } from "./yaml-merge.js";

export const MAX_EXPANDED_NODES = 100_000;
export const MAX_DEPTH = 500;

export interface YamlProblem {
  line: number;
  message: string;
}

const targets = new WeakMap<Document, Map<Alias, YNode | undefined>>();

/** Every alias of the document with the node it names (undefined: no anchor of that name before it). One walk, cached. */
function aliasTargets(doc: Document): Map<Alias, YNode | undefined> {
  let m = targets.get(doc);
  if (m) return m;
  m = new Map();
  const latest = new Map<string, YNode>();
  // document order, a node before its children (as yaml's own resolve walks it); iterative
  const stack: unknown[] = [doc.contents];
  while (stack.length) {
    const n = stack.pop();
    if (n === null || n === undefined) continue;
    if (isPair(n)) {
      stack.push(n.value, n.key);
      continue;
    }
    if (isAlias(n)) {
      m.set(n, latest.get(n.source));
      continue;
    }
    const anchor = (n as { anchor?: string }).anchor;
    if (anchor) latest.set(anchor, n as YNode);
    if (isCollection(n)) for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i]);
  }
  targets.set(doc, m);
  return m;
}

/** The node an alias names (cached: yaml's Alias.resolve walks the whole document each call). */
export function resolveAlias(doc: Document, a: Alias): YNode | undefined {
  const m = aliasTargets(doc);
  return m.has(a) ? m.get(a) : (a.resolve(doc) as YNode | undefined);
}

const CODE_TEXT: Record<string, string> = {
  BAD_INDENT: "the indentation does not match the lines above",
  TAB_AS_INDENT: "a tab used for indentation (YAML indents with spaces)",
  DUPLICATE_KEY: "a key given twice in one mapping",
  MULTILINE_IMPLICIT_KEY: "a key that runs over more than one line (a missing \":\" or quote above?)",
  BLOCK_AS_IMPLICIT_KEY: "a block value used as a key (a missing \":\" above?)",
  MISSING_CHAR: "a closing bracket, brace or quote is missing",
  BAD_DQ_ESCAPE: "a bad escape in a double-quoted string",
  MULTIPLE_DOCS: "more than one YAML document (a \"---\" line?); a file holds one",
  KEY_OVER_1024_CHARS: "a key longer than 1024 characters",
  MULTIPLE_ANCHORS: "two anchors on one value",
  MULTIPLE_TAGS: "two tags on one value",
  ALIAS_PROPS: "an alias cannot have an anchor or a tag",
  BAD_ALIAS: "an alias (*name) that is not well formed",
  BAD_DIRECTIVE: "a directive (%...) that is not understood",
  BAD_PROP_ORDER: "an anchor or tag in the wrong place",
  BAD_SCALAR_START: "a plain value cannot start with this character (quote it)",
  BLOCK_IN_FLOW: "a block value inside [ ] or { }",
  NON_STRING_KEY: "a key that is not a plain value",
  TAG_RESOLVE_FAILED: "a tag (!name) iosim does not know",
  BAD_COLLECTION_TYPE: "a tag that does not fit the value",
  UNEXPECTED_TOKEN: "unexpected text (a missing \":\", indentation or quote?)",
};

/** A parse error in iosim's words (the `yaml` package's own texts name its internals). */
export function yamlErrorText(code: string | undefined): string {
  return (code && CODE_TEXT[code]) ?? "not valid YAML here";
}

/**
 * The first problem of a parsed document that a loader must not meet:
 * a parse error, a bad merge key, an alias with no anchor, an alias inside
 * its own anchor, nesting deeper than MAX_DEPTH, or an expansion past
 * MAX_EXPANDED_NODES. null: the document is safe to walk and to toJS.
 */
export function yamlProblem(doc: Document, lc: LineCounter): YamlProblem | null {
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lc.linePos(offset).line);
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    // (a flow collection, [ ] or { }, left open is reported by the package as an indentation or missing-character error)
    const flow = /flow/i.test(e.message) ? " (a [ ] or { } flow collection left open?)" : "";
    return { line: e.linePos?.[0]?.line ?? lineAt(e.pos[0]), message: `YAML: ${yamlErrorText(e.code)}${flow}` };
  }
  const targetOf = aliasTargets(doc);
  // expanded size of every node, aliases counted as their targets; iterative post-order
  const size = new Map<unknown, number>();
  const onPath = new Set<unknown>();
  let problem: YamlProblem | null = null;
  const rangeOf = (n: unknown) => (n as { range?: [number, number, number] } | null)?.range?.[0];
  type Frame = { n: unknown; depth: number; kids?: unknown[]; i: number; sum: number };
  const stack: Frame[] = [{ n: doc.contents, depth: 0, i: 0, sum: 1 }];
  let expanded = 0;
  const finish = (f: Frame) => {
    onPath.delete(f.n);
    size.set(f.n, f.sum);
  };
  while (stack.length && !problem) {
    const f = stack[stack.length - 1]!;
    if (f.kids === undefined) {
      const n = f.n;
      if (f.depth > MAX_DEPTH) {
        problem = { line: lineAt(rangeOf(n)), message: `YAML: nested more than ${MAX_DEPTH} levels deep` };
        break;
      }
      if (isAlias(n)) {
        const t = targetOf.get(n);
        if (t === undefined) {
          problem = { line: lineAt(rangeOf(n)), message: `YAML: alias *${n.source} names no anchor &${n.source} defined above it` };
          break;
        }
        if (onPath.has(t)) {
          problem = { line: lineAt(rangeOf(n)), message: `YAML: alias *${n.source} is inside the value its anchor marks (a cycle)` };
          break;
        }
        const s = size.get(t);
        if (s !== undefined) {
          expanded += s;
          if (expanded > MAX_EXPANDED_NODES) {
            problem = { line: lineAt(rangeOf(n)), message: `YAML: aliases expand this file past ${MAX_EXPANDED_NODES} values (an alias bomb?)` };
            break;
          }
          stack.pop();
          if (stack.length) stack[stack.length - 1]!.sum += s;
          continue;
        }
        // an alias whose target was not walked yet (it is after the alias? no: anchors come first;
        // but the target may be an ancestor's sibling being walked): walk the target here
        f.kids = [t];
        f.sum = 0;
        continue;
      }
      if (size.has(n) && !isScalar(n)) {
        stack.pop();
        if (stack.length) stack[stack.length - 1]!.sum += size.get(n)!;
        continue;
      }
      onPath.add(n);
      if (isMap(n)) {
        // keys unique per mapping (the package's own check, uniqueKeys, compares every pair: 10,000
        // keys took seconds); merge keys may repeat, as the package allows
        const keys = new Set<unknown>();
        for (const it of n.items) {
          if (!isScalar(it.key) || isMergeKey(it.key)) continue;
          const k = it.key.value;
          if (keys.has(k)) {
            problem = { line: lineAt(rangeOf(it.key)), message: `YAML: ${CODE_TEXT.DUPLICATE_KEY} (${String(k).slice(0, 80)})` };
            break;
          }
          keys.add(k);
        }
        if (problem) break;
      }
      f.kids = isCollection(n) ? n.items.flatMap((it) => (isPair(it) ? [it.key, it.value] : [it])) : [];
      continue;
    }
    if (f.i < f.kids.length) {
      const k = f.kids[f.i++];
      if (k === null || k === undefined || (!isCollection(k) && !isAlias(k))) {
        f.sum += 1;
        continue;
      }
      stack.push({ n: k, depth: f.depth + 1, i: 0, sum: isAlias(k) ? 0 : 1 });
      continue;
    }
    stack.pop();
    if (isAlias(f.n)) {
      // (the alias's target was walked under it)
      expanded += f.sum;
      if (expanded > MAX_EXPANDED_NODES) {
        problem = { line: lineAt(rangeOf(f.n)), message: `YAML: aliases expand this file past ${MAX_EXPANDED_NODES} values (an alias bomb?)` };
        break;
      }
    } else finish(f);
    if (stack.length) stack[stack.length - 1]!.sum += f.sum;
  }
  if (problem) return problem;
  const merge = mergeProblem(doc);
  if (merge) return { line: lineAt(merge.offset), message: `YAML: ${merge.message}` };
  return null;
}

/**
 * Parse `text` as one YAML document with iosim's options (merge keys on) and
 * check it (yamlProblem). A stack overflow inside the package (text nested
 * beyond what its recursive parser holds) is a problem at line 1.
 */
export function parseYaml(text: string): { doc: Document; lc: LineCounter; problem: YamlProblem | null } {
  const lc = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { ...PARSE_OPTIONS, lineCounter: lc, prettyErrors: false, uniqueKeys: false });
  } catch (e) {
    if (e instanceof RangeError) {
      return { doc: parseDocument("", PARSE_OPTIONS), lc, problem: { line: 1, message: `YAML: nested too deeply to read` } };
    }
    throw e;
  }
  return { doc, lc, problem: yamlProblem(doc, lc) };
}

/** toJS of a checked document: the package's alias guard off (the expansion was bounded by yamlProblem). */
export function yamlToJS(doc: Document): unknown {
  return doc.toJS({ maxAliasCount: -1 });
}
