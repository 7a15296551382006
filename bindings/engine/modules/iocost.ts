// blk-iocost control module: io.weight, io.cost.qos and io.cost.model.
//
// Writes are parsed here with the kernel's rules (iocost-parse.ts) and staged
// in the WASM core as config operations; a write at t = 0 is applied before
// the run, a timed write becomes an EV_CONFIG event at its simulated time.
// The core keeps the model (assembly/iocost/iocost.ts); this side only tracks
// what it needs to reject writes the way the kernel would at that moment:
// which devices already have an ioc (io.weight "MAJ:MIN N" is -EOPNOTSUPP
// before), and the QoS values so "min > max" is caught.
//
// It also reads back what the kernel shows: io.stat's cost.* fields and the
// iocost tracepoints (one batch copy of the core's trace buffer), printable
// like /sys/kernel/tracing/trace_pipe.

import type { CoreExports } from "../../core/core.js";
import type { ConfigWrite } from "../../scenario/types.js";
import { registerControlModule, type ControlContext, type ControlModule } from "../control.js";
import {
  autopClassFor, COST_MODEL_KEYS, initialModelState, initialQosState, parseIoCostModel, parseIoCostQos, parseIoWeight,
  type AutopClass, type IocModelState, type IocQosState,
} from "../../cgroup/iocost.js";
import type { WriteRejection } from "../../cgroup/write.js";
import { failWrite, moduleWriteContext, rejectedWrite, writeAt } from "./writes.js";

/** The WASM exports of assembly/iocost/api.ts. */
export interface IocostCore {
  iocostSetKernel(v: number): void;
  iocostCfgAdd(kind: number, cg: number, dev: number, mask: number, a: number, b: number): number;
  iocostCfgVal(idx: number, k: number, v: bigint): void;
  iocostCfgApply(idx: number): void;
  iocostCfgAt(idx: number, atNs: bigint): void;
  iocostJobUseDebt(job: number, on: number): void;
  iocostTimerHint(dev: number, atNs: bigint): void;
  iocostFreeze(aNs: bigint, bNs: bigint): void;
  iocostTraceSetup(on: number, cap: number): void;
  iocostTracePtr(): number;
  iocostTraceCount(): number;
  iocostTraceDropped(): number;
  iocostInvalidDonations(): number;
  iocostIocgStat(cg: number, dev: number, field: number): bigint;
  iocostIocStat(dev: number, field: number): bigint;
}

export function iocostCore(core: CoreExports): IocostCore {
  return core as unknown as IocostCore;
}

const CFG_DFL_WEIGHT = 1;
const CFG_DEV_WEIGHT = 2;
const CFG_QOS = 3;
const CFG_MODEL = 4;
export const VTIME_PER_USEC = 137438;

/** Kernel version code the core uses for per-version behaviour. */
export function kernelCode(k: string): number {
  const [a, b] = k.split(".").map(Number);
  return (a ?? 6) * 100 + (b ?? 1);
}

interface IocostState {
  /** devno -> the ioc's QoS and model state as the kernel would read them back */
  dev: Map<string, { cls: AutopClass; qos: IocQosState; model: IocModelState }>;
}

function stateOf(ctx: ControlContext): IocostState {
  let s = ctx.state.get("iocost") as IocostState | undefined;
  if (!s) {
    s = { dev: new Map() };
    ctx.state.set("iocost", s);
  }
  return s;
}

function stage(ctx: ControlContext, w: ConfigWrite, kind: number, cg: number, dev: number, mask: number, a: number,
  b: number, vals: Array<bigint | number> = []): void {
  const c = iocostCore(ctx.core);
  const idx = c.iocostCfgAdd(kind, cg, dev, mask, a, b);
  vals.forEach((v, k) => c.iocostCfgVal(idx, k, BigInt(v)));
  if (w.atNs <= 0) c.iocostCfgApply(idx);
  else c.iocostCfgAt(idx, BigInt(Math.round(w.atNs)));
}

function device(ctx: ControlContext, devno: string) {
  return ctx.devices().find((d) => d.spec.devno === devno)!;
}

/** The ioc of a device, created by the first io.cost.qos / io.cost.model write (blk_iocost_init). */
function iocState(st: IocostState, ctx: ControlContext, devno: string) {
  let s = st.dev.get(devno);
  if (!s) {
    const d = device(ctx, devno).spec;
    const cls = autopClassFor({ rotational: d.rotational, queueDepth: d.nrRequests });
    s = { cls, qos: initialQosState(cls), model: initialModelState(cls) };
    st.dev.set(devno, s);
  }
  return s;
}

export const iocostModule: ControlModule = {
  name: "iocost",
  handles(file: string): boolean {
    return file === "io.weight" || file === "io.cost.qos" || file === "io.cost.model";
  },
  setup(ctx: ControlContext): void {
    const c = iocostCore(ctx.core);
    c.iocostSetKernel(kernelCode(ctx.kernel));
    const hints = ctx.devices().flatMap((d) => (d.spec.iocostTimerNs ?? []).map((t) => [t, d.id] as const));
    hints.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [t, id] of hints) c.iocostTimerHint(id, BigInt(Math.round(t)));
    // recorded guest stalls (one guest: merged over its devices, disjoint and ascending)
    const stalls = ctx.devices().flatMap((d) => d.spec.guestStallsNs ?? []).sort((a, b) => a[0] - b[0]);
    let end = -Infinity;
    for (const [a, b] of stalls) {
      const a2 = Math.max(a, end);
      if (b > a2) c.iocostFreeze(BigInt(Math.round(a2)), BigInt(Math.round(b)));
      end = Math.max(end, b);
    }
    stateOf(ctx);
  },
  write(ctx: ControlContext, w: ConfigWrite): void {
    const st = stateOf(ctx);
    const cgPath = w.cgroup.split("/").filter(Boolean).join("/");
    const cg = ctx.cgroupId(cgPath);
    if (cg === undefined) failWrite(ctx, w, `unknown cgroup "${w.cgroup}"`);
    const isRoot = cgPath === "";
    const rejected = (r: WriteRejection): never => rejectedWrite(ctx, w, r);
    if (w.file === "io.weight") {
      if (isRoot) failWrite(ctx, w, "io.weight does not exist in the root cgroup", "ENOENT");
      const p = parseIoWeight(w.value, { ...moduleWriteContext(ctx, w), iocostDevices: [...st.dev.keys()] });
      if (!p.ok) return rejected(p);
      if (p.warning) ctx.warn(`${writeAt(ctx, w)}: io.weight: ${p.warning}`);
      if (p.kind === "default") stage(ctx, w, CFG_DFL_WEIGHT, cg, 0, 0, p.weight, 0);
      else stage(ctx, w, CFG_DEV_WEIGHT, cg, device(ctx, p.device).id, 0, p.weight ?? 0, 0);
      return;
    }
    if (!isRoot) failWrite(ctx, w, `${w.file} exists only in the root cgroup`, "ENOENT");
    if (w.file === "io.cost.qos") {
      const devno = /^\s*(\d+):(\d+)/.exec(w.value);
      const cur = devno && ctx.devices().some((d) => d.spec.devno === `${Number(devno[1])}:${Number(devno[2])}`)
        ? st.dev.get(`${Number(devno[1])}:${Number(devno[2])}`) : undefined;
      const p = parseIoCostQos(w.value, { ...moduleWriteContext(ctx, w), current: cur?.qos, deviceClass: cur?.cls });
      if (!p.ok) return rejected(p);
      if (p.warning) ctx.warn(`${w.file}: ${p.warning}`);
      const s = iocState(st, ctx, p.device);
      if (!cur) {
        // first write: parse again against the device's own class
        const again = parseIoCostQos(w.value, { ...moduleWriteContext(ctx, w), current: s.qos, deviceClass: s.cls });
        if (!again.ok) return rejected(again);
        s.qos = again.state;
      } else s.qos = p.state;
      const q = s.qos.qos;
      stage(ctx, w, CFG_QOS, 0, device(ctx, p.device).id, s.qos.user ? 0x3f : 0, s.qos.enable ? 1 : 0, s.qos.user ? 1 : 0,
        [q.rppm, q.rlatUs, q.wppm, q.wlatUs, q.minPpm, q.maxPpm]);
      return;
    }
    // io.cost.model
    const devno = /^\s*(\d+):(\d+)/.exec(w.value);
    const known = devno ? `${Number(devno[1])}:${Number(devno[2])}` : "";
    const cur = st.dev.get(known);
    const first = parseIoCostModel(w.value, { ...moduleWriteContext(ctx, w), current: cur?.model, deviceClass: cur?.cls });
    if (!first.ok) return rejected(first);
    const s = iocState(st, ctx, first.device);
    const p = cur ? first : parseIoCostModel(w.value, { ...moduleWriteContext(ctx, w), current: s.model, deviceClass: s.cls });
    if (!p.ok) return rejected(p);
    s.model = p.state;
    stage(ctx, w, CFG_MODEL, 0, device(ctx, p.device).id, s.model.user ? 0x3f : 0, 0, s.model.user ? 1 : 0,
      COST_MODEL_KEYS.map((k) => s.model.params[k]));
  },
  ioStatExtra(ctx: ControlContext, cgroup: string, devno: string): Record<string, string | number> {
    const d = ctx.device(devno);
    const cg = ctx.cgroupId(cgroup);
    if (!d || cg === undefined) return {};
    const c = iocostCore(ctx.core);
    if (Number(c.iocostIocStat(d.id, 5)) !== 1) return {};
    // block/blk-iocost.c ioc_pd_stat() (6.1, 6.12 and 6.18 alike): nothing
    // unless ioc->enabled; " cost.vrate=%u.%02u" for the root (iocg->level
    // == 0); " cost.usage=%llu"; and only `if (blkcg_debug_stats)` (a module
    // parameter, off by default) " cost.wait=%llu cost.indebt=%llu
    // cost.indelay=%llu" — a default kernel never prints those three
    const out: Record<string, string | number> = {};
    if (cg === 0) out["cost.vrate"] = vratePct(Number(c.iocostIocStat(d.id, 0)));
    out["cost.usage"] = Number(c.iocostIocgStat(cg, d.id, 0));
    if (ctx.scenario.blkcgDebugStats) {
      out["cost.wait"] = Number(c.iocostIocgStat(cg, d.id, 1));
      out["cost.indebt"] = Number(c.iocostIocgStat(cg, d.id, 2));
      out["cost.indelay"] = Number(c.iocostIocgStat(cg, d.id, 3));
    }
    return out;
  },
};

/** cost.vrate as ioc_pd_stat prints it: DIV64_U64_ROUND_CLOSEST(vrate * 10000, VTIME_PER_USEC) as %u.%02u. */
export function vratePct(vtimeBaseRate: number): string {
  const vp10k = Math.floor((vtimeBaseRate * 10000 + VTIME_PER_USEC / 2) / VTIME_PER_USEC);
  return `${Math.floor(vp10k / 100)}.${String(vp10k % 100).padStart(2, "0")}`;
}

registerControlModule(iocostModule);

// ------------------------------------------------------------------ trace

export type IocostEventName =
  | "iocost_iocg_activate" | "iocost_iocg_idle" | "iocost_inuse_shortage" | "iocost_inuse_transfer"
  | "iocost_inuse_adjust" | "iocost_ioc_vrate_adj" | "iocost_iocg_forgive_debt";

const EVENT_NAMES: IocostEventName[] = ["iocost_iocg_activate", "iocost_iocg_idle", "iocost_inuse_shortage",
  "iocost_inuse_transfer", "iocost_inuse_adjust", "iocost_ioc_vrate_adj", "iocost_iocg_forgive_debt"];
const TRACE_WORDS = 12;

/** One tracepoint hit, with the fields named and shaped as the guest oracle's parsed traces. */
export interface IocostTraceEvent {
  event: IocostEventName;
  tNs: number;
  dev: string;
  cgroup?: string;
  raw: string;
  [field: string]: unknown;
}

/** Copy the core's iocost trace buffer out in one pass and decode it. */
export function readIocostTrace(core: CoreExports, cgPaths: readonly string[], devNames: readonly string[]): IocostTraceEvent[] {
  const c = iocostCore(core);
  const n = c.iocostTraceCount();
  if (n === 0) return [];
  const ptr = c.iocostTracePtr() >>> 0;
  const w = new BigUint64Array(core.memory.buffer, ptr, n * TRACE_WORDS).slice();
  const out: IocostTraceEvent[] = [];
  const s64 = (x: bigint) => BigInt.asIntN(64, x);
  for (let i = 0; i < n; i++) {
    const o = i * TRACE_WORDS;
    const kind = Number(w[o]);
    const event = EVENT_NAMES[kind - 1]!;
    const tNs = Number(w[o + 1]);
    const dev = devNames[Number(w[o + 2])] ?? `dev${Number(w[o + 2])}`;
    const cgId = Number(s64(w[o + 3]!));
    const cgroup = cgId >= 0 ? "/" + (cgPaths[cgId] ?? "") : undefined;
    const f = (k: number) => w[o + 4 + k]!;
    let ev: IocostTraceEvent;
    if (kind === 1 || kind === 2) {
      const inuse = Number(f(6) >> 32n), weight = Number(f(6) & 0xffffffffn);
      const hwi = Number(f(7) >> 32n), hwa = Number(f(7) & 0xffffffffn);
      const raw = `[${dev}:${cgroup}] now=${f(0)}:${f(1)} vrate=${f(2)} period=${f(3)}->${f(4)} vtime=${f(5)} ` +
        `weight=${inuse}/${weight} hweight=${hwi}/${hwa}`;
      ev = { event, tNs, dev, cgroup, now: `${f(0)}:${f(1)}`, vrate: Number(f(2)), period: [Number(f(3)), Number(f(4))],
        vtime: Number(f(5)), weight: [inuse, weight], hweight: [hwi, hwa], raw };
    } else if (kind >= 3 && kind <= 5) {
      const raw = `[${dev}:${cgroup}] now=${f(0)} inuse=${f(1)}->${f(2)} hw_inuse=${f(3)}->${f(4)}`;
      ev = { event, tNs, dev, cgroup, now: Number(f(0)), inuse: [Number(f(1)), Number(f(2))],
        hw_inuse: [Number(f(3)), Number(f(4))], raw };
    } else if (kind === 6) {
      const busy = Number(s64(f(2)));
      const lag = Number(s64(f(6))), sh = Number(s64(f(7)));
      const raw = `[${dev}] vrate=${f(0)}->${f(1)} busy=${busy} missed_ppm=${f(3)}:${f(4)} rq_wait_pct=${f(5)} ` +
        `lagging=${lag} shortages=${sh}`;
      ev = { event, tNs, dev, vrate: [Number(f(0)), Number(f(1))], busy, missed_ppm: `${f(3)}:${f(4)}`,
        rq_wait_pct: Number(f(5)), lagging: lag, shortages: sh, raw };
    } else {
      const raw = `[${dev}:${cgroup}] now=${f(0)}:${f(1)} usage=${f(2)} debt=${f(3)}->${f(4)} delay=${f(5)}->${f(6)}`;
      ev = { event, tNs, dev, cgroup, now: `${f(0)}:${f(1)}`, usage: Number(f(2)), debt: [Number(f(3)), Number(f(4))],
        delay: [Number(f(5)), Number(f(6))], raw };
    }
    out.push(ev);
  }
  return out;
}

/** Lines as trace_pipe prints them (task "iosim", CPU 0, trace_clock in seconds). */
export function formatTracePipe(events: readonly IocostTraceEvent[]): string[] {
  return events.map((e) => {
    const us = Math.floor(e.tNs / 1000);
    const ts = `${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, "0")}`;
    return `           iosim-0       [000] .....  ${ts}: ${e.event}: ${e.raw}`;
  });
}
