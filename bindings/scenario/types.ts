// The shapes every part of iosim agrees on: a scenario (devices, cgroups,
// config files, jobs, timed changes) and the result of running it.
//
// All times are integer nanoseconds as JavaScript numbers (exact up to 2^53 ns,
// about 104 days of simulated time). Sizes are bytes.

/** Kernel versions with a behaviour profile. */
export type KernelVersion = "6.1" | "6.12" | "6.18";
export const KERNEL_VERSIONS: readonly KernelVersion[] = ["6.1", "6.12", "6.18"];
export const DEFAULT_KERNEL: KernelVersion = "6.18";

/** Where a value came from, for error messages: file, 1-based line, field. */
export interface SourceRef {
  file: string;
  line?: number;
  field?: string;
}

/** Kernel jiffies: HZ and the phase of the tick grid relative to t = 0. */
export interface ClockSpec {
  hz: number;
  /** jiffies value during the tick that contains t = 0 (u64). */
  jiffiesAtZero: bigint;
  /** ns from the start of that tick to t = 0, in [0, 1e9/hz). */
  zeroAfterTickNs: number;
}

/** Service-rate table: (size bytes, IOPS with the whole device busy) points. */
export type CurvePoints = Array<[size: number, iops: number]>;

export interface DeviceCurve {
  read: { seq: CurvePoints; rand: CurvePoints };
  write: { seq: CurvePoints; rand: CurvePoints };
}

export type DeviceKind = "ssd" | "nvme" | "hdd" | "ideal" | "nullb" | "linear" | "custom" | "fitted";

/** One number per direction and access pattern. */
export interface PerTable<T> {
  read: { seq: T; rand: T };
  write: { seq: T; rand: T };
}

/**
 * A measured latency distribution at one table point: factors of the mean at
 * quantiles u (ascending from 0 to 1; evenly spaced when not given), 2 to 65 of
 * them, mean 1 by the trapezoid rule (assembly/device/device.ts quantileFactor).
 */
export interface QuantileRow {
  size: number;
  /** the requests in flight it was measured at (default 1): a bio takes the row nearest its in-flight count in log depth */
  depth?: number;
  /** the quantiles of the factors, ascending from 0 to 1 (default: evenly spaced) */
  u?: number[];
  factors: number[];
}

/** A quantile row's u values (given, or evenly spaced). */
export function quantileUs(row: QuantileRow): number[] {
  const n = row.factors.length;
  return row.u ?? Array.from({ length: n }, (_, k) => k / (n - 1));
}

/** A rotational device's arm (assembly/device/device.ts mechanicalNs). */
export interface DeviceMechanics {
  /** seek time of the shortest seek, ns (track to track plus settle) */
  settleNs: number;
  /** seek time across the whole disk, ns */
  fullStrokeNs: number;
  rpm: number;
  /** media rate, bytes/s (a random bio's transfer time) */
  mediaBytesPerSec: number;
}

/**
 * What gives a device's latencies their spread (the `ssd`, `nvme`, `hdd`
 * presets and fitted devices; none: every bio of a size takes the same time).
 */
export interface DeviceShape {
  /** log-normal sigma per table (jitterSigma is one sigma for all four) */
  sigma?: PerTable<number>;
  /** measured distributions per table point */
  quantiles?: PerTable<QuantileRow[]>;
  mechanics?: DeviceMechanics;
  /**
   * a fitted device's depth curve: [requests in flight, multiplier of a bio's time] points,
   * ascending; linear in log depth between them, the end values beyond
   */
  depth?: Array<[number, number]>;
}

/** A device's card: what it is, its numbers and where they come from (`iosim devices`). */
export interface DeviceCard {
  /** the model, one line, e.g. "SATA SSD (seed curve, datasheet-class asymmetry)" */
  model: string;
  /** what it is and how it behaves, a few lines */
  what: string[];
  /** where the numbers come from */
  sources: string[];
}

export interface DeviceSpec {
  /** Kernel name, e.g. "nvme0n1", "sda", "loop1". */
  name: string;
  /** "MAJ:MIN" as the cgroup files name it. */
  devno: string;
  kind: DeviceKind;
  /** Internal parallelism: bios served at once. */
  channels: number;
  /** Request queue depth: bios admitted to the device at once (nr_requests). */
  nrRequests: number;
  /** Latency added to every bio without holding a channel (e.g. null_blk completion_nsec). */
  latencyNs: number;
  /** Multiplicative log-normal jitter sigma on service time (0 = fixed). */
  jitterSigma: number;
  /** queue/max_sectors_kb: blk-mq splits bios larger than this. */
  maxSectorsKb: number;
  /** queue/read_ahead_kb: the readahead window of buffered reads (default 128, the kernel's VM_READAHEAD_PAGES) */
  readAheadKb?: number;
  rotational: boolean;
  /** capacity in bytes (for fio's size=N% and jobs without size=) */
  sizeBytes?: number;
  curve: DeviceCurve;
  /** latency distributions and mechanics; unset: fixed service times */
  shape?: DeviceShape;
  /** what the device is (presets, fitted and file devices) */
  card?: DeviceCard;
  /**
   * Recorded deliveries of this device's iocost period timer, ascending ns (a trace replay: the
   * guest's host delivered the jiffies timer late, or early when its jiffies lagged). A run fires
   * at the recorded delivery nearest its kernel expiry from half a period before it to one period
   * after it, else at the expiry (a run that left no tracepoint); unset = the kernel's own timing.
   */
  iocostTimerNs?: number[];
  /**
   * Recorded stalls of the machine a trace was made on (a replay of an emulated guest): windows
   * [start, end) ns, ascending and disjoint, in which the guest did not run. A request reaching
   * the driver in one is issued at its end; one due to complete in one completes at its end.
   */
  stallsNs?: Array<[number, number]>;
  /**
   * Recorded stalls of the guest that ran the trace, [from, to) ns (an emulated guest whose host
   * did not run it for a while: its clock went on, nothing in it ran). An io.cost timer (period
   * timer, waitq wakeup) due inside one runs at its end. Unset: a machine that always runs.
   */
  guestStallsNs?: Array<[number, number]>;
  /**
   * /sys/block/<dev>/queue/wbt_lat_usec written at t = 0 (writeback throttling, assembly/wbt/):
   * "-1" the kernel's default (2000 us, 75000 us rotational), "0" off. Unset: no wbt (iosim's
   * default; the kernel enables it by default on blk-mq disks).
   */
  wbtLatUsec?: string;
}

/** A cgroup, named by its path below the root ("" is the root), e.g. "web/frontend". */
export interface CgroupSpec {
  path: string;
  /** Kernel interface files written at t = 0, e.g. {"io.max": "259:0 rbps=1048576"}. */
  files?: Record<string, string>;
  source?: SourceRef;
  /** line of each file's value in the scenario file, for errors */
  fileLines?: Record<string, number>;
}

/** A write of a cgroup (or device-wide) interface file at a simulated time. */
export interface ConfigWrite {
  atNs: number;
  /** Cgroup path; "" for root-level files such as io.cost.qos / io.cost.model. */
  cgroup: string;
  file: string;
  value: string;
  source?: SourceRef;
}

export type RwKind = "read" | "write" | "mix" | "alt";

export type Pattern =
  | { kind: "closed" }
  | {
      kind: "rate";
      /** a job-wide cap (a job of one direction) */
      iops?: number;
      bps?: number;
      /** a mixed job's caps per direction (fio rate=R,W / rate_iops=R,W, paced as fio's rate_ddir() does) */
      read?: { iops?: number; bps?: number };
      write?: { iops?: number; bps?: number };
      /**
       * fio's rate_process=poisson: exponential gaps between IOs of mean 1e6 / poissonIops us
       * (usec_for_io(): iops = rate_bps / min_bs, integer); a job of one direction
       */
      poissonIops?: number;
    }
  | { kind: "times"; timesNs: number[] }
  | { kind: "bursts"; burst: number; gapsNs: number[] }
  | { kind: "replay"; ios: ReplayIo[] };

export interface ReplayIo {
  /** submit time relative to the job's start */
  tNs: number;
  off: number;
  size: number;
  dir: "R" | "W";
  /** the recorded driver time (rq_issue -> rq_complete) that replaces the device's service, ns */
  serviceNs?: number;
  /**
   * the recorded CPU time of the guest between rq-qos letting the request go and its tag
   * (block_getrq), ns: the request asks for a tag that much later (a replay of an emulated guest;
   * read where wbt or io.latency is on the device)
   */
  cpuNs?: number;
  /**
   * the recorded time the request waited for a tag while one was free (its task did not run), ns:
   * its first try on a free tag comes that much later, and a tag freed meanwhile goes to whoever
   * asks first (a replay of an emulated guest; device.ts tagWakeReplay)
   */
  tagWakeNs?: number;
}

export interface JobSpec {
  name: string;
  /**
   * The job's IOs are writeback requests replayed from a trace: "background" (the flusher's
   * background or periodic writeback, REQ_BACKGROUND) or "sync" (WB_SYNC_ALL, REQ_SYNC). wbt
   * tracks and limits them.
   */
  replayWriteback?: "background" | "sync";
  /**
   * Buffered reads replayed from a trace: the recorded driver time (rq_issue of its last
   * piece -> rq_complete of its last request) of the job's k-th readahead bio, in the order the
   * job submits them (-1: not recorded, the device model's). Replaces the device's service
   * as a replay's `serviceNs` does for direct IO (assembly/device/device.ts svcReplay).
   */
  readaheadServiceNs?: number[];
  /**
   * Buffered reads replayed from a trace: the recorded dispatch delay of the job's k-th
   * readahead bio (ns from the rq_issue of its last piece to that of its latest, 0 none):
   * the reader that submitted it, asleep in the rq-qos chain on it, runs again that long
   * after it went (assembly/device/device.ts raCpuReplay, pagecache.ts pcRaPassed()).
   */
  readaheadCpuNs?: number[];
  /** cgroup path the job runs in ("" = root). */
  cgroup: string;
  /** device name (DeviceSpec.name). */
  device: string;
  /**
   * "mix" is fio's rw=rw / randrw; sequential, it keeps a position per direction as fio's
   * f->last_pos[ddir] (reads and writes each from the region's start); "alt" is the oracle
   * recorder's alternation, one position for both directions.
   */
  rw: RwKind;
  random: boolean;
  /** percent of reads for rw = "mix" */
  mixReadPct: number;
  /** block sizes with weights (fio bs / bssplit); the reads' when `bsWrite` is given. */
  bs: Array<{ size: number; weight: number }>;
  /** the writes' block sizes of a mixed job when they differ from the reads' (fio bs=R,W / bssplit=R,W) */
  bsWrite?: Array<{ size: number; weight: number }>;
  /** region of the device the job touches */
  offset: number;
  regionLen: number;
  /** alignment of random offsets */
  align: number;
  /** IOs in flight at once (fio iodepth; oracle qd threads). */
  iodepth: number;
  pattern: Pattern;
  thinktimeNs: number;
  thinktimeBlocks: number;
  /** fio's thinktime_iotime: think after this much IO time (ns; 0 or unset = by blocks only) */
  thinktimeIotimeNs?: number;
  /** thinktime_blocks was given beside thinktime_iotime (fio then also stalls by blocks) */
  thinktimeBlocksSet?: boolean;
  startNs: number;
  /** stop after this many IOs (fio number_ios) */
  count?: number;
  /** stop after this many bytes (fio size / io_size) */
  bytes?: number;
  /** stop submitting this long after start (fio runtime; after the ramp when rampNs is set) */
  runtimeNs?: number;
  /**
   * fio's ramp_time: the job's statistics (and its bw/iops sample windows, its fio logs) start
   * this long after its start, and a runtime counts from there (time.c ramp_time_over())
   */
  rampNs?: number;
  /**
   * fio's flow / flow_id / flow_sleep (flow.c): jobs of one flow group issue in proportion to
   * their weights; a job ahead of its share waits for the group (or sleeps flow_sleep)
   */
  flow?: { id: number; weight: number; sleepNs: number };
  /** with runtime: keep going over the region until runtime (fio time_based) */
  timeBased: boolean;
  /** O_DIRECT; buffered writes go through the page cache and writeback, buffered reads through
   *  the page cache and readahead (assembly/pagecache) */
  direct: boolean;
  /** buffered reads: posix_fadvise at open, as fio's fadvise_hint ("type" = fio's default 1:
   *  SEQUENTIAL for a sequential job, RANDOM for a random one); default "none" */
  fadvise?: "none" | "type" | "sequential" | "random";
  /** buffered reads: drop the job's range from the page cache at its first read (fio invalidate=1) */
  invalidate?: boolean;
  /** fio's group/job numbering for output (jobname, groupid) */
  groupId?: number;
  source?: SourceRef;
}

export interface Scenario {
  name: string;
  description?: string;
  kernel: KernelVersion;
  cgroupVersion: 1 | 2;
  seed: number;
  clock: ClockSpec;
  devices: DeviceSpec[];
  cgroups: CgroupSpec[];
  jobs: JobSpec[];
  /** timed writes of config files */
  writes: ConfigWrite[];
  /** stop the simulation at this time (ns); undefined = when all jobs finish */
  durationNs?: number;
  /** time-series bin width; 0 = no series */
  seriesBinNs: number;
  /** keep one record per completed bio */
  record: boolean;
  /**
   * the kernel's blk_cgroup.blkcg_debug_stats module parameter (default off):
   * with it io.stat adds iocost's cost.wait, cost.indebt and cost.indelay
   * (block/blk-iocost.c ioc_pd_stat(), 6.1-6.18)
   */
  blkcgDebugStats?: boolean;
  /** where this scenario came from */
  source?: SourceRef;
}

/** Latency summary in fio's units (ns) with fio's percentile list. */
export interface LatencyStats {
  min: number;
  max: number;
  mean: number;
  stddev: number;
  /** fio's clat percentiles: "1.000000" ... "99.990000" -> ns */
  percentiles: Record<string, number>;
  /** raw fio plat histogram (1856 buckets, fio stat.h layout) */
  histogram: Uint32Array;
}

/**
 * fio's samples of a job's bandwidth or IOPS (stat.c add_bw_samples /
 * add_iops_samples: one per 500 ms window with IO; assembly/stats/stats.ts):
 * fio's io_stat, min, max, mean and S (the sum of squared deviations;
 * stddev = sqrt(S / (samples - 1))).
 */
export interface RateSamples {
  samples: number;
  min: number;
  max: number;
  mean: number;
  S: number;
}

export interface DirectionStats {
  ios: number;
  bytes: number;
  lat: LatencyStats;
  /** fio's bw samples, KiB/s (absent in results made before iosim kept them) */
  bwSamples?: RateSamples;
  /** fio's iops samples */
  iopsSamples?: RateSamples;
}

export interface JobResult {
  name: string;
  cgroup: string;
  device: string;
  read: DirectionStats;
  write: DirectionStats;
  /** simulated ns the job starts at (its startdelay), whether or not it issued IO */
  startNs: number;
  firstSubmitNs: number;
  lastDoneNs: number;
  /** ms from the job's start to its last completion (a time_based job's: at least its runtime), as fio's runtime */
  runtimeMs: number;
  /** the job's iodepth (JobSpec.iodepth): fio's latency_depth when no fio job file gave one */
  iodepth?: number;
  /**
   * fio's io_u_map: how many IOs the job submitted with 1, 2-3, 4-7, 8-15,
   * 16-31, 32-63 and >=64 IOs in flight (counting the one submitted), as fio
   * 3.39 io_u_mark_depth() buckets td->cur_depth. Absent: not measured.
   */
  depth?: number[];
}

export interface CgroupResult {
  path: string;
  /** own counts per device (devno -> counts), as blkcg_iostat before rstat flush */
  own: Record<string, IoStatCounts>;
  /** counts including descendants, what io.stat shows (the root: its disks' own statistics, requests completed; RunResult.devices) */
  total: Record<string, IoStatCounts>;
  /** ns bios spent waiting in blk-throttle, per direction */
  throttleWaitNs: { read: number; write: number };
  /** per device: extra io.stat fields the control modules add (iocost: cost.vrate, cost.usage, ...) */
  ioStatExtra?: Record<string, Record<string, string | number>>;
  /**
   * the devices this cgroup has a blkg on, in its blkg_list order (newest
   * first): the lines its io.stat prints. A child cgroup gets a blkg on a
   * device when a bio of its subtree is submitted there or a config file of
   * its subtree names the device; the root has one per disk.
   */
  ioStatDevices?: string[];
}

export interface IoStatCounts {
  rbytes: number;
  wbytes: number;
  rios: number;
  wios: number;
  dbytes: number;
  dios: number;
}

/**
 * A disk's /sys/block/<dev>/stat at the end of a run (Linux 6.12
 * part_stat_show's fields; discard and flush are 0 in iosim and left out).
 * Requests are accounted from allocation to completion, so a bio's wait for a
 * tag is in no tick (assembly/device/device.ts, "Disk statistics").
 */
export interface DiskStats {
  readIos: number;
  readMerges: number;
  readSectors: number;
  /** ms the reads spent from request allocation to completion, summed */
  readTicksMs: number;
  writeIos: number;
  writeMerges: number;
  writeSectors: number;
  writeTicksMs: number;
  /** requests in flight when read */
  inFlight: number;
  /** ms with at least one request in flight, counted in jiffies (update_io_ticks) */
  ioTicksMs: number;
  /** the directions' ticks summed (time_in_queue) */
  timeInQueueMs: number;
}

export interface DeviceResult {
  name: string;
  devno: string;
  /** the device card's model line (presets, fitted and file devices; the oracle's devices have none) */
  model?: string;
  stat: DiskStats;
}

export interface SeriesBin {
  t0Ns: number;
  cgroup: string;
  dir: "read" | "write";
  ios: number;
  bytes: number;
  meanLatNs: number;
  p99LatNs: number;
  /** with buffered reads: the readahead bios of this cgroup that completed in the bin, and their
   *  bytes (what io.stat counts; ios/bytes above are the application's reads). A bin with bios
   *  and no read completed has ios 0 and latencies 0. */
  deviceIos?: number;
  deviceBytes?: number;
}

export interface BioRecord {
  job: string;
  seq: number;
  worker: number;
  cgroup: string;
  dir: "R" | "W";
  off: number;
  size: number;
  submitNs: number;
  releaseNs: number;
  issueNs: number;
  completeNs: number;
  /** a page-cache readahead bio (REQ_RAHEAD) issued for the job's buffered reads; the job's
   *  own buffered reads are records without it (their release/issue = submit) */
  readahead?: true;
}

export interface RunResult {
  scenario: string;
  kernel: KernelVersion;
  seed: number;
  simulatedNs: number;
  events: number;
  wallMs: number;
  jobs: JobResult[];
  cgroups: CgroupResult[];
  /** each device's disk statistics, in scenario order (absent in results made before iosim kept them) */
  devices?: DeviceResult[];
  series: SeriesBin[];
  seriesBinNs: number;
  records?: BioRecord[];
  /** blk-iolatency groups' depth and scale state and wbt's limits over time (only when either was configured) */
  rqos?: RqosTimelines;
  warnings: string[];
}

export interface IolatTimelinePoint {
  tNs: number;
  /** rq_depth.max_depth, null = unthrottled (UINT_MAX) */
  depth: number | null;
  useDelay: number;
  /** the group's own scale_cookie, as 1,000,000 - cookie: how many steps below the default */
  cookieDown: number;
}

export interface WbtTimelinePoint {
  tNs: number;
  step: number;
  maxDepth: number;
  normal: number;
  background: number;
  /** the window the timer uses next, ns */
  windowNs: number;
}

export interface RqosTimelines {
  /** per cgroup path, per devno: the group's depth and scale state after each change */
  iolatency: Record<string, Record<string, IolatTimelinePoint[]>>;
  /** per devno: wbt's limits after each change */
  wbt: Record<string, WbtTimelinePoint[]>;
}


