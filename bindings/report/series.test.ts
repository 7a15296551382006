import { describe, expect, it } from "vitest";
import { SERIES_CSV_HEADER, denseSeries, toSeriesCsv, toSeriesJson } from "./series.js";
import { runResult } from "../../test/helpers/run-result.js";
import type { SeriesBin } from "../scenario/types.js";

const bin = (t0Ns: number, cgroup: string, dir: "read" | "write", ios: number, meanLatNs = 1000, p99LatNs = 2000): SeriesBin =>
  ({ t0Ns, cgroup, dir, ios, bytes: ios * 4096, meanLatNs, p99LatNs });

const r = runResult([], {
  seriesBinNs: 100_000_000,
  series: [bin(0, "b", "write", 3), bin(200_000_000, "a", "read", 25, 1500.5, 4096), bin(0, "a", "read", 10)],
});

describe("time series", () => {
  it("fills missing bins with zero IOs and null latency, series sorted by cgroup then direction", () => {
    const d = denseSeries(r);
    expect(d.t0Ns).toEqual([0, 100_000_000, 200_000_000]);
    expect(d.series.map((s) => [s.cgroup, s.dir, s.ios, s.meanLatNs])).toEqual([
      ["a", "read", [10, 0, 25], [1000, null, 1500.5]],
      ["b", "write", [3, 0, 0], [1000, null, null]],
    ]);
    expect(JSON.parse(toSeriesJson(r))).toEqual(d);
  });

  it("CSV rows carry per-second rates of each bin", () => {
    const rows = toSeriesCsv(r).trimEnd().split("\n");
    expect(rows[0]).toBe(SERIES_CSV_HEADER);
    expect(rows).toHaveLength(1 + 3 * 2);
    // 25 reads of 4 KiB in a 100 ms bin: 250 IOPS, 1,024,000 B/s
    expect(rows[5]).toBe("200000000,0.200,a,read,25,102400,250,1024000,1500.500,4096");
    expect(rows[2]).toBe("0,0,b,write,3,12288,30,122880,1000,2000");
    expect(rows[3]).toBe("100000000,0.100,a,read,0,0,0,0,,");
  });

  it("the root cgroup is '/' in the CSV (an empty field read back as missing, and a plot's groupby dropped the root's rows)", () => {
    const root = runResult([], { seriesBinNs: 10, series: [bin(0, "", "read", 1)] });
    expect(toSeriesCsv(root).split("\n")[1]).toBe("0,0,/,read,1,4096,100000000,409600000000,1000,2000");
    expect(denseSeries(root).series[0]!.cgroup).toBe("");
  });

  it("quotes cgroup names that need it and refuses a run without a series", () => {
    const q = runResult([], { seriesBinNs: 10, series: [bin(0, 'x,"y"', "read", 1)] });
    expect(toSeriesCsv(q).split("\n")[1]).toBe('0,0,"x,""y""",read,1,4096,100000000,409600000000,1000,2000');
    expect(() => toSeriesCsv(runResult([]))).toThrow(/no time series/);
  });
});
