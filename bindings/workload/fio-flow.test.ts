// fio's flow / flow_id / flow_sleep (fio 3.39 flow.c flow_threshold_exceeded()):
// jobs of one flow group issue in proportion to their weights.
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "./fio-jobfile.js";
import { simulate } from "../engine/simulation.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/index.js";
import { InputError } from "../scenario/errors.js";

function run(text: string) {
  const dev = devicePreset("ideal");
  const parsed = parseFioJobFile(text, "f.fio", { defaultDevice: dev.name });
  return { parsed, r: simulate(scenarioDefaults({ name: "f", devices: [dev], jobs: parsed.jobs, record: true })) };
}
const G = "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nsize=64m\niodepth=4\n";

describe("flow", () => {
  it("two jobs of one flow_id with flow=3 and flow=1 issue 3:1 while both run", () => {
    const { parsed, r } = run(G + "[a]\nflow_id=1\nflow=3\nnumber_ios=3000\n[b]\nflow_id=1\nflow=1\nnumber_ios=3000\n");
    expect(parsed.warnings.filter((w) => /flow/.test(w))).toEqual([]);
    // while a runs (its 3000 IOs), b has issued about 1000
    const recs = r.records!.filter((x) => !x.readahead);
    const aEnd = Math.max(...recs.filter((x) => x.job === "a").map((x) => x.submitNs));
    const bBefore = recs.filter((x) => x.job === "b" && x.submitNs <= aEnd).length;
    expect(bBefore).toBeGreaterThan(980);
    expect(bBefore).toBeLessThan(1020);
    // and once a is done, b runs on alone to its 3000
    expect(r.jobs.find((j) => j.name === "b")!.read.ios).toBe(3000);
  });

  it("without flow the same jobs share the device evenly; other flow_ids do not hold each other", () => {
    const free = run(G + "[a]\nnumber_ios=3000\n[b]\nnumber_ios=3000\n").r;
    const recs = free.records!;
    const aEnd = Math.max(...recs.filter((x) => x.job === "a").map((x) => x.submitNs));
    expect(recs.filter((x) => x.job === "b" && x.submitNs <= aEnd).length).toBeGreaterThan(2900);
    const apart = run(G + "[a]\nflow_id=1\nflow=3\nnumber_ios=3000\n[b]\nflow_id=2\nflow=1\nnumber_ios=3000\n").r;
    const r2 = apart.records!;
    const aEnd2 = Math.max(...r2.filter((x) => x.job === "a").map((x) => x.submitNs));
    expect(r2.filter((x) => x.job === "b" && x.submitNs <= aEnd2).length).toBeGreaterThan(2900);
  });

  it("flow above fio's 1000 is refused naming the line", () => {
    const e = (() => { try { parseFioJobFile(G + "[a]\nflow=1001\n", "f.fio", { defaultDevice: "loop1" }); } catch (x) { return x; } })() as InputError;
    expect(e).toBeInstanceOf(InputError);
    expect([e.file, e.line, e.field]).toEqual(["f.fio", 9, "flow"]);
  });
});
