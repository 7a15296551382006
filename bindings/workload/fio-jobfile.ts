// fio job files -> iosim jobs.
//
// fio's job file is an ini file (HOWTO.rst "Job file format"): `[global]`
// sections set defaults for the job sections *below* them, every other
// `[name]` section is a job, `;` or `#` starts a comment line, and
// `include other.fio` pulls lines into the current section. Values are
// parsed as fio does (see fio-units.ts): sizes with kb_base-dependent
// suffixes, times in each option's default unit (seconds for runtime and
// startdelay, microseconds for thinktime), read,write,trim lists for bs,
// bsrange, bssplit, rate and rate_iops (bsrange draws sizes as fio's
// get_next_buflen does: parseBsrange). `numjobs=N` clones a job N times (fio's
// add_job() loop); `stonewall`/`new_group` start a new reporting group.
// Pacing is fio's: rate_iops is a byte rate at the direction's smallest
// block size (so with bssplit a job makes fewer IOs than rate_iops), and
// rate with rate_iops is refused, as fio refuses it.
//
// Everything a JobSpec can say is mapped; everything else is never dropped
// silently: each option iosim does not model becomes one warning naming
// file:line, and a value fio would reject (or iosim cannot express at all,
// such as rw=trim) throws an InputError naming file, line and option.
// rw=rw/randrw with rwmixread/rwmixwrite is mapped as it is: the core picks
// each IO's direction by fio's rwmix rule (get_rw_ddir(); see "Mixed
// directions" in assembly/workload/jobs.ts).
//
// Option names are checked as fio checks them (fio 3.39, options.c
// fio_options_parse(), parse.c find_option()): the text before '=' must be,
// exactly and case-sensitively, the .name or .alias of an entry of
// fio_options[] (fio-option-names.ts, read off fio 3.39), or else an option
// of the job's ioengine (the one in effect once the whole section, [global]
// included, is read). Any other name is fio's "Bad option <line>", which
// drops the job: here an InputError with the nearest known name when it is
// close (util/nearest-name.ts: at most a third of the name's length in
// edits, tighter than fio's string_distance_ok half). So a typo such as iodeph=32 is refused instead of running at
// depth 1. An option of an engine that fio 3.39 as Debian builds it does not
// include (xnvme, http, an external:... plugin) cannot be checked: a name
// that is not in fio_options[] is then warned about and ignored.
//
// What fio does that iosim's job model approximates (each is warned about
// where it applies):
//   - iodepth>1 with a synchronous ioengine (psync, fio's default): fio
//     cannot keep more than one IO in flight, so the depth becomes 1.
//   - stonewall: fio starts the job when the earlier ones end; iosim starts
//     it at its startdelay (the reporting group still changes).
// Not supported at all (InputError): `$pagesize`-style keywords other than
// $pagesize, $ncpus and $mb_memory without values given in the options,
// arithmetic in parentheses, options outside a section, trim workloads.
// `${VAR}` takes its value from `opts.env` (fio: the environment); an unset
// variable expands to "" with a warning, as fio substitutes the empty string.
//
// Worked example:
//     [global]
//     ioengine=libaio
//     direct=1
//     filename=/dev/nvme0n1
//     [tenant-a]
//     cgroup=tenants/a
//     rw=randread
//     bs=4k
//     iodepth=16
//     runtime=30
//     time_based
//     numjobs=2
// gives two JobSpecs, "tenant-a.0" and "tenant-a.1" (fio names both
// "tenant-a" in its report; `meta[i].jobname` keeps that name), each
// { device: "nvme0n1", cgroup: "tenants/a", rw: "read", random: true,
// bs: [{size: 4096, weight: 1}], iodepth: 16, runtimeNs: 30e9,
// timeBased: true, direct: true, pattern: {kind: "closed"} }, and no
// warnings (ioengine=libaio is modelled: it allows the depth of 16).

import { maxOf } from "../util/extent.js";
import { besideFile } from "../util/beside-file.js";
import { nearestName } from "../util/nearest-name.js";
import { normCgroupPath } from "../cgroup/path.js";
import type { JobSpec, Pattern, RwKind } from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import {
  ValueError, parseBool, parseInteger, parseSize, parseSizeOrPercent, parseTimeNs, splitDirections,
  type KbBase,
} from "./fio-units.js";
import { parseIoLog } from "./iolog.js";
import { FIO_ENGINE_OPTIONS, FIO_JOB_OPTIONS, FIO_OPTION_NAMES_VERSION, type FioOptionName } from "./fio-option-names.js";

/** fio's REAL_MAX_JOBS (fio.h): the most jobs a run may have, numjobs clones included. */
export const FIO_MAX_JOBS = 4096;

/** fio's default block size (HOWTO: bs, "Default: 4096"). */
export const FIO_DEFAULT_BS = 4096;
/** Region used when neither size= nor the device size is known (warned). */
export const DEFAULT_REGION_BYTES = 1 << 30;
/** fio ioengines that complete each IO inside the submitting call: depth 1. */
export const FIO_SYNC_ENGINES: ReadonlySet<string> = new Set(["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice"]);
/** fio's default ioengine on Linux. */
export const FIO_DEFAULT_ENGINE = "psync";
const MAX_INCLUDE_DEPTH = 16;

export interface FioParseOptions {
  /** Read an `include`d file or a `read_iolog` file (path as written, and the file naming it). */
  readFile?: (path: string, from: string) => string;
  /** Device for jobs without a /dev filename (e.g. a file on a filesystem, or no filename). */
  defaultDevice?: string;
  /** Device sizes in bytes, for size=N% / offset=N% and for jobs without size=. */
  deviceSizes?: Record<string, number>;
  /** Known device names; a job naming another device is an error. */
  devices?: string[];
  /** Values for ${VAR} (fio: the environment). */
  env?: Record<string, string>;
  /** Values for fio's reserved keywords. $pagesize defaults to 4096. */
  keywords?: { pagesize?: number; ncpus?: number; mb_memory?: number };
  /** Only these job sections (fio --section); [global] is always read. */
  sections?: string[];
}

/** What fio's report needs about a job that JobSpec does not carry. */
export interface FioJobMeta {
  /** JobSpec.name of this job (unique: clones get ".<n>") */
  spec: string;
  /** fio's jobname (clones share it) */
  jobname: string;
  groupid: number;
  /** options written in the job's own section, as fio's "job options" */
  options: Record<string, string>;
  groupReporting: boolean;
  /** fio percentile_list, if set */
  percentiles?: number[];
  /** the iodepth option as written (fio's latency_depth = o.iodepth, before a sync engine caps it at 1) */
  iodepth?: number;
  /** disk_util=0 (in the job or its globals): fio leaves the job's disk out of its disk stats */
  diskUtil?: false;
  /** what fio's start-up line for the job shows (FioStartup); on each clone */
  startup?: FioStartup;
  /** which of its numjobs clones this is (0: the first; fio prints its line, and "..." for the others) */
  clone?: number;
  /** thread: fio runs the job as a thread ("Starting 2 threads") */
  thread?: boolean;
}

/**
 * The fields of fio's start-up line for a job (fio 3.39 init.c add_job():
 * "NAME: (g=G): rw=RW, bs=(R) MIN-MAX, (W) MIN-MAX, (T) MIN-MAX,
 * ioengine=ENGINE, iodepth=N"): sizes are o->min_bs / o->max_bs per
 * direction, iodepth the option as written (fio prints it before a
 * synchronous engine caps it).
 */
export interface FioStartup {
  /** ddir_str() of the job's rw: read, write, rw, randread, randwrite, randrw */
  rw: string;
  /** [min, max] block size of reads, writes and trims */
  bs: [[number, number], [number, number], [number, number]];
  ioengine: string;
  iodepth: number;
  /** kb_base 1024 (IEC units, fio's default) or 1000 */
  kbBase: 1000 | 1024;
}

export interface FioJobFile {
  jobs: JobSpec[];
  warnings: string[];
  meta: FioJobMeta[];
  /** options of the [global] sections, as fio's "global options" */
  globalOptions: Record<string, string>;
}

interface Entry {
  key: string;
  value: string | undefined;
  raw: string;
  file: string;
  line: number;
  seq: number;
}

interface Section {
  name: string;
  file: string;
  line: number;
  entries: Entry[];
}

// ---- option tables ---------------------------------------------------------

/** Options mapped onto JobSpec (handled in buildJobs). */
const MODELLED = new Set([
  "rw", "readwrite", "rwmixread", "rwmixwrite", "bs", "blocksize", "bsrange", "blocksize_range", "bssplit", "blockalign", "ba", "size", "io_size",
  "io_limit", "filesize", "number_ios", "runtime", "timeout", "time_based", "iodepth", "numjobs", "rate", "rate_iops", "rate_process", "ramp_time", "flow", "flow_id", "flow_sleep",
  "thinktime", "thinktime_blocks", "thinktime_iotime", "thinktime_spin", "startdelay", "offset", "offset_increment", "offset_align", "direct", "buffered",
  "name", "filename", "cgroup", "kb_base", "ioengine", "stonewall", "wait_for_previous", "new_group",
  "group_reporting", "read_iolog", "replay_no_stall", "replay_time_scale", "replay_redirect", "percentile_list",
  "disk_util", "invalidate", "fadvise_hint",
  "write_bw_log", "write_lat_log", "write_iops_log", "log_avg_msec", "per_job_logs",
]);

/** Options that only change the host, buffers, logging or output: no effect on simulated timing. */
const NO_EFFECT = new Set([
  "description", "thread", "randrepeat", "allrandrepeat", "randseed", "norandommap", "softrandommap",
  "random_generator", "refill_buffers", "zero_buffers", "scramble_buffers",
  "buffer_compress_percentage", "buffer_compress_chunk", "buffer_pattern", "dedupe_percentage", "dedupe_mode",
  "write_hist_log", "log_hist_msec",
  "log_max_value", "log_offset", "log_compression", "log_unix_epoch", "log_alternate_epoch",
  "write_iolog", "cpus_allowed", "cpus_allowed_policy", "cpumask", "numa_cpu_nodes", "numa_mem_policy",
  "clocksource", "gtod_reduce", "gtod_cpu", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
  "stats", "allow_mounted_write", "allow_file_create", "create_serialize", "create_fsync", "create_on_open",
  "unlink", "unlink_each_loop", "overwrite", "fallocate", "pre_read", "lockmem", "iomem", "mem", "iomem_align",
  "mem_align", "hugepage-size", "uid", "gid", "unified_rw_reporting", "clat_percentiles", "lat_percentiles",
  "slat_percentiles", "significant_figures", "unit_base", "exec_prerun", "exec_postrun",
  "cgroup_nodelete", "continue_on_error", "ignore_error", "error_dump", "filename_format",
  "unique_filename", "lockfile", "nice", "verify", "do_verify", "verify_pattern", "verify_fatal",
  "verify_dump", "verify_backlog", "verify_async", "verify_interval", "verify_offset", "verify_state_save",
  "experimental_verify", "trim_percentage", "serialize_overlap", "hipri", "fixedbufs", "registerfiles", "sqthread_poll",
  "userspace_reap", "nowait", "cmdprio_percentage", "cmdprio_class", "cmdprio", "force_async",
]);

/** fio options iosim knows but does not model: they change behaviour in fio. */
const NOT_MODELLED: Record<string, string> = {
  loops: "the job runs its workload once",
  fsync: "no fsync is issued", fdatasync: "no fdatasync is issued", end_fsync: "no fsync at the end",
  fsync_on_close: "no fsync on close", sync: "writes are not O_SYNC/O_DSYNC", write_barrier: "no barrier writes",
  sync_file_range: "no sync_file_range",
  rw_sequencer: "offset modifiers (rw=...:N) are not modelled",
  random_distribution: "random offsets are uniform", percentage_random: "random jobs are fully random",
  bs_unaligned: "block sizes are not unaligned", blocksize_unaligned: "block sizes are not unaligned",
  bs_is_seq_rand: "bs is not split by sequential/random",
  iodepth_batch: "submission batching is not modelled", iodepth_batch_submit: "submission batching is not modelled",
  iodepth_batch_complete: "completion batching is not modelled",
  iodepth_batch_complete_min: "completion batching is not modelled",
  iodepth_batch_complete_max: "completion batching is not modelled",
  iodepth_low: "the queue is refilled at every completion",
  io_submit_mode: "IOs are submitted inline",
  rate_min: "no minimum rate is enforced", rate_iops_min: "no minimum rate is enforced",
rate_cycle: "the rate is not averaged over a cycle",
  rate_ignore_thinktime: "thinktime and rate interact as in iosim's job model",
  thinktime_blocks_type: "thinktime triggers on completions",
  latency_target: "no latency-target depth search", latency_window: "no latency-target depth search",
  latency_percentile: "no latency-target depth search", latency_run: "no latency-target depth search",
  max_latency: "no latency limit", prio: "IO priority is not modelled", prioclass: "IO priority is not modelled",
  cgroup_weight: "cgroup v1 blkio.weight is not set (write io.weight in the scenario instead)",
  ioscheduler: "the device's scheduler is not switched", exitall: "other jobs keep running",
  exit_what: "other jobs keep running", wait_for: "jobs do not wait for each other",
  nrfiles: "one file (device region) per job", openfiles: "one file per job", file_service_type: "one file per job",
  directory: "the job uses the default device", zonemode: "zones are not modelled", zonerange: "zones are not modelled",
  zonesize: "zones are not modelled", zoneskip: "zones are not modelled",
  bwavgtime: "bw samples are taken every 500 ms, fio's default", iopsavgtime: "iops samples are taken every 500 ms, fio's default",
  steadystate: "no steady-state detection", ss: "no steady-state detection", ss_dur: "no steady-state detection",
  ss_ramp: "no steady-state detection", fill_device: "the job does not fill the device",
  fill_fs: "the job does not fill the device", file_append: "offsets are not past the end of the file",
  read_iolog_chunked: "the iolog is read at once", replay_align: "replayed offsets are not realigned",
  replay_scale: "replayed offsets are not scaled", replay_skip: "nothing is skipped in the replay",
  merge_blktrace_file: "blktrace merging is not modelled", trim_backlog: "no trims",
};

const FLAG_OPTIONS = new Set([
  "time_based", "group_reporting", "stonewall", "wait_for_previous", "new_group", "thread", "norandommap",
  "exitall", "refill_buffers", "zero_buffers", "randrepeat", "direct", "buffered", "bs_unaligned",
  "blocksize_unaligned", "fill_device", "fill_fs", "disable_lat", "disable_clat", "disable_slat",
  "disable_bw_measurement", "gtod_reduce", "replay_no_stall", "unlink", "overwrite", "end_fsync", "verify_only",
  "per_job_logs", "clat_percentiles", "lat_percentiles", "slat_percentiles", "create_serialize", "create_on_open",
  "disk_util",
]);

// ---- lexing ----------------------------------------------------------------

function isComment(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith(";") || t.startsWith("#");
}

/** fio's strip_blank_end: a value ends at ';' or '#', trailing blanks removed. */
function stripValue(v: string): string {
  let s = v;
  const semi = s.indexOf(";");
  if (semi >= 0) s = s.slice(0, semi);
  const hash = s.indexOf("#");
  if (hash >= 0) s = s.slice(0, hash);
  return s.trim();
}

class Lexer {
  sections: Section[] = [];
  private seq = 0;
  constructor(private readonly opts: FioParseOptions, private readonly warn: (m: string) => void) {}

  lex(text: string, file: string, depth: number, intoSection: Section | null): void {
    const lines = text.split(/\r?\n/);
    let current = intoSection;
    for (let i = 0; i < lines.length; i++) {
      const lineNo = i + 1;
      const raw = lines[i]!;
      if (isComment(raw)) continue;
      const t = raw.trim();
      if (t.startsWith("[")) {
        if (depth > 0) throw new InputError("an included file may not contain [] sections", file, lineNo, t);
        const close = t.indexOf("]");
        if (close < 0) throw new InputError(`section header "${t}" has no closing ]`, file, lineNo, "section");
        const name = t.slice(1, close).trim();
        if (name === "") throw new InputError("empty section name", file, lineNo, "section");
        current = { name, file, line: lineNo, entries: [] };
        this.sections.push(current);
        continue;
      }
      const inc = /^include\s+(.+)$/.exec(t);
      if (inc) {
        const path = stripValue(inc[1]!);
        if (!this.opts.readFile) {
          throw new InputError(`cannot include "${path}": no readFile was given to the parser`, file, lineNo, "include");
        }
        if (depth + 1 > MAX_INCLUDE_DEPTH) throw new InputError(`includes nested deeper than ${MAX_INCLUDE_DEPTH}`, file, lineNo, "include");
        let sub: string;
        try {
          sub = this.opts.readFile(path, file);
        } catch (e) {
          throw new InputError(`cannot include "${path}": ${(e as Error).message}`, file, lineNo, "include");
        }
        if (!current) throw new InputError("include outside of a section", file, lineNo, "include");
        // (named beside the including file, so that its own includes and
        // error messages resolve from there, as fio resolves them)
        this.lex(sub, besideFile(file, path), depth + 1, current);
        continue;
      }
      if (!current) throw new InputError(`option "${t}" outside of a section`, file, lineNo, t.split("=")[0]!.trim());
      // fio cuts the comment off the whole line first (strip_blank_end), so a
      // bare option may carry one too ("norandommap ; why")
      const s = stripValue(t);
      const eq = s.indexOf("=");
      // (as written: fio compares option names case-sensitively, parse.c o_match())
      const key = (eq >= 0 ? s.slice(0, eq) : s).trim();
      const value = eq >= 0 ? this.expand(s.slice(eq + 1).trim(), file, lineNo, key) : undefined;
      current.entries.push({ key, value, raw: t, file, line: lineNo, seq: this.seq++ });
    }
  }

  /** ${VAR} and fio's reserved keywords; arithmetic in parentheses is not supported. */
  private expand(value: string, file: string, line: number, key: string): string {
    let v = value.replace(/\$\{([^}]*)\}/g, (_m, name: string) => {
      const env = this.opts.env ?? {};
      if (name in env) return env[name]!;
      this.warn(`${file}:${line}: ${key}: \${${name}} is not set; fio substitutes the empty string`);
      return "";
    });
    v = v.replace(/\$(pagesize|ncpus|mb_memory)\b/g, (_m, kw: "pagesize" | "ncpus" | "mb_memory") => {
      const k = this.opts.keywords ?? {};
      const val = kw === "pagesize" ? (k.pagesize ?? 4096) : k[kw];
      if (val === undefined) throw new InputError(`$${kw} has no value in a simulation; pass keywords.${kw}`, file, line, key);
      return String(val);
    });
    if (/^\(.*\)$/.test(v.trim()) || /\$\w/.test(v)) {
      throw new InputError(`arithmetic expressions and unknown $keywords are not supported ("${value}")`, file, line, key);
    }
    return v;
  }
}

// ---- building jobs -----------------------------------------------------------

type Opts = Map<string, Entry>;

function bad(e: Entry, why: string): InputError {
  return new InputError(`bad value "${e.value ?? ""}" for ${e.key}: ${why}`, e.file, e.line, e.key);
}

function val(e: Entry): string {
  if (e.value === undefined) {
    if (FLAG_OPTIONS.has(e.key)) return "1";
    throw new InputError(`option ${e.key} needs a value (${e.key}=...)`, e.file, e.line, e.key);
  }
  return e.value;
}

function wrap<T>(e: Entry, f: (v: string) => T): T {
  try {
    return f(val(e));
  } catch (err) {
    if (err instanceof ValueError) throw bad(e, err.message);
    throw err;
  }
}

interface RwInfo { rw: RwKind; random: boolean; reads: boolean; writes: boolean }

function parseRw(e: Entry, warn: (m: string) => void): RwInfo {
  const v = val(e).toLowerCase();
  const colon = v.indexOf(":");
  const base = colon >= 0 ? v.slice(0, colon).trim() : v;
  if (colon >= 0) {
    const post = v.slice(colon + 1).trim();
    if (!/^\d+[a-z]*$/.test(post)) throw bad(e, `offset modifier "${post}" is not a number`);
    warn(`${e.file}:${e.line}: ${e.key}=${e.value}: the ":${post}" offset modifier is not modelled (ignored)`);
  }
  switch (base) {
    case "read": return { rw: "read", random: false, reads: true, writes: false };
    case "randread": return { rw: "read", random: true, reads: true, writes: false };
    case "write": return { rw: "write", random: false, reads: false, writes: true };
    case "randwrite": return { rw: "write", random: true, reads: false, writes: true };
    case "rw": case "readwrite": return { rw: "mix", random: false, reads: true, writes: true };
    case "randrw": return { rw: "mix", random: true, reads: true, writes: true };
    case "trim": case "randtrim": case "trimwrite": case "randtrimwrite":
      throw new InputError(`rw=${base}: trim workloads are not supported by iosim`, e.file, e.line, e.key);
    case "filecreate": case "filestat": case "filedelete":
      throw new InputError(`rw=${base}: file-metadata workloads are not supported by iosim`, e.file, e.line, e.key);
    default:
      throw bad(e, "expected read, write, randread, randwrite, rw, readwrite or randrw");
  }
}

/**
 * "4k/10:64k/50:32k/" -> sizes with percentages, fio's bssplit_ddir() fill-in rules, and the
 * smallest size listed: fio's min_bs[ddir], taken over every entry, one that is never drawn
 * (a 0% share) included.
 */
function parseBssplitList(e: Entry, list: string, kbBase: KbBase): { list: Array<{ size: number; weight: number }>; minListed: number } {
  const items = list.split(":").map((s) => s.trim()).filter((s) => s !== "");
  if (items.length === 0) throw bad(e, "empty bssplit");
  const parsed = items.map((it) => {
    const slash = it.indexOf("/");
    const sizeStr = slash >= 0 ? it.slice(0, slash) : it;
    const pctStr = slash >= 0 ? it.slice(slash + 1).trim() : "";
    let size: number;
    try {
      size = parseSize(sizeStr, kbBase);
    } catch (err) {
      throw bad(e, (err as Error).message);
    }
    if (size <= 0) throw bad(e, `block size ${sizeStr} must be > 0`);
    let pct: number | undefined;
    if (pctStr !== "") {
      const p = Number(pctStr);
      if (!Number.isFinite(p) || p < 0) throw bad(e, `"${pctStr}" is not a percentage`);
      pct = p === 0 ? undefined : Math.min(p, 100); // fio: 0 means "fill in", >100 is capped
    }
    return { size, pct };
  });
  let sum = 0;
  let missing = 0;
  for (const p of parsed) {
    if (p.pct === undefined) missing++;
    else sum += p.pct;
  }
  if (sum > 100 + 1e-9) throw bad(e, `bssplit percentages add to ${sum}, more than 100`);
  const fill = missing > 0 ? Math.floor((100 - sum) / missing) : 0;
  const out = parsed.map((p) => ({ size: p.size, weight: p.pct ?? fill }));
  // fio picks with a draw in [0, 100) over the entries sorted by percentage:
  // a total below 100 leaves the rest to the entry with the largest share.
  const total = out.reduce((a, b) => a + b.weight, 0);
  if (total < 100 && out.length > 0) {
    let big = 0;
    out.forEach((o, i) => { if (o.weight >= out[big]!.weight) big = i; });
    out[big]!.weight += 100 - total;
  }
  return { list: toIntegerWeights(out.filter((o) => o.weight > 0)), minListed: Math.min(...parsed.map((p) => p.size)) };
}

/**
 * "4k-64k" (or "4k:64k"; fio swaps a reversed pair) -> the block sizes fio's
 * bsrange draws, each with its odds, and fio's min_bs. fio 3.39 io_u.c
 * get_next_buflen() without bssplit: buflen = MIN + (u64)(MAX * r / (frand_max
 * + 1.0)), rounded down to a multiple of MIN (bs_unaligned off: a mask when
 * MIN is a power of two, `buflen -= buflen % MIN` otherwise; the same here),
 * then capped at MAX. MAX * r / (frand_max + 1) is uniform over [0, MAX), and
 * its integers [(j-1)*MIN, j*MIN) give size j*MIN, so each multiple of MIN up
 * to MAX has odds MIN/MAX, and a MAX that is not a multiple gets the
 * remainder (4k-10k: 4k 40 %, 8k 40 %, 10k 20 %, the capped 12k).
 * Weights are those integer counts (they add up to MAX).
 */
/**
 * fio's o->min_bs / o->max_bs per direction (read, write, trim), as its
 * start-up line prints them: bs= sets both (4096 by default), bsrange= its
 * range, bssplit= the smallest and largest size it lists (bssplit_ddir);
 * a list of two values gives the trim direction the write one's
 * (splitDirections). The values were parsed and checked by the callers.
 */
function startupBlockSizes(bsE: Entry | undefined, rangeE: Entry | undefined, splitE: Entry | undefined, kbBase: KbBase): FioStartup["bs"] {
  const out: FioStartup["bs"] = [[FIO_DEFAULT_BS, FIO_DEFAULT_BS], [FIO_DEFAULT_BS, FIO_DEFAULT_BS], [FIO_DEFAULT_BS, FIO_DEFAULT_BS]];
  const each = (e: Entry | undefined, f: (v: string) => [number, number]) => {
    if (!e) return;
    splitDirections(val(e)).forEach((v, d) => {
      if (v !== undefined) out[d] = f(v);
    });
  };
  each(bsE, (v) => {
    const n = parseSize(v, kbBase);
    return [n, n];
  });
  if (splitE) {
    each(splitE, (v) => {
      const sizes = v.split(":").map((item) => item.trim()).filter((item) => item !== "").map((item) => parseSize(item.split("/")[0]!.trim(), kbBase));
      return [Math.min(...sizes), Math.max(...sizes)];
    });
  } else {
    each(rangeE, (v) => {
      const cut = v.includes("-") ? v.indexOf("-") : v.indexOf(":");
      const a = parseSize(v.slice(0, cut).trim(), kbBase);
      const b = parseSize(v.slice(cut + 1).trim(), kbBase);
      return [Math.min(a, b), Math.max(a, b)];
    });
  }
  return out;
}

function parseBsrange(e: Entry, spec: string, kbBase: KbBase): { list: Array<{ size: number; weight: number }>; minListed: number } {
  // parse.c FIO_OPT_RANGE: split at the first '-', else at ':'
  const cut = spec.includes("-") ? spec.indexOf("-") : spec.indexOf(":");
  if (cut < 0) throw bad(e, `"${spec}" is not a range MIN-MAX (e.g. 4k-64k)`);
  let [lo, hi] = [spec.slice(0, cut), spec.slice(cut + 1)].map((x) => {
    try {
      return parseSize(x.trim(), kbBase);
    } catch (err) {
      throw bad(e, (err as Error).message);
    }
  }) as [number, number];
  if (lo > hi) [lo, hi] = [hi, lo];
  if (lo <= 0) throw bad(e, "block size must be > 0");
  if (hi > 0xffffffff) throw bad(e, `a block size above 4 GiB is not modelled (got ${hi})`);
  const list: Array<{ size: number; weight: number }> = [];
  for (let j = 1; (j - 1) * lo < hi; j++) list.push({ size: Math.min(j * lo, hi), weight: Math.min(j * lo, hi) - (j - 1) * lo });
  return { list, minListed: lo };
}

function toIntegerWeights(list: Array<{ size: number; weight: number }>): Array<{ size: number; weight: number }> {
  if (list.every((l) => Number.isInteger(l.weight))) return list;
  return list.map((l) => ({ size: l.size, weight: Math.round(l.weight * 100) }));
}

function sameList(a: Array<{ size: number; weight: number }>, b: Array<{ size: number; weight: number }>): boolean {
  return a.length === b.length && a.every((x, i) => x.size === b[i]!.size && x.weight === b[i]!.weight);
}

function deviceFromFilename(path: string): string | undefined {
  const m = /^\/dev\/(.+)$/.exec(path);
  if (!m) return undefined;
  const parts = m[1]!.split("/");
  return parts[parts.length - 1];
}

/**
 * Parse a fio job file into iosim jobs.
 * @param text the job file
 * @param file its name, for messages
 */
export function parseFioJobFile(text: string, file: string, opts: FioParseOptions = {}): FioJobFile {
  const warnSet = new Set<string>();
  const warnings: string[] = [];
  const warn = (m: string) => {
    if (!warnSet.has(m)) {
      warnSet.add(m);
      warnings.push(m);
    }
  };
  const lexer = new Lexer(opts, warn);
  lexer.lex(text, file, 0, null);

  const global: Opts = new Map();
  const globalOptions: Record<string, string> = {};
  const jobs: JobSpec[] = [];
  const meta: FioJobMeta[] = [];
  let groupid = 0;
  let jobsInGroup = 0;

  for (const sec of lexer.sections) {
    if (sec.name === "global") {
      // fio parses a section's lines together and looks a name it does not
      // find in fio_options[] up in the ioengine in effect after them
      const engine = engineOf(sec.entries, global);
      classifySection(sec.entries, engine, warn);
      for (const e of sec.entries) global.set(canonical(e.key), e);
      Object.assign(globalOptions, fioOptList(sec.entries));
      continue;
    }
    if (opts.sections && !opts.sections.includes(sec.name)) continue;
    const own: Opts = new Map();
    const engine = engineOf(sec.entries, global);
    classifySection(sec.entries, engine, warn);
    for (const e of sec.entries) {
      own.set(canonical(e.key), e);
    }
    const merged: Opts = new Map([...global, ...own]);
    const stone = merged.get("stonewall") ?? merged.get("new_group");
    if (stone && wrap(stone, parseBool) && jobsInGroup > 0) {
      groupid++;
      jobsInGroup = 0;
    }
    // fio stops at REAL_MAX_JOBS ("maximum number of jobs reached"); a
    // simulation of 100,000 jobs ran the core out of memory (exit 3)
    const nE = merged.get("numjobs");
    const n = nE ? Number(nE.value) : 1;
    if (Number.isFinite(n) && jobs.length + n > FIO_MAX_JOBS) {
      // (blamed on numjobs only where numjobs is given: a file of 5,000 sections names the section)
      throw new InputError(`fio runs at most ${FIO_MAX_JOBS} jobs (REAL_MAX_JOBS); this file asks for ${jobs.length + n}${nE ? "" : ` at job [${sec.name}]`}`,
        nE?.file ?? sec.file, nE?.line ?? sec.line, nE ? "numjobs" : sec.name);
    }
    const built = buildJobs(sec, merged, own, groupid, opts, warn);
    jobs.push(...built.jobs);
    meta.push(...built.meta);
    jobsInGroup += built.jobs.length;
  }
  // fio's parse_options(): "No job(s) defined", usage and exit 1 (a file of
  // [global] alone, or a --section filter that selects nothing)
  if (jobs.length === 0) {
    throw new InputError(`no job sections${opts.sections ? ` named ${opts.sections.join(", ")}` : ""}: fio refuses a job file without jobs ("No job(s) defined")`, file, undefined);
  }
  return { jobs, warnings, meta, globalOptions };
}

// ---- option names (fio 3.39's, fio-option-names.ts) ----------------------------

/** fio_options[]: each .name and .alias -> its .name. */
const FIO_NAME_OF: ReadonlyMap<string, string> = (() => {
  const m = new Map<string, string>();
  for (const [name, o] of Object.entries(FIO_JOB_OPTIONS)) {
    m.set(name, name);
    if (o.alias) m.set(o.alias, name);
  }
  return m;
})();

/** Each ioengine fio-option-names.ts knows: its options' names and aliases -> their .name. */
const ENGINE_NAME_OF: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(
  Object.entries(FIO_ENGINE_OPTIONS).map(([engine, opts]) => {
    const m = new Map<string, string>();
    for (const [name, o] of Object.entries(opts)) {
      m.set(name, name);
      if (o.alias) m.set(o.alias, name);
    }
    return [engine, m] as const;
  }),
);

/**
 * The key an option is kept under in a section's map: fio's .name for a
 * name or an alias (fileoffset -> offset, nr_files -> nrfiles), except that
 * fio's "ba" is kept as "blockalign", the name buildJobs reads.
 */
function canonical(key: string): string {
  const name = FIO_NAME_OF.get(key) ?? key;
  return name === "ba" ? "blockalign" : name;
}

/** The ioengine fio looks a section's unknown names up in: the last ioengine= of the section, else of [global], else fio's default. */
function engineOf(entries: Entry[], global: Opts): string {
  const own = [...entries].reverse().find((e) => canonical(e.key) === "ioengine");
  const e = own ?? global.get("ioengine");
  return (e?.value ?? FIO_DEFAULT_ENGINE).trim().toLowerCase();
}

/**
 * The known name nearest to a bad one, if it is close (util/nearest-name.ts:
 * at most max(1, floor(length / 3)) edits, tighter than fio's
 * string_distance_ok() bound of (length + 1) / 2, which offers a name half
 * changed). Unlike fio's show_closest_option(), aliases and the job's engine
 * options are candidates too, and a name that differs only in case is
 * found (fio's names are lower case and compared case-sensitively);
 * profile and deprecated options are not. Ties go to the alphabetically
 * first name (fio's to the first in its table).
 */
export function nearestFioOption(bad: string, engine?: string): string | undefined {
  // (not a profile's option nor a deprecated one: neither would do what was meant)
  const names = new Set<string>([...FIO_NAME_OF].filter(([, n]) => !FIO_JOB_OPTIONS[n]!.profile && !FIO_JOB_OPTIONS[n]!.deprecated).map(([k]) => k));
  const engineNames = engine ? ENGINE_NAME_OF.get(engine) : undefined;
  engineNames?.forEach((_, n) => names.add(n));
  const lower = bad.toLowerCase();
  if (lower !== bad && names.has(lower)) return lower;
  return nearestName(bad, names);
}

/** The engines whose options include this name. */
function enginesWith(key: string): string[] {
  return [...ENGINE_NAME_OF].filter(([, m]) => m.has(key)).map(([e]) => e).sort();
}

/** fio's text for the line, as its "Bad option <...>" shows it (comments and outer blanks cut). */
function fioLine(e: Entry): string {
  return stripValue(e.raw);
}

/**
 * classify() every line of a section. Like fio, which parses a section's
 * options together and logs each bad one before it drops the job, a section
 * with several bad lines reports them all: the error names the first (its
 * file, line and key) and lists the others after it.
 */
function classifySection(entries: readonly Entry[], engine: string, warn: (m: string) => void): void {
  const bad: InputError[] = [];
  for (const e of entries) {
    try {
      classify(e, engine, warn);
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      bad.push(err);
    }
  }
  if (bad.length === 0) return;
  if (bad.length === 1) throw bad[0];
  throw new BadOptions(bad.map((b) => ({ line: b.line, field: b.field, detail: b.detail })), bad[0]!.file);
}

/**
 * Several bad option lines of one section: the error names the first (file,
 * line, key) and lists the others; `lines` keeps each one's line, key and
 * text so a caller that wrote the job text itself (the YAML loader's jobs:)
 * can say it again with its own file's lines (`BadOptions.remap`).
 */
export class BadOptions extends InputError {
  constructor(readonly lines: ReadonlyArray<{ line?: number; field?: string; detail: string }>, file: string) {
    const [first, ...rest] = lines;
    super(`${first!.detail}; and ${rest.length} more in this section: ` +
      rest.map((b) => `line ${b.line} (${b.field}): ${b.detail}`).join("; "), file, first!.line, first!.field);
  }
  /** the same lines in another file, each line mapped by `lineOf` */
  remap(file: string, lineOf: (line: number | undefined) => number | undefined): BadOptions {
    return new BadOptions(this.lines.map((b) => ({ ...b, line: lineOf(b.line) })), file);
  }
}

/**
 * Sort one option line: modelled (silent), known to fio but not modelled
 * (one warning), or not an option fio 3.39 knows in this section (an
 * InputError worded like fio's "Bad option").
 */
function classify(e: Entry, engine: string, warn: (m: string) => void): void {
  const k = e.key;
  const shown = e.value === undefined ? k : `${k}=${e.value}`;
  const fioName = FIO_NAME_OF.get(k);
  let info: FioOptionName | undefined;
  let name = fioName;
  let ofEngine = false;
  if (fioName !== undefined) info = FIO_JOB_OPTIONS[fioName];
  else {
    const engineNames = ENGINE_NAME_OF.get(engine);
    if (!engineNames) {
      // an engine fio-option-names.ts does not list (not built into the fio
      // it was read from, or an external plugin): its options are unknown
      const near = nearestFioOption(k);
      warn(`${e.file}:${e.line}: ${shown}: not one of fio's job options; fio looks it up among the options of ioengine=${engine}, ` +
        `which iosim cannot check (the ${FIO_OPTION_NAMES_VERSION} it knows has no such engine), ignored` +
        (near !== undefined ? ` (did you mean "${near}"?)` : ""));
      return;
    }
    name = engineNames.get(k);
    if (name === undefined) throw badOption(e, engine);
    info = FIO_ENGINE_OPTIONS[engine]![name];
    ofEngine = true;
  }
  const n = name!;
  const alias = n !== k ? ` (fio's ${n})` : "";
  if (info?.deprecated === "refused") {
    throw new InputError(`fio refuses the deprecated option "${k}" (fio: Option ${n} is deprecated; fio: failed parsing ${fioLine(e)})`,
      e.file, e.line, k);
  }
  if (info?.deprecated === "accepted") {
    warn(`${e.file}:${e.line}: ${shown}${alias}: deprecated in fio ("Option ${n} is deprecated"), no effect, ignored`);
    return;
  }
  if (info?.profile) {
    warn(`${e.file}:${e.line}: ${shown}: an option of fio's ${info.profile} profile, which acts only with --profile=${info.profile}; ignored`);
    return;
  }
  const c = canonical(k);
  if (MODELLED.has(c) || MODELLED.has(k)) return;
  // (iosim's lists name some options by an alias: ss_dur, fill_fs)
  const reason = Object.hasOwn(NOT_MODELLED, n) ? NOT_MODELLED[n] : Object.hasOwn(NOT_MODELLED, k) ? NOT_MODELLED[k] : undefined;
  if (reason !== undefined) {
    warn(`${e.file}:${e.line}: ${shown}${alias}: not modelled by iosim, ignored (${reason})`);
    return;
  }
  if (NO_EFFECT.has(n) || NO_EFFECT.has(k)) {
    warn(`${e.file}:${e.line}: ${shown}${alias}: no effect in a simulation, ignored`);
    return;
  }
  const what = ofEngine ? `an option of ioengine=${engine}; ` : "";
  warn(`${e.file}:${e.line}: ${shown}${alias}: not modelled by iosim, ignored (${what}fio: "${info?.help ?? ""}")`);
}

/** fio's "Bad option <...>" for a name in neither fio_options[] nor the engine's options. */
function badOption(e: Entry, engine: string): InputError {
  const k = e.key;
  const others = enginesWith(k);
  let hint = "";
  if (others.length > 0) {
    hint = `; it is an option of ioengine ${others.join(", ")}, not of ioengine=${engine}`;
  } else {
    const near = nearestFioOption(k, engine);
    if (near !== undefined) {
      hint = `; did you mean "${near}"?` + (near === k.toLowerCase() ? " (fio's option names are case-sensitive)" : "");
    }
  }
  return new InputError(`fio does not know the option "${k}" (fio: Bad option <${fioLine(e)}>)${hint}`, e.file, e.line, k);
}

/** the deepest queue a job may ask for (fs.aio-max-nr's default) */
export const MAX_IODEPTH = 65536;

function buildJobs(
  sec: Section, o: Opts, own: Opts, groupid: number, opts: FioParseOptions, warn: (m: string) => void,
): { jobs: JobSpec[]; meta: FioJobMeta[] } {
  const at = (e: Entry) => `${e.file}:${e.line}`;
  const kbE = o.get("kb_base");
  let kbBase: KbBase = 1024;
  if (kbE) {
    const k = wrap(kbE, (v) => Number(v));
    if (k !== 1000 && k !== 1024) throw bad(kbE, "kb_base must be 1000 or 1024");
    kbBase = k;
  }
  const int = (e: Entry, min = 0) => {
    const n = wrap(e, (v) => parseInteger(v, kbBase));
    if (n < min) throw bad(e, `must be >= ${min}`);
    return n;
  };

  const nameE = o.get("name");
  const jobname = nameE ? val(nameE) : sec.name;

  // direction and randomness
  const rwE = o.get("rw");
  const rwi: RwInfo = rwE ? parseRw(rwE, warn) : { rw: "read", random: false, reads: true, writes: false };
  let mixReadPct = 50;
  {
    const r = o.get("rwmixread");
    const w = o.get("rwmixwrite");
    const pick = r && w ? (r.seq > w.seq ? r : w) : (r ?? w);
    if (pick) {
      const n = int(pick);
      if (n > 100) throw bad(pick, "must be a percentage 0..100");
      mixReadPct = pick.key === "rwmixread" ? n : 100 - n;
    }
  }

  // block sizes
  const bsE = o.get("bs");
  let bsR = FIO_DEFAULT_BS;
  let bsW = FIO_DEFAULT_BS;
  if (bsE) {
    const [r, w] = wrap(bsE, splitDirections);
    if (r !== undefined) bsR = wrap(bsE, () => parseSize(r, kbBase));
    if (w !== undefined) bsW = wrap(bsE, () => parseSize(w, kbBase));
    if (bsR <= 0 || bsW <= 0) throw bad(bsE, "block size must be > 0");
  }
  let listR = [{ size: bsR, weight: 1 }];
  let listW = [{ size: bsW, weight: 1 }];
  // fio's min_bs[read], min_bs[write]: the rate_iops -> bytes conversion uses them
  let minBsR = bsR;
  let minBsW = bsW;
  const splitE = o.get("bssplit");
  const rangeE = o.get("bsrange");
  if (rangeE && splitE) {
    warn(`${at(rangeE)}: ${rangeE.key}=${rangeE.value}: bssplit= gives the block sizes (fio draws from bssplit when both are given)`);
  } else if (rangeE) {
    // fio's min_bs/max_bs win over bs (init.c fixup_options fills them from bs only when unset)
    const [r, w] = wrap(rangeE, splitDirections);
    if (r !== undefined) ({ list: listR, minListed: minBsR } = parseBsrange(rangeE, r, kbBase));
    if (w !== undefined) ({ list: listW, minListed: minBsW } = parseBsrange(rangeE, w, kbBase));
  }
  if (splitE) {
    const [r, w] = wrap(splitE, splitDirections);
    if (r !== undefined) ({ list: listR, minListed: minBsR } = parseBssplitList(splitE, r, kbBase));
    if (w !== undefined) ({ list: listW, minListed: minBsW } = parseBssplitList(splitE, w, kbBase));
  }
  // a mixed job with different read and write sizes draws a write's size
  // from the write list, as fio does (td->o.bs[DDIR_WRITE])
  let bs: Array<{ size: number; weight: number }>;
  let bsWrite: Array<{ size: number; weight: number }> | undefined;
  if (rwi.rw === "read") bs = listR;
  else if (rwi.rw === "write") bs = listW;
  else if (sameList(listR, listW)) bs = listR;
  else {
    bs = listR;
    bsWrite = listW;
  }
  const minBs = Math.min(...bs.map((b) => b.size), ...(bsWrite ?? []).map((b) => b.size));
  const startupBs = startupBlockSizes(bsE, rangeE, splitE, kbBase);

  // device
  const isReplay = o.has("read_iolog");
  let device: string | undefined;
  const fnE = o.get("filename");
  if (fnE) {
    const names = val(fnE).split(/(?<!\\):/).map((s) => s.replace(/\\:/g, ":"));
    if (names.length > 1) warn(`${at(fnE)}: filename=${fnE.value}: ${names.length} files; iosim uses the first, ${names[0]}`);
    device = deviceFromFilename(names[0]!);
    if (device === undefined) {
      if (!opts.defaultDevice) {
        throw new InputError(`"${names[0]}" is not a /dev path and no default device was given`, fnE.file, fnE.line, "filename");
      }
      device = opts.defaultDevice;
      warn(`${at(fnE)}: filename=${fnE.value}: not a block device; the job runs on ${device} (no filesystem is modelled)`);
    }
  } else if (isReplay) {
    device = opts.defaultDevice ?? ""; // the iolog names the device
  } else {
    if (!opts.defaultDevice) throw new InputError(`job [${sec.name}] has no filename= and no default device was given`, sec.file, sec.line, "filename");
    device = opts.defaultDevice;
  }
  if (opts.devices && device !== "" && !opts.devices.includes(device)) {
    const e = fnE;
    throw new InputError(`device "${device}" is not in the scenario (${opts.devices.join(", ") || "none"})`,
      e?.file ?? sec.file, e?.line ?? sec.line, "filename");
  }
  const devSize = opts.deviceSizes?.[device];

  // region
  const pctOf = (e: Entry, pct: number) => {
    if (devSize === undefined) throw new InputError(`${e.key}=${e.value}: a percentage needs the size of ${device}`, e.file, e.line, e.key);
    return Math.floor((devSize * pct) / 100);
  };
  let offset = 0;
  const offE = o.get("offset");
  const alignE = o.get("offset_align");
  if (offE) {
    const v = wrap(offE, (s) => parseSizeOrPercent(s, kbBase));
    if ("pct" in v) {
      const a = alignE ? int(alignE, 1) : minBs;
      offset = Math.ceil(pctOf(offE, v.pct) / a) * a;
    } else offset = v.bytes;
  }
  let offInc = 0;
  const incE = o.get("offset_increment");
  if (incE) {
    const v = wrap(incE, (s) => parseSizeOrPercent(s, kbBase));
    if ("pct" in v) {
      const a = alignE ? int(alignE, 1) : minBs;
      offInc = Math.ceil(pctOf(incE, v.pct) / a) * a;
    } else offInc = v.bytes;
  }
  let regionLen: number;
  const sizeE = o.get("filesize") ?? o.get("size");
  if (sizeE) {
    if (sizeE.key === "filesize" && /[-:]/.test(val(sizeE))) {
      throw bad(sizeE, "a filesize range is not supported; give one size");
    }
    const v = wrap(sizeE, (s) => parseSizeOrPercent(s, kbBase));
    regionLen = "pct" in v ? pctOf(sizeE, v.pct) : v.bytes;
    if (regionLen <= 0) throw bad(sizeE, "size must be > 0");
  } else if (devSize !== undefined) {
    regionLen = devSize - offset;
    if (regionLen <= 0) throw new InputError(`offset ${offset} is past the end of ${device} (${devSize} bytes)`, offE?.file ?? sec.file, offE?.line ?? sec.line, "offset");
  } else {
    regionLen = DEFAULT_REGION_BYTES;
    if (!isReplay) warn(`${sec.file}:${sec.line}: [${sec.name}]: no size= and the size of ${device} is unknown; using a ${DEFAULT_REGION_BYTES}-byte region`);
  }
  if (regionLen < minBs) throw new InputError(`the region (${regionLen} bytes) is smaller than the block size ${minBs}`, sizeE?.file ?? sec.file, sizeE?.line ?? sec.line, sizeE?.key ?? "size");
  const ioSizeE = o.get("io_size");
  const bytes = ioSizeE ? wrap(ioSizeE, (s) => {
    const v = parseSizeOrPercent(s, kbBase);
    return "pct" in v ? Math.floor((regionLen * v.pct) / 100) : v.bytes;
  }) : regionLen;

  const alE = o.get("blockalign");
  let align = minBs;
  if (alE) {
    const [r, w] = wrap(alE, splitDirections);
    const a = wrap(alE, () => parseSize((rwi.rw === "write" ? w : r) ?? r ?? w ?? String(minBs), kbBase));
    if (a <= 0) throw bad(alE, "alignment must be > 0");
    align = a;
  }

  // stop conditions
  const countE = o.get("number_ios");
  const count = countE ? int(countE, 1) : undefined;
  const rtE = o.get("runtime");
  const runtimeNs = rtE ? wrap(rtE, (v) => parseTimeNs(v, "s")) : undefined;
  const tbE = o.get("time_based");
  let timeBased = tbE ? wrap(tbE, parseBool) : false;
  if (timeBased && !runtimeNs) {
    warn(`${at(tbE!)}: time_based without runtime: fio requires a runtime; the job stops when its size is done`);
    timeBased = false;
  }
  if (runtimeNs === 0) warn(`${at(rtE!)}: runtime=0 means no runtime limit in fio`);
  // flow / flow_id / flow_sleep (fio 3.39 flow.c; options.c: flow 0..1000, flow_sleep in us)
  const flowE = o.get("flow");
  const flowWeight = flowE ? int(flowE, 0) : 0;
  if (flowE && flowWeight > 1000) throw bad(flowE, `flow must be at most 1000 (fio's FLOW_MAX_WEIGHT), got ${flowWeight}`);
  const flowIdE = o.get("flow_id");
  const flowId = flowIdE ? int(flowIdE, 0) : 0;
  const flowSleepE = o.get("flow_sleep");
  const flowSleepNs = flowSleepE ? int(flowSleepE, 0) * 1000 : 0;
  // ramp_time (fio 3.39 time.c ramp_time_over(): at the ramp's end reset_all_stats() zeroes
  // the job's statistics and restarts its clock; a runtime counts from there)
  const rampE = o.get("ramp_time");
  const rampNs = rampE ? wrap(rampE, (v) => parseTimeNs(v, "s")) : 0;
  if (rampE && rampNs > 0 && !timeBased) {
    warn(`${at(rampE)}: ramp_time with a size or number_ios limit: iosim counts the ramp's IO toward it (fio counts from the ramp's end)`);
  }

  // depth and engine
  const engE = o.get("ioengine");
  const engine = engE ? val(engE).toLowerCase() : FIO_DEFAULT_ENGINE;
  const depE = o.get("iodepth");
  let iodepth = depE ? int(depE, 1) : 1;
  // fio keeps iodepth in an unsigned int; libaio's io_setup refuses more than
  // fs.aio-max-nr (65536 by default) events. The core gives each a worker, so
  // 4294967297 wrapped to 1 and 1e8 ran it out of memory.
  if (iodepth > MAX_IODEPTH) throw bad(depE!, `iodepth ${iodepth} is above ${MAX_IODEPTH}, the most iosim simulates (libaio's default fs.aio-max-nr)`);
  const iodepthOption = iodepth;
  if (iodepth > 1 && FIO_SYNC_ENGINES.has(engine)) {
    warn(`${at(depE!)}: iodepth=${iodepth} with ioengine=${engine}: a synchronous engine keeps one IO in flight; iodepth 1 is used`);
    iodepth = 1;
  } else if (engE && !FIO_SYNC_ENGINES.has(engine) && !["libaio", "io_uring", "posixaio", "null"].includes(engine)) {
    // an engine fio 3.39 (Debian's build) does not have: an engine built only
    // elsewhere (xnvme, http, windowsaio, ...) or an external plugin
    // (external:/path.so) is still a fio job, so only a near miss of a built-in
    // name is called out (fio itself says "engine libiao not loadable")
    const builtIn = Object.hasOwn(FIO_ENGINE_OPTIONS, engine);
    // (a built-in engine a typo away, util/nearest-name.ts: libiao or io-uring)
    const near = builtIn || /[:/]/.test(engine) ? undefined : nearestName(engine, Object.keys(FIO_ENGINE_OPTIONS));
    warn(`${at(engE)}: ioengine=${engine}: ` + (near !== undefined
      ? `not one of fio's built-in engines; did you mean ${near}? (fio: engine ${engine} not loadable); modelled as an asynchronous engine`
      : `modelled as an asynchronous engine keeping iodepth IOs in flight`));
  }

  const dirE = o.get("direct");
  const bufE = o.get("buffered");
  let direct = false;
  if (dirE && bufE) direct = dirE.seq > bufE.seq ? wrap(dirE, parseBool) : !wrap(bufE, parseBool);
  else if (dirE) direct = wrap(dirE, parseBool);
  else if (bufE) direct = !wrap(bufE, parseBool);
  if (!direct && engine === "libaio" && iodepth > 1) {
    // io_submit() on a buffered file does the read (or the copy into the
    // page cache) before it returns: the job has one IO at a time
    warn(`${sec.file}:${sec.line}: [${sec.name}]: libaio without direct=1 is not asynchronous on Linux (io_submit() completes each buffered IO before it returns); iosim runs the job at depth 1, not iodepth=${iodepth}`);
    iodepth = 1;
  }
  // buffered reads: fio's fadvise_hint (default 1: the workload's type) and
  // invalidate (default 1), read by the page cache model
  const advE = o.get("fadvise_hint");
  let fadvise: "none" | "type" | "sequential" | "random" = "type";
  if (advE) {
    const v = (advE.value ?? "1").trim().toLowerCase();
    if (v === "0" || v === "false" || v === "none") fadvise = "none";
    else if (v === "1" || v === "true" || v === "" || v === "type") fadvise = "type";
    else if (v === "sequential" || v === "random") fadvise = v;
    else throw new InputError(`fadvise_hint: "${advE.value}" is not one of 0, 1, sequential, random`, advE.file, advE.line, "fadvise_hint");
  }
  const invE = o.get("invalidate");
  const invalidate = invE ? wrap(invE, parseBool) : true;

  // pacing, as fio's fixup_options(), __setup_rate() and usec_for_io() do
  // (checked against fio 3.33 and 3.39):
  //   - rate and rate_iops together are refused ("fio: rate and rate_iops are
  //     mutually exclusive"), whichever directions they name; so are rate_min
  //     and rate_iops_min;
  //   - a direction's rate_iops becomes a byte rate, rate_iops x min_bs of
  //     that direction (the smallest size bs/bssplit lists), and IOs are
  //     paced by bytes: with several block sizes the job makes fewer IOs
  //     than rate_iops. With one size the two are the same pacing, and the
  //     cap stays an IO cap. (fio's master after 3.39 paces rate_iops with
  //     bssplit by IOs again; iosim follows the released fio.)
  let pattern: Pattern = { kind: "closed" };
  const rateE = o.get("rate");
  const riE = o.get("rate_iops");
  const exclusive = (a: Entry | undefined, b: Entry | undefined) => {
    const any = (e: Entry | undefined) => !!e && wrap(e, splitDirections).some((v) => v !== undefined && wrap(e, () => parseSize(v, kbBase)) > 0);
    if (!any(a) || !any(b)) return;
    const [first, last] = a!.seq < b!.seq ? [a!, b!] : [b!, a!];
    throw new InputError(`${a!.key} and ${b!.key} are mutually exclusive: fio refuses the job ("fio: rate and rate_iops are mutually ` +
      `exclusive"); ${first.key}= is at ${at(first)}. Give one of them`, last.file, last.line, last.key);
  };
  exclusive(rateE, riE);
  exclusive(o.get("rate_min"), o.get("rate_iops_min"));
  if (rateE || riE) {
    // [read, write] caps; a single value caps each direction (fio: "rate=1m"
    // limits reads and writes to 1 MiB/s each; "rate=1m," reads only)
    const caps = (e: Entry | undefined, unit: "bps" | "iops"): [number | undefined, number | undefined] => {
      if (!e) return [undefined, undefined];
      const [r, w] = wrap(e, splitDirections);
      // 0 is fio's default: no cap for that direction (td->o.rate[ddir] == 0
      // leaves it unpaced), so "rate=0" or "rate=1m,0" caps nothing / reads only
      const toN = (s: string | undefined) => (s === undefined ? undefined : wrap(e, () => parseSize(s, kbBase)) || undefined);
      const rv = toN(r);
      const wv = toN(w);
      if ((rv !== undefined && rv < 0) || (wv !== undefined && wv < 0)) throw bad(e, `${unit} must be >= 0`);
      return [rv, wv];
    };
    const [rBps, wBps] = caps(rateE, "bps");
    const [rIops, wIops] = caps(riE, "iops");
    // an IO cap stays one only where every IO of the capped directions is
    // min_bs (on a mix, one direction in bytes puts both in bytes: fio's
    // text cannot give rate for one direction and rate_iops for the other)
    const oneSize = (iops: number | undefined, list: Array<{ size: number }>, minBs: number) =>
      iops === undefined || list.every((b) => b.size === minBs);
    const asIos = (rwi.rw !== "write" ? oneSize(rIops, listR, minBsR) : true) && (rwi.rw !== "read" ? oneSize(wIops, listW, minBsW) : true);
    const one = (bps: number | undefined, iops: number | undefined, minBs: number) =>
      bps !== undefined ? { bps } : iops === undefined ? {} : asIos ? { iops } : { bps: iops * minBs };
    const read = one(rBps, rIops, minBsR);
    const write = one(wBps, wIops, minBsW);
    const has = (c: { iops?: number; bps?: number }) => c.iops !== undefined || c.bps !== undefined;
    // fio's rate_process (options.c: linear, the default, or poisson)
    const rpE = o.get("rate_process");
    const rp = rpE ? (rpE.value ?? "").trim() : "linear";
    if (rpE && rp !== "linear" && rp !== "poisson") throw bad(rpE, `rate_process must be linear or poisson, got "${rp}"`);
    if (rwi.rw === "read" || rwi.rw === "write") {
      const c = rwi.rw === "read" ? read : write;
      if (has(c)) {
        pattern = { kind: "rate", ...c };
        if (rp === "poisson") {
          // usec_for_io(): iops = rate_bps / min_bs (rate_iops is kept as rate_bps = iops * min_bs)
          const minBs = rwi.rw === "read" ? minBsR : minBsW;
          const iops = c.iops !== undefined ? c.iops : Math.floor(c.bps! / minBs);
          if (!(iops >= 1)) throw bad(rpE!, `rate_process=poisson needs a rate of at least one IO a second (min_bs ${minBs})`);
          pattern = { kind: "rate", ...c, poissonIops: iops };
        }
      }
    } else if (has(read) || has(write)) {
      if (rp === "poisson") warn(`${at(rpE!)}: rate_process=poisson on a mixed job: each direction is paced linearly`);
      // a mixed job: each direction at its own cap, as fio's rate_ddir() paces them
      pattern = { kind: "rate", ...(has(read) ? { read } : {}), ...(has(write) ? { write } : {}) };
    }
  }
  // fio 3.39 backend.c handle_thinktime(): spin thinktime_spin, then sleep
  // what is left of thinktime: the next IO waits max(thinktime, thinktime_spin)
  // (spinning only burns CPU, which iosim does not model)
  const ttE = o.get("thinktime");
  const spinE = o.get("thinktime_spin");
  const thinktimeNs = Math.max(ttE ? wrap(ttE, (v) => parseTimeNs(v, "us")) : 0, ttE && spinE ? wrap(spinE, (v) => parseTimeNs(v, "us")) : 0);
  const tbkE = o.get("thinktime_blocks");
  const thinktimeBlocks = tbkE ? int(tbkE, 1) : 1;
  if (tbkE && !ttE) warn(`${at(tbkE)}: thinktime_blocks without thinktime has no effect`);
  const tioE = o.get("thinktime_iotime");
  const thinktimeIotimeNs = tioE ? wrap(tioE, (v) => parseTimeNs(v, "s")) : 0;
  if (tioE && !ttE) warn(`${at(tioE)}: thinktime_iotime without thinktime has no effect`);
  if (spinE && !ttE) warn(`${at(spinE)}: thinktime_spin without thinktime has no effect`);
  const sdE = o.get("startdelay");
  let startNs = 0;
  if (sdE) {
    const v = val(sdE);
    const range = /^([^-:]+)[-:]([^-:]+)$/.exec(v);
    if (range) {
      const lo = wrap(sdE, () => parseTimeNs(range[1]!, "s"));
      const hi = wrap(sdE, () => parseTimeNs(range[2]!, "s"));
      startNs = Math.min(lo, hi);
      warn(`${at(sdE)}: startdelay=${v}: fio picks a random delay in the range per job; iosim uses the lower bound`);
    } else startNs = wrap(sdE, (s) => parseTimeNs(s, "s"));
  }

  // replay
  const rlE = o.get("read_iolog");
  let replay: { ios: import("../scenario/types.js").ReplayIo[]; device?: string } | undefined;
  if (rlE) {
    const path = val(rlE).split(/(?<!\\):/)[0]!;
    if (!opts.readFile) throw new InputError(`read_iolog=${path}: no readFile was given to the parser`, rlE.file, rlE.line, "read_iolog");
    let text: string;
    try {
      text = opts.readFile(path, rlE.file);
    } catch (err) {
      throw new InputError(`cannot read iolog "${path}": ${(err as Error).message}`, rlE.file, rlE.line, "read_iolog");
    }
    const nsE = o.get("replay_no_stall");
    const tsE = o.get("replay_time_scale");
    const log = parseIoLog(text, path, {
      noStall: nsE ? wrap(nsE, parseBool) : false,
      timeScalePct: tsE ? int(tsE, 1) : 100,
    });
    log.warnings.forEach(warn);
    if (log.files.length === 0) throw new InputError(`iolog "${path}" has no reads or writes`, rlE.file, rlE.line, "read_iolog");
    if (log.files.length > 1) warn(`${at(rlE)}: iolog "${path}" names ${log.files.length} files; iosim replays the first, ${log.files[0]!.filename}`);
    const f0 = log.files[0]!;
    const redirect = o.get("replay_redirect");
    const dev = redirect ? deviceFromFilename(val(redirect)) : (fnE ? device : f0.device);
    replay = { ios: f0.ios, device: dev };
    pattern = { kind: "replay", ios: f0.ios };
    if (rateE || riE) warn(`${at(rlE)}: read_iolog replaces rate/rate_iops pacing`);
  }
  if (replay) {
    if (replay.device) device = replay.device;
    if (!device) throw new InputError(`the iolog's files are not /dev paths; give filename= or replay_redirect=`, rlE!.file, rlE!.line, "read_iolog");
    if (opts.devices && !opts.devices.includes(device)) {
      throw new InputError(`device "${device}" is not in the scenario (${opts.devices.join(", ") || "none"})`, rlE!.file, rlE!.line, "read_iolog");
    }
    offset = 0;
    offInc = 0;
    regionLen = maxOf(replay.ios.map((io) => io.off + io.size));
  }

  const cgE = o.get("cgroup");
  const cgroup = cgE ? normCgroupPath(val(cgE)) : "";

  const nE = o.get("numjobs");
  const numjobs = nE ? int(nE, 1) : 1;
  const grE = o.get("group_reporting");
  const groupReporting = grE ? wrap(grE, parseBool) : false;
  const stE = o.get("stonewall");
  if (stE && wrap(stE, parseBool)) warn(`${at(stE)}: stonewall: fio starts [${sec.name}] after the earlier jobs finish; iosim starts it at its startdelay (the reporting group still changes)`);
  const plE = o.get("percentile_list");
  const percentiles = plE ? wrap(plE, (v) => v.split(":").map((p) => {
    const n = Number(p);
    if (!Number.isFinite(n) || n <= 0 || n > 100) throw new ValueError(`"${p}" is not a percentile in (0, 100]`);
    return n;
  })) : undefined;

  const thE = o.get("thread");
  const thread = thE ? wrap(thE, parseBool) : false;
  const startup: FioStartup = {
    rw: (rwi.random ? "rand" : "") + (rwi.rw === "read" || rwi.rw === "write" ? rwi.rw : "rw"), bs: startupBs, ioengine: engine, iodepth: iodepthOption, kbBase,
  };
  const duE = o.get("disk_util");
  const diskUtil = duE ? wrap(duE, parseBool) : true;
  const ownOptions = fioOptList([...own.values()]);

  const out: JobSpec[] = [];
  const metas: FioJobMeta[] = [];
  for (let i = 0; i < numjobs; i++) {
    const name = numjobs > 1 ? `${jobname}.${i}` : jobname;
    const off = offset + offInc * i;
    if (devSize !== undefined && off + regionLen > devSize) {
      warn(`${sec.file}:${sec.line}: [${name}]: region ${off}+${regionLen} extends past the end of ${device} (${devSize} bytes)`);
    }
    const spec: JobSpec = {
      name,
      cgroup,
      device,
      rw: rwi.rw,
      random: rwi.random,
      mixReadPct,
      bs: bs.map((b) => ({ ...b })),
      ...(bsWrite ? { bsWrite: bsWrite.map((b) => ({ ...b })) } : {}),
      offset: off,
      regionLen,
      align,
      iodepth,
      pattern: pattern.kind === "replay" ? { kind: "replay", ios: pattern.ios } : { ...pattern },
      thinktimeNs,
      thinktimeBlocks,
      ...(thinktimeIotimeNs > 0 ? { thinktimeIotimeNs, thinktimeBlocksSet: tbkE !== undefined } : {}),
      startNs,
      timeBased,
      direct,
      ...(direct ? {} : { fadvise, invalidate }),
      groupId: groupid,
      source: { file: sec.file, line: sec.line, field: sec.name },
    };
    if (count !== undefined) spec.count = count;
    if (!replay) spec.bytes = bytes;
    if (runtimeNs) spec.runtimeNs = runtimeNs;
    if (rampNs > 0) spec.rampNs = rampNs;
    if (flowWeight > 0) spec.flow = { id: flowId, weight: flowWeight, sleepNs: flowSleepNs };
    out.push(spec);
    // fio's logs (report/fio-logs.ts): the options' values ("" = the job's name)
    const logOf = (k: string) => {
      const e = o.get(k);
      if (!e) return undefined;
      const v = (e.value ?? "").trim();
      return v === "1" && FLAG_OPTIONS.has(k) ? "" : v;
    };
    const logs = { bw: logOf("write_bw_log"), lat: logOf("write_lat_log"), iops: logOf("write_iops_log") };
    const avgE = o.get("log_avg_msec");
    const pjE = o.get("per_job_logs");
    const fioLogs = logs.bw !== undefined || logs.lat !== undefined || logs.iops !== undefined
      ? { ...logs, avgMsec: avgE ? int(avgE, 0) : 0, perJob: pjE ? wrap(pjE, (v) => parseBool(v === "" ? "1" : v)) : true,
          ...(new Set([...bs, ...(bsWrite ?? [])].map((b) => b.size)).size === 1 ? { fixedBs: bs[0]!.size } : {}) }
      : undefined;
    metas.push({ spec: name, jobname, groupid, options: ownOptions, groupReporting, ...(fioLogs ? { logs: fioLogs } : {}), iodepth: iodepthOption, ...(percentiles ? { percentiles } : {}), ...(diskUtil ? {} : { diskUtil: false as const }),
      startup, ...(numjobs > 1 ? { clone: i } : {}), ...(thread ? { thread } : {}) });
  }
  return { jobs: out, meta: metas };
}


/**
 * A section's options in the order fio lists them in its JSON "global options" /
 * "job options" (td->opt_list). fio 3.39 options.c fio_options_parse() sorts a
 * section's option strings with sort_options() by each option's .prio, higher
 * first, keeping the written order otherwise: kb_base, unit_base and lockfile
 * have prio 1, filename and filename_format prio -1 ("must come after
 * directory"), all others 0. Checked against fio 3.39's own JSON:
 * "filename=... size=64k rw=read kb_base=1024" lists kb_base, size, rw, filename.
 */
const FIO_OPTION_PRIO: Readonly<Record<string, number>> = {
  kb_base: 1, unit_base: 1, lockfile: 1, filename: -1, filename_format: -1,
};

export function fioOptList(entries: ReadonlyArray<{ key: string; value: string | undefined }>): Record<string, string> {
  const prio = (k: string) => FIO_OPTION_PRIO[canonical(k)] ?? 0;
  const sorted = [...entries].sort((a, b) => prio(b.key) - prio(a.key)); // Array.prototype.sort is stable
  const out: Record<string, string> = {};
  for (const e of sorted) out[e.key] = e.value ?? "";
  return out;
}

/** iosim's option classes (for the test that checks each name is one fio knows). */
export const IOSIM_FIO_OPTION_CLASSES = {
  modelled: [...MODELLED], noEffect: [...NO_EFFECT], notModelled: Object.keys(NOT_MODELLED), flags: [...FLAG_OPTIONS],
} as const;
