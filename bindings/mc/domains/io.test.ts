// The IO domain: a sampled value the io loader rejects is an error outcome
// naming the randomised file's line and the field's path, like the k8s
// domain's (the loader itself sees the sampled text, with other lines, and
// names a fio option by its key alone).
import { describe, expect, it } from "vitest";
import { modelFromText } from "../run-one.js";
import { runSeed } from "../rng.js";

const SWEEP = `mc:
  domain: io
scenario:
  name: t
  jobs:
    - name: a
      rw: randread
      number_ios: 20
      bs: {choice: [4k, 8q]}
      iodepth: 1
`;

describe("io domain: a sampled value the loader rejects", () => {
  it("is the class error:FILE:LINE (jobs[0].bs): ..., at the randomised file's line of the field", () => {
    const m = modelFromText(SWEEP, "sweep.yaml");
    const classes = new Set<string>();
    for (let i = 0; i < 16; i++) {
      const seed = runSeed(1n, i);
      for (const c of m.run(m.sample(seed), seed).classes) classes.add(c);
    }
    const line = SWEEP.split("\n").findIndex((l) => l.includes("bs: {choice")) + 1;
    expect([...classes].filter((c) => c.startsWith("error:"))).toEqual([`error:sweep.yaml:${line} (jobs[0].bs): bad value "8q" for bs: unknown size suffix "q"`]);
  });
});
