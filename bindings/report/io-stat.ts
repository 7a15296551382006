// The kernel's io.stat file for each cgroup of a run.
//
// Followed: Linux 6.12 block/blk-cgroup.c blkcg_print_one_stat(). For each
// blkg (one per device the cgroup has touched) the kernel prints
//     "%s " (the disk's MAJ:MIN, bdi_dev_name)
//     "rbytes=%llu wbytes=%llu rios=%llu wios=%llu dbytes=%llu dios=%llu"
//         only if rbytes, wbytes, rios or wios is non-zero
//     then each policy's pd_stat_fn output (each starts with a space, e.g.
//     blk-iocost's " cost.vrate=100.00 cost.usage=1234")
//     "\n"
// so a device with no reads or writes yet reads "259:0 " (trailing space).
// The counts are the cgroup's subtree totals after the rstat flush
// (CgroupResult.total), bios counted as they are issued
// (blk_cgroup_bio_start); the root cgroup shows the disk's own statistics
// instead (blkcg_fill_root_iostats: part_stat ios and sectors, requests
// counted as they complete, RunResult.devices), so a run cut with requests
// in flight shows fewer IOs at the root than in its children. blkgs are listed in the order of the
// cgroup's blkg_list, newest first (hlist_add_head in blkg_create()), and a
// cgroup has no line for a disk it has no blkg on: a cgroup that never
// submitted a bio to a disk nor had a config file name it prints nothing for
// it (an empty io.stat if that holds for every disk); one with only an io.max
// on the disk prints "259:0 ". CgroupResult.ioStatDevices (the simulation
// works them out) gives the lines and their order; `deviceOrder` overrides
// the order.
//
// Worked example: cgroup "web" read 1 MiB in 256 IOs and wrote 8 KiB in 2
// IOs on 259:0, with iocost enabled on that device:
//   259:0 rbytes=1048576 wbytes=8192 rios=256 wios=2 dbytes=0 dios=0 cost.vrate=100.00 cost.usage=512
// where " cost.vrate=100.00 cost.usage=512" comes from an extra-field hook.

import type { CgroupResult, IoStatCounts, RunResult } from "../scenario/types.js";

/** What a hook sees for one io.stat line. */
export interface IoStatLineContext {
  cgroup: string;
  devno: string;
  counts: IoStatCounts;
  result: RunResult;
}

/**
 * Extra fields a model adds to an io.stat line, like a blkcg policy's
 * pd_stat_fn (blk-iocost: " cost.vrate=... cost.usage=..."). Return "" or
 * undefined for nothing; a leading space is added if missing.
 */
export type IoStatExtra = (ctx: IoStatLineContext) => string | undefined;

const extras: IoStatExtra[] = [];

/** Register a hook used by every toIoStat() call (in registration order, like blkcg_policy[] order). */
export function registerIoStatExtra(hook: IoStatExtra): () => void {
  extras.push(hook);
  return () => {
    const i = extras.indexOf(hook);
    if (i >= 0) extras.splice(i, 1);
  };
}

export interface IoStatOptions {
  /** hooks for this call only, after the registered ones */
  extras?: IoStatExtra[];
  /** device order of the lines (devnos); others follow in result order */
  deviceOrder?: string[];
  /** which cgroups (default: all in the result) */
  cgroups?: string[];
}

/** One io.stat line (with its "\n"), as blkcg_print_one_stat() prints it. */
export function ioStatLine(devno: string, c: IoStatCounts, extra = ""): string {
  let s = `${devno} `;
  if (c.rbytes || c.wbytes || c.rios || c.wios) {
    s += `rbytes=${c.rbytes} wbytes=${c.wbytes} rios=${c.rios} wios=${c.wios} dbytes=${c.dbytes} dios=${c.dios}`;
  }
  return s + extra + "\n";
}

function orderDevices(cg: CgroupResult, order?: string[]): string[] {
  // the cgroup's blkgs, newest first (CgroupResult.ioStatDevices); a result
  // without them (built by hand) lists every device it counts
  const keys = cg.ioStatDevices ?? Object.keys(cg.total);
  if (!order) return keys;
  const first = order.filter((d) => keys.includes(d));
  return [...first, ...keys.filter((k) => !first.includes(k))];
}

/** io.stat content for one cgroup of the result. */
export function ioStatFor(result: RunResult, cg: CgroupResult, opts: IoStatOptions = {}): string {
  const hooks = [...extras, ...(opts.extras ?? [])];
  let out = "";
  for (const devno of orderDevices(cg, opts.deviceOrder)) {
    const counts = cg.total[devno] ?? { rbytes: 0, wbytes: 0, rios: 0, wios: 0, dbytes: 0, dios: 0 };
    let extra = "";
    for (const [k, v] of Object.entries(cg.ioStatExtra?.[devno] ?? {})) extra += ` ${k}=${v}`;
    for (const h of hooks) {
      const e = h({ cgroup: cg.path, devno, counts, result });
      if (e) extra += e.startsWith(" ") ? e : ` ${e}`;
    }
    out += ioStatLine(devno, counts, extra);
  }
  return out;
}

/** io.stat content per cgroup path ("" is the root). */
export function toIoStat(result: RunResult, opts: IoStatOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const cg of result.cgroups) {
    if (opts.cgroups && !opts.cgroups.includes(cg.path)) continue;
    out[cg.path] = ioStatFor(result, cg, opts);
  }
  return out;
}

/** Parse io.stat text back into counts (devno -> counts plus any extra key=value fields). */
export function parseIoStat(text: string): Record<string, IoStatCounts & { extra: Record<string, string> }> {
  const out: Record<string, IoStatCounts & { extra: Record<string, string> }> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const [devno, ...fields] = line.split(" ").filter((f, i) => i === 0 || f !== "");
    const rec = { rbytes: 0, wbytes: 0, rios: 0, wios: 0, dbytes: 0, dios: 0, extra: {} as Record<string, string> };
    for (const f of fields) {
      const eq = f.indexOf("=");
      if (eq < 0) continue;
      const k = f.slice(0, eq);
      const v = f.slice(eq + 1);
      if (k in rec && k !== "extra") (rec as unknown as Record<string, number>)[k] = Number(v);
      else rec.extra[k] = v;
    }
    out[devno!] = rec;
  }
  return out;
}
