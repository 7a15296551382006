// runLine (what workers journal) writes exactly the text of JSON.stringify(runOne(...)).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { McModel, McOutcome } from "./model.js";
import type { Json } from "./distributions.js";
import { modelFromText, runLine, runOne } from "./run-one.js";

describe("runLine", () => {
  const EXAMPLES = resolve(__dirname, "examples");
  for (const f of readdirSync(EXAMPLES).filter((x) => x.endsWith(".yaml"))) {
    it(`${f}: the journal line of JSON.stringify(runOne(...)), with and without a metrics list`, () => {
      const m = modelFromText(readFileSync(join(EXAMPLES, f), "utf8"), f);
      const n = f.startsWith("k8s") ? 60 : 6;
      for (let i = 0; i < n; i++) {
        expect(runLine(m, 9n, i, m.spec.mc.metrics)).toBe(JSON.stringify(runOne(m, 9n, i, m.spec.mc.metrics)));
        expect(runLine(m, 2n ** 64n - 1n, i)).toBe(JSON.stringify(runOne(m, 2n ** 64n - 1n, i)));
      }
    });
  }

  it("odd outcomes: repeated and quoted classes, non-finite and negative-zero metrics, nested and integer-keyed params", () => {
    const outs: McOutcome[] = [
      { classes: [], metrics: {} },
      { classes: ["b", "a\"q", "b", "é\n"], metrics: { x: NaN, y: Infinity, z: -0, w: 1e21, v: 0.1 + 0.2, u: 2 ** 53, t: 1e-7, s: -123456789012 } },
      { classes: ["only"], metrics: { "10": 1, "2": 2, a: 3 } },
    ];
    const params: Array<Record<string, Json>> = [
      {},
      { s: "say \"hi\"\n", n: -0, big: 2 ** 53 + 2, tiny: 5e-324, nil: null, arr: [1, "x", { k: [null] }], obj: { "1": true, b: false } },
      { "7": "seven", a: 1.5, "0": [] },
    ];
    const model: McModel<number> = {
      name: "fake", domain: "fake", replayCommand: "",
      sample: (s) => s,
      run: (_c, s) => outs[s % 3]!,
      shrinkCandidates: () => [],
      size: (c) => [0, 1234.56789012345, -0][c % 3]!,
      params: (c) => params[c % 3]!,
      serialize: () => "",
    };
    const seen = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const r = runOne(model, 5n, i);
      seen.add(r.seed % 3);
      expect(runLine(model, 5n, i)).toBe(JSON.stringify(r));
      expect(runLine(model, 5n, i, ["y", "w", "2"])).toBe(JSON.stringify(runOne(model, 5n, i, ["y", "w", "2"])));
    }
    expect(seen.size).toBe(3);
  });

  it("a run's classes come deduplicated and sorted as [...new Set(classes)].sort() sorts them (UTF-16 code units)", () => {
    const cls = fc.array(fc.oneof(fc.constantFrom("a", "b", "B", "ä", "a b", "incident", "liveness"), fc.string({ unit: "binary", maxLength: 4 })), { maxLength: 8 });
    fc.assert(fc.property(cls, (classes) => {
      const model: McModel<number> = {
        name: "fake", domain: "fake", replayCommand: "", sample: (s) => s, run: () => ({ classes, metrics: {} }),
        shrinkCandidates: () => [], size: () => 0, params: () => ({}), serialize: () => "",
      };
      const r = runOne(model, 1n, 0);
      expect(r.classes).toEqual([...new Set(classes)].sort());
      expect(runLine(model, 1n, 0)).toBe(JSON.stringify(r));
    }));
  });
});
