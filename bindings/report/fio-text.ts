// A RunResult written as fio's normal (human) output.
//
// Followed: fio stat.c show_thread_status_normal(), show_ddir_status(),
// display_lat(), show_clat_percentiles(), show_latencies()/show_lat() and
// show_group_stats(), with fio's defaults: kb_base 1024 (IEC units first,
// SI in parentheses), sig_figs 4, percentile_precision 2, clat percentiles
// on. Numbers go through fio's num2str() and glibc-style "%f" (cformat.ts),
// so the lines match fio's digit for digit for the same statistics. The
// "bw (  KiB/s):" and "iops        :" lines are fio's 500 ms samples
// (rateLines()); lines fio prints from data iosim does not measure (CPU)
// are printed with zeros; IO depths/submit/complete come from the core's
// per-job depth map (see depthDistribution() in fio-json.ts); slat is not printed (N = 0,
// as for fio's synchronous engines); the clock is opts.nowMs (default 0).
// As fio 3.39 (checked against its binary's output): write lines end with
// "; 0 zone resets", and each job ends with "latency   : target=0, window=0,
// percentile=100.00%, depth=<iodepth option>". "Disk stats (read/write):"
// follows the groups (stat.c print_disk_util, from fioDiskUtil()). Jobs read
// from a fio job file open with fio's start-up lines (init.c add_job(), one
// per job and "..." for its numjobs clones; then the version and backend.c
// run_threads()'s "Starting N processes"), e.g.
//   reader: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=4
//   iosim (fio-3.39)
//   Starting 1 process
// The version line names iosim, as the JSON's "fio version" does; fio's
// "Laying out IO file" lines (it creates the files) are not printed.
//
// Worked example (one 4 KiB random-read job, 10,000 IOs in 2000 ms, all
// latencies 1,000,000 ns):
//   job1: (groupid=0, jobs=1): err= 0: pid=0: Thu Jan  1 00:00:00 1970
//     read: IOPS=5000, BW=19.5MiB/s (20.5MB/s)(39.1MiB/2000msec)
//       clat (nsec): min=1000.0k, max=1000.0k, avg=1000000.00, stdev= 0.00
//        lat (nsec): min=1000.0k, max=1000.0k, avg=1000000.00, stdev= 0.00
//       clat percentiles (usec):
//        |  1.00th=[ 1004],  5.00th=[ 1004], 10.00th=[ 1004], 20.00th=[ 1004],
// (stdev 0 keeps nsec units: fio switches to usec only when stdev > 1000.)

import type { RunResult } from "../scenario/types.js";
import { N2S_BYTE, N2S_BYTEPERSEC, N2S_NONE, cFixed, cFixedW, num2str } from "./cformat.js";
import { DEPTH_BATCH_LABELS, DEPTH_LEVEL_LABELS, ctimeUtc, depthDistribution, fioDiskUtil, fioReportUnits, groupRunStats, percentOfAgg, rateStats, latencyDistribution, type FioJobInfo, type FioReportUnit } from "./fio-json.js";
import { FIO_DEFAULT_PERCENTILE_LIST, FIO_IO_U_PLAT_NR, percentilesFromPlat } from "./percentiles.js";

export interface FioTextOptions {
  jobs?: FioJobInfo[];
  nowMs?: number;
  /** the start-up block's version line (default "iosim (fio-3.39)") */
  fioVersion?: string;
}

export const DEFAULT_FIO_TEXT_VERSION = "iosim (fio-3.39)";

/**
 * fio's start-up lines for the jobs that carry them (FioJobInfo.startup):
 * "" when none does (jobs built without a job file).
 */
export function fioStartupText(jobs: FioJobInfo[], version = DEFAULT_FIO_TEXT_VERSION): string {
  let out = "";
  let threads = 0;
  let processes = 0;
  for (const j of jobs) {
    const st = j.startup;
    if (!st) continue;
    if (j.thread) threads++;
    else processes++;
    if (j.clone !== undefined && j.clone > 0) {
      if (j.clone === 1) out += "...\n";
      continue;
    }
    const sz = (n: number) => num2str(n, SIG_FIGS, 1, st.kbBase === 1024, N2S_BYTE);
    const [r, w, t] = st.bs;
    out += `${j.jobname}: (g=${j.groupid}): rw=${st.rw}, bs=(R) ${sz(r[0])}-${sz(r[1])}, (W) ${sz(w[0])}-${sz(w[1])}, (T) ${sz(t[0])}-${sz(t[1])}, ` +
      `ioengine=${st.ioengine}, iodepth=${st.iodepth}\n`;
  }
  if (out === "") return "";
  // backend.c run_threads(): "Starting 2 threads and 1 process"
  const parts: string[] = [];
  if (threads) parts.push(`${threads} thread${threads > 1 ? "s" : ""}`);
  if (processes) parts.push(`${processes} process${processes > 1 ? "es" : ""}`);
  return `${out}${version}\nStarting ${parts.join(" and ")}\n`;
}

const SIG_FIGS = 4;
const PRECISION = 2;

function displayLat(name: string, n: number, minIn: number, maxIn: number, meanIn: number, devIn: number): string {
  if (n === 0) return "";
  let min = minIn;
  let max = maxIn;
  let mean = meanIn;
  let dev = devIn;
  let base = "(nsec)";
  if (min > 2000000 && max > 99999999 && dev > 1000000.0) {
    min = Math.floor(min / 1000000);
    max = Math.floor(max / 1000000);
    mean /= 1000000.0;
    dev /= 1000000.0;
    base = "(msec)";
  } else if (min > 2000 && max > 99999 && dev > 1000.0) {
    min = Math.floor(min / 1000);
    max = Math.floor(max / 1000);
    mean /= 1000.0;
    dev /= 1000.0;
    base = "(usec)";
  }
  const minp = num2str(min, 6, 1, false, N2S_NONE);
  const maxp = num2str(max, 6, 1, false, N2S_NONE);
  return `    ${name} ${base}: min=${minp}, max=${maxp}, avg=${cFixedW(mean, 5, 2)}, stdev=${cFixedW(dev, 5, 2)}\n`;
}

function clatPercentiles(hist: ArrayLike<number>, n: number, list: readonly number[], pre: string): string {
  const ps = percentilesFromPlat(hist, list, n);
  if (ps.length === 0) return "";
  let minv = Infinity;
  let maxv = 0;
  for (const p of ps) {
    minv = Math.min(minv, p.ns);
    maxv = Math.max(maxv, p.ns);
  }
  let scaleDown = 0;
  let divisor = 1;
  let unit = "nsec";
  if (minv > 2000000 && maxv > 99999999) {
    scaleDown = 2;
    divisor = 1000000;
    unit = "msec";
  } else if (minv > 2000 && maxv > 99999) {
    scaleDown = 1;
    divisor = 1000;
    unit = "usec";
  }
  let out = `    ${pre} percentiles (${unit}):\n     |`;
  const timeWidth = Math.max(5, Math.trunc(Math.log10(Math.floor(maxv / divisor)) + 1));
  const perLine = Math.floor((80 - 7) / (PRECISION + 10 + timeWidth));
  for (let j = 0; j < ps.length; j++) {
    if (j !== 0 && j % perLine === 0) out += "     |";
    const last = j === ps.length - 1;
    let v = ps[j]!.ns;
    for (let i = 0; i < scaleDown; i++) v = Math.floor((v + 999) / 1000);
    out += ` ${cFixedW(ps[j]!.pct, PRECISION + 3, PRECISION)}th=[${String(v).padStart(timeWidth, " ")}]${last ? "\n" : ","}`;
    if (last) break;
    if (j % perLine === perLine - 1) out += "\n";
  }
  return out;
}

function showLat(pcts: Record<string, number>, msg: string): string {
  let out = "";
  let newLine = true;
  let shown = false;
  let line = 0;
  for (const [label, v] of Object.entries(pcts)) {
    if (v <= 0) continue;
    shown = true;
    if (newLine) {
      if (line) out += "\n";
      out += `  lat (${msg})   : `;
      newLine = false;
      line = 0;
    }
    if (line) out += ", ";
    out += `${label}=${cFixed(v, 2)}%`;
    line++;
    if (line === 5) newLine = true;
  }
  if (shown) out += "\n";
  return out;
}

/**
 * The end of show_ddir_status(): the bw samples in KiB/s (MiB/s once their
 * mean passes 1024 x 1024 KiB/s; min and max divided as integers), "per" the
 * share of the group's aggregate bandwidth, then the iops samples. Nothing
 * for a direction without samples (a job shorter than one 500 ms window).
 */
function rateLines(u: FioReportUnit, dir: "read" | "write", aggBytes: number): string {
  let out = "";
  const bw = rateStats(u[dir].bwS);
  if (bw) {
    const kb = u.info?.startup?.kbBase ?? 1024;
    let str = kb === 1000 ? "kB" : "KiB";
    const per = percentOfAgg(aggBytes, bw.mean);
    let { min, max, mean, dev } = bw;
    if (mean > kb * kb) {
      min = Math.trunc(min / kb);
      max = Math.trunc(max / kb);
      mean /= kb;
      dev /= kb;
      str = "MiB";
    }
    out += `   bw (${str.padStart(5)}/s): min=${String(min).padStart(5)}, max=${String(max).padStart(5)}, per=${cFixedW(per, 3, 2)}%, ` +
      `avg=${cFixedW(mean, 5, 2)}, stdev=${cFixedW(dev, 5, 2)}, samples=${u[dir].bwS.samples}\n`;
  }
  const io = rateStats(u[dir].iopsS);
  if (io) {
    out += `   iops        : min=${String(io.min).padStart(5)}, max=${String(io.max).padStart(5)}, ` +
      `avg=${cFixedW(io.mean, 5, 2)}, stdev=${cFixedW(io.dev, 5, 2)}, samples=${u[dir].iopsS.samples}\n`;
  }
  return out;
}

function ddirStatus(u: FioReportUnit, dir: "read" | "write", list: readonly number[], aggBytes = 0): string {
  const a = u[dir];
  const runt = Math.floor(a.runtimeMs);
  if (a.bytes === 0 || runt === 0) return "";
  const bw = Math.floor((1000 * a.bytes) / runt);
  const iops = Math.floor((1000 * a.ios) / runt);
  // fio 3.39 show_ddir_status(): writes and trims end with zbd_write_status()'s
  // "; %llu zone resets" whatever the device (fio 3.39 prints "; 0 zone resets"
  // on a regular file; later fio prints it only for zoned devices)
  const post = dir === "write" ? "; 0 zone resets" : "";
  let out = `  ${dir}: IOPS=${num2str(iops, SIG_FIGS, 1, false, N2S_NONE)}, BW=${num2str(bw, SIG_FIGS, 1, true, N2S_BYTEPERSEC)} ` +
    `(${num2str(bw, SIG_FIGS, 1, false, N2S_BYTEPERSEC)})(${num2str(a.bytes, SIG_FIGS, 1, true, N2S_BYTE)}/${runt}msec)${post}\n`;
  const dev = a.n > 1 ? Math.sqrt(a.S / (a.n - 1)) : 0;
  out += displayLat("clat", a.n, a.min, a.max, a.mean, dev);
  out += displayLat(" lat", a.n, a.min, a.max, a.mean, dev);
  out += clatPercentiles(a.hist, a.n, list, "clat");
  out += rateLines(u, dir, aggBytes);
  return out;
}

/** fio's normal output for a run. */
export function toFioText(result: RunResult, opts: FioTextOptions = {}): string {
  const units = fioReportUnits(result, opts.jobs);
  const time = ctimeUtc(opts.nowMs ?? 0);
  let out = fioStartupText(opts.jobs ?? [], opts.fioVersion) + "\n";
  for (const u of units) {
    if (u.read.bytes + u.write.bytes === 0 && u.read.ios + u.write.ios === 0) continue;
    const list = u.info?.percentiles ?? FIO_DEFAULT_PERCENTILE_LIST;
    out += `${u.jobname}: (groupid=${u.groupid}, jobs=${u.members.length}): err= 0: pid=0: ${time}\n`;
    out += ddirStatus(u, "read", list, groupRunStats(units, u.groupid, "read").agg);
    out += ddirStatus(u, "write", list, groupRunStats(units, u.groupid, "write").agg);
    const hist = new Float64Array(FIO_IO_U_PLAT_NR);
    for (let i = 0; i < hist.length; i++) hist[i] = u.read.hist[i]! + u.write.hist[i]!;
    const lat = latencyDistribution(hist, u.read.ios + u.write.ios);
    out += showLat(lat.ns, "nsec") + showLat(lat.us, "usec") + showLat(lat.ms, "msec");
    out += "  cpu          : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0\n";
    // fio 3.39 show_thread_status_normal(): "%3.1f%%" of stat_calc_dist()
    const depth = depthDistribution(u);
    const dist = (labels: string[], p: number[]) => labels.map((l, i) => `${l}=${cFixedW(p[i]!, 3, 1)}%`).join(", ");
    out += `  IO depths    : ${dist(DEPTH_LEVEL_LABELS, depth.level)}\n`;
    out += `     submit    : ${dist(DEPTH_BATCH_LABELS, depth.submit)}\n`;
    out += `     complete  : ${dist(DEPTH_BATCH_LABELS, depth.complete)}\n`;
    out += `     issued rwts: total=${u.read.ios},${u.write.ios},0,0 short=0,0,0,0 dropped=0,0,0,0\n`;
    // fio 3.39 show_thread_status_normal(): printed whenever ts->latency_depth
    // is set, i.e. always (td->latency_qd starts at the iodepth option);
    // latency_target is not modelled, so target and window are 0
    out += `     latency   : target=0, window=0, percentile=100.00%, depth=${u.latencyDepth}\n`;
  }
  // run status groups (show_group_stats)
  const groups = [...new Set(units.map((u) => u.groupid))].sort((a, b) => a - b);
  for (const g of groups) {
    out += `\nRun status group ${g} (all jobs):\n`;
    for (const dir of ["read", "write"] as const) {
      const { minRun, maxRun, minBw, maxBw, io, agg } = groupRunStats(units, g, dir);
      if (!maxRun) continue;
      const f = (v: number, p2: boolean, unit: number) => num2str(v, SIG_FIGS, 1, p2, unit);
      out += `${dir === "read" ? "   READ" : "  WRITE"}: bw=${f(agg, true, N2S_BYTEPERSEC)} (${f(agg, false, N2S_BYTEPERSEC)}), ` +
        `${f(minBw, true, N2S_BYTEPERSEC)}-${f(maxBw, true, N2S_BYTEPERSEC)} (${f(minBw, false, N2S_BYTEPERSEC)}-${f(maxBw, false, N2S_BYTEPERSEC)}), ` +
        `io=${f(io, true, N2S_BYTE)} (${f(io, false, N2S_BYTE)}), run=${minRun}-${maxRun}msec\n`;
    }
  }
  // stat.c show_disk_util / print_disk_util
  const disks = fioDiskUtil(result, opts.jobs);
  if (disks.length > 0) {
    out += "\nDisk stats (read/write):\n";
    for (const d of disks) {
      out += `  ${d.name}: ios=${d.read_ios}/${d.write_ios}, sectors=${d.read_sectors}/${d.write_sectors}, ` +
        `merge=${d.read_merges}/${d.write_merges}, ticks=${d.read_ticks}/${d.write_ticks}, in_queue=${d.in_queue}, util=${cFixedW(d.util, 3, 2)}%\n`;
      // iosim's addition: which device model served the run (its card: `iosim devices`)
      const model = result.devices?.find((x) => x.name === d.name)?.model;
      if (model) out += `    model: ${model}\n`;
    }
  }
  return out;
}
