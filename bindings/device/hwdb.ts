// iocost-benchmarks' published per-device models, as systemd's hwdb carries
// them (the file iocost-benchmarks generates for systemd's iocost udev builtin,
// systemd >= 253): per drive model a match line, then its solutions and, per
// solution, an io.cost.model and an io.cost.qos:
//
//   # 12 points, MOF=[1.346,1.346], aMOF=[1.249,1.249]
//   block:*:name:HFS256GD9TNG-62A0A:fwver:*:
//    IOCOST_SOLUTIONS=isolation isolated-bandwidth bandwidth naive
//    IOCOST_MODEL_ISOLATION=rbps=1091439492 rseqiops=52286 rrandiops=63784 wbps=... wseqiops=... wrandiops=...
//    IOCOST_QOS_ISOLATION=rpct=0.00 rlat=8807 wpct=0.00 wlat=59023 min=100.00 max=100.00
//    ...
//
// (systemd's iocost builtin upper-cases a solution's name and turns '-' into
// '_' for its keys, and applies the first solution unless configured.) Each
// entry becomes a device: the nvme preset's queue (16 channels, nr_requests
// 1023) with the solution's linear model as its curve (linear.ts), and a card
// naming the drive, the solution, the QoS line and the comment above it.
// `--device FILE.hwdb` takes the file's first entry, `--device FILE.hwdb#NAME`
// the entry whose model name contains NAME (and `#NAME@SOLUTION` a solution).

import { InputError } from "../scenario/errors.js";
import type { DeviceSpec } from "../scenario/types.js";
import { linearCurve, parseIoCostModelLine, type LinearModelParams } from "./linear.js";
import { devicePreset } from "./presets.js";

export interface HwdbEntry {
  /** the match line, e.g. "block:*:name:HFS256GD9TNG-62A0A:fwver:*:" */
  match: string;
  /** the drive model from the match's name: field */
  model: string;
  line: number;
  /** the comment lines just above the match (iocost-benchmarks: points and MOF) */
  comment: string[];
  solutions: string[];
  models: Record<string, LinearModelParams>;
  qos: Record<string, string>;
}

const keyOf = (solution: string) => solution.toUpperCase().replace(/-/g, "_");

/** Read a hwdb file's iocost entries (other entries and properties are skipped). */
export function readIocostHwdb(text: string, file: string): HwdbEntry[] {
  const out: HwdbEntry[] = [];
  let cur: HwdbEntry | undefined;
  let comment: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") {
      cur = undefined;
      comment = [];
      return;
    }
    if (/^\s*#/.test(raw)) {
      comment.push(raw.replace(/^\s*#\s?/, ""));
      return;
    }
    if (!/^\s/.test(raw)) {
      // a match line (several may share one block of properties; iocost-benchmarks writes one)
      const m = /:name:([^:]*)(:|$)/.exec(raw.trim());
      cur = { match: raw.trim(), model: m ? m[1]! : raw.trim(), line, comment, solutions: [], models: {}, qos: {} };
      out.push(cur);
      comment = [];
      return;
    }
    const prop = raw.trim();
    const eq = prop.indexOf("=");
    if (eq < 0) throw new InputError(`expected KEY=VALUE under a match line, got "${prop}"`, file, line);
    const k = prop.slice(0, eq);
    const v = prop.slice(eq + 1).trim();
    if (!cur) throw new InputError(`a property before any match line`, file, line, k);
    if (k === "IOCOST_SOLUTIONS") cur.solutions = v.split(/\s+/).filter(Boolean);
    else if (k.startsWith("IOCOST_MODEL_")) {
      try {
        cur.models[k.slice("IOCOST_MODEL_".length)] = parseIoCostModelLine(v).params;
      } catch (e) {
        throw new InputError((e as Error).message, file, line, k);
      }
    } else if (k.startsWith("IOCOST_QOS_")) cur.qos[k.slice("IOCOST_QOS_".length)] = v;
  });
  const ioc = out.filter((e) => e.solutions.length > 0 || Object.keys(e.models).length > 0);
  for (const e of ioc) {
    for (const s of e.solutions) {
      if (!e.models[keyOf(s)]) throw new InputError(`${e.model}: solution "${s}" has no IOCOST_MODEL_${keyOf(s)}`, file, e.line, `IOCOST_MODEL_${keyOf(s)}`);
    }
  }
  if (ioc.length === 0) throw new InputError("no iocost entries (IOCOST_SOLUTIONS / IOCOST_MODEL_*) in this hwdb file", file, 1);
  return ioc;
}

/** One entry as a device (the first solution unless one is named). */
export function hwdbDevice(e: HwdbEntry, file: string, solution?: string): DeviceSpec {
  const sol = solution ?? e.solutions[0] ?? Object.keys(e.models)[0]!.toLowerCase().replace(/_/g, "-");
  const params = e.models[keyOf(sol)];
  if (!params) throw new InputError(`${e.model}: no solution "${sol}" (${e.solutions.join(", ") || Object.keys(e.models).join(", ")})`, file, e.line, "solution");
  const base = devicePreset("nvme", { shape: undefined });
  const p = params;
  return {
    ...base,
    kind: "linear",
    curve: linearCurve(params),
    card: {
      model: `${e.model} (iocost-benchmarks, solution ${sol}: linear model)`,
      what: [
        `io.cost.model rbps=${p.rbps} rseqiops=${p.rseqiops} rrandiops=${p.rrandiops} wbps=${p.wbps} wseqiops=${p.wseqiops} wrandiops=${p.wrandiops}`,
        ...(e.qos[keyOf(sol)] ? [`io.cost.qos ${e.qos[keyOf(sol)]}`] : []),
        "a bio costs 1/iops + size/bps of its direction and pattern (linear.ts); no latency spread; the nvme preset's queue (16 channels)",
      ],
      sources: [`${file}:${e.line} ${e.match}`, ...e.comment.filter((c) => /MOF|points/.test(c))],
    },
  };
}

/** `FILE.hwdb[#NAME[@SOLUTION]]` -> the device. */
export function deviceFromHwdb(text: string, file: string, pick?: string): DeviceSpec {
  const entries = readIocostHwdb(text, file);
  const [name, sol] = (pick ?? "").split("@") as [string, string | undefined];
  const e = name ? entries.find((x) => x.model.toLowerCase().includes(name.toLowerCase())) : entries[0];
  if (!e) throw new InputError(`no entry whose model contains "${name}" (${entries.map((x) => x.model).join(", ")})`, file, 1, "#" + name);
  return hwdbDevice(e, file, sol || undefined);
}
