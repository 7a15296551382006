// blk-iolatency's interface file io.latency and the block queue's
// wbt_lat_usec, parsed byte for byte as the kernel does.
//
// io.latency (block/blk-iolatency.c iolatency_set_limit(); 6.1, 6.12 and
// 6.18 parse it identically), one write = "MAJ:MIN target=<usec>":
//   - device part as blkg_conf_open_bdev (write.ts): EINVAL / ENODEV.
//   - the body is cut with strsep(&p, " "): at single spaces only, so two
//     spaces make an empty token, and a trailing space before echo's '\n'
//     leaves a token "\n". Each token must match sscanf("%15[^=]=%20s"):
//     1-15 characters other than '=', then '=', then a value (vsscanf's %s
//     skips white space and copies up to 20 non-space characters; the rest
//     of a longer value is ignored); else EINVAL. An empty token, "\n",
//     "target=" or a key of 16+ characters is EINVAL.
//   - key "target" only (anything else EINVAL); value "max" = 0 = no
//     target, else sscanf("%llu") (a leading digit is required: "-1", "+5"
//     and "0x10"'s "x10" part... are EINVAL except that "0x10" reads 0 and
//     stops), times 1000 in u64 (wraps). The last target token wins.
//   - target 0 (or "max") removes the target.
//   Accepted but surely not meant (warned): a suffix or fraction ("5ms" is
//   5 us), a value cut at 20 characters, microseconds whose x1000 wraps.
//   Read-back (iolatency_prfill_limit): "MAJ:MIN target=<min_lat_nsec/1000>"
//   for a device with a target, nothing else.
//   io.latency does not exist in the root cgroup (CFTYPE_NOT_ON_ROOT): ENOENT.
//
// wbt_lat_usec (/sys/block/<dev>/queue/wbt_lat_usec, block/blk-sysfs.c
// queue_wb_lat_store()), one write = a signed decimal:
//   - kstrtos64(page, 10): optional '+' or '-', decimal digits, one
//     trailing '\n'; no leading space, no "0x"; EINVAL for anything else,
//     ERANGE outside s64.
//   - below -1: EINVAL. -1 restores the device's default (2000 us
//     non-rotational, 75000 us rotational); 0 disables wbt; N is N x 1000 ns
//     (s64 wrap for huge N: accepted, warned).
//   - 6.1: the write leaves enable_state WBT_STATE_ON_MANUAL, even for 0 (0
//     still disables: wb_normal becomes 0). 6.12 and 6.18 (since 6.6,
//     "blk-wbt: make enable_state more accurate"): 0 leaves
//     WBT_STATE_OFF_MANUAL, and reading the file of a disabled wbt shows 0.
//   - writing the value it already has changes nothing.
//   Read-back: min_lat_nsec / 1000.
//
// Worked examples: io.latency "8:16 target=5000" -> 5 ms; "8:16 target=5ms"
// -> 5 us, warned; "8:16  target=5000" (two spaces) -> EINVAL;
// "8:16 latency=5000" -> EINVAL. wbt_lat_usec "-1" on an SSD -> 2000 us;
// "-2" -> EINVAL; " 100" -> EINVAL; "100\n" -> 100 us.

import { U64_MAX, scanUnsigned, scanSurprise, strsepAll, S64_MIN } from "./kstr.js";
import { kernelBuffer, openBdev, reject, type WriteContext, type WriteRejection } from "./write.js";
import type { KernelVersion } from "../scenario/types.js";

export interface IoLatencyWrite {
  ok: true;
  device: string;
  /** min_lat_nsec after the write (0 = no target) */
  targetNs: bigint;
  warnings: string[];
}

const KEY_WIDTH = 15;
const VAL_WIDTH = 20;

/** sscanf(tok, "%15[^=]=%20s", key, val): the two fields, or null where it returns < 2. */
function scanKeyVal(tok: string): { key: string; val: string; cut: boolean } | null {
  if (tok.length === 0) return null; // "if (!*str) break"
  let i = 0;
  while (i < tok.length && tok[i] !== "=" && i < KEY_WIDTH) i++;
  if (i === 0) return null; // %[ must match at least one character
  const key = tok.slice(0, i);
  if (tok[i] !== "=") return null; // the literal '=' (a 16th key character, or the end)
  i++;
  if (i >= tok.length) return null; // "if (!*str) break" before %s
  while (i < tok.length && isSpaceByte(tok[i]!)) i++;
  let j = i;
  while (j < tok.length && !isSpaceByte(tok[j]!) && j - i < VAL_WIDTH) j++;
  const cut = j < tok.length && !isSpaceByte(tok[j]!);
  return { key, val: tok.slice(i, j), cut };
}

function isSpaceByte(c: string): boolean {
  const x = c.charCodeAt(0);
  return (x >= 9 && x <= 13) || x === 32 || x === 0xa0;
}

/** Parse one write of io.latency. */
export function parseIoLatency(value: string, ctx: WriteContext): IoLatencyWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const open = openBdev(buf, ctx);
  if (!open.ok) return open;
  let lat = 0n;
  const warnings: string[] = [];
  for (const tok of strsepAll(open.body, " ")) {
    const kv = scanKeyVal(tok);
    const shown = tok.replace(/\n$/, "");
    if (!kv) {
      const why = tok === "" ? "an empty field (two spaces, or a space at the start or end?)"
        : tok === "\n" ? "a field of only the line's end (a space before it?)" : `${JSON.stringify(shown)} is not key=value`;
      return reject(ctx, "EINVAL", shown, `expected "target=<usec>": ${why}`);
    }
    if (kv.key !== "target") return reject(ctx, "EINVAL", shown, `unknown key ${JSON.stringify(kv.key)} (io.latency takes only "target")`);
    if (kv.val === "max") {
      lat = 0n;
      continue;
    }
    const n = scanUnsigned(kv.val, 0, 64);
    if (!n) return reject(ctx, "EINVAL", shown, `target must be a number of microseconds or "max", got ${JSON.stringify(kv.val)}`);
    lat = BigInt.asUintN(64, n.val * 1000n);
    const odd = scanSurprise(kv.val, 0, 64, "");
    if (odd) warnings.push(`${JSON.stringify(shown)}: ${odd}; the target is in microseconds`);
    if (kv.cut) warnings.push(`${JSON.stringify(shown)}: the kernel reads only the first ${VAL_WIDTH} characters of the value`);
    if (n.val * 1000n > U64_MAX) warnings.push(`${JSON.stringify(shown)}: ${n.val} us x 1000 wraps past 2^64 ns to ${lat} ns`);
  }
  return { ok: true, device: open.device, targetNs: lat, warnings };
}

/** One io.latency read-back line ("" when the device has no target). */
export function formatIoLatencyLine(device: string, targetNs: bigint): string {
  return targetNs === 0n ? "" : `${device} target=${targetNs / 1000n}\n`;
}

// ---------------------------------------------------------------- wbt_lat_usec

export const WBT_STATE_ON_DEFAULT = 1;
export const WBT_STATE_ON_MANUAL = 2;
export const WBT_STATE_OFF_DEFAULT = 3;
export const WBT_STATE_OFF_MANUAL = 4;

export interface WbtLatWrite {
  ok: true;
  /** the latency written in ns, -1n = the device's default */
  latNs: bigint;
  /** enable_state after the write */
  state: number;
  warnings: string[];
}

/** kstrtos64(s, 10): the value, or the errno. */
export function kstrtos64(s: string): { val: bigint } | { errno: "EINVAL" | "ERANGE" } {
  let i = 0;
  let neg = false;
  if (s[0] === "-") {
    neg = true;
    i = 1;
  } else if (s[0] === "+") i = 1;
  let v = 0n;
  let n = 0;
  let overflow = false;
  while (i < s.length && s[i]! >= "0" && s[i]! <= "9") {
    v = v * 10n + BigInt(s.charCodeAt(i) - 48);
    if (v > U64_MAX) overflow = true;
    i++;
    n++;
  }
  if (n === 0) return { errno: "EINVAL" };
  if (overflow) return { errno: "ERANGE" };
  if (s[i] === "\n") i++;
  if (i < s.length) return { errno: "EINVAL" };
  if (neg) {
    if (-v < S64_MIN) return { errno: "ERANGE" };
    return { val: -v };
  }
  if (v > (1n << 63n) - 1n) return { errno: "ERANGE" };
  return { val: v };
}

/** Parse one write of /sys/block/<dev>/queue/wbt_lat_usec. */
export function parseWbtLatUsec(value: string, ctx: { version: KernelVersion; echo?: boolean; file?: string; line?: number }): WbtLatWrite | WriteRejection {
  const buf = kernelBuffer(value, ctx);
  const r = kstrtos64(buf);
  const shown = buf.replace(/\n$/, "");
  if ("errno" in r) {
    return reject(ctx, r.errno, shown, r.errno === "ERANGE" ? `${JSON.stringify(shown)} is outside a signed 64-bit value`
      : `expected a decimal number of microseconds (-1 = default, 0 = off), got ${JSON.stringify(shown)}`);
  }
  const v = r.val;
  if (v < -1n) return reject(ctx, "EINVAL", shown, `${v} is below -1 (-1 restores the default, 0 turns wbt off)`);
  const warnings: string[] = [];
  let latNs = -1n;
  if (v >= 0n) {
    latNs = BigInt.asIntN(64, v * 1000n);
    if (latNs !== v * 1000n) warnings.push(`${JSON.stringify(shown)}: ${v} us x 1000 wraps past 2^63 ns to ${BigInt.asUintN(64, latNs)} ns`);
  }
  const state = v === 0n && ctx.version !== "6.1" ? WBT_STATE_OFF_MANUAL : WBT_STATE_ON_MANUAL;
  return { ok: true, latNs, state, warnings };
}

/** The default wbt latency of a device (wbt_default_latency_nsec). */
export function wbtDefaultLatencyNs(rotational: boolean): bigint {
  return rotational ? 75_000_000n : 2_000_000n;
}
