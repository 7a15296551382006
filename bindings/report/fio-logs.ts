// fio's per-job logs (write_bw_log, write_lat_log, write_iops_log, with
// log_avg_msec), written as fio 3.39 writes them, from the run's per-bio records.
//
// Files (init.c gen_log_name()): PREFIX_TYPE.N.log with per_job_logs (the
// default), PREFIX_TYPE.log without; PREFIX is the option's value, or the job's
// name when it has none (make_log_name()); N is fio's thread_number, the job's
// 1-based place among all jobs of the file, clones included. write_lat_log
// makes three: _lat (submission to completion), _clat (issue to completion)
// and _slat (submission to issue).
//
// Lines (iolog.c flush_samples()): "time, value, ddir, bs, prio" with time in
// ms since the job's start (mtime_since_now(&td->epoch): whole ms, truncated),
// ddir 0 read / 1 write, prio 0 (ioprio_value_is_class_rt of no priority).
//
// Without log_avg_msec every IO adds a line at its completion
// (io_u.c account_io_completion(), stat.c add_log_sample() with avg_msec 0):
//   lat/clat/slat  the IO's latency in ns, bs = its size;
//   bw             bytes * 1000000 / clat_ns (stat.c add_bw_sample()), bs = its size;
//   iops           1, bs = its size.
// With log_avg_msec = M:
//   lat/clat/slat  each IO's value goes into its direction's window; at an IO
//                  completing M ms or more after the window's start the window's
//                  mean + 0.5, truncated, is written at that IO's time and the
//                  next window starts at that time rounded down to M
//                  (add_log_sample(); these logs are "inline": no slack); at
//                  the job's end what is left is written (finalize_logs());
//   bw / iops      fio's helper samples the job every M ms (init.c sets
//                  bw_avg_time / iops_avg_time to M) and logs each sample:
//                  KiB/s (bytes * 1000 / M / 1024) or IO/s (ios * 1000 / M) of
//                  the window, at its end, bs = the job's block size when it has
//                  one (min_bs == max_bs), else 0; a direction without IO in a
//                  window has no line (stat.c __add_samples()). Windows are
//                  exact here; fio's helper wakes a few ms late now and then.
// iosim has no submission CPU: slat is 0 and clat equals lat.
//
// Worked example: a 4 KiB randread job, log_avg_msec unset, whose IOs complete
// at 0.131, 0.262, 1.4 ms after its start with latencies 131,000, 131,000,
// 1,138,000 ns: job_lat.1.log is "0, 131000, 0, 4096, 0", "0, 131000, 0,
// 4096, 0", "1, 1138000, 0, 4096, 0"; job_bw.1.log has 4096 * 1e6 / 131000 =
// 31267 for the first two.

import type { BioRecord, JobResult, RunResult } from "../scenario/types.js";

export interface FioLogOptions {
  /** the job's name (JobResult.name / JobSpec.name) */
  spec: string;
  /** fio's job name (the prefix when an option has no value) */
  jobname: string;
  /** fio's thread_number: 1-based among the file's jobs */
  threadNumber: number;
  bw?: string;
  lat?: string;
  iops?: string;
  /** log_avg_msec (0: a line per IO) */
  avgMsec: number;
  /** per_job_logs (default true) */
  perJob: boolean;
  /** the job's block size when it has one (fio's min_bs == max_bs) */
  fixedBs?: number;
}

const line = (t: number, v: number, ddir: number, bs: number) => `${t}, ${v}, ${ddir}, ${bs}, 0\n`;

/** The log files of one job: file name -> text. */
export function fioJobLogs(result: RunResult, o: FioLogOptions): Map<string, string> {
  const out = new Map<string, string>();
  const job = result.jobs.find((j) => j.name === o.spec);
  if (!job) return out;
  // (with ramp_time, job.startNs is the ramp's end: fio logs nothing before it)
  const recs = (result.records ?? []).filter((r) => r.job === o.spec && !r.readahead && r.completeNs >= job.startNs).sort((a, b) => a.completeNs - b.completeNs || a.seq - b.seq);
  const name = (prefix: string, type: string) => (o.perJob ? `${prefix}_${type}.${o.threadNumber}.log` : `${prefix}_${type}.log`);
  const ms = (ns: number) => Math.floor((ns - job.startNs) / 1e6);
  const ddir = (r: BioRecord) => (r.dir === "W" ? 1 : 0);
  const endMs = ms(Math.max(job.lastDoneNs, job.startNs));
  if (o.lat !== undefined) {
    const prefix = o.lat || o.jobname;
    const lat = (r: BioRecord) => r.completeNs - r.submitNs;
    out.set(name(prefix, "lat"), inlineLog(recs, lat, ms, ddir, o.avgMsec, endMs));
    out.set(name(prefix, "slat"), inlineLog(recs, () => 0, ms, ddir, o.avgMsec, endMs));
    out.set(name(prefix, "clat"), inlineLog(recs, lat, ms, ddir, o.avgMsec, endMs));
  }
  for (const [type, prefix0] of [["bw", o.bw], ["iops", o.iops]] as const) {
    if (prefix0 === undefined) continue;
    const prefix = prefix0 || o.jobname;
    if (o.avgMsec === 0) {
      let text = "";
      for (const r of recs) {
        const clat = Math.max(1, r.completeNs - r.submitNs);
        const v = type === "bw" ? Math.floor((r.size * 1e6) / clat) : 1;
        text += line(ms(r.completeNs), v, ddir(r), r.size);
      }
      out.set(name(prefix, type), text);
    } else {
      out.set(name(prefix, type), helperLog(recs, job, o.avgMsec, type, o.fixedBs ?? 0));
    }
  }
  return out;
}

/** lat / clat / slat: a line per IO, or windows of avgMsec (add_log_sample(), inline). */
function inlineLog(recs: BioRecord[], value: (r: BioRecord) => number, ms: (ns: number) => number, ddir: (r: BioRecord) => number, avgMsec: number, endMs: number): string {
  let text = "";
  if (avgMsec === 0) {
    for (const r of recs) text += line(ms(r.completeNs), value(r), ddir(r), r.size);
    return text;
  }
  // per direction: the window's samples (fio's io_stat: Welford mean) and its start
  const win = [0, 1].map(() => ({ n: 0, mean: 0, last: 0 }));
  const flush = (d: number, t: number) => {
    const w = win[d]!;
    if (w.n > 0) text += line(t, Math.floor(w.mean + 0.5), d, 0);
    w.n = 0;
    w.mean = 0;
  };
  for (const r of recs) {
    const d = ddir(r);
    const t = ms(r.completeNs);
    const w = win[d]!;
    // add_stat_sample(): Welford's mean
    w.n++;
    w.mean += (value(r) - w.mean) / w.n;
    if (t < w.last) continue;
    if (t - w.last < avgMsec) continue;
    flush(d, t);
    w.last = t - (t % avgMsec);
  }
  // finalize_logs(): what is left, at the job's end
  for (const d of [0, 1]) flush(d, endMs);
  return text;
}

/** bw / iops with log_avg_msec: the helper's samples every avgMsec (stat.c __add_samples()). */
function helperLog(recs: BioRecord[], job: JobResult, avgMsec: number, type: "bw" | "iops", bs: number): string {
  const step = avgMsec * 1e6;
  const end = job.lastDoneNs;
  let text = "";
  let k = 0;
  const nWin = Math.floor((end - job.startNs) / step);
  const sums = Array.from({ length: nWin + 1 }, () => [[0, 0], [0, 0]] as number[][]);
  for (const r of recs) {
    k = Math.floor((r.completeNs - job.startNs) / step);
    if (k >= nWin) continue; // in no whole window before the job ended
    const s = sums[k]![r.dir === "W" ? 1 : 0]!;
    s[0]! += r.size;
    s[1]! += 1;
  }
  for (let w = 0; w < nWin; w++) {
    for (const d of [0, 1]) {
      const [bytes, ios] = sums[w]![d]!;
      if (!bytes) continue;
      const v = type === "bw" ? Math.floor(Math.floor((bytes! * 1000) / avgMsec) / 1024) : Math.floor((ios! * 1000) / avgMsec);
      text += line((w + 1) * avgMsec, v, d, bs);
    }
  }
  return text;
}
