// fio's IO depth distribution (io_u_map, io_u_mark_depth() in fio 3.39
// io_u.c) measured by the core, through `iosim run`'s fio report. Reference:
// fio 3.39 on a 16 MiB file, 4 KiB randread, 4096 IOs:
//   ioengine=psync:                 IO depths : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, ...
//   ioengine=io_uring iodepth=8:    IO depths : 1=0.1%, 2=0.1%, 4=0.1%, 8=99.8%, ...
//                                   submit    : 0=0.0%, 4=100.0%, ...
// (the ramp: one IO at depth 1, two at 2-3, four at 4-7, then 4089 at 8;
// fio's iodepth_level "8" : 99.829102 = 100 * 4089 / 4096).
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import { toFioJson } from "../bindings/report/fio-json.js";
import { toFioText } from "../bindings/report/fio-text.js";
import { fixedDevice } from "./engine/helpers.js";

const dev = fixedDevice(100_000, 4, 64, { name: "vda" });

function run(opts: string) {
  const text = `[job1]\nfilename=/dev/vda\ndirect=1\nrw=randread\nbs=4k\nsize=16m\n${opts}\n`;
  const parsed = parseFioJobFile(text, "depth.fio", { deviceSizes: { vda: 2 ** 33 } });
  const r = simulate(scenarioDefaults({ name: "depth", devices: [dev], jobs: parsed.jobs }));
  return { r, meta: parsed.meta };
}

describe("fio IO depth distribution", () => {
  it("psync: every IO is submitted at depth 1, as fio 3.39 prints (1=100.0%)", () => {
    const { r, meta } = run("ioengine=psync");
    expect(r.jobs[0]!.depth).toEqual([4096, 0, 0, 0, 0, 0, 0]);
    const text = toFioText(r, { jobs: meta });
    expect(text).toContain("  IO depths    : 1=100.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n");
    expect(text).toContain("     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n");
    expect(text).toContain("     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n");
  });

  it("libaio iodepth=8: the ramp 1, 2-3, 4-7, then the rest at 8, as fio 3.39 prints it", () => {
    const { r, meta } = run("ioengine=libaio\niodepth=8");
    expect(r.jobs[0]!.depth).toEqual([1, 2, 4, 4089, 0, 0, 0]);
    expect(toFioText(r, { jobs: meta })).toContain(
      "  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=99.8%, 16=0.0%, 32=0.0%, >=64=0.0%\n");
    const j = toFioJson(r, { jobs: meta }).jobs[0]!;
    expect(j.iodepth_level).toEqual({ "1": 0.1, "2": 0.1, "4": 0.1, "8": (100 * 4089) / 4096, "16": 0, "32": 0, ">=64": 0 });
    expect(j.iodepth_submit["4"]).toBe(100);
    expect(j.iodepth_complete["4"]).toBe(100);
  });

  it("iodepth=100 fills fio's >=64 bucket (its 64-99 depths) after the ramp", () => {
    const { r } = run("ioengine=libaio\niodepth=100");
    // 1, 2-3, 4-7, 8-15, 16-31, 32-63 during the ramp: 1+2+4+8+16+32 = 63
    expect(r.jobs[0]!.depth).toEqual([1, 2, 4, 8, 16, 32, 4096 - 63]);
  });
});
