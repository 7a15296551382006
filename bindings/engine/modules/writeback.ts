// Writeback settings: the page cache and cgroup writeback model of
// assembly/writeback/ (see the essay at the top of writeback.ts).
//
// Files this module owns (ConfigWrite.file), on the root ("") unless noted:
//
//   vm.dirty_ratio, vm.dirty_background_ratio, vm.dirty_bytes,
//   vm.dirty_background_bytes, vm.dirty_writeback_centisecs,
//   vm.dirty_expire_centisecs        the sysctls (at t = 0 or any time)
//   vm.drop_caches                   "1" (or 3): drop clean page cache, at its time
//   wb.sync                          any value: sync(2) at its time
//   wb.fsync     (cgroup)            FILE: fsync(2) of a file by that cgroup
//   wb.fs                            filesystem: ext4 (default), ext4:data=journal,
//                                    ext2, xfs, btrfs, f2fs, or any other name
//   wb.controllers                   controllers enabled down the tree: "io memory"
//   wb.memcg     (cgroup)            "off": the memory controller is not enabled
//                                    for this cgroup (its pages go to the parent's memcg)
//   wb.online    (cgroup)            "0": the cgroup is removed (its memcg goes
//                                    offline: its pages stop voting, its wbs die)
//   wb.file                          "NAME DEVICE OFFSET SIZE[; ...]": files (inodes)
//                                    as byte ranges of a device (k/m/g suffixes)
//   wb.memory                        dirtyable memory (bytes; default 4g)
//   wb.dirty_limit_pages             global_wb_domain.dirty_limit at start (pages)
//   wb.copy_ns_per_page              cost of copying a page into the cache (ns)
//   wb.kworker_latency_ns            mean flusher wake-up latency (ns)
//   wb.switch_delay_ns               inode_switch_wbs -> switch done (ns)
//   wb.sync_none_first_pct           "NEW LATER": % of syncs whose WB_SYNC_NONE pass
//                                    reaches an inode first (a wb's first sync / later)
//   wb.bio_max_pages                 pages per writeback bio (256)
//
// Whether cgroup writeback is in effect (and why not) is decided here from
// the cgroup version, the controllers, the filesystem and the kernel version;
// `writebackReport(sim)` returns that explanation with the owners and the
// tracepoints.

import type { ControlContext, ControlModule } from "../control.js";
import { registerControlModule } from "../control.js";
import type { ConfigWrite, KernelVersion } from "../../scenario/types.js";
import { InputError } from "../../scenario/errors.js";
import type { Simulation } from "../simulation.js";

export const KEY = {
  CGWB: 1, DIRTY_RATIO: 2, DIRTY_BG_RATIO: 3, DIRTY_BYTES: 4, DIRTY_BG_BYTES: 5, WRITEBACK_CS: 6, EXPIRE_CS: 7,
  DIRTYABLE_BYTES: 8, DIRTY_LIMIT_PAGES: 9, COPY_NS: 10, KWORKER_NS: 11, SWITCH_NS: 12, SYNC_NONE_NEW_PCT: 13,
  SYNC_NONE_PCT: 14, BIO_MAX_PAGES: 15, NR_CPUS: 16,
} as const;
export const OP = { SYNC: 1, FSYNC: 2, DROP_CACHES: 3, SET: 4, OFFLINE: 5 } as const;

const SYSCTL: Record<string, number> = {
  "vm.dirty_ratio": KEY.DIRTY_RATIO,
  "vm.dirty_background_ratio": KEY.DIRTY_BG_RATIO,
  "vm.dirty_bytes": KEY.DIRTY_BYTES,
  "vm.dirty_background_bytes": KEY.DIRTY_BG_BYTES,
  "vm.dirty_writeback_centisecs": KEY.WRITEBACK_CS,
  "vm.dirty_expire_centisecs": KEY.EXPIRE_CS,
  "wb.memory": KEY.DIRTYABLE_BYTES,
  "wb.dirty_limit_pages": KEY.DIRTY_LIMIT_PAGES,
  "wb.copy_ns_per_page": KEY.COPY_NS,
  "wb.kworker_latency_ns": KEY.KWORKER_NS,
  "wb.switch_delay_ns": KEY.SWITCH_NS,
  "wb.bio_max_pages": KEY.BIO_MAX_PAGES,
};
const ROOT_ONLY = new Set([...Object.keys(SYSCTL), "vm.drop_caches", "wb.sync", "wb.fs", "wb.controllers", "wb.file",
  "wb.sync_none_first_pct"]);
const PER_CGROUP = new Set(["wb.fsync", "wb.memcg", "wb.online"]);

/** Filesystems with cgroup writeback (SB_I_CGROUPWB) and the release that added it. */
export const CGWB_FS: Record<string, { since: string; note: string }> = {
  ext2: { since: "4.2", note: "ext2 sets SB_I_CGROUPWB since 4.2" },
  ext4: { since: "4.2", note: "ext4 sets SB_I_CGROUPWB since 4.2 (not with data=journal)" },
  btrfs: { since: "4.3", note: "btrfs since 4.3, with REQ_CGROUP_PUNT for async bios since 5.4" },
  f2fs: { since: "4.3", note: "f2fs since the 4.x series" },
  xfs: { since: "4.17", note: "xfs since 4.17 (merged March 2018)" },
};

export interface WbFile {
  name: string;
  device: string;
  offset: number;
  size: number;
  id?: number;
  implicit?: boolean;
}

interface WbState {
  fs: string;
  controllers: Set<string>;
  memcgOff: Set<string>;
  files: WbFile[];
  sets: Array<[number, number]>;
  ops: Array<{ atNs: number; kind: number; a: number; b: number }>;
  pendingFsync: Array<{ atNs: number; cgroup: string; file: string; w: ConfigWrite }>;
  why: string;
  enabled: boolean;
  active: boolean;
}

const NAME = "writeback";

function st(ctx: ControlContext): WbState {
  let s = ctx.state.get(NAME) as WbState | undefined;
  if (!s) {
    s = { fs: "ext4", controllers: new Set(["io", "memory"]), memcgOff: new Set(), files: [], sets: [], ops: [],
      pendingFsync: [], why: "", enabled: true, active: false };
    ctx.state.set(NAME, s);
  }
  return s;
}

function where(ctx: ControlContext, w: ConfigWrite): [string, number | undefined, string] {
  return [w.source?.file ?? ctx.scenario.source?.file ?? "scenario", w.source?.line, w.source?.field ?? w.file];
}

/** "4096", "64k", "1g" -> bytes. */
export function parseSize(v: string): number | undefined {
  const m = /^\s*(\d+)\s*([kmgt]?)i?b?\s*$/i.exec(v);
  if (!m) return undefined;
  const mult = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[m[2]!.toLowerCase() as "" | "k"]!;
  return Number(m[1]) * mult;
}

function versionAtLeast(v: string, min: string): boolean {
  const a = v.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0, y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

/** Is cgroup writeback in effect, and why (not)? */
export function cgwbVerdict(kernel: KernelVersion | string, cgroupVersion: 1 | 2, fs: string,
  controllers: Set<string>): { enabled: boolean; why: string } {
  const [fsName, opt] = fs.split(":");
  if (cgroupVersion === 1) {
    return { enabled: false, why: "cgroup v1: writeback is not attributed to cgroups (mem_cgroup_css_from_folio returns the root memcg and cgwbs need the v2 hierarchy), so every writeback bio is issued by the flusher as the root cgroup; v1 blkio.throttle.write_* limits and io weights never see buffered writes" };
  }
  if (!controllers.has("memory") || !controllers.has("io")) {
    return { enabled: false, why: `cgroup v2 without the ${!controllers.has("memory") ? "memory" : "io"} controller enabled: cgroup writeback needs both memory and io, so writeback bios are charged to the root cgroup` };
  }
  const info = CGWB_FS[fsName!];
  if (!info) {
    return { enabled: false, why: `filesystem ${fsName} does not support cgroup writeback (no SB_I_CGROUPWB): writeback IO is attributed to the root cgroup, as on v1` };
  }
  if (fsName === "ext4" && opt === "data=journal") {
    return { enabled: false, why: "ext4 with data=journal does not support cgroup writeback: writeback IO is attributed to the root cgroup" };
  }
  if (!versionAtLeast(kernel, info.since)) {
    return { enabled: false, why: `${fsName} has no cgroup writeback before ${info.since} (kernel ${kernel}): writeback IO goes to the root cgroup` };
  }
  return { enabled: true, why: `cgroup v2 with io+memory on ${fsName} (${info.note}), kernel ${kernel}: each inode is written back as the cgroup that owns it (first dirtier, then the foreign-election winner)` };
}

function numOrThrow(ctx: ControlContext, w: ConfigWrite, sizeOk = false): number {
  const v = sizeOk ? parseSize(w.value) : /^\s*-?\d+\s*$/.test(w.value) ? Number(w.value) : undefined;
  if (v === undefined || !Number.isFinite(v) || v < 0) {
    throw new InputError(`${w.file} wants a non-negative ${sizeOk ? "size" : "integer"}, got "${w.value}"`, ...where(ctx, w));
  }
  return v;
}

export const writebackModule: ControlModule = {
  name: NAME,
  handles(file: string): boolean {
    return ROOT_ONLY.has(file) || PER_CGROUP.has(file);
  },
  setup(ctx: ControlContext): void {
    const s = st(ctx);
    s.active = ctx.scenario.jobs.some((j) => !j.direct);
  },
  write(ctx: ControlContext, w: ConfigWrite): void {
    const s = st(ctx);
    s.active = true;
    const root = w.cgroup === "";
    if (ROOT_ONLY.has(w.file) && !root) {
      throw new InputError(`${w.file} is a global setting: write it on the root cgroup ("")`, ...where(ctx, w));
    }
    if (PER_CGROUP.has(w.file) && root) {
      throw new InputError(`${w.file} applies to a non-root cgroup`, ...where(ctx, w));
    }
    const key = SYSCTL[w.file];
    if (key !== undefined) {
      const bytesLike = w.file.endsWith("_bytes") || w.file === "wb.memory";
      const v = numOrThrow(ctx, w, bytesLike);
      if ((w.file === "vm.dirty_ratio" || w.file === "vm.dirty_background_ratio") && v > 100) {
        throw new InputError(`${w.file} is a percentage (0-100), got ${v}`, ...where(ctx, w));
      }
      if (w.atNs > 0) s.ops.push({ atNs: w.atNs, kind: OP.SET, a: key, b: v });
      else s.sets.push([key, v]);
      // the kernel keeps only one of ratio/bytes in effect
      if (w.file === "vm.dirty_ratio") push(s, w, KEY.DIRTY_BYTES, 0);
      if (w.file === "vm.dirty_bytes") push(s, w, KEY.DIRTY_RATIO, 0);
      if (w.file === "vm.dirty_background_ratio") push(s, w, KEY.DIRTY_BG_BYTES, 0);
      if (w.file === "vm.dirty_background_bytes") push(s, w, KEY.DIRTY_BG_RATIO, 0);
      return;
    }
    switch (w.file) {
      case "vm.drop_caches": {
        const v = numOrThrow(ctx, w);
        if (v < 1 || v > 3) throw new InputError(`vm.drop_caches takes 1, 2 or 3, got ${v}`, ...where(ctx, w));
        if (v & 1) s.ops.push({ atNs: w.atNs, kind: OP.DROP_CACHES, a: 0, b: 0 });
        return;
      }
      case "wb.sync":
        s.ops.push({ atNs: w.atNs, kind: OP.SYNC, a: 0, b: 0 });
        return;
      case "wb.fsync":
        s.pendingFsync.push({ atNs: w.atNs, cgroup: w.cgroup, file: w.value.trim(), w });
        return;
      case "wb.fs":
        if (!/^[a-z0-9_]+(:[a-z=_]+)?$/.test(w.value.trim())) {
          throw new InputError(`wb.fs wants a filesystem name such as ext4, xfs or ext4:data=journal, got "${w.value}"`, ...where(ctx, w));
        }
        s.fs = w.value.trim();
        return;
      case "wb.controllers": {
        const parts = w.value.split(/[\s,]+/).filter(Boolean).map((x) => x.replace(/^\+/, ""));
        const bad = parts.find((p) => !["io", "memory", "cpu", "pids", "cpuset", "hugetlb", "rdma", "misc"].includes(p));
        if (bad) throw new InputError(`wb.controllers: unknown controller "${bad}"`, ...where(ctx, w));
        s.controllers = new Set(parts);
        return;
      }
      case "wb.memcg":
        if (!/^(on|off)$/.test(w.value.trim())) throw new InputError(`wb.memcg takes on or off, got "${w.value}"`, ...where(ctx, w));
        if (w.value.trim() === "off") s.memcgOff.add(w.cgroup);
        else s.memcgOff.delete(w.cgroup);
        return;
      case "wb.online": {
        const v = w.value.trim();
        if (v !== "0" && v !== "1") throw new InputError(`wb.online takes 0 (remove the cgroup) or 1, got "${v}"`, ...where(ctx, w));
        if (v === "0") {
          const id = ctx.cgroupId(w.cgroup);
          s.ops.push({ atNs: w.atNs, kind: OP.OFFLINE, a: id!, b: 0 });
        }
        return;
      }
      case "wb.file":
        for (const spec of w.value.split(/[;\n]/).map((x) => x.trim()).filter(Boolean)) {
          const f = spec.split(/\s+/);
          if (f.length !== 4) throw new InputError(`wb.file wants "NAME DEVICE OFFSET SIZE", got "${spec}"`, ...where(ctx, w));
          const dev = ctx.device(f[1]!);
          if (!dev) throw new InputError(`wb.file "${f[0]}" names device "${f[1]}", which the scenario does not define`, ...where(ctx, w));
          const offset = parseSize(f[2]!), size = parseSize(f[3]!);
          if (offset === undefined || size === undefined || size <= 0) {
            throw new InputError(`wb.file "${f[0]}": bad offset or size in "${spec}"`, ...where(ctx, w));
          }
          if (s.files.some((x) => x.name === f[0])) throw new InputError(`wb.file "${f[0]}" is declared twice`, ...where(ctx, w));
          s.files.push({ name: f[0]!, device: dev.spec.name, offset, size });
        }
        return;
      case "wb.sync_none_first_pct": {
        const f = w.value.trim().split(/\s+/).map(Number);
        if (f.length !== 2 || f.some((x) => !Number.isInteger(x) || x < 0 || x > 100)) {
          throw new InputError(`wb.sync_none_first_pct wants two percentages "FIRST LATER", got "${w.value}"`, ...where(ctx, w));
        }
        s.sets.push([KEY.SYNC_NONE_NEW_PCT, f[0]!], [KEY.SYNC_NONE_PCT, f[1]!]);
        return;
      }
    }
  },
  finish(ctx: ControlContext): void {
    const s = st(ctx);
    const verdict = cgwbVerdict(ctx.kernel, ctx.scenario.cgroupVersion, s.fs, s.controllers);
    s.enabled = verdict.enabled;
    s.why = verdict.why;
    if (!s.active) return;
    const c = ctx.core as unknown as WbCore;
    const paths = ctx.cgroupPaths();
    c.wbActivate(BigInt(ctx.scenario.seed >>> 0), paths.length);
    c.wbSet(KEY.CGWB, BigInt(s.enabled ? 1 : 0));
    // memcg / blkcg of every cgroup: itself when the controller is enabled
    // for it, else its nearest ancestor that has it
    const memOn = (p: string) => p === "" || (s.controllers.has("memory") && !s.memcgOff.has(p));
    paths.forEach((p, id) => {
      let m = p;
      while (!memOn(m)) m = m.includes("/") ? m.slice(0, m.lastIndexOf("/")) : "";
      const blk = s.controllers.has("io") ? id : 0;
      c.wbCgroup(id, ctx.cgroupId(m)!, blk);
    });
    for (const [k, v] of s.sets) c.wbSet(k, BigInt(Math.round(v)));
    // implicit files: buffered jobs' regions not covered by a declared file
    for (const j of ctx.scenario.jobs) {
      if (j.direct) continue;
      const dev = ctx.device(j.device);
      if (!dev) continue;
      const inside = s.files.some((f) => f.device === dev.spec.name && j.offset >= f.offset && j.offset + j.regionLen <= f.offset + f.size);
      if (inside) continue;
      const name = `${dev.spec.name}@${j.offset}`;
      const ex = s.files.find((f) => f.implicit && f.device === dev.spec.name);
      if (ex) {
        const end = Math.max(ex.offset + ex.size, j.offset + j.regionLen);
        ex.offset = Math.min(ex.offset, j.offset);
        ex.size = end - ex.offset;
      } else s.files.push({ name, device: dev.spec.name, offset: j.offset, size: j.regionLen, implicit: true });
    }
    s.files.forEach((f, k) => {
      f.id = c.wbFile(ctx.device(f.device)!.id, BigInt(f.offset), BigInt(f.size), 12 + k);
    });
    for (const p of s.pendingFsync) {
      const f = s.files.find((x) => x.name === p.file);
      if (!f) throw new InputError(`wb.fsync names file "${p.file}", which no wb.file declares`, ...where(ctx, p.w));
      s.ops.push({ atNs: p.atNs, kind: OP.FSYNC, a: f.id!, b: ctx.cgroupId(p.cgroup)! });
    }
    s.ops.sort((a, b) => a.atNs - b.atNs);
    for (const o of s.ops) c.wbOp(BigInt(Math.round(o.atNs)), o.kind, BigInt(o.a), BigInt(o.b));
    if (!s.enabled) ctx.warn(`writeback: ${s.why}`);
  },
};

function push(s: WbState, w: ConfigWrite, key: number, v: number): void {
  if (w.atNs > 0) s.ops.push({ atNs: w.atNs, kind: OP.SET, a: key, b: v });
  else s.sets.push([key, v]);
}

/** The writeback exports of the core. */
export interface WbCore {
  memory: WebAssembly.Memory;
  wbActivate(seed: bigint, nCgroups: number): void;
  wbSet(key: number, value: bigint): void;
  wbCgroup(cg: number, memcg: number, blkcg: number): void;
  wbFile(dev: number, off: bigint, bytes: bigint, ino: number): number;
  wbOp(t: bigint, kind: number, a: bigint, b: bigint): number;
  wbTraceOn(on: number): void;
  wbTracePtr(): number;
  wbTraceLen(): number;
  wbOwner(id: number): number;
  wbHistory(id: number): number;
  wbDirtyPages(id: number): number;
  wbSyncCount(): number;
  wbSyncDone(s: number): bigint;
  wbPasses(): bigint;
  wbPagesWritten(): bigint;
  wbStagingAlloc(bytes: number): number;
  wbVoteStaged(n: number, wbId: number, lastWinner: number): void;
  wbVoteTcand(): number;
  wbVoteTcandBytes(): bigint;
  wbVoteWbBytes(): bigint;
  wbVoteLcandBytes(): bigint;
  wbDetach(history: number, avgTime: bigint, bw: bigint): void;
  wbDetMaxId(): number;
  wbDetHistory(): number;
  wbDetAvgTime(): number;
  wbDetSlots(): number;
  wbDetSwitch(): number;
  wbBenchElection(passes: number, pagesPerPass: number, writers: number, seed: number): number;
}

// ---------------------------------------------------------------- results

export type WbTracepoint =
  | { event: "inode_foreign_history"; tNs: number; ino: number; cgroup: string; history: number; winner: string; slots: number; pages: number }
  | { event: "inode_switch_wbs"; tNs: number; ino: number; oldCgroup: string; newCgroup: string }
  | { event: "track_foreign_dirty"; tNs: number; firstNs: number; ino: number; cgroup: string; pageCgroup: string; count: number }
  | { event: "flush_foreign"; tNs: number; cgroup: string; frnDevice: number; frnCgroup: string }
  | { event: "writeback_pass"; tNs: number; ino: number; cgroup: string; wrote: number; toWrite: number; index: number; reason: string }
  | { event: "sync_done"; tNs: number; sync: number; startNs: number };

const REASONS = ["", "sync", "background", "periodic", "fsync", "foreign_flush"];

/** Decode the core's tracepoint buffer (one batch). */
export function readTracepoints(core: WbCore, names: string[]): WbTracepoint[] {
  const len = core.wbTraceLen();
  const v = new BigInt64Array(core.memory.buffer, core.wbTracePtr() >>> 0, len).slice();
  const out: WbTracepoint[] = [];
  const nm = (i: bigint) => names[Number(i)] ?? `#${i}`;
  for (let i = 0; i + 8 <= len; i += 8) {
    const k = Number(v[i]), t = Number(v[i + 1]);
    const a = v[i + 2]!, b = v[i + 3]!, c = v[i + 4]!, d = v[i + 5]!, e = v[i + 6]!, f = v[i + 7]!;
    if (k === 1) out.push({ event: "inode_foreign_history", tNs: t, ino: Number(a), cgroup: nm(b), history: Number(c), winner: nm(d), slots: Number(e), pages: Number(f) });
    else if (k === 2) out.push({ event: "inode_switch_wbs", tNs: t, ino: Number(a), oldCgroup: nm(b), newCgroup: nm(c) });
    else if (k === 3) out.push({ event: "track_foreign_dirty", tNs: t, firstNs: Number(e), ino: Number(a), cgroup: nm(b), pageCgroup: nm(c), count: Number(d) });
    else if (k === 4) out.push({ event: "flush_foreign", tNs: t, cgroup: nm(a), frnDevice: Number(b), frnCgroup: nm(c) });
    else if (k === 5) out.push({ event: "writeback_pass", tNs: t, ino: Number(a), cgroup: nm(b), wrote: Number(c), toWrite: Number(d), index: Number(e), reason: REASONS[Number(f)] ?? "?" });
    else if (k === 6) out.push({ event: "sync_done", tNs: t, sync: Number(a), startNs: Number(b) });
  }
  return out;
}

export interface WritebackReport {
  enabled: boolean;
  /** why writeback is (or is not) attributed to cgroups */
  why: string;
  fs: string;
  files: Array<{ name: string; owner: string | null; history: number; dirtyPages: number }>;
  tracepoints: WbTracepoint[];
  passes: number;
  pagesWritten: number;
}

/** Writeback state after (or during) a run. */
export function writebackReport(sim: Simulation): WritebackReport {
  const ctx = sim.context();
  const s = st(ctx);
  const c = ctx.core as unknown as WbCore;
  const names = ctx.cgroupPaths().map((p) => (p === "" ? "root" : p));
  if (!s.active) return { enabled: s.enabled, why: s.why, fs: s.fs, files: [], tracepoints: [], passes: 0, pagesWritten: 0 };
  return {
    enabled: s.enabled,
    why: s.why,
    fs: s.fs,
    files: s.files.map((f) => {
      const o = c.wbOwner(f.id!);
      return { name: f.name, owner: o < 0 ? null : names[o]!, history: c.wbHistory(f.id!), dirtyPages: c.wbDirtyPages(f.id!) };
    }),
    tracepoints: readTracepoints(c, names),
    passes: Number(c.wbPasses()),
    pagesWritten: Number(c.wbPagesWritten()),
  };
}

registerControlModule(writebackModule);
