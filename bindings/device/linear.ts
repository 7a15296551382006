// iocost's linear cost model as a device: the device takes exactly as long
// per IO as blk-iocost's model says the IO costs.
//
// blk-iocost (block/blk-iocost.c, "linear" model, calc_lcoefs() and
// calc_vtime_cost_builtin()) describes a device by six numbers per
// direction: bps (sequential bandwidth), seqiops and randiops (4 KiB IOPS,
// sequential and random). It turns them into vtime coefficients, with
// VTIME_PER_SEC = 2^37 vtime units = one second of device time:
//
//   page   = ceil(VTIME_PER_SEC / ceil(bps / 4096))          per 4 KiB page
//   seqio  = max(0, ceil(VTIME_PER_SEC / seqiops)  - page)   per sequential IO
//   randio = max(0, ceil(VTIME_PER_SEC / randiops) - page)   per random IO
//   cost(bio) = (seq ? seqio : randio) + max(1, sectors >> 3) * page
//
// so a 4 KiB IO costs 1/iops seconds and every further page 4096/bps: "1/iops
// + size/bps" where the IOPS figure already includes the first page. (A zero
// parameter zeroes its coefficient, as in the kernel; a device needs all six
// nonzero.) iocost calls an IO random when it starts more than 16 MiB
// (LCOEF_RANDIO_PAGES = 4096 pages) from the cgroup's previous IO; the core's
// device calls it sequential only when it starts exactly where the device's
// last read or last write ended. The table below uses the kernel's cost for
// both kinds.
//
// Worked example (WDC SN730, rbps=2318575949 rrandiops=124446): page =
// ceil(2^37 / ceil(2318575949/4096)) = ceil(2^37 / 566059) = 242,800 vtime
// = 1.767 µs; randio = ceil(2^37 / 124446) - page = 1,104,407 - 242,800 =
// 861,607; a 64 KiB random read costs 861,607 + 16 * 242,800 = 4,746,407
// vtime = 34.53 µs of device time (28,956 IOPS with the device busy).

import { shown } from "../util/shown.js";
import type { CurvePoints, DeviceCurve } from "../scenario/types.js";

export const VTIME_PER_SEC = 1n << 37n;
export const IOC_PAGE_SIZE = 4096;
export const IOC_SECT_TO_PAGE_SHIFT = 3;
/** sizes at which the linear-model table is exact (costs are affine in pages between them) */
export const LINEAR_TABLE_SIZES = [4096, 64 << 20];

/** The six io.cost.model parameters: bytes/s and 4 KiB IOPS. */
export interface LinearModelParams {
  rbps: number;
  rseqiops: number;
  rrandiops: number;
  wbps: number;
  wseqiops: number;
  wrandiops: number;
}
export const LINEAR_KEYS: readonly (keyof LinearModelParams)[] = [
  "rbps",
  "rseqiops",
  "rrandiops",
  "wbps",
  "wseqiops",
  "wrandiops",
];

export interface Lcoefs {
  page: bigint;
  seqio: bigint;
  randio: bigint;
}

function divRoundUp(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** calc_lcoefs() of block/blk-iocost.c, in vtime units. */
export function calcLcoefs(bps: number | bigint, seqiops: number | bigint, randiops: number | bigint): Lcoefs {
  const B = BigInt(bps);
  const S = BigInt(seqiops);
  const R = BigInt(randiops);
  let page = 0n;
  let seqio = 0n;
  let randio = 0n;
  if (B) {
    const bpsPages = divRoundUp(B, BigInt(IOC_PAGE_SIZE));
    page = bpsPages ? divRoundUp(VTIME_PER_SEC, bpsPages) : 1n;
  }
  if (S) {
    const v = divRoundUp(VTIME_PER_SEC, S);
    if (v > page) seqio = v - page;
  }
  if (R) {
    const v = divRoundUp(VTIME_PER_SEC, R);
    if (v > page) randio = v - page;
  }
  return { page, seqio, randio };
}

export function lcoefsFor(p: LinearModelParams, dir: "read" | "write"): Lcoefs {
  return dir === "read" ? calcLcoefs(p.rbps, p.rseqiops, p.rrandiops) : calcLcoefs(p.wbps, p.wseqiops, p.wrandiops);
}

/** calc_vtime_cost_builtin() for a bio of `bytes` (not a merge). */
export function ioCostVtime(c: Lcoefs, bytes: number, seq: boolean): bigint {
  const sectors = Math.floor(bytes / 512);
  const pages = Math.max(1, sectors >> IOC_SECT_TO_PAGE_SHIFT);
  return (seq ? c.seqio : c.randio) + BigInt(pages) * c.page;
}

/** Device time in ns the model gives one IO (vrate 100 %). */
export function linearServiceNs(p: LinearModelParams, dir: "read" | "write", seq: boolean, bytes: number): number {
  return (Number(ioCostVtime(lcoefsFor(p, dir), bytes, seq)) * 1e9) / Number(VTIME_PER_SEC);
}

/** IOPS with the device busy that the model gives at `bytes`. */
export function linearIops(p: LinearModelParams, dir: "read" | "write", seq: boolean, bytes: number): number {
  return 1e9 / linearServiceNs(p, dir, seq, bytes);
}

export function checkLinearParams(p: Partial<LinearModelParams>, where = "linear model"): LinearModelParams {
  for (const k of LINEAR_KEYS) {
    const v = p[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      throw new RangeError(`${where}: ${k} must be a positive number, got ${shown(v)}`);
    }
  }
  return p as LinearModelParams;
}

/**
 * The device table for a linear model: points at 4 KiB and 64 MiB per
 * direction and pattern. Cost is affine in whole pages from one page up, so
 * linear interpolation between the two is exact at every multiple of 4 KiB
 * (bios are split to max_sectors_kb long before 64 MiB); below 4 KiB the
 * table keeps IOPS constant, as the model charges one page minimum.
 */
export function linearCurve(p: LinearModelParams): DeviceCurve {
  checkLinearParams(p);
  const pts = (dir: "read" | "write", seq: boolean): CurvePoints =>
    LINEAR_TABLE_SIZES.map((s) => [s, linearIops(p, dir, seq, s)] as [number, number]);
  return {
    read: { seq: pts("read", true), rand: pts("read", false) },
    write: { seq: pts("write", true), rand: pts("write", false) },
  };
}

/** A named parameter set in iocost-benchmarks' terms. */
export interface ModelRow {
  name: string;
  source: string;
  params: LinearModelParams;
}

function row(name: string, source: string, v: [number, number, number, number, number, number]): ModelRow {
  const [rbps, rseqiops, rrandiops, wbps, wseqiops, wrandiops] = v;
  return { name, source, params: { rbps, rseqiops, rrandiops, wbps, wseqiops, wrandiops } };
}

/**
 * Measured base models from iocost-benchmark/iocost-benchmarks (resctl-bench
 * iocost-tune `base_model`, via /work/shared/reference/kernel.md §5.1) and
 * the kernel's built-in classes (autop[] in blk-iocost.c).
 */
export const MODEL_ROWS: readonly ModelRow[] = [
  row("samsung-mzvlw256hehp", "iocost-benchmarks 2.1", [1235803696, 130658, 134555, 345351950, 63368, 23437]),
  row("wdc-sn730-256g", "iocost-benchmarks 2.1", [2318575949, 133833, 124446, 447984567, 20139, 15017]),
  row("toshiba-kxg6aznv512g", "iocost-benchmarks 2.1", [2419411544, 256089, 229994, 833689535, 12618, 22672]),
  row("micron-mtfdkba512tfh", "iocost-benchmarks 2.2", [2203075917, 238028, 126416, 2621803180, 97338, 78924]),
  row("crucial-ct1000p3", "iocost-benchmarks 2.2", [4579942252, 391807, 134655, 2220783051, 128640, 17024]),
  row("lexar-nm790-2tb", "iocost-benchmarks 2.2", [7070240113, 725474, 331995, 5612792974, 107404, 7694]),
  row("autop-hdd", "blk-iocost.c autop[AUTOP_HDD]", [174019176, 41708, 370, 178075866, 42705, 378]),
  row("autop-ssd-qd1", "blk-iocost.c autop[AUTOP_SSD_QD1]", [245855193, 61575, 6946, 141365009, 33716, 26796]),
  row("autop-ssd-dfl", "blk-iocost.c autop[AUTOP_SSD_DFL]", [488636629, 8932, 8518, 427891549, 28755, 21940]),
  row("autop-ssd-fast", "blk-iocost.c autop[AUTOP_SSD_FAST]", [3102524156, 724816, 778122, 1742780862, 425702, 443193]),
];

export function modelRow(name: string): ModelRow | undefined {
  return MODEL_ROWS.find((r) => r.name === name.toLowerCase());
}

/**
 * Parse an io.cost.model line as `cat io.cost.model` prints it (or as one
 * would write it): optional "MAJ:MIN", optional ctrl= and model=linear, the
 * six coefficients. Unlike the kernel write, all six are required here,
 * since there is no previous value to keep.
 */
export function parseIoCostModelLine(line: string): { devno?: string; params: LinearModelParams } {
  const toks = line.trim().split(/\s+/).filter(Boolean);
  let devno: string | undefined;
  if (toks[0] && /^\d+:\d+$/.test(toks[0])) devno = toks.shift();
  const p: Partial<LinearModelParams> = {};
  for (const t of toks) {
    const eq = t.indexOf("=");
    if (eq < 0) throw new SyntaxError(`io.cost.model: expected key=value, got ${shown(t)}`);
    const k = t.slice(0, eq);
    const v = t.slice(eq + 1);
    if (k === "ctrl") continue;
    if (k === "model") {
      if (v !== "linear") throw new SyntaxError(`io.cost.model: only model=linear exists, got ${shown(v)}`);
      continue;
    }
    if (!(LINEAR_KEYS as readonly string[]).includes(k)) {
      throw new SyntaxError(`io.cost.model: unknown key ${JSON.stringify(k)} (${LINEAR_KEYS.join(", ")})`);
    }
    if (!/^\d+$/.test(v)) throw new SyntaxError(`io.cost.model: ${k} must be a whole number, got ${shown(v)}`);
    p[k as keyof LinearModelParams] = Number(v);
  }
  return { devno, params: checkLinearParams(p, "io.cost.model") };
}

/**
 * The `base_model` of an iocost-benchmarks result (resctl-bench's
 * iocost-tune JSON: an array of bench records whose `result.base_model` holds
 * the six numbers), or of any JSON value that contains one; a bare object with
 * the six keys also works.
 */
export function parseBenchmarkModel(json: string | unknown): LinearModelParams {
  const root = typeof json === "string" ? (JSON.parse(json) as unknown) : json;
  const seen = new Set<unknown>();
  const isModel = (o: unknown): o is LinearModelParams =>
    !!o && typeof o === "object" && LINEAR_KEYS.every((k) => typeof (o as Record<string, unknown>)[k] === "number");
  const walk = (o: unknown): LinearModelParams | undefined => {
    if (!o || typeof o !== "object" || seen.has(o)) return undefined;
    seen.add(o);
    const rec = o as Record<string, unknown>;
    if (isModel(rec["base_model"])) return rec["base_model"];
    for (const v of Object.values(rec)) {
      const f = walk(v);
      if (f) return f;
    }
    return undefined;
  };
  const found = isModel(root) ? root : walk(root);
  if (!found) throw new SyntaxError(`no base_model with ${LINEAR_KEYS.join(", ")} found`);
  const p = Object.fromEntries(LINEAR_KEYS.map((k) => [k, found[k]])) as unknown as LinearModelParams;
  return checkLinearParams(p, "base_model");
}
