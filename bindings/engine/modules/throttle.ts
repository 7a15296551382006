// blk-throttle's cgroup files: v2 `io.max` and v1
// `blkio.throttle.{read,write}_{bps,iops}_device`, parsed by the one
// kernel-exact parser (bindings/cgroup/throttle.ts: tg_set_limit /
// tg_set_conf of the scenario's kernel version) and handed to the WASM core
// as timed limit writes.
//
// Every write, at t = 0 or later, becomes an EV_CONFIG event applied at its
// simulated time, because a write restarts the group's slices at the jiffy
// it lands in (and carries over what queued bios already waited).
//
// A value is what `echo` writes, one write per line: "8:0 rbps=1\n8:16
// wbps=2" is `echo "8:0 rbps=1" > io.max; echo "8:16 wbps=2" > io.max`
// (the kernel itself refuses two lines in one write(2)); a value with no
// line but white space is one write of it, EINVAL as `echo "" > io.max`.
// Each line sees the limits the lines before it left.
//
// Worked example: `io.max` = "7:1 riops=100" on cgroup "a" at t = 0 -> the
// module keeps (rbps, wbps, riops, wiops) = (max, max, 100, max) for (a, 7:1)
// and stages those four values; a later "7:1 wbps=1048576" keeps riops=100
// and adds wbps, as the kernel keeps keys a write does not name.

import type { ControlContext, ControlModule } from "../control.js";
import { registerControlModule } from "../control.js";
import type { ConfigWrite, KernelVersion, Scenario } from "../../scenario/types.js";
import {
  parseBlkioThrottle, parseIoMax, THROTTLE_UNLIMITED, V1_THROTTLE_FILES, type ThrottleLimits, type V1ThrottleFile,
} from "../../cgroup/throttle.js";
import { devnoToDev, type WriteRejection } from "../../cgroup/write.js";
import { failWrite, moduleWriteContext, rejectedWrite, writeAt, writeLines } from "./writes.js";

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

interface ThrottleCore {
  throtlSetup(profile: number, sliceJiffies: bigint, workLatencyNs: bigint, trace: number): void;
  throtlWriteLimits(cg: number, dev: number, rbps: bigint, wbps: bigint, riops: bigint, wiops: bigint, atNs: bigint): number;
}

export const throttleModule: ControlModule = {
  name: "blk-throttle",
  handles(file: string): boolean {
    return file === "io.max" || file in V1_THROTTLE_FILES;
  },
  setup(ctx: ControlContext): void {
    const core = ctx.core as unknown as ThrottleCore;
    const o = (ctx.scenario as ScenarioWithThrottle).throttle ?? {};
    core.throtlSetup(THROTTLE_PROFILE[ctx.kernel], BigInt(o.sliceJiffies ?? 0), BigInt(Math.round(o.workLatencyNs ?? 30_000)),
      o.trace ? 1 : 0);
    ctx.state.set("throttle.limits", new Map<string, ThrottleLimits>());
  },
  write(ctx: ControlContext, w: ConfigWrite): void {
    const v1 = w.file !== "io.max";
    if (v1 && ctx.scenario.cgroupVersion === 2) {
      failWrite(ctx, w, `${w.file} is a cgroup v1 file; this scenario uses cgroup v2 (write io.max)`, "ENOENT", w.file);
    }
    if (!v1 && ctx.scenario.cgroupVersion === 1) {
      failWrite(ctx, w, `io.max is a cgroup v2 file; this scenario uses cgroup v1 (write blkio.throttle.*)`, "ENOENT", w.file);
    }
    if (!v1 && w.cgroup === "") failWrite(ctx, w, "io.max does not exist on the root cgroup", "ENOENT", w.file);
    const cg = ctx.cgroupId(w.cgroup);
    if (cg === undefined) failWrite(ctx, w, `unknown cgroup "${w.cgroup}"`, undefined, "cgroup");
    const table = ctx.state.get("throttle.limits") as Map<string, ThrottleLimits>;
    const core = ctx.core as unknown as ThrottleCore;
    // the field names the file, and the key of a rejected key=value token ("io.max rbps")
    const rejected = (r: WriteRejection): never => rejectedWrite(ctx, w, r, r.token.includes("=") ? `${w.file} ${r.token.split("=")[0]}` : w.file);
    for (const line of writeLines(w.value)) {
      let device: string;
      let limits: ThrottleLimits;
      if (v1) {
        const r = parseBlkioThrottle(w.file as V1ThrottleFile, line, moduleWriteContext(ctx, w));
        if (!r.ok) return rejected(r);
        device = r.device;
        limits = { ...(table.get(`${cg}|${device}`) ?? THROTTLE_UNLIMITED), [r.key]: r.value };
        if (r.warning) ctx.warn(`${writeAt(ctx, w)}: ${w.file}: ${r.warning}`);
      } else {
        const r = parseIoMax(line, moduleWriteContext(ctx, w));
        if (!r.ok) return rejected(r);
        device = r.device;
        limits = { ...(table.get(`${cg}|${device}`) ?? THROTTLE_UNLIMITED), ...r.set };
        for (const m of r.warnings) ctx.warn(`${writeAt(ctx, w)}: io.max: ${m}`);
        if (r.ignored.length) {
          ctx.warn(`${writeAt(ctx, w)}: io.max: ${ctx.kernel} accepts and ignores io.low's ${r.ignored.join(" ")} ` +
            `(its tg_set_limit tests the file offset, not the file, for LIMIT_LOW)`);
        }
      }
      // the scenario's disk, however its devno is spelled (the parser names it canonically)
      const dev = ctx.devices().find((d) => devnoToDev(d.spec.devno) === devnoToDev(device))!;
      table.set(`${cg}|${device}`, limits);
      core.throtlWriteLimits(cg, dev.id, limits.rbps, limits.wbps, limits.riops, limits.wiops, BigInt(Math.round(w.atNs)));
    }
  },
};

registerControlModule(throttleModule);
