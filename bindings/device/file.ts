// The device file a user passes as `--device FILE` (YAML; JSON is YAML too).
//
//   preset: nvme            # optional base: ssd | nvme | hdd | ideal | nullb
//   name: nvme1n1           # kernel name       (default: the preset's)
//   devno: "259:2"          # MAJ:MIN (quoting is safest: YAML 1.1 tools read 259:2 as base 60)
//   kind: nvme              # optional; default from preset / model / points
//   channels: 16            # internal parallelism
//   nr_requests: 1023       # request slots (queue/nr_requests)
//   latency: 20us           # added per IO without holding a channel: a number
//                           # of ns, or a string with ns | us | µs | ms | s
//   jitter: 0.1             # log-normal sigma (0 = fixed)
//   max_sectors_kb: 512
//   read_ahead_kb: 128      # queue/read_ahead_kb: buffered reads' readahead window
//   rotational: false
//   # the service curve, at most one of:
//   curve: ssd              # a seed curve: ssd | nvme | hdd
//   model: wdc-sn730-256g   # iocost linear model: a MODEL_ROWS name, an
//                           # io.cost.model line, or a map of the six numbers
//   points: [[4096, 80000], [16384, 28443]]    # (bytes, IOPS at full
//                           # parallelism) for all four tables, or
//                           # {read: {seq: [...], rand: [...]}, write: ...};
//                           # read: [...] alone means both seq and rand.
//
// Without a preset one of curve / model / points is required. Every error is
// an InputError naming the file, the line and the field.

import { shown } from "../util/shown.js";
import { parseYaml } from "../util/yaml-guard.js";
import { isMap, isNode, isScalar, } from "yaml";
import { mergedPairs, } from "../util/yaml-merge.js";
import { InputError } from "../scenario/errors.js";
import type { CurvePoints, DeviceCurve, DeviceKind, DeviceSpec } from "../scenario/types.js";
import { checkLinearParams, LINEAR_KEYS, linearCurve, modelRow, parseIoCostModelLine, type LinearModelParams } from "./linear.js";
import { devicePreset, isPresetName, PRESET_NAMES, validateDeviceSpec } from "./presets.js";
import { seedCurve } from "./seed.js";

const KEYS = [
  "preset",
  "name",
  "devno",
  "kind",
  "channels",
  "nr_requests",
  "latency",
  "latency_ns",
  "jitter",
  "max_sectors_kb",
  "read_ahead_kb",
  "rotational",
  "curve",
  "model",
  "points",
] as const;
const KINDS: readonly DeviceKind[] = ["ssd", "nvme", "hdd", "ideal", "nullb", "linear", "custom"];

const UNIT_NS: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 };

/** "20us" / "2ms" / 1500 -> ns. */
export function parseDurationNs(v: unknown): number {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === "string") {
    const m = /^\s*([0-9]*\.?[0-9]+)\s*(ns|us|µs|ms|s)?\s*$/.exec(v);
    if (m) return Math.round(Number(m[1]) * UNIT_NS[m[2] ?? "ns"]!);
  }
  throw new RangeError(`expected a duration such as 1500, "20us" or "2ms", got ${shown(v)}`);
}

function pointsOf(v: unknown, where: string): CurvePoints {
  if (!Array.isArray(v) || v.length === 0) throw new RangeError(`${where}: expected a list of [bytes, iops] pairs`);
  return v.map((p, i) => {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== "number" || typeof p[1] !== "number") {
      throw new RangeError(`${where}[${i}]: expected [bytes, iops], got ${shown(p)}`);
    }
    return [p[0], p[1]] as [number, number];
  });
}

function curveFromPoints(v: unknown): DeviceCurve {
  if (Array.isArray(v)) {
    const p = pointsOf(v, "points");
    return { read: { seq: p, rand: p.map((x) => [...x] as [number, number]) }, write: { seq: p.map((x) => [...x] as [number, number]), rand: p.map((x) => [...x] as [number, number]) } };
  }
  if (!v || typeof v !== "object") throw new RangeError(`points: expected a list or {read, write}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "read" && k !== "write") throw new RangeError(`points: unknown key ${JSON.stringify(k)} (read, write)`);
  const dir = (d: "read" | "write") => {
    const x = o[d];
    if (x === undefined) throw new RangeError(`points.${d}: missing`);
    if (Array.isArray(x)) {
      const p = pointsOf(x, `points.${d}`);
      return { seq: p, rand: p.map((q) => [...q] as [number, number]) };
    }
    const m = x as Record<string, unknown>;
    for (const k of Object.keys(m ?? {})) if (k !== "seq" && k !== "rand") throw new RangeError(`points.${d}: unknown key ${JSON.stringify(k)} (seq, rand)`);
    return { seq: pointsOf(m?.["seq"], `points.${d}.seq`), rand: pointsOf(m?.["rand"], `points.${d}.rand`) };
  };
  return { read: dir("read"), write: dir("write") };
}

function modelParams(v: unknown): LinearModelParams {
  if (typeof v === "string") {
    const row = modelRow(v.trim());
    if (row) return { ...row.params };
    if (v.includes("=")) return parseIoCostModelLine(v).params;
    throw new RangeError(`model: unknown model name ${JSON.stringify(v)} and not an io.cost.model line`);
  }
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (!(LINEAR_KEYS as readonly string[]).includes(k)) throw new RangeError(`model: unknown key ${JSON.stringify(k)} (${LINEAR_KEYS.join(", ")})`);
    }
    return checkLinearParams(o as Partial<LinearModelParams>, "model");
  }
  throw new RangeError(`model: expected a name, an io.cost.model line or a map of ${LINEAR_KEYS.join(", ")}`);
}

/** Load a device file: a DeviceSpec, or an InputError naming file, line and field. */
export function loadDeviceFile(text: string, file: string): DeviceSpec {
  const { doc, lc, problem } = parseYaml(text);
  if (problem) throw new InputError(problem.message, file, problem.line);
  const root = doc.contents;
  if (!isMap(root)) throw new InputError("a device file is a map of fields (preset, name, devno, channels, ...)", file, 1);
  const lines = new Map<string, number>();
  const raw: Record<string, unknown> = {};
  for (const item of mergedPairs(doc, root)) {
    const key = isScalar(item.key) ? String(item.key.value) : String(item.key);
    const line = item.key && isScalar(item.key) && item.key.range ? lc.linePos(item.key.range[0]).line : undefined;
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new InputError(`unknown field ${JSON.stringify(key)} (${KEYS.join(", ")})`, file, line, key);
    }
    if (lines.has(key)) throw new InputError(`field given twice`, file, line, key);
    lines.set(key, line ?? 1);
    const node = item.value;
    // (toJS with the document: aliases and merge keys inside the value resolved)
    raw[key] = isNode(node) ? node.toJS(doc, { maxAliasCount: -1 }) : node;
  }
  const firstLine = root.range ? lc.linePos(root.range[0]).line : 1;
  const fail = (field: string, msg: string): never => {
    throw new InputError(msg, file, lines.get(field) ?? firstLine, field);
  };
  const guard = <T>(field: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof InputError) throw e;
      return fail(field, (e as Error).message);
    }
  };

  const preset = raw["preset"];
  if (preset !== undefined && (typeof preset !== "string" || !isPresetName(preset))) {
    fail("preset", `unknown preset ${JSON.stringify(preset)} (${PRESET_NAMES.join(", ")})`);
  }
  const sources = (["curve", "model", "points"] as const).filter((k) => raw[k] !== undefined);
  if (sources.length > 1) fail(sources[1]!, `give only one of curve, model, points (also got ${sources[0]})`);
  if (!preset && sources.length === 0) fail("preset", "needs a preset, or one of curve / model / points");

  const over: Partial<DeviceSpec> = {};
  const str = (k: string) => {
    const v = raw[k];
    if (typeof v !== "string" || v === "") fail(k, `expected a string, got ${shown(v)}`);
    return v as string;
  };
  const num = (k: string, integer: boolean) => {
    const v = raw[k];
    if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
      fail(k, `expected a ${integer ? "whole " : ""}number, got ${shown(v)}`);
    }
    return v as number;
  };
  if (raw["name"] !== undefined) over.name = str("name");
  if (raw["devno"] !== undefined) {
    const d = raw["devno"];
    if (typeof d !== "string" || !/^\d+:\d+$/.test(d)) fail("devno", `expected "MAJ:MIN" (quoted), got ${shown(d)}`);
    over.devno = d as string;
  }
  if (raw["kind"] !== undefined) {
    const k = str("kind");
    if (!(KINDS as readonly string[]).includes(k)) fail("kind", `unknown kind ${JSON.stringify(k)} (${KINDS.join(", ")})`);
    over.kind = k as DeviceKind;
  }
  if (raw["channels"] !== undefined) over.channels = num("channels", true);
  if (raw["nr_requests"] !== undefined) over.nrRequests = num("nr_requests", true);
  if (raw["latency"] !== undefined && raw["latency_ns"] !== undefined) fail("latency_ns", "give latency or latency_ns, not both");
  if (raw["latency"] !== undefined) over.latencyNs = guard("latency", () => parseDurationNs(raw["latency"]));
  if (raw["latency_ns"] !== undefined) over.latencyNs = num("latency_ns", true);
  if (raw["jitter"] !== undefined) over.jitterSigma = num("jitter", false);
  if (raw["max_sectors_kb"] !== undefined) over.maxSectorsKb = num("max_sectors_kb", true);
  if (raw["read_ahead_kb"] !== undefined) {
    over.readAheadKb = num("read_ahead_kb", true);
    if (!Number.isInteger(over.readAheadKb)) fail("read_ahead_kb", `must be a whole number of KiB, got ${over.readAheadKb}`);
  }
  if (raw["rotational"] !== undefined) {
    if (typeof raw["rotational"] !== "boolean") fail("rotational", `expected true or false, got ${shown(raw["rotational"])}`);
    over.rotational = raw["rotational"] as boolean;
  }
  if (raw["curve"] !== undefined) {
    const c = raw["curve"];
    if (c !== "ssd" && c !== "nvme" && c !== "hdd") fail("curve", `unknown curve ${JSON.stringify(c)} (ssd, nvme, hdd)`);
    over.curve = seedCurve(c as "ssd" | "nvme" | "hdd");
    over.kind ??= c as DeviceKind;
  }
  if (raw["model"] !== undefined) {
    over.curve = guard("model", () => linearCurve(modelParams(raw["model"])));
    over.kind ??= "linear";
  }
  if (raw["points"] !== undefined) {
    over.curve = guard("points", () => curveFromPoints(raw["points"]));
    over.kind ??= "custom";
  }

  const base = preset
    ? devicePreset(preset as "ssd", {})
    : devicePreset(over.rotational ? "hdd" : "ssd", {});
  const spec: DeviceSpec = { ...base, ...over };
  if (!preset && (over.name === undefined || over.devno === undefined)) {
    fail(over.name === undefined ? "name" : "devno", "without a preset, name and devno are required");
  }
  try {
    validateDeviceSpec(spec);
  } catch (e) {
    const msg = (e as Error).message;
    const field = /: (\S+) /.exec(msg)?.[1] ?? "";
    const key = field.startsWith("curve") ? sources[0] ?? "preset" : field;
    throw new InputError(msg, file, lines.get(key) ?? firstLine, key || undefined);
  }
  return spec;
}
