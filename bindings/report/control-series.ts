// The controllers' own series over a run, bin by bin beside the IO series
// (series.ts): what the playground charts of blk-throttle and blk-iocost,
// for series.csv / series.json.
//
//  * blk-throttle, per cgroup and direction: `queued`, the bios held in
//    blk-throttle at the bin's end (submitted, not yet released: the
//    throttle queue's depth), and `waitNs`, the mean wait of the bios that
//    left blk-throttle in the bin (those that passed at once count with 0,
//    so the bins' waits weighted by their bios add up to the summary's
//    "throttled ... avg" times the IOs). From the run's per-bio records
//    (Simulation.recordTimes()).
//  * blk-iocost: `vratePct`, the device's vrate at the bin's end in % (100 %
//    runs the device at its cost model's speed; iocost_ioc_vrate_adj, the
//    playground's "iocost vrate" chart), and per cgroup `hweightInusePct`,
//    the last hweight_inuse an iocost tracepoint reported by the bin's end
//    (activate/idle: hweight=INUSE/ACTIVE; shortage/transfer/adjust:
//    hw_inuse=OLD->NEW), in % of the device. Empty before the first report.
//
// Worked example (binNs = 100 ms): a bio of cgroup "capped" submitted at
// 150 ms and released at 420 ms counts in `queued` at the ends of bins 1, 2
// and 3 (200, 300 and 400 ms) and adds 270 ms to bin 4's wait (400-500 ms).

/** The iocost trace fields read here (engine/modules/iocost.ts IocostTraceEvent) */
export interface IocostTracePoint {
  event: string;
  tNs: number;
  dev: string;
  cgroup?: string;
  [field: string]: unknown;
}

export interface RecordTimes {
  cgroup: Int32Array;
  /** 1 = write */
  write: Uint8Array;
  submitNs: BigInt64Array;
  releaseNs: BigInt64Array;
  cgroupPaths: readonly string[];
}

export interface ThrottleSeries {
  queued: number[];
  /** null where no bio left blk-throttle in the bin */
  waitNs: Array<number | null>;
}

export interface ControlSeries {
  /** blk-throttle, keyed `${cgroup}\u0000${dir}` as series.ts keys its series ("" = root) */
  throttle?: Map<string, ThrottleSeries>;
  /** the device whose vrate vratePct is (the first with iocost_ioc_vrate_adj) */
  vrateDev?: string;
  vratePct?: Array<number | null>;
  /** cgroup ("" = root) -> hweight_inuse in % at each bin's end */
  hweightInusePct?: Map<string, Array<number | null>>;
}

/** vtime per µs at vrate 100 % (blk-iocost.c VTIME_PER_USEC) */
const VTIME_PER_USEC = 137438;
/** WEIGHT_ONE: hweights are fractions of 65536 */
const WEIGHT_ONE = 65536;

export const throttleKey = (cgroup: string, dir: "read" | "write") => `${cgroup}\u0000${dir}`;

/** blk-throttle's queue depth and wait per bin, from per-bio submit/release times. */
export function throttleSeries(rec: RecordTimes, binNs: number, nBins: number): Map<string, ThrottleSeries> {
  const out = new Map<string, ThrottleSeries>();
  const waitSum = new Map<string, number[]>();
  const count = new Map<string, number[]>();
  const diff = new Map<string, number[]>();
  const bin = BigInt(binNs);
  for (let i = 0; i < rec.cgroup.length; i++) {
    const k = throttleKey(rec.cgroupPaths[rec.cgroup[i]!] ?? "", rec.write[i] ? "write" : "read");
    let d = diff.get(k);
    if (!d) {
      diff.set(k, (d = new Array(nBins + 1).fill(0)));
      waitSum.set(k, new Array(nBins).fill(0));
      count.set(k, new Array(nBins).fill(0));
    }
    const sub = rec.submitNs[i]!,
      rel = rec.releaseNs[i]!;
    const b = Math.min(nBins - 1, Number(rel / bin));
    waitSum.get(k)![b] += Number(rel - sub);
    count.get(k)![b]++;
    if (rel > sub) {
      // held at the end of bin j, (j + 1) * binNs, when sub <= end < rel
      const from = Number((sub + bin - 1n) / bin) - 1; // first j with end >= sub
      const to = Number((rel + bin - 1n) / bin) - 1; // first j with end >= rel (excluded)
      const lo = Math.max(0, from),
        hi = Math.min(nBins, to);
      if (lo < hi) {
        d[lo]++;
        d[hi]--;
      }
    }
  }
  for (const [k, d] of diff) {
    const queued: number[] = new Array(nBins);
    let run = 0;
    for (let j = 0; j < nBins; j++) queued[j] = run += d[j]!;
    const ws = waitSum.get(k)!,
      n = count.get(k)!;
    out.set(k, { queued, waitNs: ws.map((w, j) => (n[j]! > 0 ? w / n[j]! : null)) });
  }
  return out;
}

/** blk-iocost's vrate and each cgroup's hweight_inuse at each bin's end, from its tracepoints. */
export function iocostSeries(
  trace: readonly IocostTracePoint[],
  binNs: number,
  nBins: number,
): Pick<ControlSeries, "vrateDev" | "vratePct" | "hweightInusePct"> {
  const ends = Array.from({ length: nBins }, (_, j) => (j + 1) * binNs);
  /** the value of the last of `events` (in time order) at or before each bin's end */
  const stepped = <E extends IocostTracePoint>(events: E[], valueAt: (e: E) => number, before?: number): Array<number | null> => {
    const out: Array<number | null> = [];
    let k = 0;
    let v: number | null = before ?? null;
    for (const t of ends) {
      while (k < events.length && events[k]!.tNs <= t) v = valueAt(events[k++]!);
      out.push(v);
    }
    return out;
  };
  const res: Pick<ControlSeries, "vrateDev" | "vratePct" | "hweightInusePct"> = {};
  const vr = trace.filter((e) => e.event === "iocost_ioc_vrate_adj");
  if (vr.length) {
    const dev = vr[0]!.dev;
    const mine = vr.filter((e) => e.dev === dev);
    const pct = (v: number) => (v * 100) / VTIME_PER_USEC;
    res.vrateDev = dev;
    res.vratePct = stepped(mine, (e) => pct((e.vrate as number[])[1]!), pct((mine[0]!.vrate as number[])[0]!));
  }
  const hw = trace.filter((e) => e.cgroup !== undefined && (Array.isArray(e.hweight) || Array.isArray(e.hw_inuse)));
  if (hw.length) {
    res.hweightInusePct = new Map();
    for (const cg of [...new Set(hw.map((e) => e.cgroup!))]) {
      const mine = hw.filter((e) => e.cgroup === cg);
      res.hweightInusePct.set(
        cg.replace(/^\//, ""),
        stepped(mine, (e) => ((Array.isArray(e.hweight) ? (e.hweight as number[])[0]! : (e.hw_inuse as number[])[1]!) * 100) / WEIGHT_ONE),
      );
    }
  }
  return res;
}
