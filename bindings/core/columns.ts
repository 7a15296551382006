// Views of the core's result columns (ids mirror assembly/index.ts).
import type { CoreExports } from "./core.js";

/** Fields of a device's /sys/block/<dev>/stat for core.deviceStat (ids mirror assembly/device/device.ts DS_*). */
export const DS = {
  READ_IOS: 0,
  READ_MERGES: 1,
  READ_SECTORS: 2,
  READ_TICKS_MS: 3,
  WRITE_IOS: 4,
  WRITE_MERGES: 5,
  WRITE_SECTORS: 6,
  WRITE_TICKS_MS: 7,
  IN_FLIGHT: 8,
  IO_TICKS_MS: 9,
  TIME_IN_QUEUE_MS: 10,
} as const;

/** Fields of one sample set in COL.JOB_RATE_STAT (assembly/stats/stats.ts SAMPLE_FIELDS). */
export const RATE_FIELDS = 5;

export const COL = {
  JOB_IOS: 1,
  JOB_BYTES: 2,
  JOB_LAT_SUM: 3,
  JOB_LAT_SQ: 4,
  JOB_LAT_MIN: 5,
  JOB_LAT_MAX: 6,
  JOB_HIST: 7,
  JOB_FIRST_SUBMIT: 8,
  JOB_LAST_DONE: 9,
  JOB_DEPTH: 37, // per job x FIO_IO_U_MAP_NR: fio's io_u_map (in-flight count at each submission)
  JOB_RATE_STAT: 38, // per job x dir x {bw, iops} x RATE_FIELDS {samples, min, max, mean, S}: fio's bw/iops samples
  CG_IOS: 10,
  CG_BYTES: 11,
  CG_WAIT: 12,
  SERIES_IOS: 13,
  SERIES_BYTES: 14,
  SERIES_LAT_SUM: 15,
  SERIES_HIST: 16, // the open bin's dense histograms (see assembly/stats/stats.ts)
  SERIES_HIST_START: 17, // closed bins: each record's first (bucket, count) pair
  SERIES_HIST_IDX: 18,
  SERIES_HIST_CNT: 19,
  SERIES_REC_BIN: 32, // closed bins' records: bin, cg*2+dir, IOs, bytes, latency sum
  SERIES_REC_KEY: 33,
  SERIES_REC_IOS: 34,
  SERIES_REC_BYTES: 35,
  SERIES_REC_LAT_SUM: 36,
  PC_DONE_T: 60, // readahead bio completions: time, cgroup, bytes (the series' device side)
  PC_DONE_CG: 61,
  PC_DONE_BYTES: 62,
  REC_JOB: 20,
  REC_SEQ: 21,
  REC_WORKER: 22,
  REC_CG: 23,
  REC_DIR: 24,
  REC_FLAGS: 25,
  REC_OFF: 26,
  REC_SIZE: 27,
  REC_SUBMIT: 28,
  REC_RELEASE: 29,
  REC_ISSUE: 30,
  REC_DONE: 31,
} as const;

export const FIO_PLAT_NR = 1856;
export const FIO_IO_U_MAP_NR = 7;
export const SERIES_PLAT_BITS = 3;
export const SERIES_PLAT_NR = 272;

type Ctor<T> = { new (buf: ArrayBuffer, off: number, len: number): T; BYTES_PER_ELEMENT: number };

function view<T>(core: CoreExports, id: number, ctor: Ctor<T>): T {
  const len = core.columnLength(id);
  const ptr = core.column(id) >>> 0;
  // copy out: later calls may grow memory and detach the buffer
  const v = new ctor(core.memory.buffer, ptr, len) as unknown as { slice(): T };
  return v.slice();
}

export const colI32 = (c: CoreExports, id: number) => view(c, id, Int32Array);
export const colU32 = (c: CoreExports, id: number) => view(c, id, Uint32Array);
export const colU8 = (c: CoreExports, id: number) => view(c, id, Uint8Array);
export const colI64 = (c: CoreExports, id: number) => view(c, id, BigInt64Array);
export const colU64 = (c: CoreExports, id: number) => view(c, id, BigUint64Array);
export const colF64 = (c: CoreExports, id: number) => view(c, id, Float64Array);

/**
 * A view of a column in the core's memory, without the copy: valid only until
 * the next call into the core (a call may grow memory and detach the buffer).
 * For reading a large column in pieces, each piece copied out (`slice`).
 */
export function colU32NoCopy(core: CoreExports, id: number): Uint32Array {
  return new Uint32Array(core.memory.buffer, core.column(id) >>> 0, core.columnLength(id));
}
