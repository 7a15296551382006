// Reading a user's input file from the command line (Node only: the
// browser build shares scenario/errors.ts, so this lives apart from it).
//
// Every input file is read with a size cap: `iosim run /dev/zero` (an endless
// file), a fio read_iolog naming a FIFO or a multi-gigabyte file, would
// otherwise read until the machine runs out of memory. The file is read a
// chunk at a time and refused as soon as it passes the cap, so an endless
// file costs one chunk over the cap, never more.
//
// Caps: scenario, job, device and Kubernetes files (text a person writes)
// MAX_TEXT_BYTES, 64 MiB; recorded traces and fio iologs (machine-written,
// one line per IO: a 2 M-IO trace is ~300 MB) MAX_TRACE_BYTES, 480 MiB, just
// under the longest string V8 can hold (2^29 - 24 one-byte characters).
// IOSIM_MAX_INPUT_BYTES lowers or raises both (up to V8's limit).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { InputError } from "../scenario/errors.js";

export const MAX_TEXT_BYTES = 64 * 1024 * 1024;
export const MAX_TRACE_BYTES = 480 * 1024 * 1024;
const V8_MAX_STRING = (1 << 29) - 24;

/** the cap for a kind of input file, IOSIM_MAX_INPUT_BYTES applied */
export function inputCap(kind: "text" | "trace"): number {
  const env = process.env.IOSIM_MAX_INPUT_BYTES;
  if (env !== undefined && env.trim() !== "") {
    const n = Number(env);
    if (!Number.isSafeInteger(n) || n <= 0) throw new InputError(`IOSIM_MAX_INPUT_BYTES must be a positive whole number of bytes, got "${env}"`, "environment", undefined, "IOSIM_MAX_INPUT_BYTES");
    return Math.min(n, V8_MAX_STRING);
  }
  return kind === "trace" ? MAX_TRACE_BYTES : MAX_TEXT_BYTES;
}

function mib(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/**
 * The file's bytes as UTF-8 text, at most `cap` bytes; a longer (or endless)
 * file is an InputError naming the cap and the variable that changes it.
 */
export function readCapped(path: string, cap: number, shownAs: string, what: string): string {
  const fd = openSync(path, "r");
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) {
      const e = new Error(`EISDIR: illegal operation on a directory, read`) as NodeJS.ErrnoException;
      e.code = "EISDIR";
      throw e;
    }
    const tooBig = () =>
      new InputError(`the ${what} is larger than ${mib(cap)}, the most iosim reads from one input file (an endless file such as /dev/zero, or a FIFO?); IOSIM_MAX_INPUT_BYTES changes the cap`, shownAs);
    if (st.isFile() && st.size > cap) throw tooBig();
    const chunks: Buffer[] = [];
    let total = 0;
    const chunk = Math.min(cap + 1, st.isFile() && st.size > 0 ? st.size + 1 : 1 << 20);
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(chunk, cap + 1 - total) || 1);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > cap) throw tooBig();
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    }
    return (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * A user's input file as text; a file that cannot be read is an InputError
 * naming `shownAs` (default: the path) and the errno ("cannot read the
 * scenario: ENOENT"), not a crash. `kind` picks the size cap (see above).
 */
export function readInputFile(path: string, what: string, shownAs = path, kind: "text" | "trace" = "text"): string {
  const cap = inputCap(kind);
  try {
    return readCapped(path, cap, shownAs, what);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read the ${what}: ${(e as NodeJS.ErrnoException).code ?? e}`, shownAs);
  }
}
