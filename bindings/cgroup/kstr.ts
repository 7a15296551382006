// The kernel's string-parsing primitives, byte for byte, so the cgroup file
// parsers accept and reject exactly what Linux does.
//
// The cgroup interface files are parsed in C with a handful of helpers whose
// corner cases decide what a write means:
//
//   vsscanf "%u" / "%llu"   lib/vsprintf.c: skips leading white space, needs a
//                           decimal digit, then reads digits with u64
//                           wrap-around (no overflow error!) and stores the
//                           low 32 bits for "%u". Trailing garbage is ignored.
//   vsscanf "%lld"          the same, with an optional '-' (never '+').
//   vsscanf "%26s"          skips white space, copies up to 26 non-space chars.
//   simple_strtoul(s, 0)    base 0: "0x1f" hex, "017" octal, else decimal.
//   kstrtoull(s, 0)         base 0, optional '+', whole string (one trailing
//                           '\n' allowed), -ERANGE on overflow, -EINVAL else.
//   match_token  (lib/parser.c) "key=%u" matches only if simple_strtoul
//                           consumes the whole rest; "key=%s" any non-empty rest.
//   cgroup_parse_float      kernel/cgroup/cgroup.c: "%lld.%n%lld%n", fraction
//                           rounded to dec_shift digits (DIV_ROUND_CLOSEST_ULL).
//
// Worked example: "rbps=18446744073709551617" — %llu wraps 2^64+1 to 1, so on
// 6.1/6.12 io.max rejects it (value 1 is refused) and on 6.18 it is accepted
// as 1 byte/s; "rbps=18446744073709551616" wraps to 0 and gives -ERANGE.
//
// All u64 arithmetic uses BigInt, reduced mod 2^64 where the C code wraps.

export const U64_MAX = (1n << 64n) - 1n;
export const S64_MIN = -(1n << 63n);
export const UINT_MAX = 0xffffffffn;
const U64_MOD = 1n << 64n;

/** Kernel isspace(): \t \n \v \f \r, space, and Latin-1 NBSP (0xa0). */
export function isspace(ch: string | undefined): boolean {
  if (ch === undefined || ch === "") return false;
  const c = ch.charCodeAt(0);
  return (c >= 9 && c <= 13) || c === 32 || c === 0xa0;
}

export function isdigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

function isxdigit(ch: string | undefined): boolean {
  return ch !== undefined && /^[0-9a-fA-F]$/.test(ch);
}

/** skip_spaces(): index of the first non-space at or after i. */
export function skipSpaces(s: string, i: number): number {
  while (i < s.length && isspace(s[i])) i++;
  return i;
}

/** Wrap a BigInt to u64. */
export function u64(v: bigint): bigint {
  return BigInt.asUintN(64, v);
}

/** Wrap a BigInt to s64. */
export function s64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

function digitValue(ch: string): number {
  const c = ch.toLowerCase().charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 122) return c - 97 + 10;
  return 99;
}

/**
 * _parse_integer(): digits of `base` from s[i]; returns the wrapped u64 value,
 * how many characters were consumed and whether the exact value exceeded u64.
 */
export function parseInteger(
  s: string,
  i: number,
  base: number,
): { val: bigint; len: number; overflow: boolean } {
  let exact = 0n;
  let len = 0;
  const b = BigInt(base);
  while (i + len < s.length) {
    const d = digitValue(s[i + len]!);
    if (d >= base) break;
    exact = exact * b + BigInt(d);
    len++;
  }
  return { val: exact % U64_MOD, len, overflow: exact > U64_MAX };
}

/** _parse_integer_fixup_radix() for base 0 / 16: returns the base and the prefix length. */
export function fixupRadix(s: string, i: number, base: number): { base: number; skip: number } {
  if (base === 0) {
    if (s[i] === "0") {
      if (s[i + 1]?.toLowerCase() === "x" && isxdigit(s[i + 2])) base = 16;
      else base = 8;
    } else base = 10;
  }
  if (base === 16 && s[i] === "0" && s[i + 1]?.toLowerCase() === "x") return { base, skip: 2 };
  return { base, skip: 0 };
}

/**
 * vsscanf's unsigned conversion ("%u", "%llu") at s[i]: returns null where
 * sscanf would stop without converting. `bits` 32 keeps the low 32 bits as
 * "%u" stores into an unsigned int.
 */
export function scanUnsigned(s: string, i: number, bits: 32 | 64): { val: bigint; end: number } | null {
  if (i >= s.length) return null; // "if (!*str) break;"
  i = skipSpaces(s, i);
  if (!isdigit(s[i])) return null;
  const p = parseInteger(s, i, 10);
  const val = bits === 32 ? BigInt.asUintN(32, p.val) : p.val;
  return { val, end: i + p.len };
}

/**
 * What a "%u" / "%llu" read (scanUnsigned) took that a person surely did not
 * mean, though the kernel accepts it: digits past u64 (or u32) that wrap
 * around, and characters after the digits that sscanf stops at and the
 * caller never looks at ("10m", "1.5", "100abc"). `unit` names what a suffix
 * would have meant to the writer (e.g. "bytes/s"); "" when none is known.
 * Returns undefined when the number was read as written.
 */
export function scanSurprise(s: string, i: number, bits: 32 | 64, unit = ""): string | undefined {
  const n = scanUnsigned(s, i, bits);
  if (!n) return undefined;
  const start = skipSpaces(s, i);
  const digits = s.slice(start, n.end);
  let rest = "";
  for (let j = n.end; j < s.length && !isspace(s[j]); j++) rest += s[j];
  const parts: string[] = [];
  if (BigInt(digits) !== n.val) parts.push(`${digits} wraps to ${n.val} (sscanf keeps the low ${bits} bits)`);
  if (rest !== "") {
    const sfx = /^([kKmMgGtT])(i?[bB])?(\/s)?$/.exec(rest);
    const mult = sfx ? 1024n ** BigInt(" kmgt".indexOf(sfx[1]!.toLowerCase())) : 0n;
    const hint = sfx && unit ? `; for ${digits}${sfx[1]!.toUpperCase()}i${unit} write ${n.val * mult}` : "";
    parts.push(`the kernel reads ${n.val} and ignores ${JSON.stringify(rest)} (no unit suffixes or fractions${hint})`);
  }
  return parts.length ? parts.join("; ") : undefined;
}

/** vsscanf's "%lld" at s[i]: optional '-', then decimal digits, s64 wrap. */
export function scanSigned64(s: string, i: number): { val: bigint; end: number } | null {
  if (i >= s.length) return null;
  i = skipSpaces(s, i);
  let neg = false;
  let j = i;
  if (s[j] === "-") {
    neg = true;
    j++;
  }
  if (!isdigit(s[j])) return null;
  const p = parseInteger(s, j, 10);
  const val = s64(neg ? -p.val : p.val);
  return { val, end: j + p.len };
}

/**
 * vsscanf "%<width>s%n": null if the input is exhausted (sscanf returns 0),
 * else the token (possibly "" when only white space was left) and the end.
 */
export function scanToken(s: string, i: number, width: number): { tok: string; end: number } | null {
  if (i >= s.length) return null;
  i = skipSpaces(s, i);
  let j = i;
  while (j < s.length && !isspace(s[j]) && j - i < width) j++;
  return { tok: s.slice(i, j), end: j };
}

/** "%u:%u%n" as blkg_conf_open_bdev reads MAJ:MIN. */
export function scanDevno(s: string): { major: number; minor: number; end: number } | null {
  const a = scanUnsigned(s, 0, 32);
  if (!a) return null;
  if (s[a.end] !== ":") return null;
  const b = scanUnsigned(s, a.end + 1, 32);
  if (!b) return null;
  return { major: Number(a.val), minor: Number(b.val), end: b.end };
}

/** simple_strtoul(s, &end, 0): value and characters consumed (0 = none). */
export function simpleStrtoulBase0(s: string): { val: bigint; len: number } {
  const r = fixupRadix(s, 0, 0);
  const p = parseInteger(s, r.skip, r.base);
  return { val: p.val, len: r.skip + p.len };
}

/** kstrtoull(s, 0): the value or the errno it returns. */
export function kstrtoull(s: string): { val: bigint } | { errno: "EINVAL" | "ERANGE" } {
  let i = 0;
  if (s[0] === "+") i++;
  const r = fixupRadix(s, i, 0);
  i += r.skip;
  const p = parseInteger(s, i, r.base);
  if (p.overflow) return { errno: "ERANGE" };
  if (p.len === 0) return { errno: "EINVAL" };
  i += p.len;
  if (s[i] === "\n") i++;
  if (i < s.length) return { errno: "EINVAL" };
  return { val: p.val };
}

/**
 * match_token() against one pattern of the form "key=%u" or "key=%s" (the
 * only forms the block cgroup files use): the argument text, or null.
 */
export function matchPattern(s: string, pattern: string): string | null {
  const m = /^(.*)%([us])$/.exec(pattern);
  if (!m) return s === pattern ? "" : null;
  const prefix = m[1]!;
  if (!s.startsWith(prefix)) return null;
  const arg = s.slice(prefix.length);
  if (m[2] === "s") return arg.length > 0 ? arg : null;
  const r = simpleStrtoulBase0(arg);
  if (r.len === 0 || r.len !== arg.length) return null;
  return arg;
}

function powerOfTen(n: number): bigint {
  // power_of_ten() in kernel/cgroup/cgroup.c: u64, wraps.
  return u64(10n ** BigInt(n));
}

/**
 * cgroup_parse_float(input, dec_shift): the scaled s64 value, or null for
 * -EINVAL. "95.5" with dec_shift 2 -> 9550; "95.555" -> 9556 (rounded);
 * "95abc" -> 9500 (trailing text ignored); "-0.5" -> 50 (the sign of a zero
 * whole part is lost).
 */
export function cgroupParseFloat(input: string, decShift: number): bigint | null {
  const w = scanSigned64(input, 0);
  if (!w) return null;
  const whole = w.val;
  let frac = 0n;
  let fstart = 0;
  let fend = 0;
  if (input[w.end] === ".") {
    fstart = w.end + 1;
    const f = scanSigned64(input, fstart);
    if (f) {
      frac = f.val;
      fend = f.end;
    }
  }
  if (frac < 0n) return null;
  const flen = fend > fstart ? fend - fstart : 0;
  if (flen < decShift) {
    frac = s64(frac * powerOfTen(decShift - flen));
  } else {
    const d = powerOfTen(flen - decShift);
    const tmp = u64(frac + d / 2n);
    const d32 = BigInt.asUintN(32, d); // do_div() takes a u32 divisor
    frac = s64(tmp / d32);
  }
  return s64(whole * powerOfTen(decShift) + frac);
}

/** strsep(&body, " \t\n") over the whole body: every field, empty ones included. */
export function strsepAll(body: string, delims: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (const ch of body) {
    if (delims.includes(ch)) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}
