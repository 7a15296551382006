// Guest writeback traces (wb_share, wb_foreign: Linux 6.1, ext4, cgroup v2):
// rebuild each round's buffered writes and syncs, run them through the
// writeback model, and report per round who owns the file and who was
// charged the writeback (io.stat wbytes).
//
// How a trace becomes a scenario (nothing here depends on a trace's name):
//  * cgroups: the names in the header's config (`X.cgroup_ino`), root = 1;
//  * files: every distinct `file` in the rounds' writes, sized to the largest
//    byte written (an ext4 file on the data disk); the file is created and
//    attached by the first cgroup that dirties a page of it (creating an
//    empty file, as round 10 of wb_foreign does, attaches nothing);
//  * each write is `bufwrite`: 1 MiB pwrite(2) calls spread evenly between
//    the recorded start and end, one page copied every (end - start) /
//    pages ns;
//  * each round: sync + drop_caches at t_begin, the writes, sync at t_sync;
//    the round's result is read at t_end;
//  * the guest: vm.* from the header (dirty_writeback_centisecs=0, so no
//    periodic writeback; dirty_expire_centisecs, dirty ratios), HZ from
//    kconfig, 2 CPUs; the boot-time global_wb_domain.dirty_limit is taken
//    from the WB_SYNC_NONE chunk size the trace's writeback_single_inode
//    records show (to_write = round_down(dirty_limit / 8 + 1024, 1024) when
//    the bandwidth term is larger), else the default;
//  * a virtio-like disk: ~400 MB/s for 1 MiB writes, 0.5 ms latency.
//
// Rounds differ from run to run in the kernel (see the sync race and the
// background flip-backs in assembly/writeback/writeback.ts); the seed picks
// one run. `compare` replays several seeds and sets the distribution of
// rounds-to-switch beside the recorded round.

import { minOf } from "../util/extent.js";
import type { ReplayOptions, TraceHandler } from "./registry.js";
import { registerTraceHandler } from "./registry.js";
import { Simulation } from "../engine/simulation.js";
import { jobDefaults, scenarioDefaults, defaultClock } from "../scenario/defaults.js";
import type { ConfigWrite, DeviceSpec, JobSpec, Scenario, KernelVersion } from "../scenario/types.js";
import { KERNEL_VERSIONS } from "../scenario/types.js";
import { InputError } from "../scenario/errors.js";
import { COL, colU64 } from "../core/columns.js";
import type { WbCore } from "../engine/modules/writeback.js";
import { readTracepoints } from "../engine/modules/writeback.js";
import "../engine/modules/writeback.js";

export interface WbTraceWrite {
  cg: string;
  file: string;
  off: number;
  len: number;
  start_ns: number;
  end_ns: number;
}

export interface WbTraceRound {
  round: number;
  writes: WbTraceWrite[];
  t_begin_ns: number;
  t_sync_ns: number;
  t_end_ns: number;
  wbytes_delta: Record<string, number>;
}

export interface WbTrace {
  file: string;
  test: string;
  config: Record<string, string>;
  kconfig: Record<string, string>;
  cgroups: string[]; // non-root names
  inoToName: Map<number, string>;
  rounds: WbTraceRound[];
  switches: Array<{ round: number; from: string; to: string }>;
  chunkPages?: number;
}

/** Parse a guest wb_* trace (JSON Lines). */
export function parseWbTrace(text: string, file: string): WbTrace {
  const lines = text.split("\n");
  let header: Record<string, unknown> | undefined;
  const rounds: WbTraceRound[] = [];
  const switches: WbTrace["switches"] = [];
  let chunk = 0;
  const rawSwitches: Array<{ round: number; old: number; nw: number }> = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line);
    } catch (e) {
      throw new InputError(`not JSON: ${(e as Error).message}`, file, i + 1);
    }
    if (i === 0) {
      if (r.type !== "test") throw new InputError(`the first record must be {"type":"test",...}`, file, 1, "type");
      header = r;
      return;
    }
    if (r.type === "round") {
      for (const k of ["round", "t_begin_ns", "t_sync_ns", "t_end_ns"]) {
        if (typeof r[k] !== "number") throw new InputError(`round record without a numeric "${k}"`, file, i + 1, k);
      }
      if (!Array.isArray(r.writes)) throw new InputError(`round record without "writes"`, file, i + 1, "writes");
      (r.writes as WbTraceWrite[]).forEach((w, k) => {
        for (const f of ["off", "len", "start_ns", "end_ns"] as const) {
          if (typeof w[f] !== "number") throw new InputError(`write ${k} has no numeric "${f}"`, file, i + 1, `writes[${k}].${f}`);
        }
        if (typeof w.cg !== "string" || typeof w.file !== "string") {
          throw new InputError(`write ${k} needs "cg" and "file"`, file, i + 1, `writes[${k}]`);
        }
      });
      rounds.push(r as unknown as WbTraceRound);
    } else if (r.type === "trace") {
      if (r.event === "inode_switch_wbs") {
        rawSwitches.push({ round: r.round as number, old: r.old_cgroup_ino as number, nw: r.new_cgroup_ino as number });
      } else if (r.event === "writeback_single_inode") {
        const tw = Number(r.to_write);
        if (tw > 0 && tw < 1 << 30 && tw > chunk) chunk = tw;
      }
    }
  });
  if (!header) throw new InputError("empty trace", file, 1);
  const config = (header.config ?? {}) as Record<string, string>;
  const inoToName = new Map<number, string>();
  const cgroups: string[] = [];
  for (const [k, v] of Object.entries(config)) {
    const m = /^(.+)\.cgroup_ino$/.exec(k);
    if (!m) continue;
    const name = m[1] === "root" ? "root" : m[1]!;
    inoToName.set(Number(v), name);
    if (name !== "root") cgroups.push(name);
  }
  if (!inoToName.has(1)) inoToName.set(1, "root");
  for (const s of rawSwitches) {
    switches.push({ round: s.round, from: inoToName.get(s.old) ?? `#${s.old}`, to: inoToName.get(s.nw) ?? `#${s.nw}` });
  }
  rounds.sort((a, b) => a.t_begin_ns - b.t_begin_ns);
  return {
    file, test: String(header.test ?? ""), config, kconfig: (header.kconfig ?? {}) as Record<string, string>,
    cgroups, inoToName, rounds, switches, chunkPages: chunk || undefined,
  };
}

const BUFWRITE_CHUNK = 1 << 20;
const PAGE = 4096;

/** The guest's data disk (virtio-blk on TCG): a plausible service table. */
export function guestDisk(): DeviceSpec {
  const pts = (iops4k: number, iops1m: number): Array<[number, number]> => [[4096, iops4k], [1 << 20, iops1m]];
  return {
    name: "vdb", devno: "254:16", kind: "custom", channels: 4, nrRequests: 128, latencyNs: 500_000, jitterSigma: 0.2,
    maxSectorsKb: 1280, rotational: false,
    curve: { read: { seq: pts(20000, 400), rand: pts(20000, 400) }, write: { seq: pts(20000, 400), rand: pts(20000, 400) } },
  };
}

export interface WbReplayScenario {
  scenario: Scenario;
  t0: number;
  files: string[];
  fileId: Map<string, number>;
}

/** Build the scenario that replays a parsed trace. */
export function wbScenario(tr: WbTrace, opts: ReplayOptions = {}): WbReplayScenario {
  const kernel = (opts.kernel ?? (String((tr as { kernel?: string }).kernel ?? "")) ?? "6.1") as KernelVersion;
  const k: KernelVersion = KERNEL_VERSIONS.includes(kernel) ? kernel : "6.1";
  const t0 = (tr.rounds[0]?.t_begin_ns ?? 0) - 1_000_000;
  const rel = (t: number) => t - t0;
  const dev = guestDisk();
  // files: distinct names, sized by the largest byte written
  const sizes = new Map<string, number>();
  for (const r of tr.rounds) for (const w of r.writes) sizes.set(w.file, Math.max(sizes.get(w.file) ?? 0, w.off + w.len));
  const files = [...sizes.keys()];
  let base = 1 << 20;
  const fileBase = new Map<string, number>();
  const specs: string[] = [];
  for (const f of files) {
    const size = Math.max(PAGE, Math.ceil(sizes.get(f)! / (1 << 20)) * (1 << 20));
    fileBase.set(f, base);
    specs.push(`${f} ${dev.name} ${base} ${size}`);
    base += size + (1 << 20);
  }
  // writes -> jobs (1 MiB pwrites evenly over [start, end])
  const jobs: JobSpec[] = [];
  const copyNs: number[] = [];
  tr.rounds.forEach((r) => r.writes.forEach((w, k2) => {
    if (w.len <= 0) return;
    const n = Math.ceil(w.len / BUFWRITE_CHUNK);
    const dur = Math.max(0, w.end_ns - w.start_ns);
    copyNs.push(dur / Math.ceil(w.len / PAGE));
    const ios = Array.from({ length: n }, (_, i) => ({
      tNs: Math.round((dur * i) / n),
      off: fileBase.get(w.file)! + w.off + i * BUFWRITE_CHUNK,
      size: Math.min(BUFWRITE_CHUNK, w.len - i * BUFWRITE_CHUNK),
      dir: "W" as const,
    }));
    jobs.push(jobDefaults({
      name: `r${r.round}w${k2}-${w.cg}`, cgroup: w.cg === "root" ? "" : w.cg, device: dev.name, rw: "write", direct: false,
      iodepth: 1, startNs: rel(w.start_ns), pattern: { kind: "replay", ios }, offset: fileBase.get(w.file)! + w.off,
      regionLen: w.len, count: n,
    }));
  }));
  // the fastest recorded copy rate: no replayed write falls behind its record
  const copy = Math.max(1, Math.floor(Math.min(minOf(copyNs), 1e9)));
  const writes: ConfigWrite[] = [];
  const root = (file: string, value: string, atNs = 0) => writes.push({ atNs, cgroup: "", file, value });
  const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s.trim()) ? s.trim() : undefined);
  const wbcs = num(tr.config.dirty_writeback_centisecs);
  const exp = num(tr.config.dirty_expire_centisecs);
  if (wbcs) root("vm.dirty_writeback_centisecs", wbcs);
  if (exp) root("vm.dirty_expire_centisecs", exp);
  const ratios = /^(\d+)\s+dirty_background_ratio=(\d+)/.exec(tr.config.dirty_ratio ?? "");
  if (ratios) {
    root("vm.dirty_ratio", ratios[1]!);
    root("vm.dirty_background_ratio", ratios[2]!);
  }
  root("wb.memory", "2g");
  root("wb.copy_ns_per_page", String(copy));
  if (tr.chunkPages) {
    // to_write = round_down(dirty_limit/8 + 1024, 1024): take the middle of the range
    root("wb.dirty_limit_pages", String((tr.chunkPages - 1024 + 512) * 8));
  }
  root("wb.file", specs.join("; "));
  const fsType = /\s(ext[234]|xfs|btrfs|f2fs)\s/.exec(tr.config.mount ?? "")?.[1] ?? "ext4";
  root("wb.fs", fsType);
  for (const r of tr.rounds) {
    root("wb.sync", "", rel(r.t_begin_ns));
    root("vm.drop_caches", "1", rel(r.t_begin_ns) + 1000);
    root("wb.sync", "", rel(r.t_sync_ns));
  }
  const hz = Number(tr.kconfig.CONFIG_HZ ?? 250) || 250;
  const scenario = scenarioDefaults({
    name: `replay ${tr.test || tr.file}`,
    kernel: k,
    cgroupVersion: 2,
    seed: opts.seed ?? 1,
    clock: defaultClock(hz),
    devices: [dev],
    cgroups: tr.cgroups.map((c) => ({ path: c })),
    jobs,
    writes,
    source: { file: tr.file },
  });
  return { scenario, t0, files, fileId: new Map(files.map((f, i) => [f, i])) };
}

export interface WbRoundResult {
  round: number;
  owner: string | null;
  wbytes: Record<string, number>;
}

/** Replay a trace once: one result per round. */
export function replayWb(tr: WbTrace, opts: ReplayOptions = {}): { rounds: WbRoundResult[]; sim: Simulation; t0: number } {
  const { scenario, t0, fileId } = wbScenario(tr, opts);
  const sim = new Simulation(scenario);
  const core = sim.core;
  const wb = core as unknown as WbCore;
  const paths = sim.context().cgroupPaths();
  const nDev = 1;
  const wbytesNow = (): Record<string, number> => {
    const b = colU64(core, COL.CG_BYTES);
    const out: Record<string, number> = {};
    let total = 0;
    paths.forEach((p, g) => {
      const v = Number(b[(g * nDev + 0) * 2 + 1] ?? 0n);
      total += v;
      if (p !== "") out[p] = v;
    });
    out.root = total; // root's io.stat: the whole tree
    return out;
  };
  const rounds: WbRoundResult[] = [];
  for (const r of tr.rounds) {
    core.run(BigInt(Math.round(r.t_begin_ns - t0)), 2 ** 31 - 1);
    const before = wbytesNow();
    core.run(BigInt(Math.round(r.t_end_ns - t0)), 2 ** 31 - 1);
    const after = wbytesNow();
    const wbytes: Record<string, number> = {};
    for (const k of Object.keys(after)) wbytes[k] = after[k]! - (before[k] ?? 0);
    const f = r.writes.find((w) => w.len > 0)?.file ?? r.writes[0]?.file;
    const id = f !== undefined ? fileId.get(f) : undefined;
    const o = id !== undefined ? wb.wbOwner(id) : -1;
    rounds.push({ round: r.round, owner: o < 0 ? null : paths[o] === "" ? "root" : paths[o]!, wbytes });
  }
  return { rounds, sim, t0 };
}

/** Owner of each round's file after the round, as recorded: the writeback
 *  charge of the round names it (wbytes go wholly to the owner). */
export function recordedOwners(tr: WbTrace): Array<string | null> {
  return tr.rounds.map((r) => {
    const d = r.wbytes_delta ?? {};
    let best: string | null = null;
    let bv = 0;
    for (const c of tr.cgroups) if ((d[c] ?? 0) > bv) { bv = d[c]!; best = c; }
    return best;
  });
}

/** Rounds (counted from the first round with a foreign writer majority) until
 *  the owner changes; -1 if it never does. */
export function roundsToFirstSwitch(owners: Array<string | null>, writers: string[]): number {
  let start = -1;
  for (let i = 0; i < owners.length; i++) {
    if (start < 0 && owners[i] !== null && writers[i] !== null && writers[i] !== owners[i]) start = i;
    if (start >= 0 && i > start && owners[i] !== owners[i - 1] && owners[i - 1] !== null) return i - start;
  }
  return -1;
}

/** The cgroup that wrote most of each round. */
export function majorityWriters(tr: WbTrace): string[] {
  return tr.rounds.map((r) => {
    const by = new Map<string, number>();
    for (const w of r.writes) by.set(w.cg, (by.get(w.cg) ?? 0) + w.len);
    let best = "";
    let bv = -1;
    for (const [c, v] of by) if (v > bv) { bv = v; best = c; }
    return best;
  });
}

/** Owner after each round, from the simulated io.stat charges (as recorded). */
export function chargedOwner(r: WbRoundResult, cgroups: string[]): string | null {
  let best: string | null = null;
  let bv = 0;
  for (const c of cgroups) if ((r.wbytes[c] ?? 0) > bv) { bv = r.wbytes[c]!; best = c; }
  return best;
}

export interface WbSwitch {
  /** the round's number in the trace */
  round: number;
  /** 1-based position of the round in the trace */
  ordinal: number;
  from: string;
  to: string;
  /** the new owner wrote most of that round */
  toMajority: boolean;
}

function roundOfTime(tr: WbTrace, tAbsNs: number): number {
  let k = 0;
  tr.rounds.forEach((r, i) => { if (tAbsNs >= r.t_begin_ns) k = i; });
  return k;
}

/** The recorded inode_switch_wbs events, by round. */
export function recordedSwitches(tr: WbTrace): WbSwitch[] {
  const maj = majorityWriters(tr);
  return tr.switches.map((s) => {
    const k = Math.max(0, tr.rounds.findIndex((r) => r.round === s.round));
    return { round: s.round, ordinal: k + 1, from: s.from, to: s.to, toMajority: maj[k] === s.to };
  });
}

/** The simulated inode_switch_wbs events of a replay, by round. */
export function simulatedSwitches(tr: WbTrace, sim: Simulation, t0: number): WbSwitch[] {
  const maj = majorityWriters(tr);
  const names = sim.context().cgroupPaths().map((p) => (p === "" ? "root" : p));
  return readTracepoints(sim.core as unknown as WbCore, names)
    .filter((t) => t.event === "inode_switch_wbs")
    .map((t) => {
      const e = t as { tNs: number; oldCgroup: string; newCgroup: string };
      const k = roundOfTime(tr, e.tNs + t0);
      return { round: tr.rounds[k]!.round, ordinal: k + 1, from: e.oldCgroup, to: e.newCgroup, toMajority: maj[k] === e.newCgroup };
    });
}

/** "switch to the majority writer after N rounds", "+flip" when a later
 *  switch goes to a cgroup that did not write most of its round. */
export function switchSummary(sw: WbSwitch[]): string {
  if (sw.length === 0) return "none";
  return `${sw[0]!.ordinal}${sw.some((s) => !s.toMajority) ? "+flip" : ""}`;
}

export const wbTraceHandler: TraceHandler = {
  kind: "guest-wb",
  detect(header: Record<string, unknown>): boolean {
    return header.type === "test" && typeof header.test === "string" && /^wb_/.test(header.test);
  },
  replay(text: string, file: string, opts: ReplayOptions): string[] {
    const tr = parseWbTrace(text, file);
    const { rounds } = replayWb(tr, opts);
    const head = { type: "replay", kind: "guest-wb", trace: file, seed: opts.seed ?? 1, kernel: opts.kernel ?? "6.1" };
    return [JSON.stringify(head), ...rounds.map((r) => JSON.stringify(r))];
  },
  compare(text: string, file: string, opts: ReplayOptions): { score: Record<string, unknown>; text: string } {
    const tr = parseWbTrace(text, file);
    const seeds = 16;
    const base = opts.seed ?? 1;
    const recOwners = recordedOwners(tr);
    const recSwitch = switchSummary(recordedSwitches(tr));
    const dist = new Map<string, number>();
    let ownerMatches = 0;
    let wholly = 0;
    let chargedRounds = 0;
    let first: WbRoundResult[] = [];
    for (let s = 0; s < seeds; s++) {
      const { rounds, sim, t0 } = replayWb(tr, { ...opts, seed: base + s });
      if (s === 0) first = rounds;
      const owners = rounds.map((r) => chargedOwner(r, tr.cgroups));
      const k = switchSummary(simulatedSwitches(tr, sim, t0));
      dist.set(k, (dist.get(k) ?? 0) + 1);
      rounds.forEach((r, i) => {
        if (owners[i] === recOwners[i]) ownerMatches++;
        const tot = tr.cgroups.reduce((a, c) => a + (r.wbytes[c] ?? 0), 0);
        if (tot > 0) {
          chargedRounds++;
          if (tr.cgroups.some((c) => r.wbytes[c] === tot)) wholly++;
        }
      });
    }
    const n = tr.rounds.length * seeds;
    const score = {
      kind: "guest-wb",
      rounds: tr.rounds.length,
      seeds,
      recordedRoundsToSwitch: recSwitch,
      simulatedRoundsToSwitch: Object.fromEntries([...dist].sort()),
      ownerMatchFraction: ownerMatches / n,
      whollyToOwnerFraction: chargedRounds ? wholly / chargedRounds : 1,
    };
    const lines = [`${file}: ${tr.rounds.length} rounds, recorded switch (rounds[+flip-back]): ${recSwitch}; simulated (${seeds} seeds): ` +
      [...dist].sort().map(([k, v]) => `${k}:${v}`).join(" ")];
    lines.push("round  recorded-owner  sim-owner(seed " + base + ")  recorded wbytes -> simulated wbytes");
    tr.rounds.forEach((r, i) => {
      const sim = first[i]!;
      const fmt = (d: Record<string, number>) => tr.cgroups.map((c) => `${c}=${((d[c] ?? 0) / 2 ** 20).toFixed(1)}M`).join(" ");
      lines.push(`${String(r.round).padStart(5)}  ${String(recOwners[i]).padEnd(14)}  ${String(chargedOwner(sim, tr.cgroups)).padEnd(19)}  ${fmt(r.wbytes_delta ?? {})} -> ${fmt(sim.wbytes)}`);
    });
    return { score, text: lines.join("\n") };
  },
};

registerTraceHandler(wbTraceHandler);

export { readTracepoints };
