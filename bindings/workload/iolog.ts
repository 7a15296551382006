// fio IO logs (read_iolog / write_iolog text formats) -> iosim replay jobs.
//
// Followed: fio HOWTO.rst "Trace file format v2/v3" and iolog.c
// (read_iolog(), delay_since_ttime(), log_io_u(), read_iolog_get()).
//
//   fio version 2 iolog            fio version 3 iolog
//   /dev/sdb add                   0 /dev/sdb add
//   /dev/sdb open                  12 /dev/sdb open
//   /dev/sdb read 0 4096           20 /dev/sdb read 0 4096
//   /dev/sdb write 8192 4096       1020 /dev/sdb write 8192 4096
//   /dev/sdb close                 2000 /dev/sdb close
//
// v2 has no timestamps: fio issues the IOs back to back, as fast as the
// job's iodepth allows, so every ReplayIo gets tNs = 0 (submit as soon as a
// worker is free, in order). Its `wait N` action is, in iolog.c, an absolute
// floor: read_iolog_get() sleeps until N ms after the start (HOWTO.rst calls
// it microseconds relative to the previous wait; the code is followed here),
// so later IOs get tNs = N ms.
//
// v3 puts a timestamp first. fio writes it with utime_since_now(), i.e. in
// MICROSECONDS since the log started (not milliseconds), and on replay
// sleeps delay_since_ttime() before each record: the difference to the
// previous record's timestamp (0 for the first record, for any record whose
// predecessor's timestamp is 0, and for timestamps that go backwards),
// scaled by 100/replay_time_scale, or 0 with replay_no_stall. iosim sums
// those delays into an absolute submit time per IO. fio paces each IO
// relative to the previous issue, so the two agree while the device keeps
// up; when it does not, fio drifts later and iosim does not.
//
// Worked example (v3 above): the records' delays are 0 (first), 0 (previous
// timestamp is 0), 8, 1000, 980 µs. The read is submitted at 8 µs
// = 8,000 ns, the write at 1,008 µs = 1,008,000 ns after the job starts.
//
// Only reads and writes can be replayed: trim, sync and datasync records
// are dropped with a warning (one line per action kind, with a count);
// malformed lines are errors naming file, line and field.

import type { JobSpec, ReplayIo, RwKind } from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import { NS_PER_MS, NS_PER_US } from "./fio-units.js";

export const IOLOG_V2_HEADER = "fio version 2 iolog";
export const IOLOG_V3_HEADER = "fio version 3 iolog";

export interface IoLogOptions {
  /** fio replay_no_stall: ignore timestamps and waits */
  noStall?: boolean;
  /** fio replay_time_scale, percent (default 100; 200 = twice as fast) */
  timeScalePct?: number;
  /** unit of v3 timestamps; fio writes microseconds (default "us") */
  timestampUnit?: "us" | "ms";
}

export interface IoLogFile {
  /** the path as written in the log */
  filename: string;
  /** kernel device name for /dev paths ("/dev/nvme0n1" -> "nvme0n1") */
  device?: string;
  ios: ReplayIo[];
}

export interface ParsedIoLog {
  version: 2 | 3;
  files: IoLogFile[];
  warnings: string[];
}

function devName(path: string): string | undefined {
  const m = /^\/dev\/(.+)$/.exec(path);
  if (!m) return undefined;
  const parts = m[1]!.split("/");
  return parts[parts.length - 1];
}

function uint(s: string | undefined, file: string, line: number, field: string): number {
  if (s === undefined || !/^\d+$/.test(s)) throw new InputError(`${field} "${s ?? ""}" is not a non-negative integer`, file, line, field);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new InputError(`${field} ${s} is too large`, file, line, field);
  return n;
}

/** Parse a fio v2 or v3 IO log; IOs are grouped by the file they name, in log order. */
export function parseIoLog(text: string, file: string, opts: IoLogOptions = {}): ParsedIoLog {
  const lines = text.split(/\r?\n/);
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === "") first++;
  const header = (lines[first] ?? "").trim();
  let version: 2 | 3;
  if (header === IOLOG_V2_HEADER) version = 2;
  else if (header === IOLOG_V3_HEADER) version = 3;
  else throw new InputError(`not a fio v2/v3 iolog: first line is "${header.slice(0, 60)}"`, file, first + 1, "header");

  const scale = opts.timeScalePct ?? 100;
  if (!(scale > 0)) throw new InputError(`replay time scale ${scale} must be > 0`, file, undefined, "replay_time_scale");
  const unitNs = opts.timestampUnit === "ms" ? NS_PER_MS : NS_PER_US;
  const files = new Map<string, IoLogFile>();
  const dropped = new Map<string, { n: number; line: number }>();
  const warnings: string[] = [];
  const fileOf = (name: string, line: number, implicit: boolean) => {
    let f = files.get(name);
    if (!f) {
      if (implicit) warnings.push(`${file}:${line}: ${name} is used before an "add"; added`);
      const d = devName(name);
      f = { filename: name, ...(d ? { device: d } : {}), ios: [] };
      files.set(name, f);
    }
    return f;
  };

  let lastTtime = 0;
  let nowUnits = 0; // v3: summed delays, in timestamp units (may be fractional when scaled)
  let waitFloorNs = 0; // v2: floor set by "wait"
  for (let i = first + 1; i < lines.length; i++) {
    const lineNo = i + 1;
    const t = lines[i]!.trim();
    if (t === "") continue;
    const f = t.split(/\s+/);
    let rest = f;
    if (version === 3) {
      const ttime = uint(f[0], file, lineNo, "timestamp");
      let delay = 0;
      if (lastTtime !== 0 && !opts.noStall && ttime >= lastTtime) {
        delay = scale === 100 ? ttime - lastTtime : Math.trunc((ttime - lastTtime) * (100 / scale));
      }
      lastTtime = ttime;
      nowUnits += delay;
      rest = f.slice(1);
    }
    const [name, action, offS, lenS] = rest;
    if (name === undefined || action === undefined) throw new InputError(`expected "${version === 3 ? "timestamp " : ""}filename action [offset length]"`, file, lineNo, "action");
    if (rest.length === 2) {
      if (action === "add") fileOf(name, lineNo, false);
      else if (action === "open" || action === "close") fileOf(name, lineNo, true);
      else throw new InputError(`unknown file action "${action}" (add, open, close)`, file, lineNo, "action");
      continue;
    }
    if (rest.length !== 4) throw new InputError(`expected 2 or 4 fields after the ${version === 3 ? "timestamp" : "start"}, got ${rest.length}`, file, lineNo, "action");
    const off = uint(offS, file, lineNo, "offset");
    const len = uint(lenS, file, lineNo, "length");
    switch (action) {
      case "read":
      case "write": {
        if (len === 0) throw new InputError("length must be > 0", file, lineNo, "length");
        const tNs = version === 3 ? (opts.noStall ? 0 : Math.round(nowUnits * unitNs)) : waitFloorNs;
        fileOf(name, lineNo, true).ios.push({ tNs, off, size: len, dir: action === "read" ? "R" : "W" });
        break;
      }
      case "wait":
        if (version === 3) {
          warnings.push(`${file}:${lineNo}: "wait" is not allowed in a v3 iolog; ignored (as fio does)`);
        } else if (!opts.noStall) {
          waitFloorNs = Math.max(waitFloorNs, off * NS_PER_MS);
        }
        break;
      case "trim":
      case "sync":
      case "datasync": {
        const d = dropped.get(action);
        if (d) d.n++;
        else dropped.set(action, { n: 1, line: lineNo });
        break;
      }
      default:
        throw new InputError(`unknown IO action "${action}" (read, write, trim, sync, datasync${version === 2 ? ", wait" : ""})`, file, lineNo, "action");
    }
  }
  for (const [action, d] of dropped) {
    warnings.push(`${file}:${d.line}: ${d.n} "${action}" record(s) dropped: iosim replays reads and writes only`);
  }
  return { version, files: [...files.values()].filter((f) => f.ios.length > 0), warnings };
}

export interface IoLogJobOptions {
  /** JobSpec name; with several files, "<name>.<n>" (default: the log's file name) */
  name?: string;
  cgroup?: string;
  /** device for every file (fio replay_redirect); default: each file's /dev name */
  device?: string;
  /** IOs in flight at once (fio iodepth; default 1) */
  iodepth?: number;
  startNs?: number;
  /** default true: an IO log records what reached the device */
  direct?: boolean;
}

/** One replay JobSpec per file in the log. */
export function ioLogToJobs(log: ParsedIoLog, file: string, opts: IoLogJobOptions = {}): JobSpec[] {
  const base = opts.name ?? file.replace(/^.*\//, "");
  return log.files.map((f, i) => {
    const device = opts.device ?? f.device;
    if (!device) throw new InputError(`"${f.filename}" is not a /dev path; give a device to replay it on`, file, undefined, "device");
    let reads = 0;
    let end = 0;
    const sizes = new Map<number, number>();
    for (const io of f.ios) {
      if (io.dir === "R") reads++;
      end = Math.max(end, io.off + io.size);
      sizes.set(io.size, (sizes.get(io.size) ?? 0) + 1);
    }
    const n = f.ios.length;
    const rw: RwKind = reads === n ? "read" : reads === 0 ? "write" : "mix";
    return {
      name: log.files.length > 1 ? `${base}.${i}` : base,
      cgroup: opts.cgroup ?? "",
      device,
      rw,
      random: false,
      mixReadPct: Math.round((100 * reads) / n),
      bs: [...sizes.entries()].sort((a, b) => a[0] - b[0]).map(([size, weight]) => ({ size, weight })),
      offset: 0,
      regionLen: end,
      align: 512,
      iodepth: opts.iodepth ?? 1,
      pattern: { kind: "replay", ios: f.ios },
      thinktimeNs: 0,
      thinktimeBlocks: 1,
      startNs: opts.startNs ?? 0,
      count: n,
      timeBased: false,
      direct: opts.direct ?? true,
      source: { file, field: f.filename },
    };
  });
}
