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

  it("a misspelt kind ({unifrom: [0, 1]}) is refused with file, line, field and the kind meant, not run as a literal mapping", () => {
    const text = `mc:\n  domain: io\nscenario:\n  name: t\n  jobs:\n    - name: a\n      rw: randread\n      number_ios: 10\n      iodepth: {unifrom: [1, 32]}\n`;
    const e = errOf(() => parseMcFile(text, "sweep.yaml"));
    expect([e.file, e.line, e.field]).toEqual(["sweep.yaml", 9, "scenario.jobs[0].iodepth.unifrom"]);
    expect(e.message).toMatch(/"unifrom" is not a distribution kind: did you mean uniform\?.*\{literal: \{unifrom: \.\.\.\}\}/);
    expect(errOf(() => load(`scenario:\n  v: {Choice: [a, b]}\n`)).message).toMatch(/did you mean choice\?/);
    expect(errOf(() => load(`scenario:\n  v: [{mayb: {x: 1}, }]\n`)).field).toBe("scenario.v[0].mayb");
    expect(errOf(() => load(`mc:\n  params: {d: {randint: [1, 4]}}\nscenario:\n  v: {params: d}\n`)).message).toMatch(/did you mean param\?/);
    // the escape: the same mapping as written
    const lit = load(`scenario:\n  v: {literal: {unifrom: [1, 32]}}\n`);
    expect(sampleTemplate(lit, samplingRng(1)).doc).toEqual({ v: { unifrom: [1, 32] } });
  });

  it("a one-key mapping whose key is no near miss of a kind stays a literal mapping", () => {
    const t = load(`scenario:\n  labels: {app: web}\n  cgroups: {a: {io.max: "259:0 rbps=max"}}\n  fixes: {"104526": true}\n  x: {count: 1}\n  y: {random: 2}\n`);
    expect(t.random).toBe(false);
    expect(sampleTemplate(t, samplingRng(1)).doc).toEqual({ labels: { app: "web" }, cgroups: { a: { "io.max": "259:0 rbps=max" } }, fixes: { "104526": true },
      x: { count: 1 }, y: { random: 2 } });
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

// Modifiers and spreads the README documents were read by some kinds only, and
// dropped silently elsewhere: `round: 4096` on a randint gave any integer,
// `sd: "1s"` beside a mean of "100ms" drew with an sd of 1 ms, `round: "1s"`
// on a ms draw rounded to 1 ms, `min: 0` inside normal: {...} let negative
// values through, `min` on a choice was ignored.
describe("distribution modifiers are read or refused, never dropped", () => {
  const draw = (spec: string, runs = 400): Json[] => {
    const t = load(`scenario:\n  v: ${spec}\n`);
    return Array.from({ length: runs }, (_, s) => (sampleTemplate(t, samplingRng(s)).doc as { v: Json }).v);
  };

  it("randint with round: 4096 draws whole 4 KiB multiples in its range, in the interpreter and the compiled sampler alike", () => {
    const vs = draw("{randint: [4096, 65536], round: 4096}") as number[];
    for (const v of vs) {
      expect(v % 4096).toBe(0);
      expect(v).toBeGreaterThanOrEqual(4096);
      expect(v).toBeLessThanOrEqual(65536);
    }
    expect(new Set(vs).size).toBeGreaterThan(10);
    const t = load(`scenario:\n  v: {randint: [4096, 65536], round: 4096}\n`);
    for (let s = 0; s < 50; s++) expect(sampleCompiled(t, samplingRng(s))).toEqual(sampleTemplate(t, samplingRng(s)));
    expect(errOf(() => load(`scenario:\n  v: {randint: [0, 10], round: 2.5}\n`)).message).toMatch(/round must be a whole number above 0/);
  });

  it("a round with a unit is in that unit: round: 100ms on a ms draw gives multiples of 100 ms; another unit is refused", () => {
    for (const v of draw('{uniform: ["0ms", "5000ms"], round: "100ms"}', 100)) expect(v).toMatch(/^(0|\d*00)ms$/);
    const e = errOf(() => load(`scenario:\n  v: {uniform: ["0ms", "5000ms"], round: "1s"}\n`));
    expect(e.field).toBe("scenario.v.round");
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/round has unit "s", the distribution "ms"/);
  });

  it("normal's sd in another unit than its mean is refused (sd 1s was read as 1 ms); the same unit or none is the mean's", () => {
    const e = errOf(() => load(`scenario:\n  v: {normal: {mean: "100ms", sd: "1s"}}\n`));
    expect(e.field).toBe("scenario.v.normal.sd");
    expect(e.message).toMatch(/sd has unit "s", the mean "ms"/);
    const wide = draw('{normal: {mean: "1000ms", sd: "300ms"}}', 400).map((v) => Number(String(v).replace("ms", "")));
    expect(Math.max(...wide) - Math.min(...wide)).toBeGreaterThan(1000);
    expect(errOf(() => load(`scenario:\n  v: {lognormal: {median: "10ms", sigma: "1ms"}}\n`)).message).toMatch(/sigma is the spread of the logarithm/);
  });

  it("min inside normal: {...} is refused with a hint to write it beside; beside it clamps", () => {
    const e = errOf(() => load(`scenario:\n  v: {normal: {mean: 100, sd: 50, min: 0}}\n`));
    expect(e.field).toBe("scenario.v.normal.min");
    expect(e.message).toMatch(/write min beside normal:, not inside it/);
    for (const v of draw("{normal: {mean: 100, sd: 50}, min: 0}") as number[]) expect(v).toBeGreaterThanOrEqual(0);
  });

  it("a modifier the kind does not read is refused: min on a choice, round on a bernoulli, weights on a uniform, name on a param", () => {
    const cases: Array<[string, RegExp, string]> = [
      ["{choice: [1, 2, 3], min: 2}", /choice takes no "min" \(it takes weights, name\)/, "scenario.v.min"],
      ["{bernoulli: 0.5, round: 1}", /bernoulli takes no "round"/, "scenario.v.round"],
      ["{uniform: [0, 1], weights: [1, 2]}", /uniform takes no "weights"/, "scenario.v.weights"],
      ["{maybe: 3, p: 0.5, name: m}", /maybe takes no "name" \(it takes p\)/, "scenario.v.name"],
      ["{literal: 5, min: 3}", /literal takes no "min"/, "scenario.v.min"],
    ];
    for (const [spec, re, field] of cases) {
      const e = errOf(() => load(`scenario:\n  v: ${spec}\n`));
      expect(e.message).toMatch(re);
      expect(e.field).toBe(field);
      expect(e.line).toBe(2);
    }
    expect(errOf(() => load(`mc:\n  params: {d: {randint: [1, 3]}}\nscenario:\n  v: {param: d, name: x}\n`)).message).toMatch(/param takes no "name"/);
  });

  it("min above max is refused rather than pinning every draw to max", () => {
    const e = errOf(() => load(`scenario:\n  v: {normal: {mean: 5, sd: 1}, min: 10, max: 6}\n`));
    expect(e.message).toMatch(/min 10 is above max 6/);
    expect(e.field).toBe("scenario.v.min");
  });
});

// A sweep whose template can only fail while sampling stopped with "internal
// error" and a stack trace from a worker (exit 3), leaving a journal behind
// that the next attempt had to --force: a param reading a param defined below
// it, a repeat count drawn from a uniform (2.34 copies), a repeat outside a
// list. They are template errors, found when the file is read.
describe("template errors are found when the file is read, not in the middle of a sweep", () => {
  const cases: Array<[string, string, RegExp, string]> = [
    ["a param reading one defined below it", "mc:\n  params:\n    b: {param: c}\n    c: {choice: [1, 4]}\nscenario:\n  v: {param: b}\n",
      /parameter "c" is used before it is defined: mc.params are drawn in order, so define "c" above "b"/, "mc.params.b"],
    ["a param reading itself", "mc:\n  params:\n    b: {param: b}\nscenario:\n  v: 1\n", /parameter "b" reads itself/, "mc.params.b"],
    ["a param that is a maybe", "mc:\n  params:\n    b: {maybe: 3, p: 0.5}\nscenario:\n  v: {param: b}\n", /cannot be a maybe/, "mc.params.b"],
    ["a repeat count from a uniform", "scenario:\n  v:\n    - {repeat: {a: 1}, count: {uniform: [1, 3]}}\n", /count must draw whole numbers >= 0/, "scenario.v[0].count"],
    ["a repeat count that can be negative", "scenario:\n  v:\n    - {repeat: {a: 1}, count: {randint: [-1, 3]}}\n", /count must draw whole numbers >= 0/, "scenario.v[0].count"],
    ["a repeat outside a list", "scenario:\n  v: {repeat: {a: 1}, count: 2}\n", /repeat is only allowed as an element of a list/, "scenario.v"],
    ["a {param} naming a draw of the document", "mc:\n  params: {x: {randint: [1, 2]}}\nscenario:\n  a: {choice: [1, 4], name: d}\n  b: {param: d}\n",
      /\{param: d\} reads mc.params only, and "d" is the name: of a draw in the document/, "scenario.b"],
  ];
  for (const [what, text, re, field] of cases) {
    it(`${what} is refused with its file, line and field`, () => {
      const e = errOf(() => load(text));
      expect(e.message).toMatch(re);
      expect(e.field?.startsWith(field)).toBe(true);
      expect(e.file).toBe("t.yaml");
      expect(e.line).toBeGreaterThan(0);
    });
  }

  it("counts that always draw whole numbers are fine: randint from 0, a choice of them, a param, a uniform with round: 1 and min 0", () => {
    for (const c of ["{randint: [0, 3]}", "{choice: [0, 2, 5]}", "{param: n}", "{uniform: [0, 3], round: 1}", "{normal: {mean: 2, sd: 1}, min: 0, round: 1}"]) {
      const t = load(`mc:\n  params: {n: {randint: [1, 2]}}\nscenario:\n  v:\n    - {repeat: {a: 1}, count: ${c}}\n`);
      for (let s = 0; s < 50; s++) expect(() => sampleTemplate(t, samplingRng(s))).not.toThrow();
    }
  });
});

// A value in a unit is rounded down to a whole unit unless round: says
// otherwise, so {uniform: ["0.1s", "0.9s"]} gave "0s" in every run (below its
// own low end), {uniform: ["1.5s", "3s"]} "2s" in every run and
// {normal: {mean: "1.5s", sd: "0.2s"}} "1s" in 99 % of them.
describe("a draw in a unit says values it can give", () => {
  it("ends that are not whole in their unit, without round:, are refused with a hint", () => {
    for (const spec of ['{uniform: ["0.1s", "0.9s"]}', '{uniform: ["1.5s", "3s"]}', '{normal: {mean: "1.5s", sd: "0.2s"}}', '{exponential: {mean: "0.5s"}}']) {
      const e = errOf(() => load(`scenario:\n  v: ${spec}\n`));
      expect(e.message).toMatch(/is not a whole number of "s".*give the values in a smaller unit \(e\.g\. "1500ms" for "1\.5s"\) or set round:/);
      expect(e.field).toBe("scenario.v");
      expect(e.line).toBe(2);
    }
  });

  it("with round: in the unit they are fine, and every value lies in the range", () => {
    const t = load(`scenario:\n  v: {uniform: ["0.1s", "0.9s"], round: "0.1s"}\n`);
    const seen = new Set<string>();
    for (let s = 0; s < 300; s++) {
      const v = (sampleTemplate(t, samplingRng(s)).doc as { v: string }).v;
      const x = Number(v.replace("s", ""));
      expect(x).toBeGreaterThanOrEqual(0.1);
      expect(x).toBeLessThan(0.9);
      seen.add(v);
    }
    expect(seen.size).toBe(8);
  });

  it("a round with no multiple inside the range is refused (it gave a value outside it)", () => {
    const e = errOf(() => load(`scenario:\n  v: {uniform: [1, 3], round: 5}\n`));
    expect(e.message).toMatch(/no multiple of round 5 lies in \[1, 3\]/);
  });
});

// The noisy detach-backoff sweep restarts the kubelet in ~30 % of runs (a
// maybe around a draw named kubeletRestartAt), but every run recorded
// kubeletRestartAt: a table by it counted the runs without a restart in its
// bins, and a repro whose restart had been shrunk away still listed
// "kubeletRestartAt: 20s" among its params.
describe("a named draw inside a part that is left out records no param", () => {
  const NOISY = join(resolve(__dirname, "examples"), "k8s-detach-backoff-noisy.yaml");

  it("kubeletRestartAt is a param exactly in the runs that restart the kubelet (interpreter and compiled sampler)", () => {
    const f = parseMcFile(readFileSync(NOISY, "utf8"), "noisy.yaml");
    let restarts = 0;
    for (let s = 0; s < 300; s++) {
      for (const sample of [sampleTemplate(f.template, samplingRng(s)), sampleCompiled(f.template, samplingRng(s))]) {
        const doc = sample.doc as { timeline: Array<{ action: string; at?: string }> };
        const restart = doc.timeline.find((x) => x.action === "restartKubelet");
        expect(sample.params.kubeletRestartAt).toBe(restart?.at);
        expect("kubeletRestartAt" in sample.params).toBe(restart !== undefined);
      }
      if ("kubeletRestartAt" in sampleCompiled(f.template, samplingRng(s)).params) restarts++;
    }
    expect(restarts / 300).toBeGreaterThan(0.2);
    expect(restarts / 300).toBeLessThan(0.4);
  });

  it("a copy of a repeat the shrinker leaves out records none either", () => {
    const t = load("mc:\n  params: {w: {randint: [1, 1]}}\nscenario:\n  v:\n    - {maybe: {a: {randint: [5, 9], name: x}}, p: 0}\n    - {repeat: {b: {randint: [5, 9], name: y}}, count: 1}\n");
    expect(sampleTemplate(t, samplingRng(1), new Map([["scenario.v[1]#0!", 0]])).params).toEqual({ w: 1 });
    expect(Object.keys(sampleCompiled(t, samplingRng(1)).params)).toEqual(["w", "y"]);
  });
});

// Two draws of one name (a copied line left unrenamed, a document draw named
// like an mc.params key) wrote one param: the table and the repro header
// showed whichever came last, without a word.
describe("one name, one draw", () => {
  it("a second draw of a name is refused at its line, naming the first", () => {
    const e = errOf(() => load("scenario:\n  a: {uniform: [0, 1], name: d}\n  b: {uniform: [5, 6], name: d}\n"));
    expect(e.message).toMatch(/the name "d" is given to two draws \(this one and scenario\.a\.uniform at line 2\)/);
    expect(e.line).toBe(3);
    const p = errOf(() => load("mc:\n  params: {d: {randint: [1, 2]}}\nscenario:\n  b: {choice: [1, 2], name: d}\n"));
    expect(p.message).toMatch(/\(this one and mc\.params\.d\)/);
  });

  it("different options of one choice may share a name (one of them is drawn), and so may the copies of a repeat", () => {
    expect(() => load("scenario:\n  a: {choice: [{uniform: [0, 1], name: d}, {uniform: [5, 6], name: d}]}\n  l:\n    - {repeat: {x: {randint: [1, 3], name: r}}, count: 2}\n")).not.toThrow();
  });
});

describe("a sweep file with merge keys", () => {
  it("draws inside an anchor are drawn where it is merged, and a bad one is named under the anchor", () => {
    const text = "scenario:\n  jobs:\n    - &j\n      name: a\n      iodepth: {randint: [1, 8]}\n    - <<: *j\n      name: b\n";
    const t = load(text);
    const doc = sampleCompiled(t, samplingRng(3)) as { doc: { jobs: Array<{ name: string; iodepth: number }> } };
    const jobs = doc.doc.jobs;
    expect(jobs.map((j) => j.name)).toEqual(["a", "b"]);
    for (const j of jobs) expect(j.iodepth).toBeGreaterThanOrEqual(1);
    const bad = errOf(() => load(text.replace("{randint: [1, 8]}", "{randint: [8, 1]}")));
    expect(bad.line).toBe(5);
  });
});

// io.max is one text ("259:0 rbps=N riops=M"), and a draw gave a whole value:
// the README offered loguniform "for io.max bps", but the only way to put a
// drawn number into io.max was a choice of fixed texts (io.max: [text, draw]
// is "a single value" error in every run).
describe("concat: a text built from drawn parts", () => {
  const IOMAX = `mc:
  params:
    rbps: {loguniform: [1048576, 104857600], round: 4096}
scenario:
  io.max: {concat: ["259:0 rbps=", {param: rbps}, " riops=", {randint: [500, 5000], round: 100, name: riops}, " ", {choice: [wbps=max, wiops=max]}]}
`;
  it("io.max with a loguniform rbps and a randint riops: the same text from the interpreter and the compiled sampler, each number a draw", () => {
    const t = load(IOMAX);
    for (let s = 0; s < 200; s++) {
      const a = sampleTemplate(t, samplingRng(s));
      expect(sampleCompiled(t, samplingRng(s))).toEqual(a);
      const v = (a.doc as { "io.max": string })["io.max"];
      const m = /^259:0 rbps=(\d+) riops=(\d+) (wbps|wiops)=max$/.exec(v);
      expect(m, v).not.toBeNull();
      expect(Number(m![1]) % 4096).toBe(0);
      expect(Number(m![1])).toBe(a.params.rbps);
      expect(Number(m![2])).toBe(a.params.riops);
      expect(a.draws.map((d) => d.kind)).toEqual(["real", "int", "choice"]);
    }
  });

  it("the shrinker's edits reach the text: an override of a part's draw changes only that part", () => {
    const t = load(IOMAX);
    const a = sampleTemplate(t, samplingRng(3));
    const riops = a.draws.find((d) => d.name === "riops")!;
    const b = sampleTemplate(t, samplingRng(3), new Map([[riops.key, 500]]));
    expect((b.doc as { "io.max": string })["io.max"]).toBe((a.doc as { "io.max": string })["io.max"].replace(/riops=\d+/, "riops=500"));
  });

  it("a part that can be left out, a mapping part or an empty list is refused at its line", () => {
    expect(errOf(() => load(`scenario:\n  v: {concat: ["a", {maybe: "b"}]}\n`)).message).toBe(
      "t.yaml:2 (scenario.v.concat[1]): a part of concat is always there (a maybe would leave a hole in the text)");
    expect(errOf(() => load(`scenario:\n  v: {concat: ["a", {x: 1}]}\n`)).message).toMatch(/^t\.yaml:2 \(scenario\.v\.concat\[1\]\): a part of concat is a text, number or boolean/);
    expect(errOf(() => load(`scenario:\n  v: {concat: []}\n`)).message).toBe("t.yaml:2 (scenario.v): concat takes a non-empty list of parts");
    const drawsMapping = load(`scenario:\n  v: {concat: ["a", {choice: [1, {literal: {x: 1}}]}]}\n`);
    const e = errOf(() => { for (let s = 0; s < 20; s++) sampleCompiled(drawsMapping, samplingRng(s)); });
    expect(e.message).toMatch(/^t\.yaml:2 \(scenario\.v\.concat\): a part of concat drew \{"x":1\}/);
  });
});
