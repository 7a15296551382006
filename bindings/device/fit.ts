// Fitting a device from real fio runs (`iosim device fit FIO_JSON... -o dev.yaml`).
//
// Input: fio's `--output-format=json+` of one-direction jobs on one device
// (rw = read, randread, write or randwrite; several block sizes, queue depths
// and directions), each job's IOPS, completion latencies (clat) and latency
// histogram (`clat_ns.bins`: bucket value in ns -> count, what json+ adds).
//
// The model is the core's device (assembly/device/device.ts): `c` channels, c =
// the deepest run's iodepth (so no run queues inside the device, and deeper
// loads saturate at that run's IOPS); per direction and pattern a table of
// (size, IOPS with the device busy) points; at each point and each depth a
// run measured, that run's latency distribution (its clat histogram as factors
// of its mean at the quantiles FIT_U, the top one capped at the 99.99th
// percentile: one stray stall would otherwise set the mean of a few draws);
// and a depth curve m(q), a multiplier of a bio's time by the requests in
// flight. In a closed loop of depth q <= c a point of service time S (ns on
// one channel) runs at
//
//   IOPS(q) = q * 1e9 / (S * m(q))        (Little's law: S * m(q) is the mean latency)
//
// Fitting: solve log S per point and log m per depth (m = 1 at the smallest
// depth) by least squares of that equation in logs over all runs (alternating
// averages; exact when the runs link points and depths without a cycle), then
// simulate every run with the device. The report gives, per input run, the
// simulated IOPS, mean and p99 latency (fio's lat: submission to completion;
// with clat only, clat plus the mean slat) against the run's: how well the device reproduces it. Reproducing the
// runs it was fitted to is the least a fit must do; `heldOut` in the tests
// scores a run left out of the fit.
//
// Worked example (test/fixtures/fio/real, loop on tmpfs): random 4 KiB reads at
// QD 1, 4 and 16 ran at 8,171, 37,866 and 41,267 IOPS: S * m = 122.4, 105.6 and
// 387.7 us, so m(4) = 0.86 and m(16) = 3.17 against QD1 (the loaded host's
// two CPUs, not the device, saturate near 41k IOPS).
//
// Runs are simulated with the fio job's own bs, depth and a 1 GiB region (fio's
// size, when given); a time-based fio run's IO count is matched up to 40,000 IOs.

import { InputError } from "../scenario/errors.js";
import type { CurvePoints, DeviceCurve, DeviceSpec, PerTable, QuantileRow } from "../scenario/types.js";
import { parseSize } from "../workload/fio-units.js";
import { simulate } from "../engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import { devnoMajorFor, validateDeviceSpec } from "./presets.js";

/** One direction of one fio job. */
export interface FioRun {
  file: string;
  job: string;
  dir: "read" | "write";
  random: boolean;
  bs: number;
  iodepth: number;
  /** bytes the job's region covers (fio size=), default 1 GiB */
  regionBytes: number;
  iops: number;
  ios: number;
  /** fio's lat (submission to completion) mean */
  latMeanNs: number;
  /** what p50, p99 and bins are of: fio's lat (recorded with --lat_percentiles=1), or clat shifted by the mean slat */
  latKind: "lat" | "clat + mean slat";
  p50Ns: number;
  p99Ns: number;
  /** the latency histogram: [ns, count], ascending */
  bins: Array<[number, number]>;
  disk?: string;
}

/** The quantiles a fitted distribution keeps: every 2 % to 96 %, then the tail finely. */
export const FIT_U: readonly number[] = [
  ...Array.from({ length: 49 }, (_, k) => k / 50),
  0.97, 0.98, 0.985, 0.99, 0.9925, 0.995, 0.9975, 0.999, 0.9995, 0.9999, 1,
];
/** the quantile the top point (u = 1) takes */
const TOP_U = 0.9999;

/** The 1-based line of the first `"key"` in a JSON text at or after `from` (for error messages). */
function lineOf(text: string, key: string, from = 0): number {
  const i = text.indexOf(`"${key}"`, from);
  return i < 0 ? 1 : text.slice(0, i).split("\n").length;
}

/** Read fio json / json+ output: one FioRun per job direction with IO. */
export function readFioRuns(text: string, file: string): FioRun[] {
  // fio may print notes before the JSON (e.g. "note: both iodepth >= 1 and synchronous I/O engine")
  const start = text.indexOf("{");
  if (start < 0) throw new InputError("not fio JSON output (no '{'): record with fio --output-format=json+", file, 1);
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text.slice(start)) as Record<string, unknown>;
  } catch (e) {
    throw new InputError(`not valid JSON: ${(e as Error).message}`, file, text.slice(0, start).split("\n").length);
  }
  const jobs = j["jobs"];
  if (!Array.isArray(jobs) || jobs.length === 0) throw new InputError("no \"jobs\" array: not fio JSON output", file, lineOf(text, "jobs"), "jobs");
  const global = (j["global options"] ?? {}) as Record<string, string>;
  const disk = Array.isArray(j["disk_util"]) ? ((j["disk_util"] as Array<Record<string, unknown>>)[0]?.["name"] as string | undefined) : undefined;
  const runs: FioRun[] = [];
  let from = 0;
  for (const job of jobs as Array<Record<string, unknown>>) {
    const name = String(job["jobname"] ?? "?");
    const at = text.indexOf(`"jobname"`, from);
    from = at < 0 ? from : at + 1;
    const line = (k: string) => lineOf(text, k, Math.max(0, at));
    const opts = { ...global, ...((job["job options"] ?? {}) as Record<string, string>) };
    const rw = opts["rw"] ?? opts["readwrite"] ?? "read";
    const kinds: Record<string, ["read" | "write", boolean]> = { read: ["read", false], randread: ["read", true], write: ["write", false], randwrite: ["write", true] };
    const kind = kinds[rw];
    if (!kind) throw new InputError(`job "${name}": rw=${rw}: fit one direction per run (read, randread, write, randwrite)`, file, line("rw"), "rw");
    let bs = 4096;
    let regionBytes = 1 << 30;
    try {
      if (opts["bs"] !== undefined) bs = parseSize(String(opts["bs"]).split(",")[kind[0] === "read" ? 0 : 1] || String(opts["bs"]).split(",")[0]!);
      if (opts["size"] !== undefined && !String(opts["size"]).endsWith("%")) regionBytes = parseSize(String(opts["size"]));
    } catch (e) {
      throw new InputError(`job "${name}": ${(e as Error).message}`, file, line("bs"), "bs");
    }
    if (opts["bssplit"] !== undefined || opts["bsrange"] !== undefined) throw new InputError(`job "${name}": one block size per run (no bssplit / bsrange)`, file, line("bssplit"), "bssplit");
    const iodepth = Number(opts["iodepth"] ?? 1);
    if (!Number.isInteger(iodepth) || iodepth < 1) throw new InputError(`job "${name}": iodepth=${opts["iodepth"]} is not a whole number >= 1`, file, line("iodepth"), "iodepth");
    const d = job[kind[0]] as Record<string, unknown> | undefined;
    const ios = Number(d?.["total_ios"] ?? 0);
    if (!d || !(ios > 0)) throw new InputError(`job "${name}": no ${kind[0]} IO in the run`, file, line(kind[0]), kind[0]);
    // the distribution of lat (submission to completion: what iosim's latency is) when fio
    // kept it (--lat_percentiles=1), else clat's shifted by the mean submission latency
    const lat = d["lat_ns"] as Record<string, unknown> | undefined;
    const clat = d["clat_ns"] as Record<string, unknown> | undefined;
    const useLat = !!lat?.["bins"];
    const src = useLat ? lat : clat;
    const binsObj = src?.["bins"] as Record<string, number> | undefined;
    if (!binsObj || Object.keys(binsObj).length === 0) {
      throw new InputError(`job "${name}": no clat_ns.bins: record with fio --output-format=json+ (json has no latency histogram)`, file, line("clat_ns"), "clat_ns.bins");
    }
    const latMean = Number(lat?.["mean"] ?? clat?.["mean"]);
    const shift = useLat ? 0 : Math.max(0, latMean - Number(clat?.["mean"] ?? latMean));
    const bins = Object.entries(binsObj).map(([k, v]) => [Number(k) + shift, Number(v)] as [number, number]).filter(([k, v]) => k > 0 && v > 0).sort((a, b) => a[0] - b[0]);
    const pct = (src?.["percentile"] ?? {}) as Record<string, number>;
    runs.push({
      file, job: name, dir: kind[0], random: kind[1], bs, iodepth, regionBytes,
      iops: Number(d["iops"]), ios, latMeanNs: latMean, latKind: useLat ? "lat" : "clat + mean slat",
      p50Ns: Number(pct["50.000000"] ?? quantileOfBins(bins, 0.5)) + shift, p99Ns: Number(pct["99.000000"] ?? quantileOfBins(bins, 0.99)) + shift,
      bins, ...(disk ? { disk } : {}),
    });
  }
  return runs;
}

/** The u-quantile of a histogram (the first bin whose cumulative count reaches u of the total). */
export function quantileOfBins(bins: Array<[number, number]>, u: number): number {
  const total = bins.reduce((a, [, c]) => a + c, 0);
  const want = u * total;
  let cum = 0;
  for (const [v, c] of bins) {
    cum += c;
    if (cum >= want && cum > 0) return v;
  }
  return bins[bins.length - 1]![0];
}

/** A histogram as factors of its mean at FIT_U (trapezoid mean 1). */
export function distributionOf(bins: Array<[number, number]>): { u: number[]; factors: number[] } {
  const q = FIT_U.map((u) => quantileOfBins(bins, Math.min(u, TOP_U)));
  let mean = 0;
  for (let i = 1; i < q.length; i++) mean += ((q[i]! + q[i - 1]!) / 2) * (FIT_U[i]! - FIT_U[i - 1]!);
  return { u: [...FIT_U], factors: q.map((x) => x / mean) };
}

export interface FitRow {
  file: string;
  job: string;
  dir: "read" | "write";
  random: boolean;
  bs: number;
  iodepth: number;
  real: { iops: number; meanNs: number; p99Ns: number };
  sim: { iops: number; meanNs: number; p99Ns: number };
  /** relative errors (sim / real - 1) */
  err: { iops: number; mean: number; p99: number };
}

export interface FitResult {
  device: DeviceSpec;
  channels: number;
  rows: FitRow[];
  /** the worst |IOPS error| and |p99 error| over the runs */
  worst: { iops: number; p99: number };
  notes: string[];
}

const TABLES = [["read", "seq"], ["read", "rand"], ["write", "seq"], ["write", "rand"]] as const;
type Dir = "read" | "write";
type Pat = "seq" | "rand";
const key = (d: Dir, p: Pat) => `${d}.${p}`;

/** Simulate one fio run on a device: IOPS, mean and p99 clat. */
export function simulateRun(dev: DeviceSpec, r: FioRun, maxIos = 40_000, seed = 1): { iops: number; meanNs: number; p99Ns: number } {
  const count = Math.max(2000, Math.min(maxIos, r.ios));
  const res = simulate(scenarioDefaults({
    name: `fit ${r.job}`, seed, devices: [dev],
    jobs: [jobDefaults({
      name: r.job, device: dev.name, rw: r.dir, random: r.random, bs: [{ size: r.bs, weight: 1 }],
      iodepth: r.iodepth, count, regionLen: Math.max(r.bs, Math.min(r.regionBytes, dev.sizeBytes ?? r.regionBytes)), align: r.bs,
    })],
  }));
  const j = res.jobs[0]!;
  const d = r.dir === "read" ? j.read : j.write;
  return { iops: d.ios / ((j.lastDoneNs - j.firstSubmitNs) / 1e9), meanNs: d.lat.mean, p99Ns: d.lat.percentiles["99.000000"]! };
}

/** The device for `c` channels (design note above). */
function deviceFor(runs: FioRun[], c: number, base: Pick<DeviceSpec, "name" | "devno">, notes: string[] | undefined): DeviceSpec {
  // points: (table, size) -> runs; depths: the distinct iodepths
  const points = new Map<string, FioRun[]>();
  for (const r of runs) {
    const k = `${key(r.dir, r.random ? "rand" : "seq")}@${r.bs}`;
    points.set(k, [...(points.get(k) ?? []), r]);
  }
  const depths = [...new Set(runs.map((r) => r.iodepth))].sort((a, b) => a - b);
  const logS = new Map<string, number>();
  const logM = new Map<number, number>(depths.map((q) => [q, 0]));
  const target = (r: FioRun) => Math.log((Math.min(r.iodepth, c) * 1e9) / r.iops);
  for (let it = 0; it < 200; it++) {
    for (const [k, rs] of points) logS.set(k, rs.reduce((a, r) => a + target(r) - logM.get(r.iodepth)!, 0) / rs.length);
    for (const q of depths.slice(1)) {
      const rs = runs.filter((r) => r.iodepth === q);
      logM.set(q, rs.reduce((a, r) => a + target(r) - logS.get(`${key(r.dir, r.random ? "rand" : "seq")}@${r.bs}`)!, 0) / rs.length);
    }
  }
  const curve: Partial<Record<string, CurvePoints>> = {};
  const quant: Partial<Record<string, QuantileRow[]>> = {};
  for (const [k, rs] of points) {
    const [t, size] = k.split("@") as [string, string];
    const S = Math.exp(logS.get(k)!);
    (curve[t] ??= []).push([Number(size), (c * 1e9) / S]);
    for (const r of [...rs].sort((a, b) => a.iodepth - b.iodepth)) {
      if ((quant[t] ?? []).some((x) => x.size === Number(size) && x.depth === r.iodepth)) continue; // a repeat: the first run's
      (quant[t] ??= []).push({ size: Number(size), depth: r.iodepth, ...distributionOf(r.bins) });
    }
  }
  // tables without runs borrow: the same direction's other pattern, else the other direction's
  const full = {} as Record<string, CurvePoints>;
  const fullQ = {} as Record<string, QuantileRow[]>;
  for (const [d, p] of TABLES) {
    const order: Array<[Dir, Pat]> = [[d, p], [d, p === "seq" ? "rand" : "seq"], [d === "read" ? "write" : "read", p], [d === "read" ? "write" : "read", p === "seq" ? "rand" : "seq"]];
    const from = order.find(([dd, pp]) => curve[key(dd, pp)]);
    if (!from) throw new Error("no runs");
    if (notes && (from[0] !== d || from[1] !== p)) notes.push(`no ${d} ${p === "seq" ? "sequential" : "random"} run: that table is the ${from[0]} ${from[1] === "seq" ? "sequential" : "random"} one`);
    const src = key(from[0], from[1]);
    full[key(d, p)] = [...curve[src]!].sort((a, b) => a[0] - b[0]).map(([s, i]) => [s, i] as [number, number]);
    fullQ[key(d, p)] = quant[src]!.map((row) => ({ ...row }));
  }
  const pt = <T>(m: Record<string, T>): PerTable<T> => ({ read: { seq: m["read.seq"]!, rand: m["read.rand"]! }, write: { seq: m["write.seq"]!, rand: m["write.rand"]! } });
  const depth: Array<[number, number]> = depths.map((q) => [q, Math.exp(logM.get(q)!)]);
  const maxQ = Math.max(...depths);
  const dev: DeviceSpec = {
    name: base.name, devno: base.devno, kind: "fitted", channels: c, nrRequests: Math.max(128, maxQ), latencyNs: 0, jitterSigma: 0,
    maxSectorsKb: 1280, rotational: false, sizeBytes: Math.max(...runs.map((r) => r.regionBytes)),
    curve: pt(full) as DeviceCurve, shape: { quantiles: pt(fullQ), ...(depths.length > 1 ? { depth } : {}) },
  };
  validateDeviceSpec(dev);
  return dev;
}


/** Fit a device to fio runs and score it on each (design note above). */
export function fitDevice(runs: FioRun[], opts: { name?: string; devno?: string; maxIos?: number } = {}): FitResult {
  if (runs.length === 0) throw new RangeError("no runs to fit");
  const name = opts.name ?? runs.find((r) => r.disk)?.disk ?? "fitted0";
  // a devno that agrees with the name (loop0 -> 7:0, nvme0n1 -> 259:0, sdb -> 8:16), else 252:0
  const nameNo = /(\d+)(n\d+)?$/.exec(name);
  const maj = devnoMajorFor(name);
  const minor = /^sd([a-z])$/.test(name) ? (name.charCodeAt(2) - 97) * 16 : nameNo ? Number(nameNo[1]) : 0;
  const base = { name, devno: opts.devno ?? (maj ? `${maj.majors[0]}:${minor}` : "252:0") };
  const c = Math.max(...runs.map((r) => r.iodepth));
  const notes: string[] = [];
  const dev = deviceFor(runs, c, base, notes);
  const rows = runs.map((r): FitRow => {
    const sim = simulateRun(dev, r, opts.maxIos);
    const real = { iops: r.iops, meanNs: r.latMeanNs, p99Ns: r.p99Ns };
    return {
      file: r.file, job: r.job, dir: r.dir, random: r.random, bs: r.bs, iodepth: r.iodepth, real, sim,
      err: { iops: sim.iops / real.iops - 1, mean: sim.meanNs / real.meanNs - 1, p99: sim.p99Ns / real.p99Ns - 1 },
    };
  });
  const worst = { iops: Math.max(...rows.map((x) => Math.abs(x.err.iops))), p99: Math.max(...rows.map((x) => Math.abs(x.err.p99))) };
  const best: FitResult = { device: dev, channels: c, rows, worst, notes };
  const b = best;
  const files = [...new Set(runs.map((r) => r.file))];
  b.device.card = {
    model: `fitted from ${runs.length} fio run${runs.length === 1 ? "" : "s"} (${b.channels} channel${b.channels === 1 ? "" : "s"}, measured latency distributions per size and depth)`,
    what: [
      `fitted by iosim device fit: per table point and depth the runs' IOPS and clat histograms; a depth curve ${b.device.shape?.depth?.map(([q, m]) => `QD${q} x${m.toFixed(3)}`).join(", ") ?? "(one depth)"}`,
      `reproduces the runs within ${(b.worst.iops * 100).toFixed(1)} % IOPS and ${(b.worst.p99 * 100).toFixed(1)} % p99 (worst run)`,
    ],
    sources: files,
  };
  return b;
}

/** A fit as a device file (YAML; loadDeviceFile reads it back). */
export function fitYaml(f: FitResult): string {
  const d = f.device;
  const lines: string[] = [];
  lines.push(`# iosim device fit: ${f.rows.length} run(s), ${f.channels} channel(s); worst IOPS error ${(f.worst.iops * 100).toFixed(1)} %, worst p99 error ${(f.worst.p99 * 100).toFixed(1)} %`);
  for (const r of f.rows) lines.push(`#   ${fitRowText(r)}`);
  lines.push(`name: ${d.name}`);
  lines.push(`devno: "${d.devno}"`);
  lines.push(`kind: fitted`);
  lines.push(`channels: ${d.channels}`);
  lines.push(`nr_requests: ${d.nrRequests}`);
  lines.push(`max_sectors_kb: ${d.maxSectorsKb}`);
  lines.push(`rotational: false`);
  const num = (x: number) => Number(x.toPrecision(6));
  const tbl = <T>(get: (d: Dir, p: Pat) => T, fmt: (v: T) => string) =>
    (["read", "write"] as const).map((dir) => `  ${dir}:\n` + (["seq", "rand"] as const).map((p) => `    ${p}: ${fmt(get(dir, p))}`).join("\n")).join("\n");
  lines.push("points:");
  lines.push(tbl((dir, p) => d.curve[dir][p], (pts) => JSON.stringify(pts.map(([s, i]) => [s, num(i)]))));
  lines.push("quantiles:");
  lines.push(tbl((dir, p) => d.shape!.quantiles![dir][p], (rows) => "\n" + rows.map((r) => `      - size: ${r.size}\n        depth: ${r.depth ?? 1}\n        u: ${JSON.stringify(r.u)}\n        factors: ${JSON.stringify(r.factors.map(num))}`).join("\n")));
  if (d.shape?.depth) lines.push(`depth: ${JSON.stringify(d.shape.depth.map(([q, m]) => [q, num(m)]))}`);
  lines.push("card:");
  lines.push(`  model: ${JSON.stringify(d.card!.model)}`);
  lines.push(`  what: ${JSON.stringify(d.card!.what)}`);
  lines.push(`  sources: ${JSON.stringify(d.card!.sources)}`);
  return lines.join("\n") + "\n";
}

const us = (ns: number) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} us`);
const pc = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;

export function fitRowText(r: FitRow): string {
  return `${r.job} (${r.random ? "rand" : "seq"}${r.dir} bs=${r.bs} QD${r.iodepth}): IOPS ${Math.round(r.real.iops)} -> ${Math.round(r.sim.iops)} (${pc(r.err.iops)}), ` +
    `mean ${us(r.real.meanNs)} -> ${us(r.sim.meanNs)} (${pc(r.err.mean)}), p99 ${us(r.real.p99Ns)} -> ${us(r.sim.p99Ns)} (${pc(r.err.p99)})`;
}
