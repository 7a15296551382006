// fio's bsrange=MIN-MAX: the block sizes a job issues and their odds, as
// fio's get_next_buflen() draws them (io_u.c, fio 3.39; see parseBsrange in
// bindings/workload/fio-jobfile.ts). Before, bsrange was warned about and
// ignored: every IO had the bs= size (4k).
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import type { DeviceSpec } from "../bindings/scenario/types.js";
import { InputError } from "../bindings/scenario/errors.js";

const dev: DeviceSpec = {
  name: "nvme0n1", devno: "259:0", kind: "ideal", channels: 4, nrRequests: 64, latencyNs: 0, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] }, write: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] } },
};
const parse = (lines: string[]) =>
  parseFioJobFile(["[j]", "filename=/dev/nvme0n1", "ioengine=libaio", "direct=1", ...lines, ""].join("\n"), "j.fio", { deviceSizes: { nvme0n1: 2 ** 30 } });

/** how many IOs of each size (bytes) a one-job file issues, by direction */
async function sizes(lines: string[]): Promise<{ R: Map<number, number>; W: Map<number, number>; offsets: number[] }> {
  const parsed = parse(lines);
  const result = await simulate(scenarioDefaults({ name: "bsrange", seed: 7, devices: [dev], jobs: parsed.jobs, record: true }));
  const out = { R: new Map<number, number>(), W: new Map<number, number>(), offsets: [] as number[] };
  for (const b of result.records!) {
    out[b.dir].set(b.size, (out[b.dir].get(b.size) ?? 0) + 1);
    out.offsets.push(b.off);
  }
  return out;
}

const K = 1024;

describe("bsrange", () => {
  it("4k-64k: each multiple of 4k up to 64k, each with odds 1/16", () => {
    const j = parse(["rw=randread", "bsrange=4k-64k"]).jobs[0]!;
    expect(j.bs).toEqual(Array.from({ length: 16 }, (_, i) => ({ size: (i + 1) * 4 * K, weight: 4 * K })));
    expect(parse(["rw=randread", "bsrange=4k-64k"]).warnings).toEqual([]);
    // blocksize_range is its alias, 4k:64k its other spelling, and a reversed pair is swapped, as fio's parser does
    for (const v of ["blocksize_range=4k-64k", "bsrange=4k:64k", "bsrange=64k-4k"]) expect(parse(["rw=randread", v]).jobs[0]!.bs).toEqual(j.bs);
  });

  it("a MAX that is not a multiple of MIN gets what the rounding down leaves (4k-10k: 4k 40 %, 8k 40 %, 10k 20 %)", () => {
    expect(parse(["rw=randread", "bsrange=4k-10k"]).jobs[0]!.bs).toEqual([
      { size: 4 * K, weight: 4 * K }, { size: 8 * K, weight: 4 * K }, { size: 10 * K, weight: 2 * K },
    ]);
  });

  it("the issued IOs follow the odds (20,000 IOs, each share within 1.5 points), and their offsets are aligned to MIN", async () => {
    const { R, offsets } = await sizes(["rw=randread", "bsrange=4k-10k", "iodepth=8", "number_ios=20000"]);
    expect(offsets.filter((o) => o % (4 * K) !== 0)).toEqual([]);
    const n = [...R.values()].reduce((a, b) => a + b, 0);
    expect(n).toBe(20000);
    expect([...R.keys()].sort((a, b) => a - b)).toEqual([4 * K, 8 * K, 10 * K]);
    expect(Math.abs(R.get(4 * K)! / n - 0.4)).toBeLessThan(0.015);
    expect(Math.abs(R.get(8 * K)! / n - 0.4)).toBeLessThan(0.015);
    expect(Math.abs(R.get(10 * K)! / n - 0.2)).toBeLessThan(0.015);
  });

  it("a wide range (512-1m: 2048 sizes) is drawn over all of them, mean size (MIN + MAX) / 2 to within 2 %", async () => {
    expect(parse(["rw=randread", "bsrange=512-1m"]).jobs[0]!.bs).toHaveLength(2048);
    const { R } = await sizes(["rw=randread", "bsrange=512-1m", "iodepth=8", "number_ios=20000", "io_size=64g"]);
    let n = 0;
    let bytes = 0;
    for (const [s, c] of R) {
      n += c;
      bytes += s * c;
      expect(s % 512).toBe(0);
    }
    expect(R.size).toBeGreaterThan(1500);
    expect(Math.abs(bytes / n / ((512 + 1024 * K) / 2) - 1)).toBeLessThan(0.02);
  });

  it("R,W ranges on a mix: reads and writes draw from their own; bs= is overridden", async () => {
    const j = parse(["rw=randrw", "bs=16k", "bsrange=4k-8k,32k-64k"]).jobs[0]!;
    expect(j.bs).toEqual([{ size: 4 * K, weight: 4 * K }, { size: 8 * K, weight: 4 * K }]);
    expect(j.bsWrite).toEqual([{ size: 32 * K, weight: 32 * K }, { size: 64 * K, weight: 32 * K }]);
    const { R, W } = await sizes(["rw=randrw", "bs=16k", "bsrange=4k-8k,32k-64k", "number_ios=4000"]);
    expect([...R.keys()].sort((a, b) => a - b)).toEqual([4 * K, 8 * K]);
    expect([...W.keys()].sort((a, b) => a - b)).toEqual([32 * K, 64 * K]);
  });

  it("rate_iops paces at MIN, as fio's rate_iops -> bytes at min_bs does", () => {
    expect(parse(["rw=randread", "bsrange=8k-64k", "rate_iops=100"]).jobs[0]!.pattern).toEqual({ kind: "rate", bps: 100 * 8 * K });
  });

  it("with bssplit, bssplit gives the sizes (as in fio) and bsrange is named in a warning", () => {
    const r = parse(["rw=randread", "bsrange=4k-64k", "bssplit=4k/50:16k/50"]);
    expect(r.jobs[0]!.bs).toEqual([{ size: 4 * K, weight: 50 }, { size: 16 * K, weight: 50 }]);
    expect(r.warnings).toEqual([expect.stringMatching(/^j\.fio:6: bsrange=4k-64k: bssplit= gives the block sizes/)]);
  });

  it("a value that is not a range is an error naming file, line and option", () => {
    for (const v of ["4k", "4k-", "-64k", "0-4k", "4k-lots"]) {
      let e: unknown;
      try {
        parse(["rw=randread", `bsrange=${v}`]);
      } catch (x) {
        e = x;
      }
      expect(e, v).toBeInstanceOf(InputError);
      expect(e).toMatchObject({ file: "j.fio", line: 6, field: "bsrange" });
    }
  });
});
