// fio's rate options through the simulator, measured as fio would report
// them. Reference runs of the same job files on fio 3.33 and 3.39
// (ioengine=null, 10 s): rate_iops=100 with bssplit=4k/50:64k/50 read
// 403 KiB/s at 13 IOPS; rate_iops=100,50 with bssplit=8k/50:64k/50,16k/50:128k/50
// read 805 KiB/s and wrote 802 KiB/s; rate with rate_iops: "fio: rate and
// rate_iops are mutually exclusive", and no job runs.
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import { InputError } from "../bindings/scenario/errors.js";
import { fixedDevice } from "./engine/helpers.js";

const KiB = 1024;
// 4 channels of 100 us: 40,000 IOPS, far above every cap here
const dev = fixedDevice(100_000, 4, 64, { name: "vda" });

function run(opts: string) {
  const text = `[a]\nfilename=/dev/vda\nioengine=libaio\ndirect=1\niodepth=4\nsize=1g\nruntime=20\ntime_based\n${opts}\n`;
  const parsed = parseFioJobFile(text, "rate.fio", { deviceSizes: { vda: 2 ** 33 } });
  const j = simulate(scenarioDefaults({ name: "rate", devices: [dev], jobs: parsed.jobs })).jobs[0]!;
  const s = j.runtimeMs / 1e3;
  return { readKiBs: j.read.bytes / KiB / s, writeKiBs: j.write.bytes / KiB / s, readIops: j.read.ios / s, writeIops: j.write.ios / s };
}

describe("fio rate pacing", () => {
  it("rate_iops=100 with bssplit=4k/50:64k/50 runs at fio's byte rate 100 x 4 KiB/s, ~12 IOPS (counting IOs gave 3.4 MiB/s)", () => {
    const r = run("rw=randread\nbssplit=4k/50:64k/50\nrate_iops=100");
    expect(Math.abs(r.readKiBs / 400 - 1)).toBeLessThan(0.02);
    expect(r.readIops).toBeGreaterThan(10);
    expect(r.readIops).toBeLessThan(14);
  });

  it("a mixed job's rate_iops=100,50 converts each direction at its own smallest size: 100 x 8 KiB and 50 x 16 KiB", () => {
    const r = run("rw=randrw\nbssplit=8k/50:64k/50,16k/50:128k/50\nrate_iops=100,50");
    expect(Math.abs(r.readKiBs / 800 - 1)).toBeLessThan(0.02);
    expect(Math.abs(r.writeKiBs / 800 - 1)).toBeLessThan(0.02);
  });

  it("a bssplit entry of 0% still sets min_bs: rate_iops=100 with 4k/0:64k/100 is 400 KiB/s of 64 KiB IOs", () => {
    const r = run("rw=randread\nbssplit=4k/0:64k/100\nrate_iops=100");
    expect(Math.abs(r.readKiBs / 400 - 1)).toBeLessThan(0.02);
    expect(Math.abs(r.readIops - 400 / 64)).toBeLessThan(0.2);
  });

  it("one block size: rate_iops=200 of 4 KiB is 200 IOPS, 800 KiB/s", () => {
    const r = run("rw=randread\nbs=4k\nrate_iops=200");
    expect(Math.abs(r.readIops / 200 - 1)).toBeLessThan(0.01);
    expect(Math.abs(r.readKiBs / 800 - 1)).toBeLessThan(0.01);
  });

  it("rate=0 is fio's default, no cap (it was refused: 'bps must be > 0'); rate=1m,0 on a mix caps the reads alone", () => {
    const free = run("rw=randread\nbs=4k");
    const zero = run("rw=randread\nbs=4k\nrate=0");
    expect(zero.readIops).toBe(free.readIops);
    expect(zero.readIops).toBeGreaterThan(30_000);
    const mix = run("rw=randrw\nbs=4k\nrate=1m,0");
    expect(Math.abs(mix.readKiBs / 1024 - 1)).toBeLessThan(0.02);
    expect(mix.writeKiBs).toBeGreaterThan(10 * 1024);
    expect(run("rw=randread\nbs=4k\nrate_iops=0").readIops).toBe(free.readIops);
  });

  it("rate=1m with rate_iops=10 on bs=4k does not run: fio refuses it (it ran at both caps, 40 KiB/s)", () => {
    for (const opts of ["rw=randread\nbs=4k\nrate=1m\nrate_iops=10", "rw=randrw\nbs=4k\nrate=1m,\nrate_iops=,50"]) {
      let err: unknown;
      try {
        run(opts);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect(err).toMatchObject({ file: "rate.fio", line: 12, field: "rate_iops" });
      expect((err as Error).message).toMatch(/rate and rate_iops are mutually exclusive/);
    }
  });
});
