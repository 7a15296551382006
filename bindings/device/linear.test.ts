import { describe, expect, it } from "vitest";
import { AUTOP } from "../cgroup/iocost.js";
import {
  calcLcoefs,
  ioCostVtime,
  linearCurve,
  linearServiceNs,
  MODEL_ROWS,
  modelRow,
  parseBenchmarkModel,
  parseIoCostModelLine,
  VTIME_PER_SEC,
} from "./linear.js";
import { tableIops } from "./seed.js";

const SN730 = modelRow("wdc-sn730-256g")!.params;

describe("calc_lcoefs in vtime units", () => {
  it("WDC SN730 reads: page 242,800, randio 861,607, seqio 784,144", () => {
    // hand computation: ceil(2318575949/4096) = 566,059 pages/s;
    // page = ceil(2^37/566059) = 242,800; ceil(2^37/124446) = 1,104,407;
    // ceil(2^37/133833) = ceil(1,026,943.68) = 1,026,944
    const c = calcLcoefs(2318575949, 133833, 124446);
    expect(c).toEqual({ page: 242800n, seqio: 1026944n - 242800n, randio: 1104407n - 242800n });
  });

  it("an IOPS figure slower than one page of bandwidth gives a zero per-IO coefficient", () => {
    // 4096 B/s is one page per second = 2^37 vtime; 2 IOPS would be 2^36 < page
    expect(calcLcoefs(4096, 2, 0)).toEqual({ page: VTIME_PER_SEC, seqio: 0n, randio: 0n });
  });

  it("zero parameters zero their coefficient, as in the kernel", () => {
    expect(calcLcoefs(0, 0, 0)).toEqual({ page: 0n, seqio: 0n, randio: 0n });
  });
});

describe("service time per IO = per-IO cost + pages x page cost", () => {
  it("a 64 KiB random read on the SN730 model takes 34.53 µs", () => {
    const v = ioCostVtime(calcLcoefs(SN730.rbps, SN730.rseqiops, SN730.rrandiops), 65536, false);
    expect(v).toBe(861607n + 16n * 242800n);
    expect(linearServiceNs(SN730, "read", false, 65536)).toBeCloseTo((4746407 * 1e9) / 2 ** 37, 6);
    expect(linearServiceNs(SN730, "read", false, 65536)).toBeCloseTo(34534.66, 1);
  });

  it("a 4 KiB IO costs 1/iops; sub-page IOs cost a whole page", () => {
    for (const dir of ["read", "write"] as const) {
      const iops = dir === "read" ? SN730.rrandiops : SN730.wrandiops;
      expect(linearServiceNs(SN730, dir, false, 4096)).toBeCloseTo(1e9 / iops, 0);
      expect(linearServiceNs(SN730, dir, false, 512)).toBe(linearServiceNs(SN730, dir, false, 4096));
    }
  });

  it("the HDD class's 4 KiB random read is about 2.7 ms and a sequential one about 24 µs", () => {
    const hdd = Object.fromEntries(Object.entries(AUTOP.hdd.model).map(([k, v]) => [k, Number(v)])) as typeof SN730;
    expect(linearServiceNs(hdd, "read", false, 4096) / 1e3).toBeCloseTo(1e6 / 370, 0);
    expect(linearServiceNs(hdd, "read", true, 4096) / 1e3).toBeCloseTo(1e6 / 41708, 1);
  });

  it("the device table reproduces the model at every 4 KiB multiple up to 8 MiB", () => {
    for (const row of MODEL_ROWS) {
      const curve = linearCurve(row.params);
      for (const [dir, seq] of [["read", true], ["read", false], ["write", true], ["write", false]] as const) {
        const pts = curve[dir][seq ? "seq" : "rand"];
        for (let s = 4096; s <= 8 << 20; s += 4096 * 37) {
          expect(tableIops(pts, s) * linearServiceNs(row.params, dir, seq, s) / 1e9).toBeCloseTo(1, 9);
        }
      }
    }
  });
});

describe("model parameter sources", () => {
  it("parses an io.cost.model read-back line", () => {
    const r = parseIoCostModelLine(
      "259:0 ctrl=user model=linear rbps=2318575949 rseqiops=133833 rrandiops=124446 wbps=447984567 wseqiops=20139 wrandiops=15017",
    );
    expect(r).toEqual({ devno: "259:0", params: SN730 });
  });

  it("rejects unknown keys, other models and missing coefficients", () => {
    expect(() => parseIoCostModelLine("rbps=1 rseqiops=1 rrandiops=1 wbps=1 wseqiops=1")).toThrow(/wrandiops/);
    expect(() => parseIoCostModelLine("model=quadratic rbps=1")).toThrow(/linear/);
    expect(() => parseIoCostModelLine("rbps=1 foo=2")).toThrow(/foo/);
    expect(() => parseIoCostModelLine("rbps=1.5e9")).toThrow(/whole number/);
  });

  it("finds base_model in an iocost-benchmarks result", () => {
    const json = JSON.stringify([
      { spec: { kind: "iocost-tune" }, result: { base_model: { ...SN730 }, base_qos: { rpct: 95 }, solutions: {} } },
    ]);
    expect(parseBenchmarkModel(json)).toEqual(SN730);
    expect(() => parseBenchmarkModel(JSON.stringify([{ result: { base_qos: {} } }]))).toThrow(/base_model/);
  });

  it("the autop rows match the kernel's table", () => {
    const row = modelRow("autop-ssd-dfl")!.params;
    for (const [k, v] of Object.entries(AUTOP.ssd_dfl.model)) expect(BigInt(row[k as keyof typeof row])).toBe(v);
  });
});
