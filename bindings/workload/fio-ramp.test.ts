// fio's ramp_time (fio 3.39 time.c ramp_time_over(): the job runs, then at
// ramp_time its statistics are reset and its clock restarts; a runtime counts
// from there): the IO of the ramp reaches the device but not the job's numbers.
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "./fio-jobfile.js";
import { simulate } from "../engine/simulation.js";
import { scenarioDefaults } from "../scenario/defaults.js";
import { devicePreset } from "../device/index.js";

function run(text: string) {
  const dev = devicePreset("ssd");
  const parsed = parseFioJobFile(text, "r.fio", { defaultDevice: dev.name });
  return { parsed, r: simulate(scenarioDefaults({ name: "r", devices: [dev], jobs: parsed.jobs })) };
}

describe("ramp_time", () => {
  const job = "[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\niodepth=1\nrate_iops=1000\nsize=1g\ntime_based\nruntime=2\n";
  it("a time_based job runs ramp + runtime; its statistics hold the runtime's IO only, the disk's all", () => {
    const plain = run(job).r;
    const ramped = run(job + "ramp_time=1\n");
    expect(ramped.parsed.warnings.filter((w) => /ramp_time/.test(w))).toEqual([]);
    const a = plain.jobs[0]!;
    const b = ramped.r.jobs[0]!;
    // 1000 IOPS for 2 s counted either way; the ramped job ran 3 s
    expect(a.read.ios).toBeGreaterThan(1995);
    expect(Math.abs(b.read.ios - a.read.ios)).toBeLessThanOrEqual(2);
    expect(b.runtimeMs).toBeCloseTo(a.runtimeMs, -1);
    expect(b.startNs).toBe(1e9);
    expect(ramped.r.simulatedNs).toBeGreaterThan(2.99e9);
    expect(plain.simulatedNs).toBeLessThan(2.01e9);
    // the device saw the ramp's IO too
    const disk = (x: typeof plain) => x.devices![0]!.stat.readIos;
    expect(disk(ramped.r) - disk(plain)).toBeGreaterThan(990);
    // fio's bw samples start at the ramp's end: 4 windows of 500 ms in 2 s either way
    expect(b.read.iopsSamples!.samples).toBe(a.read.iopsSamples!.samples);
  });

  it("with a size limit the ramp's IO counts toward it (warned: fio counts from the ramp's end)", () => {
    const { parsed } = run("[a]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nnumber_ios=100\nramp_time=1\n");
    expect(parsed.warnings.find((w) => /ramp_time/.test(w))).toMatch(/^r\.fio:7: ramp_time with a size or number_ios limit/);
  });
});
