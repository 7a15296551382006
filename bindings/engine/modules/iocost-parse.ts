// Parsers for io.weight, io.cost.qos and io.cost.model with the accept/reject
// rules of block/blk-iocost.c (Linux 6.1; 6.12 differences noted), including
// the quirks of lib/parser.c match_token() and cgroup_parse_float().
//
// A value is parsed as if written with `echo` (a trailing newline is added
// when missing), because blkcg_conf_open_bdev() needs whitespace after
// "MAJ:MIN". Errors are thrown as IocostParseError carrying the kernel's
// errno name; the control module turns them into InputErrors naming the
// file, line and field.
//
// Example: "253:0 enable=1 ctrl=user rpct=90.00 rlat=20000 min=50 max=150"
//   -> devno 253:0, enable 1, user mode, rpct 900000 ppm, rlat 20000 us,
//      min 500000 ppm, max 1500000 ppm (percent x 10000).

export class IocostParseError extends Error {
  constructor(message: string, public readonly errno: "EINVAL" | "ENODEV" | "EOPNOTSUPP" | "ERANGE") {
    super(message);
  }
}

export const QOS_KEYS = ["rpct", "rlat", "wpct", "wlat", "min", "max"] as const;
export const MODEL_KEYS = ["rbps", "rseqiops", "rrandiops", "wbps", "wseqiops", "wrandiops"] as const;
export const VRATE_MIN_PPM = 10000;
export const VRATE_MAX_PPM = 100000000;
const U64_MAX = (1n << 64n) - 1n;

function einval(msg: string): never {
  throw new IocostParseError(msg, "EINVAL");
}

/** simple_strtoull(s, &end, 0): digits with base autodetection; returns [value, chars used]. */
export function strtoullBase0(s: string): [bigint, number] {
  let i = 0;
  let base = 10;
  if (s[0] === "0" && (s[1] === "x" || s[1] === "X") && /[0-9a-fA-F]/.test(s[2] ?? "")) {
    base = 16;
    i = 2;
  } else if (s[0] === "0") {
    base = 8;
  }
  let v = 0n;
  const start = i;
  for (; i < s.length; i++) {
    const d = parseInt(s[i]!, 16);
    if (Number.isNaN(d) || d >= base) break;
    v = (v * BigInt(base) + BigInt(d)) & U64_MAX;
  }
  if (i === start && base !== 8) return [0n, 0];
  return [v, i];
}

/** kstrtoull(s, 0): the whole string (a trailing newline allowed) must be a number that fits u64. */
export function kstrtoull(s: string): bigint {
  const t = s.endsWith("\n") ? s.slice(0, -1) : s;
  let base = 10;
  let i = 0;
  if (t[0] === "0" && (t[1] === "x" || t[1] === "X")) {
    base = 16;
    i = 2;
  } else if (t[0] === "0" && t.length > 1) {
    base = 8;
    i = 1;
  }
  if (i >= t.length) einval(`"${s}" is not a number`);
  let v = 0n;
  for (; i < t.length; i++) {
    const d = parseInt(t[i]!, 16);
    if (Number.isNaN(d) || d >= base) einval(`"${s}" is not a number`);
    v = v * BigInt(base) + BigInt(d);
    if (v > U64_MAX) throw new IocostParseError(`"${s}" does not fit in 64 bits`, "ERANGE");
  }
  return v;
}

/** match_token() against "key=%u" or "key=%s": the argument, or undefined when the token does not match. */
function matchArg(tok: string, key: string, kind: "u" | "s"): string | undefined {
  if (!tok.startsWith(key + "=")) return undefined;
  const arg = tok.slice(key.length + 1);
  if (kind === "s") return arg.length > 0 ? arg : undefined;
  const [, used] = strtoullBase0(arg);
  if (used === 0 || used !== arg.length) return undefined; // nothing may follow the number
  return arg;
}

/** cgroup_parse_float(input, dec_shift): "%lld.%n%lld%n", extra fraction digits rounded. */
export function cgroupParseFloat(input: string, decShift: number): number {
  const m = /^\s*(-?\d+)/.exec(input);
  if (!m) einval(`"${input}" is not a number`);
  const whole = parseInt(m[1]!, 10);
  let frac = 0;
  let flen = 0;
  let rest = input.slice(m[0].length);
  if (rest.startsWith(".")) {
    rest = rest.slice(1);
    const f = /^\s*(-?\d+)/.exec(rest);
    if (f) {
      frac = parseInt(f[1]!, 10);
      flen = f[0].length;
    }
  }
  if (frac < 0) einval(`"${input}" has a negative fraction`);
  const p10 = (n: number) => 10 ** n;
  if (flen < decShift) frac *= p10(decShift - flen);
  else {
    const d = p10(flen - decShift);
    frac = Math.floor((frac + Math.floor(d / 2)) / d); // DIV_ROUND_CLOSEST_ULL
  }
  return whole * p10(decShift) + frac;
}

function echo(v: string): string {
  return v.endsWith("\n") ? v : v + "\n";
}

/** blkcg_conf_open_bdev(): "MAJ:MIN" then whitespace; returns [devno, rest]. */
export function splitDevno(input: string): [string, string] {
  const m = /^\s*(\d+):(\d+)/.exec(input);
  if (!m) einval(`expected "MAJ:MIN" at the start of "${input.trim()}"`);
  const rest = input.slice(m[0].length);
  if (!/^\s/.test(rest)) einval(`"MAJ:MIN" must be followed by a space`);
  return [`${Number(m[1])}:${Number(m[2])}`, rest.replace(/^\s+/, "")];
}

function tokens(s: string): string[] {
  return s.split(/[ \t\n]/).filter((t) => t.length > 0);
}

export type WeightWrite =
  | { kind: "default"; weight: number }
  | { kind: "device"; devno: string; weight: number /* 0 = back to the default */ };

/** io.weight (ioc_weight_write). */
export function parseIoWeight(value: string): WeightWrite {
  const buf = echo(value);
  const range = (v: number) => {
    if (!(v >= 1 && v <= 10000)) einval(`weight ${v} is outside 1..10000`);
  };
  if (!buf.includes(":")) {
    const m = /^\s*default\s*(\d+)/.exec(buf) ?? /^\s*(\d+)/.exec(buf);
    if (!m) einval(`"${value.trim()}" is neither "default N" nor "N"`);
    const v = Number(m[1]);
    range(v);
    return { kind: "default", weight: v };
  }
  const [devno, body] = splitDevno(buf);
  if (body.startsWith("default")) return { kind: "device", devno, weight: 0 };
  const m = /^\s*(\d+)/.exec(body);
  if (!m) einval(`"${body.trim()}" is not a weight`);
  const v = Number(m[1]);
  range(v);
  return { kind: "device", devno, weight: v };
}

export interface QosWrite {
  devno: string;
  /** undefined = keep the current state */
  enable?: boolean;
  /** final ctrl mode after the write's tokens; undefined = keep */
  user?: boolean;
  /** values set by the write (ppm for pct/min/max, µs for lat) */
  set: Partial<Record<(typeof QOS_KEYS)[number], number>>;
}

/** io.cost.qos (ioc_qos_write). `strictEnable`: 6.12 rejects a bad enable= number. */
export function parseIoCostQos(value: string, strictEnable: boolean): QosWrite {
  const [devno, body] = splitDevno(echo(value));
  const out: QosWrite = { devno, set: {} };
  for (const p of tokens(body)) {
    const en = matchArg(p, "enable", "u");
    if (en !== undefined) {
      let v = 0n;
      try {
        v = kstrtoull(en);
      } catch (e) {
        if (strictEnable) throw e;
      }
      out.enable = v !== 0n;
      continue;
    }
    const ctrl = matchArg(p, "ctrl", "s");
    if (ctrl !== undefined) {
      if (ctrl === "auto") out.user = false;
      else if (ctrl === "user") out.user = true;
      else einval(`ctrl=${ctrl}: expected auto or user`);
      continue;
    }
    let matched = false;
    for (const key of QOS_KEYS) {
      const isLat = key === "rlat" || key === "wlat";
      const arg = matchArg(p, key, isLat ? "u" : "s");
      if (arg === undefined) continue;
      matched = true;
      if (isLat) {
        out.set[key] = Number(kstrtoull(arg) & 0xffffffffn); // stored in a u32
      } else {
        if (arg.length >= 32) einval(`${key}=${arg}: too long`);
        const v = cgroupParseFloat(arg, 2);
        if (key === "rpct" || key === "wpct") {
          if (v < 0 || v > 10000) einval(`${key}=${arg}: must be within 0..100`);
          out.set[key] = v * 100;
        } else {
          if (v < 0) einval(`${key}=${arg}: must not be negative`);
          out.set[key] = Math.min(Math.max(v * 100, VRATE_MIN_PPM), VRATE_MAX_PPM);
        }
      }
      out.user = true;
      break;
    }
    if (!matched) einval(`unknown io.cost.qos parameter "${p}"`);
  }
  return out;
}

export interface ModelWrite {
  devno: string;
  user?: boolean;
  set: Partial<Record<(typeof MODEL_KEYS)[number], bigint>>;
}

/** io.cost.model (ioc_cost_model_write). */
export function parseIoCostModel(value: string): ModelWrite {
  const [devno, body] = splitDevno(echo(value));
  const out: ModelWrite = { devno, set: {} };
  for (const p of tokens(body)) {
    const ctrl = matchArg(p, "ctrl", "s");
    if (ctrl !== undefined) {
      if (ctrl === "auto") out.user = false;
      else if (ctrl === "user") out.user = true;
      else einval(`ctrl=${ctrl}: expected auto or user`);
      continue;
    }
    const model = matchArg(p, "model", "s");
    if (model !== undefined) {
      if (model !== "linear") einval(`model=${model}: only "linear" exists`);
      continue;
    }
    const key = MODEL_KEYS.find((k) => matchArg(p, k, "u") !== undefined);
    if (!key) einval(`unknown io.cost.model parameter "${p}"`);
    out.set[key] = kstrtoull(matchArg(p, key, "u")!);
    out.user = true;
  }
  return out;
}
