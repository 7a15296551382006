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

// The controllers' series (control-series.ts) join as more fields and
// columns when the caller has them (iosim run reads them from the run):
// blk-throttle's queue depth and wait, `throttle_queued,throttle_wait_ns`,
// when a cgroup has io.max; blk-iocost's `vrate_pct,hweight_inuse_pct` when
// io.cost ran.

import type { RunResult, SeriesBin } from "../scenario/types.js";
import { throttleKey, type ControlSeries } from "./control-series.js";

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
  /** blk-throttle: bios held at the bin's end, and the mean wait of those released in it (control-series.ts) */
  throttleQueued?: number[];
  throttleWaitNs?: Array<number | null>;
  /** blk-iocost: the cgroup's hweight_inuse in % at the bin's end (null before its first report) */
  hweightInusePct?: Array<number | null>;
}

export interface SeriesJson {
  binNs: number;
  /** start of each bin, ns */
  t0Ns: number[];
  series: DenseSeries[];
  /** blk-iocost: vrate in % at each bin's end, of device vrateDev */
  vrateDev?: string;
  vratePct?: Array<number | null>;
}

function binNsOf(result: RunResult): number {
  if (result.seriesBinNs > 0) return result.seriesBinNs;
  throw new RangeError("the run has no time series (seriesBinNs = 0)");
}

/** Group the sparse bins into dense per-(cgroup, dir) arrays. */
export function denseSeries(result: RunResult, control?: ControlSeries): SeriesJson {
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
  const series = order.map((k) => map.get(k)!);
  if (control?.throttle) {
    for (const x of series) {
      const t = control.throttle.get(throttleKey(x.cgroup, x.dir));
      x.throttleQueued = t ? t.queued.slice(0, nBins) : new Array(nBins).fill(0);
      x.throttleWaitNs = t ? t.waitNs.slice(0, nBins) : new Array(nBins).fill(null);
    }
  }
  if (control?.hweightInusePct) {
    for (const x of series) x.hweightInusePct = (control.hweightInusePct.get(x.cgroup) ?? new Array(nBins).fill(null)).slice(0, nBins);
  }
  return {
    binNs,
    t0Ns: Array.from({ length: nBins }, (_, i) => i * binNs),
    series,
    ...(control?.vratePct ? { vrateDev: control.vrateDev, vratePct: control.vratePct.slice(0, nBins) } : {}),
  };
}

/** the number of bins denseSeries gives a run (for control-series.ts) */
export function seriesBinCount(result: RunResult): number {
  const binNs = binNsOf(result);
  let nBins = 0;
  for (const b of result.series) nBins = Math.max(nBins, Math.floor(b.t0Ns / binNs) + 1);
  return nBins;
}

/** JSON text of the dense series. */
export function toSeriesJson(result: RunResult, control?: ControlSeries): string {
  return JSON.stringify(denseSeries(result, control));
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

/** With io.max on a cgroup: blk-throttle's queue depth at the bin's end and the mean wait of the bios it released in the bin. */
export const SERIES_CSV_THROTTLE_COLUMNS = "throttle_queued,throttle_wait_ns";

/** With io.cost: the device's vrate and the row's cgroup's hweight_inuse, in %, at the bin's end. */
export const SERIES_CSV_IOCOST_COLUMNS = "vrate_pct,hweight_inuse_pct";

/** CSV, one row per bin per series, rows ordered by time then cgroup then direction. */
export function toSeriesCsv(result: RunResult, control?: ControlSeries): string {
  const d = denseSeries(result, control);
  const dev = d.series.some((x) => x.deviceIos !== undefined);
  const thr = d.series.some((x) => x.throttleQueued !== undefined);
  const ioc = d.vratePct !== undefined || d.series.some((x) => x.hweightInusePct !== undefined);
  const opt = (v: number | null | undefined) => (v === null || v === undefined ? "" : num(v));
  const rows = [[SERIES_CSV_HEADER, ...(dev ? [SERIES_CSV_DEVICE_COLUMNS] : []), ...(thr ? [SERIES_CSV_THROTTLE_COLUMNS] : []),
    ...(ioc ? [SERIES_CSV_IOCOST_COLUMNS] : [])].join(",")];
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
        ...(thr ? [String(s.throttleQueued?.[i] ?? 0), opt(s.throttleWaitNs?.[i])] : []),
        ...(ioc ? [opt(d.vratePct?.[i]), opt(s.hweightInusePct?.[i])] : []),
      ].join(","));
    }
  }
  return rows.join("\n") + "\n";
}
