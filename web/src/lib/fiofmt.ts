// JobSpec -> fio job file text, so a built-in scenario opens in the editor as
// the fio jobs a user would write for it (parsed back by iosim's fio parser
// when the user runs an edited copy).
//
// Worked example: jobDefaults({name: "capped", cgroup: "capped", device:
// "nvme0n1", rw: "read", random: true, iodepth: 16, runtimeNs: 10e9,
// timeBased: true, regionLen: 8 GiB}) becomes
//   [capped]
//   cgroup=capped
//   filename=/dev/nvme0n1
//   rw=randread
//   bs=4096
//   ioengine=libaio
//   iodepth=16
//   direct=1
//   size=8589934592
//   runtime=10s
//   time_based
//
// Patterns a fio job cannot say (bursts, exact submit times, recorded
// replays, an IO cap with a byte cap or over several block sizes, which fio
// refuses or turns into a byte rate) are written as a comment; when the
// edited text is run, a job of the same name keeps that pattern
// (keepPatterns) and takes its other options from the text.

import type { JobSpec } from "../iosim.js";

export const FIO_FILE = "jobs.fio";

export function formatFioJobs(jobs: readonly JobSpec[]): { text: string; expressible: boolean } {
  const out: string[] = [];
  let expressible = true;
  for (const j of jobs) {
    out.push(`[${j.name}]`);
    if (j.cgroup) out.push(`cgroup=${j.cgroup}`);
    out.push(`filename=/dev/${j.device}`);
    const rw = j.rw === "mix" ? "rw" : j.rw === "alt" ? "rw" : j.rw;
    out.push(`rw=${j.random ? (rw === "rw" ? "randrw" : "rand" + rw) : rw}`);
    if (j.rw === "mix" || j.rw === "alt") out.push(`rwmixread=${j.rw === "alt" ? 50 : j.mixReadPct}`);
    // reads' and (when they differ) writes' sizes, as fio's bs=R,W / bssplit=R,W
    const lists = j.bsWrite ? [j.bs, j.bsWrite] : [j.bs];
    if (lists.every((l) => l.length === 1)) out.push(`bs=${lists.map((l) => fioSize(l[0]!.size)).join(",")}`);
    else {
      const split = (l: JobSpec["bs"]) => {
        const tot = l.reduce((a, b) => a + b.weight, 0);
        return l.map((b) => `${fioSize(b.size)}/${Math.round((100 * b.weight) / tot)}`).join(":");
      };
      out.push(`bssplit=${lists.map(split).join(",")}`);
    }
    // fio's blockalign defaults to the smallest block size; say it when the job's differs
    const minBs = Math.min(...lists.flat().map((b) => b.size));
    if (j.align !== minBs) out.push(`blockalign=${fioSize(j.align)}`);
    out.push(`ioengine=libaio`, `iodepth=${j.iodepth}`, `direct=${j.direct ? 1 : 0}`);
    if (j.offset) out.push(`offset=${fioSize(j.offset)}`);
    out.push(`size=${fioSize(j.regionLen)}`);
    if (j.bytes !== undefined) out.push(`io_size=${fioSize(j.bytes)}`);
    if (j.count !== undefined) out.push(`number_ios=${j.count}`);
    if (j.runtimeNs !== undefined) out.push(`runtime=${fioTime(j.runtimeNs)}`);
    if (j.timeBased) out.push("time_based");
    if (j.startNs) out.push(`startdelay=${fioTime(j.startNs)}`);
    if (j.thinktimeNs) {
      out.push(`thinktime=${Math.round(j.thinktimeNs / 1000)}`);
      if (j.thinktimeBlocks !== 1) out.push(`thinktime_blocks=${j.thinktimeBlocks}`);
    }
    const p = j.pattern;
    if (p.kind === "rate") {
      // a mixed job's caps per direction as fio's R,W lists ("1m," reads only, ",1m" writes only)
      const v = (k: "iops" | "bps", x: number | undefined) => (x === undefined ? "" : k === "bps" ? fioSize(x) : String(x));
      const both = (k: "iops" | "bps") => (p.read || p.write ? (p.read?.[k] !== undefined || p.write?.[k] !== undefined
        ? `${v(k, p.read?.[k])},${v(k, p.write?.[k])}` : undefined) : p[k] ? v(k, p[k]) : undefined);
      const iops = both("iops");
      const bps = both("bps");
      // fio refuses rate with rate_iops, and paces rate_iops by bytes at the
      // smallest size: an IO cap over several sizes has no fio text either
      const sized = (c: { iops?: number } | undefined, l: JobSpec["bs"] | undefined) => c?.iops !== undefined && new Set((l ?? j.bs).map((b) => b.size)).size > 1;
      const writes = j.bsWrite ?? j.bs;
      const manySizes = p.read || p.write ? sized(p.read, j.bs) || sized(p.write, writes) : sized(p, j.rw === "write" ? writes : j.bs);
      if (iops !== undefined && (bps !== undefined || manySizes)) {
        expressible = false;
        out.push(`# an IO cap (${iops} IOPS) ${bps !== undefined ? "with a byte cap" : "over several block sizes"} has no fio option; while jobs.fio is unedited this job runs as built in, edited it runs at the caps written here`);
        if (bps !== undefined) out.push(`rate=${bps}`);
      } else {
        if (iops !== undefined) out.push(`rate_iops=${iops}`);
        if (bps !== undefined) out.push(`rate=${bps}`);
      }
    } else if (p.kind !== "closed") {
      expressible = false;
      out.push(`# pattern "${p.kind}" (${p.kind === "times" ? p.timesNs.length + " submit times" :
        p.kind === "replay" ? p.ios.length + " recorded IOs" : "bursts"}) has no fio option: a job of this name keeps it, the options above apply`);
    }
    out.push("");
  }
  return { text: out.join("\n"), expressible };
}

/**
 * A byte count as a person writes it in a job file: the largest of fio's
 * suffixes that divides it (k, m, g, t: powers of 1024 at fio's default
 * kb_base=1024), else bytes. 8589934592 -> "8g", 4096 -> "4k", 1536 -> "1536".
 */
export function fioSize(bytes: number): string {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) return String(bytes);
  for (const [suffix, unit] of [["t", 2 ** 40], ["g", 2 ** 30], ["m", 2 ** 20], ["k", 2 ** 10]] as const) {
    if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

function fioTime(ns: number): string {
  if (ns % 1e9 === 0) return `${ns / 1e9}s`;
  if (ns % 1e6 === 0) return `${ns / 1e6}ms`;
  return `${Math.round(ns / 1e3)}us`;
}

/**
 * The edited jobs, with the pattern fio cannot say carried over from the
 * built-in job of the same name (see formatFioJobs' comment line): without
 * this, any edit of jobs.fio silently turned a bursts or replay job into a
 * closed loop.
 */
export function keepPatterns(edited: readonly JobSpec[], builtin: readonly JobSpec[]): JobSpec[] {
  return edited.map((j) => {
    const b = builtin.find((x) => x.name === j.name);
    if (!b || b.pattern.kind === "closed" || b.pattern.kind === "rate" || j.pattern.kind !== "closed") return j;
    return { ...j, pattern: b.pattern };
  });
}
