// What every per-device cgroup file write has in common: the result shape,
// the errno a rejected write returns, and blkg_conf_open_bdev()'s handling of
// the leading "MAJ:MIN" (block/blk-cgroup.c, identical in 6.1, 6.12, 6.18):
//
//   sscanf(input, "%u:%u%n")   else -EINVAL   ("8:0" must be two numbers)
//   next char is white space   else -EINVAL   ("8:0rbps=1" is refused;
//                                              "8:0" alone too, but `echo`
//                                              appends '\n', which counts)
//   MKDEV(major, minor) names a disk          else -ENODEV (unknown device)
//   ... that is not a partition               else -ENODEV
//   the rest, after skip_spaces(), is the body.
//
// MKDEV is ((major << 20) | minor) in a 32-bit dev_t, so "8:1048576" names
// 9:0 — as in the kernel. The device is reported in canonical "MAJ:MIN".

import { shown } from "../util/shown.js";
import { InputError } from "../scenario/errors.js";
import type { KernelVersion } from "../scenario/types.js";
import { isspace, scanDevno, skipSpaces } from "./kstr.js";

export type Errno = "EINVAL" | "ERANGE" | "ENODEV" | "ENOENT" | "EOPNOTSUPP";

/** A write the kernel refused: nothing of it was applied. */
export interface WriteRejection {
  ok: false;
  errno: Errno;
  /** the offending token (or the whole input when no token is to blame) */
  token: string;
  message: string;
  file?: string;
  line?: number;
}

/** Where a write happens and what the kernel knows about devices. */
export interface WriteContext {
  version: KernelVersion;
  /** whole-disk devices present, "MAJ:MIN" */
  devices: Iterable<string>;
  /** partitions present, "MAJ:MIN" (writes naming them fail with ENODEV) */
  partitions?: Iterable<string>;
  /** for error messages */
  file?: string;
  line?: number;
  /**
   * The value is what `echo VALUE > file` writes: a '\n' is appended unless
   * the value already ends with one. Default true. Set false to pass the
   * bytes exactly (as `printf %s`).
   */
  echo?: boolean;
}

export const MINORBITS = 20;
const MINORMASK = (1 << MINORBITS) - 1;

/** MKDEV(ma, mi) in a u32 dev_t. */
export function mkdev(major: number, minor: number): number {
  return ((major << MINORBITS) | minor) >>> 0;
}

/** "MAJ:MIN" of a dev_t, as bdi_dev_name() prints it. */
export function devName(dev: number): string {
  return `${dev >>> MINORBITS}:${dev & MINORMASK}`;
}

/** Parse a configured "MAJ:MIN" (a device list entry) to a dev_t. */
export function devnoToDev(devno: string): number {
  const m = /^(\d+):(\d+)$/.exec(devno.trim());
  if (!m) throw new Error(`not a MAJ:MIN device number: ${JSON.stringify(devno)}`);
  return mkdev(Number(m[1]) >>> 0, Number(m[2]) >>> 0);
}

/**
 * The bytes the kernel sees for a value, one character per byte: the value's
 * UTF-8 encoding. The parsers count and classify bytes as the kernel does
 * (a token is at most 26 bytes; the three bytes of U+2003 are not white
 * space, the 0xa0 byte of U+00A0 is). For ASCII this is the value itself.
 */
export function kernelBuffer(value: string, ctx: { echo?: boolean }): string {
  const v = ctx.echo === false || value.endsWith("\n") ? value : value + "\n";
  if (/^[\x00-\x7f]*$/.test(v)) return v;
  let out = "";
  for (const b of new TextEncoder().encode(v)) out += String.fromCharCode(b);
  return out;
}

/** A byte string of kernelBuffer() as text again (left as it is where it is not whole UTF-8, e.g. a token cut mid-character). */
function asText(bytes: string): string {
  if (/^[\x00-\x7f]*$/.test(bytes) || /[^\x00-\xff]/.test(bytes)) return bytes;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
  } catch {
    return bytes;
  }
}

export function reject(
  ctx: { file?: string; line?: number },
  errno: Errno,
  token: string,
  message: string,
): WriteRejection {
  return { ok: false, errno, token: asText(token), message: asText(message), file: ctx.file, line: ctx.line };
}

/** blkg_conf_open_bdev(): the device and the body after it, or the errno. */
export function openBdev(
  buf: string,
  ctx: WriteContext,
): { ok: true; device: string; body: string } | WriteRejection {
  const d = scanDevno(buf);
  const head = buf.split(/\s/, 1)[0] ?? buf;
  if (!d) return reject(ctx, "EINVAL", head, `expected "MAJ:MIN" device number at the start, got ${shown(head)}`);
  if (!isspace(buf[d.end])) {
    return reject(ctx, "EINVAL", head, `device number must be followed by white space, got ${shown(head)}`);
  }
  const dev = mkdev(d.major, d.minor);
  const name = devName(dev);
  const body = buf.slice(skipSpaces(buf, d.end));
  for (const p of ctx.partitions ?? []) {
    if (devnoToDev(p) === dev) return reject(ctx, "ENODEV", name, `${name} is a partition; cgroup files take the whole disk`);
  }
  for (const w of ctx.devices) {
    if (devnoToDev(w) === dev) return { ok: true, device: name, body };
  }
  return reject(ctx, "ENODEV", name, `no block device ${name}`);
}

/** "io.max:3: rejected with EINVAL at token "rbps=0x10": ..." */
export function formatRejection(r: WriteRejection, file?: string, line?: number): string {
  const f = file ?? r.file ?? "<input>";
  const l = line ?? r.line;
  return `${f}${l !== undefined ? `:${l}` : ""}: write rejected with ${r.errno} at ${JSON.stringify(r.token)}: ${r.message}`;
}

/** The same as a typed error to throw. */
export function rejectionError(r: WriteRejection, file?: string, line?: number): InputError {
  return new InputError(
    `write rejected at ${JSON.stringify(r.token)}: ${r.message}`,
    file ?? r.file ?? "<input>",
    line ?? r.line,
    r.token,
    r.errno,
  );
}
