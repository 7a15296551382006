// fio's rate_process=poisson (fio 3.39 backend.c usec_for_io()): IOs at
// exponential gaps of mean 1e6 / iops us, rate kept on average.
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "./fio-jobfile.js";
import { simulate } from "../engine/simulation.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/index.js";
import { InputError } from "../scenario/errors.js";

function submits(text: string): number[] {
  const dev = devicePreset("ideal");
  const parsed = parseFioJobFile(text, "p.fio", { defaultDevice: dev.name });
  const r = simulate(scenarioDefaults({ name: "p", devices: [dev], jobs: parsed.jobs, record: true }));
  return (r.records ?? []).map((x) => x.submitNs).sort((a, b) => a - b);
}
const gapsOf = (t: number[]) => t.slice(1).map((x, i) => x - t[i]!);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const cv = (v: number[]) => Math.sqrt(mean(v.map((x) => (x - mean(v)) ** 2))) / mean(v);

describe("rate_process=poisson", () => {
  const job = (extra: string) => `[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=8\nrate_iops=1000\nnumber_ios=5000\nsize=64m\n${extra}`;
  it("keeps the rate on average with exponential gaps (CV about 1); linear pacing has none", () => {
    const lin = gapsOf(submits(job("")));
    const poi = gapsOf(submits(job("rate_process=poisson\n")));
    expect(mean(lin)).toBeCloseTo(1e6, -3);
    expect(cv(lin)).toBeLessThan(0.01);
    // 4,999 exponential gaps of mean 1 ms: the mean within 5 %, CV within 0.1 of 1
    expect(Math.abs(mean(poi) / 1e6 - 1)).toBeLessThan(0.05);
    expect(Math.abs(cv(poi) - 1)).toBeLessThan(0.1);
    // due times are whole microseconds, as fio's usec_for_io() counts (an IO due while the
    // job's workers are all busy goes at the next completion instead)
    expect(poi.filter((g) => g % 1000 === 0).length / poi.length).toBeGreaterThan(0.99);
  });

  it("a byte rate: iops = rate / min_bs; rate_process=linear is the default; anything else is refused", () => {
    const b = gapsOf(submits("[a]\ndirect=1\nrw=randread\nbs=4k\nrate=4m\nrate_process=poisson\nnumber_ios=4000\nsize=64m\n"));
    expect(Math.abs(mean(b) / (1e9 / 1024) - 1)).toBeLessThan(0.06);
    expect(cv(gapsOf(submits(job("rate_process=linear\n"))))).toBeLessThan(0.01);
    const e = (() => { try { parseFioJobFile(job("rate_process=bursty\n"), "p.fio", { defaultDevice: "loop1" }); } catch (x) { return x; } })() as InputError;
    expect(e).toBeInstanceOf(InputError);
    expect([e.file, e.line, e.field]).toEqual(["p.fio", 10, "rate_process"]);
  });
});
