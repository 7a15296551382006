// blk-throttle's cgroup files: v2 `io.max` and v1
// `blkio.throttle.{read,write}_{bps,iops}_device`, parsed with the kernel's
// rules (tg_set_limit / tg_set_conf of the scenario's kernel version) and
// handed to the WASM core as timed limit writes.
//
// Every write, at t = 0 or later, becomes an EV_CONFIG event applied at its
// simulated time, because a write restarts the group's slices at the jiffy
// it lands in (and carries over what queued bios already waited).
//
// Worked example: `io.max` = "7:1 riops=100" on cgroup "a" at t = 0 -> the
// module keeps (rbps, wbps, riops, wiops) = (max, max, 100, max) for (a, 7:1)
// and stages those four values; a later "7:1 wbps=1048576" keeps riops=100
// and adds wbps, as the kernel keeps keys a write does not name.

import type { ControlContext, ControlModule } from "../control.js";
import { registerControlModule } from "../control.js";
import type { ConfigWrite, KernelVersion, Scenario } from "../../scenario/types.js";
import { InputError } from "../../scenario/errors.js";
import { scanUnsigned } from "../../cgroup/kstr.js";

export const U64_MAX = 0xffffffffffffffffn;
export const UINT_MAX = 0xffffffffn;

/** Kernel version -> core profile (assembly/throttle/throttle.ts PROFILE_*). */
export const THROTTLE_PROFILE: Record<KernelVersion, number> = { "6.1": 0, "6.12": 1, "6.18": 2 };

/** Optional per-scenario knobs of the throttle model (Scenario.throttle). */
export interface ThrottleOptions {
  /** slice length in jiffies; default HZ/10 (every modelled version) */
  sliceJiffies?: number;
  /** ns from the pending timer's tick to the kthrotld work submitting bios (default 30 us) */
  workLatencyNs?: number;
  /** record the per-bio decision trace (see bindings/oracle/trace.ts) */
  trace?: boolean;
}

export type ScenarioWithThrottle = Scenario & { throttle?: ThrottleOptions };

export interface Limits {
  rbps: bigint;
  wbps: bigint;
  riops: bigint;
  wiops: bigint;
}

export const NO_LIMITS: Limits = { rbps: U64_MAX, wbps: U64_MAX, riops: UINT_MAX, wiops: UINT_MAX };

const V1_FILES: Record<string, keyof Limits> = {
  "blkio.throttle.read_bps_device": "rbps",
  "blkio.throttle.write_bps_device": "wbps",
  "blkio.throttle.read_iops_device": "riops",
  "blkio.throttle.write_iops_device": "wiops",
};

interface ThrottleCore {
  throtlSetup(profile: number, sliceJiffies: bigint, workLatencyNs: bigint, trace: number): void;
  throtlWriteLimits(cg: number, dev: number, rbps: bigint, wbps: bigint, riops: bigint, wiops: bigint, atNs: bigint): number;
}

/** Parse one `io.max` line body after "MAJ:MIN" into updated limits (tg_set_limit). */
export function parseIoMaxTokens(body: string, old: Limits, kernel: KernelVersion, where: { file: string; line?: number }): Limits {
  const v: Limits = { ...old };
  for (const tok of body.split(/\s+/).filter(Boolean)) {
    const eq = tok.indexOf("=");
    if (eq < 0) throw new InputError(`io.max token "${tok}" is not key=value`, where.file, where.line, "io.max", "EINVAL");
    const key = tok.slice(0, eq);
    const raw = tok.slice(eq + 1);
    let val: bigint;
    // the kernel's sscanf("%llu") (bindings/cgroup/kstr.ts): u64 wrap-around,
    // trailing junk ignored; 2^64 wraps to 0 and is refused below (ERANGE)
    const n = raw === "max" ? undefined : scanUnsigned(raw, 0, 64);
    if (raw === "max") val = U64_MAX;
    else if (n) val = n.val;
    else throw new InputError(`io.max value "${raw}" is neither a number nor "max"`, where.file, where.line, `io.max ${key}`, "EINVAL");
    if (val === 0n) throw new InputError(`io.max ${key}=0 is out of range (use "max" to remove a limit)`, where.file, where.line, `io.max ${key}`, "ERANGE");
    // 6.1 and 6.12 reject 1 (the io.low-era `val > 1` test); newer kernels accept it
    const ok = kernel === "6.18" || val > 1n;
    if (key === "rbps" && ok) v.rbps = val;
    else if (key === "wbps" && ok) v.wbps = val;
    else if (key === "riops" && ok) v.riops = val > UINT_MAX ? UINT_MAX : val;
    else if (key === "wiops" && ok) v.wiops = val > UINT_MAX ? UINT_MAX : val;
    else {
      const why = ["rbps", "wbps", "riops", "wiops"].includes(key) ? `value 1 is rejected by kernel ${kernel}` : `unknown key "${key}"`;
      throw new InputError(`io.max: ${why}`, where.file, where.line, `io.max ${key}`, "EINVAL");
    }
  }
  return v;
}

/** Parse a write's value into (devno, new limits) given the group's current limits. */
export function parseThrottleWrite(file: string, value: string, current: (devno: string) => Limits, kernel: KernelVersion,
  where: { file: string; line?: number }): Array<{ devno: string; limits: Limits }> {
  const out: Array<{ devno: string; limits: Limits }> = [];
  const lines = value.split("\n").map((l) => l.trim()).filter(Boolean);
  for (const ln of lines) {
    const m = /^(\d+):(\d+)(\s+|$)(.*)$/.exec(ln);
    if (!m) throw new InputError(`"${ln}" does not start with MAJ:MIN and a space`, where.file, where.line, file, "EINVAL");
    const devno = `${m[1]}:${m[2]}`;
    const body = m[4]!.trim();
    if (file === "io.max") {
      out.push({ devno, limits: parseIoMaxTokens(body, current(devno), kernel, where) });
    } else {
      const key = V1_FILES[file]!;
      const scanned = scanUnsigned(body, 0, 64);
      if (!scanned) throw new InputError(`${file}: "${body}" is not a number`, where.file, where.line, file, "EINVAL");
      let n = scanned.val;
      if (n === 0n) n = U64_MAX; // 0 removes the limit
      if ((key === "riops" || key === "wiops") && n > UINT_MAX) n = n === U64_MAX ? UINT_MAX : n & UINT_MAX; // stored as unsigned int
      const lim = { ...current(devno) };
      lim[key] = n;
      out.push({ devno, limits: lim });
    }
  }
  return out;
}

export const throttleModule: ControlModule = {
  name: "blk-throttle",
  handles(file: string): boolean {
    return file === "io.max" || file in V1_FILES;
  },
  setup(ctx: ControlContext): void {
    const core = ctx.core as unknown as ThrottleCore;
    const o = (ctx.scenario as ScenarioWithThrottle).throttle ?? {};
    core.throtlSetup(THROTTLE_PROFILE[ctx.kernel], BigInt(o.sliceJiffies ?? 0), BigInt(Math.round(o.workLatencyNs ?? 30_000)),
      o.trace ? 1 : 0);
    ctx.state.set("throttle.limits", new Map<string, Limits>());
  },
  write(ctx: ControlContext, w: ConfigWrite): void {
    const where = { file: w.source?.file ?? ctx.scenario.source?.file ?? "scenario", line: w.source?.line };
    const v1 = w.file !== "io.max";
    if (v1 && ctx.scenario.cgroupVersion === 2) {
      throw new InputError(`${w.file} is a cgroup v1 file; this scenario uses cgroup v2 (write io.max)`, where.file, where.line, w.file, "ENOENT");
    }
    if (!v1 && ctx.scenario.cgroupVersion === 1) {
      throw new InputError(`io.max is a cgroup v2 file; this scenario uses cgroup v1 (write blkio.throttle.*)`, where.file, where.line, w.file, "ENOENT");
    }
    if (!v1 && w.cgroup === "") throw new InputError("io.max does not exist on the root cgroup", where.file, where.line, w.file, "ENOENT");
    const cg = ctx.cgroupId(w.cgroup);
    if (cg === undefined) throw new InputError(`unknown cgroup "${w.cgroup}"`, where.file, where.line, "cgroup");
    const table = ctx.state.get("throttle.limits") as Map<string, Limits>;
    const key = (devno: string) => `${cg}|${devno}`;
    const parsed = parseThrottleWrite(w.file, w.value, (devno) => table.get(key(devno)) ?? NO_LIMITS, ctx.kernel, where);
    const core = ctx.core as unknown as ThrottleCore;
    for (const { devno, limits } of parsed) {
      const dev = ctx.device(devno);
      if (!dev) throw new InputError(`no device ${devno} in the scenario`, where.file, where.line, w.file, "ENODEV");
      table.set(key(devno), limits);
      core.throtlWriteLimits(cg, dev.id, limits.rbps, limits.wbps, limits.riops, limits.wiops, BigInt(Math.round(w.atNs)));
    }
  },
};

registerControlModule(throttleModule);
