import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileTemplate, fmt, quantise, sampleCompiled, sampleTemplate, yamlLines, type Json } from "./distributions.js";
import { parseMcFile } from "./model.js";
import "./domains/index.js";
import { samplingRng } from "./rng.js";
import { InputError } from "../scenario/errors.js";

const load = (text: string, file = "t.yaml") => {
  const { value, lines } = yamlLines(text);
  const v = value as { mc?: { params?: Record<string, unknown> }; scenario: unknown };
  return compileTemplate(v.scenario, file, lines, v.mc?.params, "scenario");
};
const errOf = (f: () => unknown): InputError => {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("no error");
};

describe("distribution syntax", () => {
  it("a duration drawn from {uniform: [0ms, 5000ms]} comes back as whole ms with its unit", () => {
    const t = load(`scenario:\n  at: {uniform: ["0ms", "5000ms"]}\n`);
    for (let s = 0; s < 200; s++) {
      const d = sampleTemplate(t, samplingRng(s)).doc as { at: string };
      const m = /^(\d+)ms$/.exec(d.at);
      expect(m).not.toBeNull();
      expect(Number(m![1])).toBeLessThanOrEqual(5000);
    }
  });

  it("choice with weights 3:1 picks the first option about 75 % of 20,000 times", () => {
    const t = load(`scenario:\n  v: {choice: [a, b], weights: [3, 1]}\n`);
    let a = 0;
    for (let s = 0; s < 20_000; s++) if ((sampleTemplate(t, samplingRng(s)).doc as { v: string }).v === "a") a++;
    expect(a / 20_000).toBeGreaterThan(0.74);
    expect(a / 20_000).toBeLessThan(0.76);
  });

  it("maybe leaves a fault out of the list with probability 1 - p, repeat splices N copies", () => {
    const t = load(`scenario:\n  faults:\n    - {maybe: {op: detach}, p: 0.25}\n    - {repeat: {op: attach, at: {randint: [1, 9]}}, count: {randint: [0, 3]}}\n`);
    let detach = 0;
    const copies = new Set<number>();
    for (let s = 0; s < 4000; s++) {
      const f = (sampleTemplate(t, samplingRng(s)).doc as { faults: Array<{ op: string; at?: number }> }).faults;
      if (f.some((x) => x.op === "detach")) detach++;
      const att = f.filter((x) => x.op === "attach");
      copies.add(att.length);
      for (const x of att) expect(x.at).toBeGreaterThanOrEqual(1);
    }
    expect(detach / 4000).toBeGreaterThan(0.22);
    expect(detach / 4000).toBeLessThan(0.28);
    expect([...copies].sort()).toEqual([0, 1, 2, 3]);
  });

  it("a named parameter is drawn once and the same value appears wherever it is used", () => {
    const t = load(`mc:\n  params:\n    delay: {uniform: ["0ms", "3000ms"]}\nscenario:\n  a: {param: delay}\n  b: [{param: delay}]\n`);
    for (let s = 0; s < 50; s++) {
      const r = sampleTemplate(t, samplingRng(s));
      const d = r.doc as { a: string; b: string[] };
      expect(d.b[0]).toBe(d.a);
      expect(r.params.delay).toBe(d.a);
    }
  });

  it("overriding one draw leaves every other draw as it was", () => {
    const t = load(`scenario:\n  x: {uniform: [0, 1]}\n  y: {normal: {mean: 5, sd: 1}}\n  z: {choice: [1, 2, 3]}\n`);
    fc.assert(fc.property(fc.nat(), fc.double({ min: 0, max: 1, noNaN: true }), (s, v) => {
      const a = sampleTemplate(t, samplingRng(s));
      const b = sampleTemplate(t, samplingRng(12345), new Map([...a.draws.map((d) => [d.key, d.value] as [string, number]), ["scenario.x", v]]));
      const da = a.doc as Record<string, Json>, db = b.doc as Record<string, Json>;
      return db.x === v && db.y === da.y && db.z === da.z;
    }));
  });

  it("numeric draws stay inside [min, max] and on the round quantum", () => {
    const t = load(`scenario:\n  bs: {lognormal: {median: 16384, sigma: 2}, min: 4096, max: 1048576, round: 4096}\n`);
    fc.assert(fc.property(fc.nat(), (s) => {
      const bs = (sampleTemplate(t, samplingRng(s)).doc as { bs: number }).bs;
      return bs >= 4096 && bs <= 1048576 && bs % 4096 === 0;
    }));
  });

  it("bad input names the file, the line and the field", () => {
    const e = errOf(() => load(`scenario:\n  jobs:\n    - name: a\n      at: {uniform: [5, 1]}\n`, "sweep.yaml"));
    expect(e.file).toBe("sweep.yaml");
    expect(e.line).toBe(4);
    expect(e.field).toBe("scenario.jobs[0].at.uniform");
    expect(e.message).toMatch(/low end 5 is above high end 1/);
    const e2 = errOf(() => load(`scenario:\n  a: {uniform: [0, 1], colour: red}\n`));
    expect(e2.line).toBe(2);
    expect(e2.message).toMatch(/unexpected key.*colour.*literal/);
    const e3 = errOf(() => load(`scenario:\n  a: {param: nope}\n`));
    expect(e3.message).toMatch(/unknown parameter "nope"/);
  });

  it("{literal: ...} keeps a mapping that looks like a distribution", () => {
    const t = load(`scenario:\n  a: {literal: {choice: [1, 2]}}\n`);
    expect(sampleTemplate(t, samplingRng(1)).doc).toEqual({ a: { choice: [1, 2] } });
    expect(t.random).toBe(false);
  });
});

describe("number rounding of sampled values", () => {
  it("quantise and fmt give what their 15- and 12-digit string round trips give (their integer fast paths included)", () => {
    const slowQ = (x: number, q: number, lo: number, hi: number) => {
      let v = Math.floor(x / q + 1e-9) * q;
      if (v < lo) v += q;
      if (v > hi) v -= q;
      return Number(v.toPrecision(15));
    };
    const slowF = (x: number) => String(Number(x.toPrecision(12)));
    fc.assert(fc.property(fc.double({ min: -1e16, max: 1e16, noNaN: true }), fc.constantFrom(1, 0.5, 0.1, 4096, 1e-3, 7), (x, q) =>
      Object.is(quantise(x, q, -Infinity, Infinity), slowQ(x, q, -Infinity, Infinity)) && fmt(x) === slowF(x)));
    for (const x of [-0, 0, -1, 999_999_999_999, 1e12, -0.4, 1e15 - 1]) {
      expect(fmt(x)).toBe(slowF(x));
      expect(Object.is(quantise(x, 1, -Infinity, Infinity), slowQ(x, 1, -Infinity, Infinity))).toBe(true);
    }
  });
});

describe("the compiled sampler", () => {
  const EXAMPLES = resolve(__dirname, "examples");
  const MIXED = `mc:
  params:
    n: {randint: [0, 3]}
    flag: {bernoulli: 0.4}
scenario:
  name: mixed
  items:
    - {repeat: {at: {uniform: ["0ms", "900ms"]}, x: {maybe: {v: {choice: [1, {normal: {mean: 5, sd: 2}, round: 0.5}]}}, p: 0.5}}, count: {param: n}}
    - {maybe: {k: {loguniform: [1, 1000], name: lu}}, p: 0.7}
    - {literal: {choice: [1]}}
    - {repeat: {y: {exponential: {mean: 3}, max: 5}}, count: 2}
  opt: {maybe: {lognormal: {median: "4k", sigma: 0.5}}, p: 0.5}
  pick: {choice: [a, b, c], weights: [1, 0, 3], name: pick}
  f: {param: flag}
  deep: {a: [{b: {randint: [-5, 5], name: r}}], c: 7}
`;
  const models = [
    ...readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml")).map((f) => ({ file: f, template: parseMcFile(readFileSync(join(EXAMPLES, f), "utf8"), f).template })),
    { file: "mixed.yaml", template: load(MIXED, "mixed.yaml") },
  ];
  for (const m of models) {
    it(`${m.file}: the same documents, draws and params as the interpreter, and the same stream position after`, () => {
      for (let s = 0; s < 400; s++) {
        const r1 = samplingRng(s * 7919 + 1);
        const r2 = samplingRng(s * 7919 + 1);
        const a = sampleCompiled(m.template, r1);
        const b = sampleTemplate(m.template, r2);
        expect(a).toEqual(b);
        expect(JSON.stringify(a.params)).toBe(JSON.stringify(b.params));
        expect(JSON.stringify(a.doc)).toBe(JSON.stringify(b.doc));
        expect(r1.u32()).toBe(r2.u32());
      }
    });
  }
});
