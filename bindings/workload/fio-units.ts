// fio's value syntax: sizes with kb_base-dependent suffixes, times with a
// per-option default unit, booleans, percentages and per-direction lists.
//
// Followed: fio HOWTO.rst "Parameter types" (int, time, bool, irange) and
// options "kb_base", "bs" (read,write,trim lists). Sizes are integer bytes;
// times are integer nanoseconds.
//
// Worked example (kb_base=1024, the default, where fio keeps the pre-IEC
// meaning for compatibility): "4k" = 4 * 1024 = 4096 bytes, "4KiB" =
// 4 * 1000 = 4000 bytes (IEC letters mean powers of ten when kb_base=1024,
// as the HOWTO table says), "1g" = 1073741824. With kb_base=1000 the roles
// swap: "4k" = 4000, "4ki" = 4096. A time "250" given to `thinktime`
// (default unit microseconds) is 250,000 ns; "2s" is 2e9 ns whatever the
// option; "10m" for a time is ten minutes, never milli.

export const NS_PER_US = 1_000;
export const NS_PER_MS = 1_000_000;
export const NS_PER_S = 1_000_000_000;

export type KbBase = 1000 | 1024;
export type TimeUnit = "ns" | "us" | "ms" | "s";

const TIME_UNIT_NS: Record<TimeUnit, number> = { ns: 1, us: NS_PER_US, ms: NS_PER_MS, s: NS_PER_S };

/** Thrown by the value parsers; the job-file parser turns it into an InputError with file:line. */
export class ValueError extends Error {}

const SIZE_RE = /^(0x[0-9a-f]+|\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)$/i;

/**
 * The multiplier of a size suffix. Letters k m g t p e; a trailing "i" (ki,
 * mi, kib...) selects the other base; a trailing "b" is just "bytes".
 */
function sizeMultiplier(suffix: string, kbBase: KbBase): number {
  let s = suffix.toLowerCase();
  if (s === "" || s === "b") return 1;
  if (s.endsWith("b")) s = s.slice(0, -1);
  let iec = false;
  if (s.length === 2 && s.endsWith("i")) {
    iec = true;
    s = s.slice(0, 1);
  }
  const pow = "kmgtpe".indexOf(s);
  if (s.length !== 1 || pow < 0) throw new ValueError(`unknown size suffix "${suffix}"`);
  // kb_base=1024: plain letters are powers of 2, IEC letters powers of 10;
  // kb_base=1000: the opposite (HOWTO.rst, "int" parameter type).
  const base = (kbBase === 1024) !== iec ? 1024 : 1000;
  return base ** (pow + 1);
}

/** A size or count with an optional unit suffix, e.g. "4k", "1.5g", "0x1000", "512". */
export function parseSize(value: string, kbBase: KbBase = 1024): number {
  const v = value.trim();
  const m = SIZE_RE.exec(v);
  if (!m) throw new ValueError(`"${value}" is not a size`);
  const num = m[1]!.toLowerCase().startsWith("0x") ? parseInt(m[1]!, 16) : Number(m[1]);
  const bytes = Math.floor(num * sizeMultiplier(m[2]!, kbBase));
  if (!Number.isSafeInteger(bytes)) throw new ValueError(`"${value}" is too large`);
  return bytes;
}

/** A plain non-negative integer (numjobs, iodepth, rwmixread...); fio allows size suffixes here too. */
export function parseInteger(value: string, kbBase: KbBase = 1024): number {
  const n = parseSize(value, kbBase);
  return n;
}

/** A size or a percentage ("20%"); percentages come back as { pct }. */
export function parseSizeOrPercent(value: string, kbBase: KbBase = 1024): { bytes: number } | { pct: number } {
  const v = value.trim();
  if (v.endsWith("%")) {
    const pct = Number(v.slice(0, -1));
    if (!Number.isFinite(pct) || pct <= 0 || pct > 100) throw new ValueError(`percentage "${value}" must be in (0, 100]`);
    return { pct };
  }
  return { bytes: parseSize(v, kbBase) };
}

const TIME_RE = /^(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)$/i;

/**
 * A time: "10" (in the option's default unit), "10s", "5ms", "250us", "2m"
 * (minutes), "1h", "1d". Returns integer nanoseconds.
 */
export function parseTimeNs(value: string, defaultUnit: TimeUnit): number {
  const m = TIME_RE.exec(value.trim());
  if (!m) throw new ValueError(`"${value}" is not a time`);
  const num = Number(m[1]);
  const suffix = m[2]!.toLowerCase();
  let mult: number;
  switch (suffix) {
    case "": mult = TIME_UNIT_NS[defaultUnit]; break;
    case "ns": case "nsec": mult = 1; break;
    case "us": case "usec": mult = NS_PER_US; break;
    case "ms": case "msec": mult = NS_PER_MS; break;
    case "s": case "sec": mult = NS_PER_S; break;
    case "m": case "min": mult = 60 * NS_PER_S; break;
    case "h": case "hour": mult = 3600 * NS_PER_S; break;
    case "d": case "day": mult = 86400 * NS_PER_S; break;
    default: throw new ValueError(`unknown time suffix "${m[2]}"`);
  }
  const ns = Math.round(num * mult);
  if (!Number.isSafeInteger(ns)) throw new ValueError(`"${value}" is too large`);
  return ns;
}

/** fio bool: 1/0, plus the spellings people write (true/false, yes/no, on/off). */
export function parseBool(value: string): boolean {
  switch (value.trim().toLowerCase()) {
    case "1": case "true": case "yes": case "on": return true;
    case "0": case "false": case "no": case "off": return false;
    default: throw new ValueError(`"${value}" is not a boolean (use 1 or 0)`);
  }
}

/**
 * fio's read,write,trim lists (bs, rate, rate_iops, bssplit): "a" applies to
 * all three; "a,b" is a for reads and b for writes and trims; an empty field
 * keeps the default (undefined here); "a,b," leaves trims at the default.
 */
export function splitDirections(value: string): [read?: string, write?: string, trim?: string] {
  const parts = value.split(",").map((p) => p.trim());
  if (parts.length === 1) return [parts[0] || undefined, parts[0] || undefined, parts[0] || undefined];
  if (parts.length > 3) throw new ValueError(`"${value}" has more than three comma-separated fields (read,write,trim)`);
  const r = parts[0] || undefined;
  const w = parts[1] || undefined;
  const t = parts.length === 3 ? parts[2] || undefined : w;
  return [r, w, t];
}
