// cgroup.conf: the kernel config lines of a playground scenario, written the
// way one configures a real machine, one write per line:
//
//   # comments and blank lines are ignored
//   mkdir free                                   a cgroup with no files
//   echo "259:0 rbps=20971520" > capped/io.max   write at t = 0
//   at 5s echo "259:0 rbps=max" > capped/io.max  write at 5 s simulated
//   echo "259:0 enable=1" > io.cost.qos          a root-level file
//
// Paths are below the cgroup-v2 mount; a leading /sys/fs/cgroup/ is
// accepted and dropped. Values are passed to the control module that owns
// the file (io.max -> blk-throttle, io.weight/io.cost.* -> blk-iocost), which
// applies the kernel's own parsing rules and names this file and line when
// it refuses a value. Times take ns, us, ms or s (default s).
//
// Worked example: the two echo lines above become
//   writes = [{atNs: 0, cgroup: "capped", file: "io.max", value: "259:0 rbps=20971520", source: {file: "cgroup.conf", line: 3}},
//             {atNs: 5e9, cgroup: "capped", file: "io.max", value: "259:0 rbps=max", source: {file: "cgroup.conf", line: 4}}]
// and cgroups = [{path: "free"}, {path: "capped"}].

import type { CgroupSpec, ConfigWrite, Scenario } from "../iosim.js";
import { InputError } from "../iosim.js";

export const CGCONF_FILE = "cgroup.conf";
const NS_PER_UNIT: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, "": 1e9 };
const MOUNT_PREFIX = /^\/?sys\/fs\/cgroup\/?/;

export interface CgConf {
  cgroups: CgroupSpec[];
  writes: ConfigWrite[];
}

export function parseCgConf(text: string, file = CGCONF_FILE): CgConf {
  const cgroups = new Map<string, CgroupSpec>();
  const writes: ConfigWrite[] = [];
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = i + 1;
    const src = stripComment(raw).trim();
    if (!src) return;
    let rest = src;
    let atNs = 0;
    const at = /^at\s+([0-9.]+)\s*(ns|us|ms|s|)\s*:?\s+/.exec(rest);
    if (at) {
      const v = Number(at[1]);
      if (!Number.isFinite(v) || v < 0) throw new InputError(`bad time "${at[1]}${at[2]}"`, file, line, "at");
      atNs = Math.round(v * NS_PER_UNIT[at[2]!]!);
      rest = rest.slice(at[0].length);
    } else if (/^at\s/.test(rest)) {
      // "at 5x echo ...": name the time, not the whole line
      const t = rest.split(/\s+/)[1] ?? "";
      if (/^[0-9.]+(ns|us|ms|s)?:?$/.test(t)) throw new InputError(`nothing to write at ${t}: expected 'at TIME echo "VALUE" > CGROUP/FILE'`, file, line, "at");
      throw new InputError(`bad time "${t}": a number with ns, us, ms or s (default s), as in "at 5s echo ..."`, file, line, "at");
    }
    const mk = /^mkdir(?:\s+-p)?\s+(\S+)$/.exec(rest);
    if (mk) {
      if (at) throw new InputError("mkdir cannot be timed", file, line, "at");
      const path = cgPath(mk[1]!);
      if (!path) throw new InputError("the root cgroup always exists", file, line, "mkdir");
      if (!cgroups.has(path)) cgroups.set(path, { path, source: { file, line } });
      return;
    }
    const m = /^echo\s+(?:"([^"]*)"|'([^']*)'|([^>"']*?))\s*>>?\s*([\w./-]+)$/.exec(rest);
    if (!m) {
      throw new InputError(`expected 'echo "VALUE" > CGROUP/FILE', 'at TIME echo ...' or 'mkdir CGROUP', got "${src}"`, file, line);
    }
    const value = m[1] ?? m[2] ?? m[3] ?? "";
    const target = m[4]!.replace(MOUNT_PREFIX, "");
    const slash = target.lastIndexOf("/");
    const cgroup = slash >= 0 ? cgPath(target.slice(0, slash)) : "";
    const fileName = slash >= 0 ? target.slice(slash + 1) : target;
    if (!/^[a-z0-9_]+\.[a-z0-9_.]+$/.test(fileName)) {
      throw new InputError(`"${fileName}" is not a cgroup interface file name (like io.max)`, file, line, "file");
    }
    if (cgroup && !cgroups.has(cgroup)) cgroups.set(cgroup, { path: cgroup, source: { file, line } });
    writes.push({ atNs, cgroup, file: fileName, value, source: { file, line, field: fileName } });
  });
  return { cgroups: [...cgroups.values()], writes };
}

/** The config lines that describe a scenario's cgroups and writes. */
export function formatCgConf(s: Pick<Scenario, "cgroups" | "writes">): string {
  const out = ["# cgroup-v2 interface files, one write per line (see the help)"];
  for (const g of s.cgroups) {
    const files = Object.entries(g.files ?? {});
    if (files.length === 0 && g.path) out.push(`mkdir ${g.path}`);
    for (const [f, v] of files) out.push(`echo "${v}" > ${g.path ? g.path + "/" : ""}${f}`);
  }
  for (const w of [...s.writes].sort((a, b) => a.atNs - b.atNs)) {
    const target = `${w.cgroup ? w.cgroup + "/" : ""}${w.file}`;
    out.push(`${w.atNs > 0 ? `at ${formatTime(w.atNs)} ` : ""}echo "${w.value}" > ${target}`);
  }
  return out.join("\n") + "\n";
}

function formatTime(ns: number): string {
  if (ns % 1e9 === 0) return `${ns / 1e9}s`;
  if (ns % 1e6 === 0) return `${ns / 1e6}ms`;
  if (ns % 1e3 === 0) return `${ns / 1e3}us`;
  return `${ns}ns`;
}

function cgPath(p: string): string {
  return p.replace(MOUNT_PREFIX, "").split("/").filter(Boolean).join("/");
}

function stripComment(s: string): string {
  // a '#' outside quotes starts a comment
  let q = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (q) { if (c === q) q = ""; continue; }
    if (c === '"' || c === "'") q = c;
    else if (c === "#") return s.slice(0, i);
  }
  return s;
}
