// Time series of a run (RunResult.series) as CSV and as JSON.
//
// RunResult.series is sparse: one SeriesBin per (completion-time bin,
// cgroup, direction) that completed at least one IO. Both writers make it
// dense: every series (cgroup x direction that appears at all) gets every
// bin from 0 to the last one, with zero IOs where nothing completed, so a
// plot's x axis is regular. Rates are per second of the bin:
//     iops = ios * 1e9 / binNs,  bw_bytes = bytes * 1e9 / binNs
// Latencies of an empty bin are left empty (CSV) or null (JSON), not 0.
// The root cgroup is "/" in the CSV, as in the summary table: an empty field
// reads back as missing (pandas: NaN), and groupby() drops those rows; the
// JSON keeps the result's "" (a string there, never missing).
//
// Worked example (binNs = 100 ms): a bin holding 25 reads of 4096 bytes of
// cgroup "a" gives the CSV row
//   100000000,0.1,a,read,25,102400,250,1024000,<mean>,<p99>
// (t0_ns, t0_s, cgroup, dir, ios, bytes, iops, bw_bytes, ...).
// A run with buffered reads adds dev_ios,dev_bytes: the readahead bios of the
// cgroup completed in the bin (what io.stat counts), beside the application's
// reads in ios/bytes; a bin with bios but no read completed has ios 0 and
// empty latencies.

import type { RunResult, SeriesBin } from "../scenario/types.js";

export interface DenseSeries {
  cgroup: string;
  dir: "read" | "write";
  ios: number[];
  bytes: number[];
  /** null where the bin has no IO */
  meanLatNs: Array<number | null>;
  p99LatNs: Array<number | null>;
  /** with buffered reads (reads only): readahead bios completed and their bytes, io.stat's side */
  deviceIos?: number[];
  deviceBytes?: number[];
}

export interface SeriesJson {
  binNs: number;
  /** start of each bin, ns */
  t0Ns: number[];
  series: DenseSeries[];
}

function binNsOf(result: RunResult): number {
  if (result.seriesBinNs > 0) return result.seriesBinNs;
  throw new RangeError("the run has no time series (seriesBinNs = 0)");
}

/** Group the sparse bins into dense per-(cgroup, dir) arrays. */
export function denseSeries(result: RunResult): SeriesJson {
  const binNs = binNsOf(result);
  let nBins = 0;
  for (const b of result.series) nBins = Math.max(nBins, Math.floor(b.t0Ns / binNs) + 1);
  const keyOf = (b: SeriesBin) => `${b.cgroup}\u0000${b.dir}`;
  const map = new Map<string, DenseSeries>();
  const order: string[] = [];
  for (const b of result.series) {
    const k = keyOf(b);
    if (!map.has(k)) {
      map.set(k, {
        cgroup: b.cgroup, dir: b.dir, ios: new Array(nBins).fill(0), bytes: new Array(nBins).fill(0),
        meanLatNs: new Array(nBins).fill(null), p99LatNs: new Array(nBins).fill(null),
      });
      order.push(k);
    }
  }
  for (const b of result.series) {
    const s = map.get(keyOf(b))!;
    const i = Math.floor(b.t0Ns / binNs);
    s.ios[i] += b.ios;
    s.bytes[i] += b.bytes;
    if (b.deviceIos !== undefined) {
      s.deviceIos ??= new Array(nBins).fill(0);
      s.deviceBytes ??= new Array(nBins).fill(0);
      s.deviceIos[i] += b.deviceIos;
      s.deviceBytes![i] += b.deviceBytes ?? 0;
    }
    if (b.ios > 0) {
      s.meanLatNs[i] = b.meanLatNs;
      s.p99LatNs[i] = b.p99LatNs;
    }
  }
  order.sort((a, b) => {
    const [ca, da] = a.split("\u0000");
    const [cb, db] = b.split("\u0000");
    return ca! < cb! ? -1 : ca! > cb! ? 1 : da! < db! ? -1 : da! > db! ? 1 : 0;
  });
  return {
    binNs,
    t0Ns: Array.from({ length: nBins }, (_, i) => i * binNs),
    series: order.map((k) => map.get(k)!),
  };
}

/** JSON text of the dense series. */
export function toSeriesJson(result: RunResult): string {
  return JSON.stringify(denseSeries(result));
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}

export const SERIES_CSV_HEADER = "t0_ns,t0_s,cgroup,dir,ios,bytes,iops,bw_bytes,mean_lat_ns,p99_lat_ns";

/** With buffered reads, two more columns: the readahead bios (io.stat's side) of the row. */
export const SERIES_CSV_DEVICE_COLUMNS = "dev_ios,dev_bytes";

/** CSV, one row per bin per series, rows ordered by time then cgroup then direction. */
export function toSeriesCsv(result: RunResult): string {
  const d = denseSeries(result);
  const dev = d.series.some((x) => x.deviceIos !== undefined);
  const rows = [dev ? `${SERIES_CSV_HEADER},${SERIES_CSV_DEVICE_COLUMNS}` : SERIES_CSV_HEADER];
  for (let i = 0; i < d.t0Ns.length; i++) {
    const t0 = d.t0Ns[i]!;
    for (const s of d.series) {
      const ios = s.ios[i]!;
      const bytes = s.bytes[i]!;
      const mean = s.meanLatNs[i];
      const p99 = s.p99LatNs[i];
      rows.push([
        String(t0), num(t0 / 1e9), csvField(s.cgroup === "" ? "/" : s.cgroup), s.dir, String(ios), String(bytes),
        num((ios * 1e9) / d.binNs), num((bytes * 1e9) / d.binNs),
        mean === null || mean === undefined ? "" : num(mean), p99 === null || p99 === undefined ? "" : num(p99),
        ...(dev ? [String(s.deviceIos?.[i] ?? 0), String(s.deviceBytes?.[i] ?? 0)] : []),
      ].join(","));
    }
  }
  return rows.join("\n") + "\n";
}
