// blk-iolatency (io.latency) and wbt (wbt_lat_usec) control modules.
//
// io.latency writes are parsed with the kernel's rules (cgroup/iolatency.ts)
// and staged in the core (assembly/iolatency/api.ts) at t = 0 or at their
// simulated time. wbt_lat_usec is a block queue file, not a cgroup file: a
// scenario writes it as a device field (`wbt_lat_usec:` on the device) or as
// a timed change of the root's "wbt_lat_usec" with the value
// "MAJ:MIN <usec>" naming the disk (the one place iosim adds a device part
// the kernel's file does not have: a scenario may hold several disks).
//
// wbt is off unless a scenario sets wbt_lat_usec: the kernel turns it on by
// default on every blk-mq disk without BFQ (wbt_enable_default), but iosim's
// runs before wbt existed were made without it, and they stay bit-identical;
// `wbt_lat_usec: -1` gives the kernel's default.
//
// Readers: io.stat's iolatency fields (iolatency_pd_stat, only with
// blkcg_debug_stats: "missed= total= depth=" on a non-rotational disk,
// "depth= avg_lat= win=" on a rotational one, and blkcg's "use_delay=
// delay_nsec=" while use_delay is set), and the timelines of each group's
// depth and scale cookie and of wbt's limits (the core's state-change log).

import type { ConfigWrite, RqosTimelines } from "../../scenario/types.js";
export type { RqosTimelines, IolatTimelinePoint, WbtTimelinePoint } from "../../scenario/types.js";
import { registerControlModule, type ControlContext, type ControlModule } from "../control.js";
import { parseIoLatency, parseWbtLatUsec } from "../../cgroup/iolatency.js";
import { openBdev, kernelBuffer, devnoToDev, type WriteRejection } from "../../cgroup/write.js";
import { failWrite, moduleWriteContext, rejectedWrite, writeAt, writeLines } from "./writes.js";
import { kernelCode } from "./iocost.js";

export interface IolatCore {
  iolatSetKernel(v: number): void;
  iolatCfgAdd(cg: number, dev: number, latNs: bigint): number;
  iolatCfgApply(idx: number): void;
  iolatCfgAt(idx: number, atNs: bigint): void;
  iolatInitDevice(dev: number): void;
  iolatGrpStat(cg: number, dev: number, field: number): bigint;
  iolatLogPtr(): number;
  iolatLogCount(): number;
  wbtCfgAdd(dev: number, latNs: bigint, state: number): number;
  wbtCfgApply(idx: number): void;
  wbtCfgAt(idx: number, atNs: bigint): void;
  wbtDevStat(dev: number, field: number): bigint;
}

export const IOLAT_FIELD = {
  maxDepth: 0, inflight: 1, waiting: 2, cookie: 3, childCookie: 4, minLat: 5, curWin: 6, latAvg: 7, psMissed: 8,
  psTotal: 9, useDelay: 10, delayNsec: 11, ssd: 12, scaleLat: 13, scaleGrp: 14, exists: 15, waited: 16,
} as const;
export const WBT_FIELD = {
  maxDepth: 0, normal: 1, background: 2, step: 3, inflight: 4, waiting: 5, minLat: 6, curWin: 7, enabled: 8,
  exists: 9, state: 10, steps: 11, waited: 12,
} as const;

const UINT_MAX = 0xffffffff;

function core(ctx: ControlContext): IolatCore {
  return ctx.core as unknown as IolatCore;
}

interface IolatState {
  used: boolean;
  wbtUsed: boolean;
}

function stateOf(ctx: ControlContext): IolatState {
  let s = ctx.state.get("iolatency") as IolatState | undefined;
  if (!s) {
    s = { used: false, wbtUsed: false };
    ctx.state.set("iolatency", s);
  }
  return s;
}

function writeIoLatency(ctx: ControlContext, w: ConfigWrite): void {
  if (ctx.scenario.cgroupVersion === 1) failWrite(ctx, w, "io.latency is a cgroup v2 file; this scenario uses cgroup v1", "ENOENT", w.file);
  if (w.cgroup === "") failWrite(ctx, w, "io.latency does not exist on the root cgroup", "ENOENT", w.file);
  const cg = ctx.cgroupId(w.cgroup);
  if (cg === undefined) failWrite(ctx, w, `unknown cgroup "${w.cgroup}"`, undefined, "cgroup");
  const rejected = (r: WriteRejection): never => rejectedWrite(ctx, w, r, r.token.includes("=") ? `${w.file} ${r.token.split("=")[0]}` : w.file);
  for (const line of writeLines(w.value)) {
    const r = parseIoLatency(line, moduleWriteContext(ctx, w));
    if (!r.ok) return rejected(r);
    for (const m of r.warnings) ctx.warn(`${writeAt(ctx, w)}: io.latency: ${m}`);
    const dev = ctx.devices().find((d) => devnoToDev(d.spec.devno) === devnoToDev(r.device))!;
    const c = core(ctx);
    stateOf(ctx).used = true;
    const idx = c.iolatCfgAdd(cg, dev.id, r.targetNs);
    if (w.atNs <= 0) c.iolatCfgApply(idx);
    else c.iolatCfgAt(idx, BigInt(Math.round(w.atNs)));
  }
}

/** A wbt_lat_usec write: "MAJ:MIN <usec>" (a timed change) or the bare value for device `devId`. */
export function writeWbtLat(ctx: ControlContext, w: ConfigWrite, devId?: number): void {
  let value = w.value;
  let id = devId;
  if (id === undefined) {
    const wc = moduleWriteContext(ctx, w);
    const open = openBdev(kernelBuffer(value, wc), wc);
    if (!open.ok) return rejectedWrite(ctx, w, open);
    id = ctx.devices().find((d) => devnoToDev(d.spec.devno) === devnoToDev(open.device))!.id;
    value = open.body;
  }
  const r = parseWbtLatUsec(value, { version: ctx.kernel, file: w.source?.file, line: w.source?.line });
  if (!r.ok) return rejectedWrite(ctx, w, r);
  for (const m of r.warnings) ctx.warn(`${writeAt(ctx, w)}: wbt_lat_usec: ${m}`);
  const c = core(ctx);
  stateOf(ctx).wbtUsed = true;
  const idx = c.wbtCfgAdd(id, r.latNs, r.state);
  if (w.atNs <= 0) c.wbtCfgApply(idx);
  else c.wbtCfgAt(idx, BigInt(Math.round(w.atNs)));
}

export const iolatencyModule: ControlModule = {
  name: "blk-iolatency",
  handles(file: string): boolean {
    return file === "io.latency" || file === "wbt_lat_usec";
  },
  setup(ctx: ControlContext): void {
    const c = core(ctx);
    c.iolatSetKernel(kernelCode(ctx.kernel));
    // device fields: wbt_lat_usec as the disk's queue file at t = 0
    for (const d of ctx.devices()) {
      const v = (d.spec as { wbtLatUsec?: string | number }).wbtLatUsec;
      if (v === undefined) continue;
      writeWbtLat(ctx, { atNs: 0, cgroup: "", file: "wbt_lat_usec", value: String(v), source: { file: ctx.scenario.source?.file ?? "scenario", field: "wbt_lat_usec" } }, d.id);
    }
  },
  write(ctx: ControlContext, w: ConfigWrite): void {
    if (w.file === "io.latency") return writeIoLatency(ctx, w);
    if (w.cgroup !== "") failWrite(ctx, w, `wbt_lat_usec is a disk's queue file: write it on the root ("MAJ:MIN <usec>") or as the device's wbt_lat_usec field`, "ENOENT", w.file);
    for (const line of writeLines(w.value)) writeWbtLat(ctx, { ...w, value: line });
  },
  ioStatExtra(ctx: ControlContext, cgroup: string, devno: string): Record<string, string | number> {
    if (!ctx.scenario.blkcgDebugStats || !stateOf(ctx).used || cgroup === "") return {};
    const d = ctx.device(devno);
    const cg = ctx.cgroupId(cgroup);
    if (!d || cg === undefined) return {};
    const c = core(ctx);
    const f = (k: keyof typeof IOLAT_FIELD) => Number(c.iolatGrpStat(cg, d.id, IOLAT_FIELD[k]));
    if (f("exists") !== 1) return {};
    const out: Record<string, string | number> = {};
    // blkcg_print_one_stat: " use_delay=%d delay_nsec=%llu" first, while use_delay is set
    if (f("useDelay") !== 0) {
      out["use_delay"] = f("useDelay");
      out["delay_nsec"] = c.iolatGrpStat(cg, d.id, IOLAT_FIELD.delayNsec).toString();
    }
    const depth = f("maxDepth") >>> 0 === UINT_MAX ? "max" : f("maxDepth");
    if (f("ssd") === 1) {
      out["missed"] = f("psMissed");
      out["total"] = f("psTotal");
      out["depth"] = depth;
    } else {
      out["depth"] = depth;
      out["avg_lat"] = Number(c.iolatGrpStat(cg, d.id, IOLAT_FIELD.latAvg) / 1000n);
      out["win"] = Number(c.iolatGrpStat(cg, d.id, IOLAT_FIELD.curWin) / 1_000_000n);
    }
    return out;
  },
};

registerControlModule(iolatencyModule);

// ------------------------------------------------------------------ timelines

const LOG_WORDS = 8;

/** The core's state-change log (assembly/iolatency/log.ts) as timelines; undefined when neither policy ran. */
export function rqosTimelines(ctx: ControlContext, cgroupPaths: string[]): RqosTimelines | undefined {
  const s = stateOf(ctx);
  if (!s.used && !s.wbtUsed) return undefined;
  const c = core(ctx);
  const n = c.iolatLogCount();
  const mem = (ctx.core as unknown as { memory: WebAssembly.Memory }).memory;
  const words = new BigInt64Array(mem.buffer, c.iolatLogPtr(), n * LOG_WORDS);
  const devs = ctx.devices();
  const out: RqosTimelines = { iolatency: {}, wbt: {} };
  for (let i = 0; i < n; i++) {
    const o = i * LOG_WORDS;
    const kind = Number(words[o]);
    const t = Number(words[o + 1]);
    const dev = devs.find((d) => d.id === Number(words[o + 2]));
    if (!dev) continue;
    if (kind === 1) {
      const path = cgroupPaths[Number(words[o + 3])] ?? String(words[o + 3]);
      const depth = Number(BigInt.asUintN(32, words[o + 4]!));
      const byDev = (out.iolatency[path] ??= {});
      (byDev[dev.spec.devno] ??= []).push({ tNs: t, depth: depth === UINT_MAX ? null : depth, useDelay: Number(words[o + 5]), cookieDown: 1_000_000 - Number(words[o + 6]) });
    } else if (kind === 2) {
      (out.wbt[dev.spec.devno] ??= []).push({ tNs: t, step: Number(words[o + 3]), maxDepth: Number(words[o + 4]), normal: Number(words[o + 5]),
        background: Number(words[o + 6]), windowNs: Number(words[o + 7]) });
    }
  }
  return out;
}
