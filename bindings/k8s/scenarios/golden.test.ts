// Every built-in run still produces exactly what golden.json recorded (see
// golden.ts): the timelines, klog lines, final objects and violations of every
// scenario on every version and fix combination there.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { digestCases, digestOf, fullCases, goldenView, runCase, type GoldenRecord } from "./golden.js";

const golden = JSON.parse(readFileSync(new URL("./golden.json", import.meta.url), "utf8")) as GoldenRecord;

describe("golden record of the built-in scenarios", () => {
  it("covers the same cases as golden.ts lists", () => {
    expect(Object.keys(golden.full)).toEqual(fullCases().map((c) => c.id));
    expect(Object.keys(golden.digests)).toEqual(digestCases().map((c) => c.id));
  });

  for (const c of fullCases()) {
    it(`${c.id}: the full result is unchanged`, () => {
      const got = JSON.parse(JSON.stringify(goldenView(runCase(c))));
      const want = golden.full[c.id];
      expect(got).toEqual(want);
      // also the order of keys (the CLI prints the objects as they are)
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    });
  }

  it("every other version, fix set, seed and output setting gives the recorded digest", () => {
    const bad: string[] = [];
    for (const c of digestCases()) if (digestOf(runCase(c)) !== golden.digests[c.id]) bad.push(c.id);
    expect(bad).toEqual([]);
  });
});
