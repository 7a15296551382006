// blk-iocost's interface files — io.weight, io.cost.qos, io.cost.model —
// parsed as ioc_weight_write(), ioc_qos_write() and ioc_cost_model_write()
// in block/blk-iocost.c (6.1.192, 6.12.117; 6.18 differs only in locking).
//
// io.weight (not on the root cgroup):
//   - no ':' anywhere in the write: sscanf("default %u") or sscanf("%u")
//     sets the cgroup's default weight ("50", "default 50", "default50" and
//     "50abc" all mean 50; "%u" wraps, so "4294967297" means 1).
//   - else "MAJ:MIN N" sets a per-device weight and "MAJ:MIN default" (any
//     body starting with "default") clears it. The device must have iocost
//     initialised (by a write of io.cost.qos or io.cost.model), otherwise
//     blkg_conf_prep() fails with EOPNOTSUPP.
//   - N outside [CGROUP_WEIGHT_MIN, CGROUP_WEIGHT_MAX] = [1, 10000] -> EINVAL.
//   Read-back: "default N" then "MAJ:MIN N" for each device override.
//
// io.cost.qos (root only), "MAJ:MIN key=value ...", fields split on space,
// tab and newline only (strsep " \t\n"):
//   enable=%u      base 0 (0x.., 0..); nonzero enables. Overflow is EINVAL on
//                  6.12+; 6.1 ignores match_u64()'s error (uninitialised v);
//                  we accept, keep `enable` unchanged and warn.
//   ctrl=auto|user auto: the device class's built-in parameters; user: keep
//                  this write's values.
//   rpct, wpct     cgroup_parse_float(.,2) in [0, 100], 2 decimals (rounded),
//                  stored as ppm; "95abc" is 95.
//   rlat, wlat     µs, base-0 u64 stored in a u32 (low 32 bits).
//   min, max       percent like rpct, >= 0, clamped to [1, 10000] %.
//   Any of rpct/rlat/wpct/wlat/min/max switches to user mode unless a later
//   ctrl=auto switches back (then the write's values are dropped).
//   After all fields: min > max -> EINVAL. Unknown field -> EINVAL.
//   Read-back: "MAJ:MIN enable=0|1 ctrl=auto|user rpct=P.PP rlat=N
//   wpct=P.PP wlat=N min=P.PP max=P.PP", one line per device with iocost
//   initialised.
//
// io.cost.model (root only): ctrl=auto|user, model=linear (anything else
//   EINVAL), rbps rseqiops rrandiops wbps wseqiops wrandiops = base-0 u64
//   (overflow EINVAL); any coefficient switches to user mode.
//   Read-back: "MAJ:MIN ctrl=auto|user model=linear rbps=N rseqiops=N
//   rrandiops=N wbps=N wseqiops=N wrandiops=N".
//
// Device classes when ctrl=auto (autop[] and ioc_autop_idx()): rotational
// -> HDD; queue depth 1 -> SSD_QD1; other non-rotational -> SSD_DFL, which
// the running controller promotes to SSD_FAST after vrate >= 500 % for 10 s.
//
// Worked example: on an SSD (class SSD_DFL), "259:0 enable=1 rpct=95
// rlat=5000 min=50 max=150" gives enable=1 ctrl=user rpct=95.00 rlat=5000
// wpct=0.00 wlat=25000 min=50.00 max=150.00 (wlat keeps the class value).

import { shown } from "../util/shown.js";
import { LINEAR_KEYS } from "../device/linear.js";
import { cgroupParseFloat, kstrtoull, matchPattern, s64, scanSurprise, scanUnsigned, skipSpaces, strsepAll } from "./kstr.js";
import { kernelBuffer, openBdev, reject, devnoToDev, type WriteContext, type WriteRejection } from "./write.js";

export const CGROUP_WEIGHT_MIN = 1;
export const CGROUP_WEIGHT_DFL = 100;
export const CGROUP_WEIGHT_MAX = 10000;
export const VRATE_MIN_PPM = 10_000;
export const VRATE_MAX_PPM = 100_000_000;

// ------------------------------------------------------------------ io.weight

export type IoWeightWrite =
  | { ok: true; kind: "default"; weight: number; warning?: string }
  | { ok: true; kind: "device"; device: string; /** null clears the override */ weight: number | null; warning?: string };

/**
 * Parse one write of io.weight. `iocostDevices` lists the devices with iocost
 * initialised; when omitted every device counts as initialised.
 */
export function parseIoWeight(
  value: string,
  ctx: WriteContext & { iocostDevices?: Iterable<string> },
): IoWeightWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const whole = buf.trim();
  if (!buf.includes(":")) {
    let v = scanDefault(buf);
    if (v === null) {
      const n = scanUnsigned(buf, 0, 32);
      v = n ? Number(n.val) : null;
    }
    if (v === null) return reject(ctx, "EINVAL", whole, `expected "default N", "N" or "MAJ:MIN N|default"`);
    if (v < CGROUP_WEIGHT_MIN || v > CGROUP_WEIGHT_MAX) {
      return reject(ctx, "EINVAL", whole, `weight ${v} outside [${CGROUP_WEIGHT_MIN}, ${CGROUP_WEIGHT_MAX}]`);
    }
    // ioc_weight_write() (6.1-6.18): sscanf(buf, "default %u") / "%u" wraps at
    // 32 bits and ignores what follows the digits ("default 150.5" is 150)
    const at = buf.startsWith("default") ? skipSpaces(buf, "default".length) : 0;
    const odd = scanSurprise(buf, at, 32);
    return { ok: true, kind: "default", weight: v, ...(odd ? { warning: `${JSON.stringify(whole)}: ${odd}` } : {}) };
  }
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  if (ctx.iocostDevices !== undefined) {
    const dev = devnoToDev(open.device);
    if (![...ctx.iocostDevices].some((d) => devnoToDev(d) === dev)) {
      return reject(ctx, "EOPNOTSUPP", open.device, `iocost is not initialised on ${open.device}; write io.cost.qos or io.cost.model first`);
    }
  }
  if (open.body.startsWith("default")) return { ok: true, kind: "device", device: open.device, weight: null };
  const n = scanUnsigned(open.body, 0, 32);
  const tok = open.body.trim().split(/\s+/, 1)[0] ?? "";
  if (!n) return reject(ctx, "EINVAL", tok, `expected a weight or "default", got ${shown(tok)}`);
  const v = Number(n.val);
  if (v < CGROUP_WEIGHT_MIN || v > CGROUP_WEIGHT_MAX) {
    return reject(ctx, "EINVAL", tok, `weight ${v} outside [${CGROUP_WEIGHT_MIN}, ${CGROUP_WEIGHT_MAX}]`);
  }
  const odd = scanSurprise(open.body, 0, 32);
  return { ok: true, kind: "device", device: open.device, weight: v, ...(odd ? { warning: `${JSON.stringify(tok)}: ${odd}` } : {}) };
}

/** sscanf(buf, "default %u"): the literal, any white space, then %u. */
function scanDefault(buf: string): number | null {
  if (!buf.startsWith("default")) return null;
  let i: number = "default".length;
  i = skipSpaces(buf, i);
  const n = scanUnsigned(buf, i, 32);
  return n ? Number(n.val) : null;
}

/** What `cat io.weight` shows. */
export function formatIoWeight(defaultWeight: number, overrides: Iterable<[device: string, weight: number]>): string {
  let out = `default ${defaultWeight}\n`;
  for (const [d, w] of overrides) out += `${d} ${w}\n`;
  return out;
}

// ---------------------------------------------------------- device classes

export type AutopClass = "hdd" | "ssd_qd1" | "ssd_dfl" | "ssd_fast";

/** The six io.cost.model numbers (u64 in the kernel). */
export interface CostModelParams {
  rbps: bigint;
  rseqiops: bigint;
  rrandiops: bigint;
  wbps: bigint;
  wseqiops: bigint;
  wrandiops: bigint;
}
/** The six io.cost.model keys, in the kernel's order (the same as the linear device model's). */
export const COST_MODEL_KEYS: readonly (keyof CostModelParams)[] = LINEAR_KEYS;

/** io.cost.qos parameters in the kernel's units (u32 each). */
export interface QosParams {
  /** read latency percentile, ppm (95 % = 950000) */
  rppm: number;
  rlatUs: number;
  wppm: number;
  wlatUs: number;
  /** vrate bounds, ppm of 100 % (1 % = 10000) */
  minPpm: number;
  maxPpm: number;
}

interface AutopEntry {
  qos: QosParams;
  model: CostModelParams;
  /** promote when vrate >= this % for AUTOP_CYCLE_NSEC */
  tooFastVratePct?: number;
  tooSlowVratePct?: number;
}

function model(a: number, b: number, c: number, d: number, e: number, f: number): CostModelParams {
  return {
    rbps: BigInt(a),
    rseqiops: BigInt(b),
    rrandiops: BigInt(c),
    wbps: BigInt(d),
    wseqiops: BigInt(e),
    wrandiops: BigInt(f),
  };
}
function autopQos(latUs: number): QosParams {
  return { rppm: 0, rlatUs: latUs, wppm: 0, wlatUs: latUs, minPpm: VRATE_MIN_PPM, maxPpm: VRATE_MAX_PPM };
}

/** autop[] of block/blk-iocost.c (identical in 6.1 and 6.12). */
export const AUTOP: Readonly<Record<AutopClass, AutopEntry>> = Object.freeze({
  hdd: { qos: autopQos(250_000), model: model(174019176, 41708, 370, 178075866, 42705, 378) },
  ssd_qd1: { qos: autopQos(25_000), model: model(245855193, 61575, 6946, 141365009, 33716, 26796) },
  ssd_dfl: {
    qos: autopQos(25_000),
    model: model(488636629, 8932, 8518, 427891549, 28755, 21940),
    tooFastVratePct: 500,
  },
  ssd_fast: {
    qos: autopQos(5_000),
    model: model(3102524156, 724816, 778122, 1742780862, 425702, 443193),
    tooSlowVratePct: 10,
  },
});

/** ioc_autop_idx() at initialisation: the class a device starts in. */
export function autopClassFor(dev: { rotational: boolean; queueDepth: number }): AutopClass {
  if (dev.rotational) return "hdd";
  if (dev.queueDepth === 1) return "ssd_qd1";
  return "ssd_dfl";
}

// ------------------------------------------------------------- io.cost.qos

export interface IocQosState {
  enable: boolean;
  /** ctrl=user */
  user: boolean;
  qos: QosParams;
}

export function initialQosState(cls: AutopClass = "ssd_dfl"): IocQosState {
  return { enable: false, user: false, qos: { ...AUTOP[cls].qos } };
}

export interface IoCostQosWrite {
  ok: true;
  device: string;
  /** the device's state after the write */
  state: IocQosState;
  warning?: string;
}

const QOS_FLOAT_BUF = 32; // char buf[32]; match_strlcpy() >= sizeof -> EINVAL

/** Parse one write of io.cost.qos given the device's current state and class. */
export function parseIoCostQos(
  value: string,
  ctx: WriteContext & { current?: IocQosState; deviceClass?: AutopClass },
): IoCostQosWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  const cls = ctx.deviceClass ?? "ssd_dfl";
  const cur = ctx.current ?? initialQosState(cls);
  const qos: QosParams = { ...cur.qos };
  let enable = cur.enable;
  let user = cur.user;
  let warning: string | undefined;
  for (const p of strsepAll(open.body, " \t\n")) {
    if (p === "") continue;
    let a: string | null;
    if ((a = matchPattern(p, "enable=%u")) !== null) {
      const r = kstrtoull(a);
      if ("errno" in r) {
        if (ctx.version !== "6.1") return reject(ctx, "EINVAL", p, `enable value out of range`);
        warning = `6.1 ignores the overflow in ${JSON.stringify(p)} (enable keeps its value here; the kernel reads an uninitialised variable)`;
      } else enable = r.val !== 0n;
      continue;
    }
    if ((a = matchPattern(p, "ctrl=%s")) !== null) {
      const v = a.slice(0, 31);
      if (v === "auto") user = false;
      else if (v === "user") user = true;
      else return reject(ctx, "EINVAL", p, `ctrl must be "auto" or "user"`);
      continue;
    }
    let hit = false;
    for (const key of ["rpct", "wpct", "min", "max"] as const) {
      if ((a = matchPattern(p, `${key}=%s`)) === null) continue;
      hit = true;
      if (a.length >= QOS_FLOAT_BUF) return reject(ctx, "EINVAL", p, `value longer than ${QOS_FLOAT_BUF - 1} characters`);
      const v = cgroupParseFloat(a, 2);
      if (v === null) return reject(ctx, "EINVAL", p, `not a decimal number: ${JSON.stringify(a)}`);
      if (key === "rpct" || key === "wpct") {
        if (v < 0n || v > 10000n) return reject(ctx, "EINVAL", p, `${key} must be within [0, 100]`);
        qos[key === "rpct" ? "rppm" : "wppm"] = Number(v) * 100;
      } else {
        if (v < 0n) return reject(ctx, "EINVAL", p, `${key} must not be negative`);
        let ppm = s64(v * 100n);
        if (ppm < BigInt(VRATE_MIN_PPM)) ppm = BigInt(VRATE_MIN_PPM);
        if (ppm > BigInt(VRATE_MAX_PPM)) ppm = BigInt(VRATE_MAX_PPM);
        qos[key === "min" ? "minPpm" : "maxPpm"] = Number(ppm);
      }
      break;
    }
    if (!hit) {
      for (const key of ["rlat", "wlat"] as const) {
        if ((a = matchPattern(p, `${key}=%u`)) === null) continue;
        hit = true;
        const r = kstrtoull(a);
        if ("errno" in r) return reject(ctx, "EINVAL", p, `${key} out of range`);
        qos[key === "rlat" ? "rlatUs" : "wlatUs"] = Number(BigInt.asUintN(32, r.val));
        break;
      }
    }
    if (!hit) {
      // a known key with a value it cannot take is said so, not called unknown (same EINVAL)
      const known = ["enable", "ctrl", "rpct", "rlat", "wpct", "wlat", "min", "max"].find((k) => p.startsWith(`${k}=`));
      if (known) return reject(ctx, "EINVAL", p, `${known} does not take ${JSON.stringify(p.slice(known.length + 1))}`);
      return reject(ctx, "EINVAL", p, `unknown field (enable, ctrl, rpct, rlat, wpct, wlat, min, max)`);
    }
    user = true;
  }
  if (qos.minPpm > qos.maxPpm) {
    return reject(ctx, "EINVAL", open.body.trim(), `min ${fmtPct(qos.minPpm)} is above max ${fmtPct(qos.maxPpm)}`);
  }
  const state: IocQosState = { enable, user, qos: user ? qos : { ...AUTOP[cls].qos } };
  return { ok: true, device: open.device, state, warning };
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}
/** "%u.%02u" of a ppm value in percent. */
function fmtPct(ppm: number): string {
  return `${Math.floor(ppm / 10000)}.${pad2(Math.floor((ppm % 10000) / 100))}`;
}

/** One io.cost.qos read-back line. */
export function formatIoCostQosLine(device: string, s: IocQosState): string {
  const q = s.qos;
  return (
    `${device} enable=${s.enable ? 1 : 0} ctrl=${s.user ? "user" : "auto"} ` +
    `rpct=${fmtPct(q.rppm)} rlat=${q.rlatUs} wpct=${fmtPct(q.wppm)} wlat=${q.wlatUs} ` +
    `min=${fmtPct(q.minPpm)} max=${fmtPct(q.maxPpm)}\n`
  );
}

// ----------------------------------------------------------- io.cost.model

export interface IocModelState {
  user: boolean;
  params: CostModelParams;
}

export function initialModelState(cls: AutopClass = "ssd_dfl"): IocModelState {
  return { user: false, params: { ...AUTOP[cls].model } };
}

export interface IoCostModelWrite {
  ok: true;
  device: string;
  state: IocModelState;
}

/** Parse one write of io.cost.model given the device's current state and class. */
export function parseIoCostModel(
  value: string,
  ctx: WriteContext & { current?: IocModelState; deviceClass?: AutopClass },
): IoCostModelWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  const cls = ctx.deviceClass ?? "ssd_dfl";
  const cur = ctx.current ?? initialModelState(cls);
  const u: CostModelParams = { ...cur.params };
  let user = cur.user;
  for (const p of strsepAll(open.body, " \t\n")) {
    if (p === "") continue;
    let a: string | null;
    if ((a = matchPattern(p, "ctrl=%s")) !== null) {
      const v = a.slice(0, 31);
      if (v === "auto") user = false;
      else if (v === "user") user = true;
      else return reject(ctx, "EINVAL", p, `ctrl must be "auto" or "user"`);
      continue;
    }
    if ((a = matchPattern(p, "model=%s")) !== null) {
      if (a.slice(0, 31) !== "linear") return reject(ctx, "EINVAL", p, `only model=linear exists`);
      continue;
    }
    const key = COST_MODEL_KEYS.find((k) => matchPattern(p, `${k}=%u`) !== null);
    if (!key) {
      const known = COST_MODEL_KEYS.find((k) => p.startsWith(`${k}=`));
      if (known) return reject(ctx, "EINVAL", p, `${known} takes an unsigned integer, not ${JSON.stringify(p.slice(known.length + 1))}`);
      return reject(ctx, "EINVAL", p, `unknown field (ctrl, model, ${COST_MODEL_KEYS.join(", ")})`);
    }
    const r = kstrtoull(matchPattern(p, `${key}=%u`)!);
    if ("errno" in r) return reject(ctx, "EINVAL", p, `${key} out of range`);
    u[key] = r.val;
    user = true;
  }
  const state: IocModelState = { user, params: user ? u : { ...AUTOP[cls].model } };
  return { ok: true, device: open.device, state };
}

/** One io.cost.model read-back line. */
export function formatIoCostModelLine(device: string, s: IocModelState): string {
  const u = s.params;
  return (
    `${device} ctrl=${s.user ? "user" : "auto"} model=linear ` +
    `rbps=${u.rbps} rseqiops=${u.rseqiops} rrandiops=${u.rrandiops} ` +
    `wbps=${u.wbps} wseqiops=${u.wseqiops} wrandiops=${u.wrandiops}\n`
  );
}
