// What `iosim record` will do on a real machine, worked out before it touches
// anything: the cgroups to make, the interface files to write (now and at
// their times), and every IO each job will issue.
//
// A plan is pure data made from the same Scenario `iosim run` simulates
// (scenario YAML, fio job file or oracle throttle JSON, through
// scenarioForRun), so what is recorded is what is simulated. The machine's
// side is described by a `Target`: which cgroup version its io controller is
// bound to and the device's MAJ:MIN. Three translations happen here:
//
//  * devno: the scenario's device number (say 259:0) is replaced by the real
//    device's in every written value (a leading `MAJ:MIN` per line);
//  * cgroup version: a v2 scenario's `io.max` on a machine whose io
//    controller is bound to v1 becomes the four blkio.throttle.* files (the
//    same blk-throttle code behind both; "max" becomes 0, v1's "no limit");
//    io.weight / io.cost.* have no v1 counterpart and are refused;
//  * jobs: each JobSpec becomes a list of IOs for the recorder (iosim_rec.c):
//    direction, offset, size, the earliest submit time and an idle barrier,
//    one line each, drawn with the scenario's seed. Closed loops, rates
//    (iops or bps), listed times, bursts, thinktime and replays map exactly;
//    what the recorder cannot issue (buffered IO) is refused with the field.
//
// Worked example: the oracle's iops100_qd1_read.json on a v1 machine whose
// loop device is 7:3 plans one cgroup "a", one write
// `blkio.throttle.read_iops_device = "7:3 100"` at t = 0, and one job "r"
// of 300 lines `R <4096*i> 4096 0 -1` starting 200 ms after the write, QD 1.

import { InputError } from "../scenario/errors.js";
import type { JobSpec, Scenario } from "../scenario/types.js";

export interface Target {
  /** the cgroup version the machine's io controller is bound to */
  cgroupVersion: 1 | 2;
  /** the recording device's MAJ:MIN */
  devno: string;
  /** the recording device's size in bytes (jobs' regions are clipped to it) */
  sizeBytes: number;
}

export interface PlannedWrite {
  /** ns after the scenario's t = 0 (the initial writes are at 0) */
  atNs: number;
  /** cgroup path below the recorder's own group ("" = that group; root-only files: the hierarchy root) */
  cgroup: string;
  file: string;
  value: string;
}

export interface PlannedIo {
  dir: "R" | "W";
  off: number;
  size: number;
  /** earliest submit, ns after the job's start (0 = none) */
  atNs: number;
  /** -1 none; else wait for every earlier IO, then this long after the latest completion */
  idleNs: number;
}

export interface PlannedJob {
  name: string;
  cgroup: string;
  qd: number;
  /** ns after the scenario's t = 0 */
  startNs: number;
  /** stop submitting this long after the job's start (fio runtime); undefined = run the list out */
  endNs?: number;
  ios: PlannedIo[];
  /** the scenario's job, as the trace header records it */
  spec: Record<string, unknown>;
}

export interface RecordPlan {
  name: string;
  description?: string;
  cgroupVersion: 1 | 2;
  /** every cgroup path, parents first */
  cgroups: string[];
  writes: PlannedWrite[];
  jobs: PlannedJob[];
  /** the device's queue/rotational as the scenario has it */
  rotational: boolean;
  warnings: string[];
}

/** IOs one job may plan at most (a longer list is cut here and ends early, with a warning) */
export const MAX_PLANNED_IOS = 2_000_000;
/** a time_based job plans this many IOs per second of runtime (a job that issues them all before its runtime ends is flagged in the trace) */
export const PLANNED_IOPS_CEILING = 50_000;

const ROOT_ONLY = new Set(["io.cost.qos", "io.cost.model"]);
const V1_OF: Record<string, string> = {
  rbps: "blkio.throttle.read_bps_device",
  wbps: "blkio.throttle.write_bps_device",
  riops: "blkio.throttle.read_iops_device",
  wiops: "blkio.throttle.write_iops_device",
};

/** mulberry32: a small seeded generator for offsets, sizes and mixes (the replay uses the recorded ones) */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function where(s: Scenario, field: string, line?: number): [string, number | undefined, string] {
  return [s.source?.file ?? s.name, line, field];
}

/** A value with the scenario's devno at the start of any line replaced by the target's. */
export function retarget(value: string, from: string, to: string): string {
  return value
    .split("\n")
    .map((l) => (l.trimStart().startsWith(from + " ") || l.trim() === from ? l.replace(from, to) : l))
    .join("\n");
}

/** io.max on a v1 machine: the blkio.throttle.* writes of the same limits ("max" -> 0, v1's no limit). */
export function ioMaxAsV1(value: string, devno: string): Array<{ file: string; value: string }> {
  const out: Array<{ file: string; value: string }> = [];
  for (const line of value.split("\n")) {
    const toks = line.trim().split(/\s+/).slice(1);
    for (const t of toks) {
      const [k, v] = t.split("=");
      const f = V1_OF[k ?? ""];
      if (f && v !== undefined) out.push({ file: f, value: `${devno} ${v === "max" ? 0 : v}` });
    }
  }
  return out;
}

export function planRecording(s: Scenario, target: Target): RecordPlan {
  if (s.devices.length !== 1) {
    throw new InputError(`iosim record drives one device; this scenario has ${s.devices.length}`, ...where(s, "devices"));
  }
  const dev = s.devices[0]!;
  const warnings: string[] = [];
  const cgroups = [...new Set(s.cgroups.map((c) => c.path).filter((p) => p !== ""))];
  for (const j of s.jobs) if (j.cgroup) cgroups.push(j.cgroup);
  const all = new Set<string>();
  for (const p of cgroups) {
    const parts = p.split("/");
    for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join("/"));
  }
  const paths = [...all].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));

  const writes: PlannedWrite[] = [];
  const add = (atNs: number, cgroup: string, file: string, value: string, line?: number) => {
    const v = retarget(value, dev.devno, target.devno);
    if (target.cgroupVersion === 1 && (file.startsWith("io.weight") || file.startsWith("io.cost") || file === "io.latency")) {
      throw new InputError(`${file} needs the cgroup v2 io controller; this machine's io controller is bound to cgroup v1 (blkio), which has no ${file}`, ...where(s, file, line));
    }
    if (target.cgroupVersion === 2 && file.startsWith("blkio.")) {
      throw new InputError(`${file} is a cgroup v1 file; this machine's io controller is on cgroup v2 (write io.max instead)`, ...where(s, file, line));
    }
    if (target.cgroupVersion === 1 && file === "io.max") {
      for (const w of ioMaxAsV1(v, target.devno)) writes.push({ atNs, cgroup, file: w.file, value: w.value });
      return;
    }
    writes.push({ atNs, cgroup: ROOT_ONLY.has(file) ? "" : cgroup, file, value: v });
  };
  for (const c of s.cgroups) for (const [f, v] of Object.entries(c.files ?? {})) add(0, c.path, f, v, c.fileLines?.[f]);
  for (const w of s.writes) add(w.atNs, w.cgroup, w.file, w.value, w.source?.line);
  writes.sort((a, b) => a.atNs - b.atNs);

  const rnd = seeded(s.seed);
  const jobs = s.jobs.map((j) => planJob(s, j, target, rnd, warnings));
  return { name: s.name, description: s.description, cgroupVersion: target.cgroupVersion, cgroups: paths, writes, jobs, rotational: dev.rotational, warnings };
}

function planJob(s: Scenario, j: JobSpec, target: Target, rnd: () => number, warnings: string[]): PlannedJob {
  const at = (field: string) => [j.source?.file ?? s.source?.file ?? s.name, j.source?.line, field] as const;
  if (!j.direct) {
    throw new InputError(`job "${j.name}": buffered IO (direct=0) cannot be recorded: the recorder issues O_DIRECT reads and writes`, ...at("direct"));
  }
  const region = Math.max(0, Math.min(j.regionLen, target.sizeBytes - j.offset));
  const bsOf = (list: JobSpec["bs"]) => {
    const total = list.reduce((a, b) => a + b.weight, 0);
    return () => {
      let x = rnd() * total;
      for (const b of list) if ((x -= b.weight) < 0) return b.size;
      return list[list.length - 1]!.size;
    };
  };
  const readBs = bsOf(j.bs);
  const writeBs = j.bsWrite ? bsOf(j.bsWrite) : readBs;
  const maxBs = Math.max(...j.bs.map((b) => b.size), ...(j.bsWrite ?? []).map((b) => b.size));
  if (region < maxBs) throw new InputError(`job "${j.name}": its region (${region} bytes on a ${target.sizeBytes}-byte device) holds no block of ${maxBs} bytes`, ...at("size"));

  const p = j.pattern;
  let n: number;
  if (p.kind === "replay") n = p.ios.length;
  else if (p.kind === "times") n = p.timesNs.length;
  else if (j.count !== undefined) n = j.count;
  else if (j.bytes !== undefined && !j.timeBased) n = Math.ceil(j.bytes / (j.bs.reduce((a, b) => a + b.size * b.weight, 0) / j.bs.reduce((a, b) => a + b.weight, 0)));
  else if (j.runtimeNs !== undefined) n = Math.ceil((j.runtimeNs / 1e9) * PLANNED_IOPS_CEILING);
  else n = Math.ceil(region / maxBs);
  if (n > MAX_PLANNED_IOS) {
    warnings.push(`job "${j.name}": ${n} IOs planned, cut to ${MAX_PLANNED_IOS}; the recording ends when they are issued`);
    n = MAX_PLANNED_IOS;
  }

  const ios: PlannedIo[] = [];
  const pos = { R: 0, W: 0 };
  let bytesSoFar = 0;
  for (let i = 0; i < n; i++) {
    if (p.kind === "replay") {
      const r = p.ios[i]!;
      ios.push({ dir: r.dir, off: r.off, size: r.size, atNs: Math.max(0, r.tNs), idleNs: -1 });
      continue;
    }
    const dir: "R" | "W" = j.rw === "read" ? "R" : j.rw === "write" ? "W" : j.rw === "alt" ? (i % 2 === 0 ? "R" : "W") : rnd() * 100 < j.mixReadPct ? "R" : "W";
    const size = dir === "R" ? readBs() : writeBs();
    let off: number;
    if (j.random) {
      const slots = Math.max(1, Math.floor((region - size) / j.align) + 1);
      off = j.offset + Math.floor(rnd() * slots) * j.align;
    } else {
      const key = j.rw === "alt" ? "R" : dir;
      if (pos[key] + size > region) pos[key] = 0;
      off = j.offset + pos[key];
      pos[key] += size;
      if (j.rw === "alt") pos.W = pos.R;
    }
    let atNs = 0;
    let idleNs = -1;
    if (p.kind === "rate") {
      const iops = p.iops ?? (dir === "R" ? p.read?.iops : p.write?.iops);
      const bps = p.bps ?? (dir === "R" ? p.read?.bps : p.write?.bps);
      if (iops) atNs = Math.round((i * 1e9) / iops);
      else if (bps) atNs = Math.round((bytesSoFar * 1e9) / bps);
    } else if (p.kind === "times") {
      atNs = Math.max(0, p.timesNs[i]!);
    } else if (p.kind === "bursts") {
      if (i > 0 && i % p.burst === 0) idleNs = p.gapsNs[(i / p.burst - 1) % p.gapsNs.length]!;
    }
    if (j.thinktimeNs > 0 && i > 0 && i % Math.max(1, j.thinktimeBlocks) === 0) idleNs = Math.max(idleNs, j.thinktimeNs);
    bytesSoFar += size;
    ios.push({ dir, off, size, atNs, idleNs });
  }
  return {
    name: j.name,
    cgroup: j.cgroup,
    qd: Math.max(1, j.iodepth),
    startNs: j.startNs,
    endNs: j.runtimeNs,
    ios,
    spec: { name: j.name, cgroup: j.cgroup, rw: j.rw, random: j.random, qd: j.iodepth, count: ios.length, start_ns: j.startNs, runtime_ns: j.runtimeNs, pattern: p.kind === "replay" ? { kind: "replay" } : p },
  };
}

/** The recorder's IO list file: `<dir> <offset> <size> <at_ns> <idle_ns>` a line. */
export function ioListText(ios: readonly PlannedIo[]): string {
  let out = "";
  for (const io of ios) out += `${io.dir} ${io.off} ${io.size} ${io.atNs} ${io.idleNs}\n`;
  return out;
}
