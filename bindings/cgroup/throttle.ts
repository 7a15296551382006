// blk-throttle's interface files: cgroup v2 `io.max` and cgroup v1
// `blkio.throttle.{read,write}_{bps,iops}_device`, parsed as tg_set_limit()
// and tg_set_conf() in block/blk-throttle.c do. The one parser of these
// files: the simulation (bindings/engine/modules/throttle.ts) and
// BlkcgConfig (config.ts) both use it. Lengths and white space are the
// kernel's, in bytes (write.ts kernelBuffer: the value's UTF-8).
//
// io.max, one write = "MAJ:MIN key=value key=value ...":
//   - device part as blkg_conf_open_bdev (write.ts): EINVAL / ENODEV.
//   - tokens: sscanf("%26s") — at most 26 characters; a longer word is cut
//     and its tail read as the next token (which then has no '=': EINVAL).
//   - each token is key=value; no '=' -> EINVAL. value: "%llu" (digits,
//     u64 wrap-around, trailing junk ignored: "100abc" is 100) or the literal
//     "max" (U64_MAX); anything else -> EINVAL.
//   - value 0 -> ERANGE (checked before the key, so "foo=0" is ERANGE).
//   - keys rbps, wbps, riops, wiops; riops/wiops are clamped to UINT_MAX
//     (so "max" is UINT_MAX). Unknown key -> EINVAL.
//   - 6.1 and 6.12 refuse value 1 (EINVAL, a leftover of io.low); 6.18
//     accepts it (Xiuhong Wang / Zhiguo Niu, "blk-throttle: remove the
//     restriction of value 1").
//   - 6.1 only: tg_set_limit tests `off == LIMIT_LOW` with the file offset
//     (0 on a fresh write) instead of the file's index, so io.max also
//     accepts `idle=` and `latency=` (any nonzero value). They set io.low's
//     knobs, which do nothing for io.max; we accept and ignore them.
//   - keys not written keep their value; any error applies nothing.
//   Accepted but surely not meant, so warned about (IoMaxWrite.warnings,
//   naming the token): a unit suffix or fraction ("rbps=10m" is 10 bytes/s:
//   %llu stops at 'm'), digits past u64 that wrap, and riops/wiops above
//   UINT_MAX, which the clamp turns into "max" (no limit at all).
//   Read-back (tg_prfill_limit): "MAJ:MIN rbps=N wbps=N riops=N wiops=N",
//   "max" for unlimited; no line when all four are unlimited.
//   io.max does not exist in the root cgroup (CFTYPE_NOT_ON_ROOT).
//
// v1 blkio.throttle.*_device, one write = "MAJ:MIN N": "%llu" else EINVAL,
// 0 means unlimited (U64_MAX); the iops files store into an unsigned int, so
// N is truncated to 32 bits (4294967296 becomes 0, i.e. a zero limit — a
// kernel quirk we reproduce and flag). Read-back "MAJ:MIN N" per limited
// device.
//
// Worked example (6.12): "8:0 rbps=1048576 wiops=max riops=99999999999"
// -> rbps 1048576, riops clamped to 4294967295 (= unlimited, shown "max"),
// wiops unlimited, wbps unchanged; reads back as
// "8:0 rbps=1048576 wbps=max riops=max wiops=max".

import { shown } from "../util/shown.js";
import { scanSurprise, scanToken, scanUnsigned, U64_MAX, UINT_MAX } from "./kstr.js";
import { kernelBuffer, openBdev, reject, type WriteContext, type WriteRejection } from "./write.js";

/** The four io.max limits in the kernel's own representation. */
export interface ThrottleLimits {
  /** bytes/s; U64_MAX = unlimited */
  rbps: bigint;
  wbps: bigint;
  /** IOs/s; UINT_MAX = unlimited */
  riops: bigint;
  wiops: bigint;
}

export const THROTTLE_UNLIMITED: Readonly<ThrottleLimits> = Object.freeze({
  rbps: U64_MAX,
  wbps: U64_MAX,
  riops: UINT_MAX,
  wiops: UINT_MAX,
});

export type ThrottleKey = keyof ThrottleLimits;
export const THROTTLE_KEYS: readonly ThrottleKey[] = ["rbps", "wbps", "riops", "wiops"];

/** Limits as JS numbers, Infinity for unlimited (for the simulation core). */
export function limitsAsNumbers(l: ThrottleLimits): Record<ThrottleKey, number> {
  return {
    rbps: l.rbps === U64_MAX ? Infinity : Number(l.rbps),
    wbps: l.wbps === U64_MAX ? Infinity : Number(l.wbps),
    riops: l.riops === UINT_MAX ? Infinity : Number(l.riops),
    wiops: l.wiops === UINT_MAX ? Infinity : Number(l.wiops),
  };
}

export interface IoMaxWrite {
  ok: true;
  device: string;
  /** keys this write sets (after clamping), in the order written */
  set: Partial<ThrottleLimits>;
  /** the limits after the write: `previous` (default unlimited) with `set` applied */
  limits: ThrottleLimits;
  /** 6.1's io.low keys accepted on io.max and ignored */
  ignored: string[];
  /** tokens the kernel takes in a way the writer surely did not mean, each named with its token */
  warnings: string[];
}

const IOMAX_TOKEN_CHARS = 26; // char tok[27]; "%26s"

/** Parse one write of io.max. `previous` is the device's current limits. */
export function parseIoMax(
  value: string,
  ctx: WriteContext & { previous?: ThrottleLimits },
): IoMaxWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  const set: Partial<ThrottleLimits> = {};
  const ignored: string[] = [];
  const warnings: string[] = [];
  const body = open.body;
  let pos = 0;
  for (;;) {
    const t = scanToken(body, pos, IOMAX_TOKEN_CHARS);
    if (!t || t.tok === "") break;
    pos = t.end;
    const tok = t.tok;
    const eq = tok.indexOf("=");
    if (eq < 0) return reject(ctx, "EINVAL", tok, `expected key=value, got ${shown(tok)}`);
    const key = tok.slice(0, eq);
    const p = tok.slice(eq + 1);
    let val = U64_MAX;
    const n = scanUnsigned(p, 0, 64);
    if (n) val = n.val;
    else if (p !== "max") {
      return reject(ctx, "EINVAL", tok, `value must be a number or "max", got ${shown(p)}`);
    }
    if (val === 0n) return reject(ctx, "ERANGE", tok, `0 is out of range (use "max" for no limit)`);
    const one = ctx.version !== "6.18" && val === 1n;
    if (key === "rbps" || key === "wbps" || key === "riops" || key === "wiops") {
      if (one) return reject(ctx, "EINVAL", tok, `value 1 is refused before 6.18 (kernel ${ctx.version})`);
      // blk-throttle.c tg_set_limit() (6.1-6.18): sscanf(p, "%llu", &val) takes
      // "10m" as 10 and never looks at the rest
      const odd = n ? scanSurprise(p, 0, 64, key.endsWith("iops") ? "" : "B/s") : undefined;
      if (odd) warnings.push(`${JSON.stringify(tok)}: ${odd}`);
      if (key.endsWith("iops") && val > UINT_MAX && val !== U64_MAX) {
        warnings.push(`${JSON.stringify(tok)}: ${val} is above UINT_MAX; tg_set_limit() clamps it to UINT_MAX, which is "max": no ${key} limit at all`);
      }
      set[key] = key.endsWith("iops") && val > UINT_MAX ? UINT_MAX : val;
    } else if (ctx.version === "6.1" && (key === "idle" || key === "latency")) {
      ignored.push(tok);
    } else {
      return reject(ctx, "EINVAL", tok, `unknown key ${JSON.stringify(key)} (rbps, wbps, riops, wiops)`);
    }
  }
  const limits: ThrottleLimits = { ...(ctx.previous ?? THROTTLE_UNLIMITED), ...set };
  return { ok: true, device: open.device, set, limits, ignored, warnings };
}

/** One io.max read-back line, or "" when the device is unlimited. */
export function formatIoMaxLine(device: string, l: ThrottleLimits): string {
  if (l.rbps === U64_MAX && l.wbps === U64_MAX && l.riops === UINT_MAX && l.wiops === UINT_MAX) return "";
  const b = (v: bigint) => (v === U64_MAX ? "max" : v.toString());
  const i = (v: bigint) => (v === UINT_MAX ? "max" : v.toString());
  return `${device} rbps=${b(l.rbps)} wbps=${b(l.wbps)} riops=${i(l.riops)} wiops=${i(l.wiops)}\n`;
}

/** What `cat io.max` shows, entries in the cgroup's blkg list order. */
export function formatIoMax(entries: Iterable<[device: string, limits: ThrottleLimits]>): string {
  let out = "";
  for (const [d, l] of entries) out += formatIoMaxLine(d, l);
  return out;
}

// ---------------------------------------------------------------- cgroup v1

export type V1ThrottleFile =
  | "blkio.throttle.read_bps_device"
  | "blkio.throttle.write_bps_device"
  | "blkio.throttle.read_iops_device"
  | "blkio.throttle.write_iops_device";

export const V1_THROTTLE_FILES: Record<V1ThrottleFile, ThrottleKey> = {
  "blkio.throttle.read_bps_device": "rbps",
  "blkio.throttle.write_bps_device": "wbps",
  "blkio.throttle.read_iops_device": "riops",
  "blkio.throttle.write_iops_device": "wiops",
};

export interface V1ThrottleWrite {
  ok: true;
  device: string;
  key: ThrottleKey;
  /** stored value: U64_MAX / UINT_MAX = unlimited */
  value: bigint;
  warning?: string;
}

/** Parse one write of a v1 blkio.throttle.*_device file. */
export function parseBlkioThrottle(
  file: V1ThrottleFile,
  value: string,
  ctx: WriteContext,
): V1ThrottleWrite | WriteRejection {
  const key = V1_THROTTLE_FILES[file];
  if (!key) return reject(ctx, "ENOENT", file, `no such file ${file}`);
  const buf = kernelBuffer(value, ctx);
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  const n = scanUnsigned(open.body, 0, 64);
  if (!n) {
    const tok = open.body.trim().split(/\s+/, 1)[0] ?? "";
    return reject(ctx, "EINVAL", tok, `expected a number (0 = no limit), got ${shown(tok)}`);
  }
  let v = n.val === 0n ? U64_MAX : n.val;
  let warning = scanSurprise(open.body, 0, 64, key.endsWith("iops") ? "" : "B/s");
  if (key === "riops" || key === "wiops") {
    const stored = BigInt.asUintN(32, v); // *(unsigned int *) = v
    if (stored !== v && v !== U64_MAX) {
      warning = (warning ? warning + "; " : "") + `${v} does not fit the kernel's unsigned int iops field; it stores ${stored}`;
    }
    v = stored;
  }
  return { ok: true, device: open.device, key, value: v, warning };
}

/** What `cat blkio.throttle.X_device` shows. */
export function formatBlkioThrottle(file: V1ThrottleFile, entries: Iterable<[device: string, limits: ThrottleLimits]>): string {
  const key = V1_THROTTLE_FILES[file];
  const unl = key === "riops" || key === "wiops" ? UINT_MAX : U64_MAX;
  let out = "";
  for (const [d, l] of entries) if (l[key] !== unl) out += `${d} ${l[key]}\n`;
  return out;
}
