// Merge keys (`<<: *defaults`): a loader that walks the syntax tree sees the
// same mapping as `yaml`'s own toJS gives a loader of plain values, and a
// merge of something that is not a mapping is named at its line.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isScalar, LineCounter, parseDocument, type Document } from "yaml";
import { yamlFieldLines } from "./line-of-path.js";
import { mergedPairs, mergeProblem, PARSE_OPTIONS } from "./yaml-merge.js";

const parse = (text: string): Document => parseDocument(text, PARSE_OPTIONS);
/** the last top-level mapping's entries as mergedPairs gives them, keys and plain values in order */
const entries = (doc: Document, key: string): Array<[string, unknown]> => {
  const m = (doc.contents as { items: Array<{ key: { value: unknown }; value: unknown }> }).items.find((p) => p.key.value === key)!.value;
  return mergedPairs(doc, m).map((p) => [String((p.key as { value: unknown }).value), isScalar(p.value) ? p.value.value : "(node)"]);
};

describe("a mapping with merge keys", () => {
  it("takes the anchor's keys, with the keys written beside the merge winning wherever they stand", () => {
    const doc = parse("base: &b {bs: 4k, rw: randread, iodepth: 16, name: b}\njob:\n  iodepth: 1\n  <<: *b\n  name: x\n");
    expect(entries(doc, "job")).toEqual([["iodepth", 1], ["bs", "4k"], ["rw", "randread"], ["name", "x"]]);
    expect(Object.entries(doc.toJS().job as object)).toEqual(entries(doc, "job"));
  });

  it("takes an earlier source's key over a later one's in <<: [*a, *b], and merges merges", () => {
    const doc = parse("a: &a {p: 1, q: 1}\nb: &b {<<: *a, q: 2, r: 2}\nc:\n  <<: [*b, {r: 3, s: 3}]\n");
    expect(entries(doc, "c")).toEqual([["p", 1], ["q", 2], ["r", 2], ["s", 3]]);
    expect(Object.entries(doc.toJS().c as object)).toEqual(entries(doc, "c"));
  });

  it("equals yaml's own toJS for any nesting of merges (fast-check)", () => {
    const key = fc.constantFrom("a", "b", "c", "d");
    const map = fc.dictionary(key, fc.integer({ min: 0, max: 9 }), { maxKeys: 4 });
    fc.assert(fc.property(fc.array(map, { minLength: 1, maxLength: 4 }), map, fc.boolean(), (sources, own, list) => {
      const anchors = sources.map((s, i) => `s${i}: &s${i} ${JSON.stringify(s)}`).join("\n");
      const refs = sources.map((_, i) => `*s${i}`);
      const merge = list ? `[${refs.join(", ")}]` : refs[0];
      const ownLines = Object.entries(own).map(([k, v]) => `  ${k}: ${v}`).join("\n");
      const doc = parse(`${anchors}\nt:\n  <<: ${merge}\n${ownLines}\n`);
      expect(Object.entries(doc.toJS().t as object)).toEqual(entries(doc, "t"));
    }));
  });

  it("names the line of a merge whose value is not a mapping", () => {
    const text = "a: &a [1, 2]\nb:\n  x: 1\n  <<: *a\n";
    const lc = new LineCounter();
    const doc = parseDocument(text, { ...PARSE_OPTIONS, lineCounter: lc });
    const p = mergeProblem(doc)!;
    expect(lc.linePos(p.offset).line).toBe(4);
    expect(p.message).toMatch(/merge key takes a mapping/);
    expect(mergeProblem(parse("a: &a {x: 1}\nb: {<<: *a}\n"))).toBeNull();
  });

  it("gives a merged field the line it is written on, under the anchor", () => {
    const text = "jobs:\n  - &j\n    name: a\n    bs: 4k\n  - <<: *j\n    name: b\n";
    const lc = new LineCounter();
    const doc = parseDocument(text, { ...PARSE_OPTIONS, lineCounter: lc });
    const lines = yamlFieldLines(doc.contents, lc, doc);
    expect(lines.get("jobs[1].bs")).toBe(4);
    expect(lines.get("jobs[1].name")).toBe(6);
    expect(lines.get("jobs[1]")).toBe(5);
  });
});
