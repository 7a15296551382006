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
//   # the spread of latencies (assembly/device/device.ts; unset: the preset's):
//   latency_sigma: 0.3      # log-normal sigma, or {read: {seq, rand}, write: {seq, rand}}
//   quantiles:              # measured: factors of the mean at evenly spaced quantiles
//     read: {rand: [{size: 4096, factors: [0.5, 0.8, ..., 6.0]}]}   # per curve point
//   mechanics: {settle: 0.8ms, full_stroke: 10.2ms, rpm: 7200, media_bps: 200e6}
//   depth: [[1, 1], [4, 0.86]]   # fitted: multiplier of a bio's time by requests in flight
//   card: {model: "...", what: ["..."], sources: ["..."]}   # what `iosim devices` shows
//
// Without a preset one of curve / model / points is required. Every error is
// an InputError naming the file, the line and the field.

import { shown } from "../util/shown.js";
import { parseYaml } from "../util/yaml-guard.js";
import { isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";
import { mergedPairs, mergeProblem, PARSE_OPTIONS } from "../util/yaml-merge.js";
import { InputError } from "../scenario/errors.js";
import type { CurvePoints, DeviceCard, DeviceCurve, DeviceKind, DeviceMechanics, DeviceSpec, PerTable, QuantileRow } from "../scenario/types.js";
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
  "latency_sigma",
  "mechanics",
  "quantiles",
  "depth",
  "card",
] as const;
const KINDS: readonly DeviceKind[] = ["ssd", "nvme", "hdd", "ideal", "nullb", "linear", "custom", "fitted"];

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

function perTableNumber(v: unknown, where: string): PerTable<number> {
  if (typeof v === "number") return { read: { seq: v, rand: v }, write: { seq: v, rand: v } };
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new RangeError(`${where}: expected a number or {read: {seq, rand}, write: {seq, rand}}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "read" && k !== "write") throw new RangeError(`${where}: unknown key ${JSON.stringify(k)} (read, write)`);
  const dir = (d: "read" | "write") => {
    const x = o[d];
    if (typeof x === "number") return { seq: x, rand: x };
    if (!x || typeof x !== "object") throw new RangeError(`${where}.${d}: expected a number or {seq, rand}, got ${shown(x)}`);
    const m = x as Record<string, unknown>;
    for (const k of Object.keys(m)) if (k !== "seq" && k !== "rand") throw new RangeError(`${where}.${d}: unknown key ${JSON.stringify(k)} (seq, rand)`);
    const n = (k: "seq" | "rand") => {
      if (typeof m[k] !== "number") throw new RangeError(`${where}.${d}.${k}: expected a number, got ${shown(m[k])}`);
      return m[k] as number;
    };
    return { seq: n("seq"), rand: n("rand") };
  };
  return { read: dir("read"), write: dir("write") };
}

function quantilesOf(v: unknown): PerTable<QuantileRow[]> {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new RangeError(`quantiles: expected {read: {seq, rand}, write: {seq, rand}}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "read" && k !== "write") throw new RangeError(`quantiles: unknown key ${JSON.stringify(k)} (read, write)`);
  const rows = (x: unknown, where: string): QuantileRow[] => {
    if (x === undefined) return [];
    if (!Array.isArray(x)) throw new RangeError(`${where}: expected a list of {size, factors}`);
    return x.map((r, i) => {
      const m = r as Record<string, unknown>;
      if (!m || typeof m !== "object" || typeof m["size"] !== "number" || !Array.isArray(m["factors"]) || !(m["factors"] as unknown[]).every((f) => typeof f === "number")) {
        throw new RangeError(`${where}[${i}]: expected {size: bytes, factors: [numbers]}, got ${shown(r)}`);
      }
      if (m["u"] !== undefined && (!Array.isArray(m["u"]) || !(m["u"] as unknown[]).every((f) => typeof f === "number"))) throw new RangeError(`${where}[${i}].u: expected a list of numbers`);
      for (const k of Object.keys(m)) if (!["size", "depth", "u", "factors"].includes(k)) throw new RangeError(`${where}[${i}]: unknown key ${JSON.stringify(k)} (size, depth, u, factors)`);
      if (m["depth"] !== undefined && !(Number.isInteger(m["depth"]) && (m["depth"] as number) >= 1)) throw new RangeError(`${where}[${i}].depth: expected a whole number >= 1, got ${shown(m["depth"])}`);
      return { size: m["size"] as number, ...(m["depth"] !== undefined ? { depth: m["depth"] as number } : {}), ...(m["u"] ? { u: [...(m["u"] as number[])] } : {}), factors: [...(m["factors"] as number[])] };
    });
  };
  const dir = (d: "read" | "write") => {
    const m = (o[d] ?? {}) as Record<string, unknown>;
    for (const k of Object.keys(m)) if (k !== "seq" && k !== "rand") throw new RangeError(`quantiles.${d}: unknown key ${JSON.stringify(k)} (seq, rand)`);
    return { seq: rows(m["seq"], `quantiles.${d}.seq`), rand: rows(m["rand"], `quantiles.${d}.rand`) };
  };
  return { read: dir("read"), write: dir("write") };
}

function mechanicsOf(v: unknown): DeviceMechanics {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new RangeError(`mechanics: expected {settle, full_stroke, rpm, media_bps}`);
  const o = v as Record<string, unknown>;
  const keys = ["settle", "full_stroke", "rpm", "media_bps"];
  for (const k of Object.keys(o)) if (!keys.includes(k)) throw new RangeError(`mechanics: unknown key ${JSON.stringify(k)} (${keys.join(", ")})`);
  for (const k of keys) if (o[k] === undefined) throw new RangeError(`mechanics.${k}: missing`);
  const num = (k: string) => {
    if (typeof o[k] !== "number" || !((o[k] as number) > 0)) throw new RangeError(`mechanics.${k}: expected a positive number, got ${shown(o[k])}`);
    return o[k] as number;
  };
  return { settleNs: parseDurationNs(o["settle"]), fullStrokeNs: parseDurationNs(o["full_stroke"]), rpm: num("rpm"), mediaBytesPerSec: num("media_bps") };
}

function cardOf(v: unknown): DeviceCard {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new RangeError(`card: expected {model, what, sources}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!["model", "what", "sources"].includes(k)) throw new RangeError(`card: unknown key ${JSON.stringify(k)} (model, what, sources)`);
  if (typeof o["model"] !== "string" || o["model"] === "") throw new RangeError(`card.model: expected a string, got ${shown(o["model"])}`);
  const list = (k: string) => {
    const x = o[k] ?? [];
    if (!Array.isArray(x) || !x.every((s) => typeof s === "string")) throw new RangeError(`card.${k}: expected a list of strings`);
    return x as string[];
  };
  return { model: o["model"] as string, what: list("what"), sources: list("sources") };
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

  const shapeOver: { sigma?: PerTable<number>; quantiles?: PerTable<QuantileRow[]>; mechanics?: DeviceMechanics; depth?: Array<[number, number]> } = {};
  if (raw["depth"] !== undefined) {
    const v = raw["depth"];
    if (!Array.isArray(v) || v.length === 0 || !v.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => typeof x === "number"))) {
      fail("depth", `expected a list of [in flight, multiplier] pairs, got ${shown(v)}`);
    }
    shapeOver.depth = (v as Array<[number, number]>).map(([q, m]) => [q, m]);
  }
  if (raw["latency_sigma"] !== undefined) shapeOver.sigma = guard("latency_sigma", () => perTableNumber(raw["latency_sigma"], "latency_sigma"));
  if (raw["quantiles"] !== undefined) shapeOver.quantiles = guard("quantiles", () => quantilesOf(raw["quantiles"]));
  if (raw["mechanics"] !== undefined) shapeOver.mechanics = guard("mechanics", () => mechanicsOf(raw["mechanics"]));
  if (raw["card"] !== undefined) over.card = guard("card", () => cardOf(raw["card"]));

  const base = preset
    ? devicePreset(preset as "ssd", {})
    : devicePreset(over.rotational ? "hdd" : "ssd", {});
  const spec: DeviceSpec = { ...base, ...over };
  // the shape: the preset's, with the file's parts replacing its; `jitter` alone
  // (one sigma for all four tables) replaces the preset's sigmas; a file with its
  // own curve (curve, model, points) keeps none of the preset's shape
  const baseShape = preset && sources.length === 0 ? base.shape : undefined;
  const shape = { ...(baseShape ?? {}), ...shapeOver };
  if (raw["jitter"] !== undefined && !shapeOver.sigma) delete shape.sigma;
  if (shape.quantiles && !shapeOver.quantiles) delete shape.quantiles;
  if (shape.sigma || shape.quantiles || shape.mechanics || shape.depth) spec.shape = shape;
  else delete spec.shape;
  if (!over.card) {
    const what = preset ? `${preset} preset` : "device file";
    spec.card = { model: `${file} (${what}${sources.length ? `, ${sources[0]}` : ""})`, what: base.card && preset ? base.card.what : [], sources: [file] };
  }
  if (!preset && (over.name === undefined || over.devno === undefined)) {
    fail(over.name === undefined ? "name" : "devno", "without a preset, name and devno are required");
  }
  try {
    validateDeviceSpec(spec);
  } catch (e) {
    const msg = (e as Error).message;
    const field = /: (\S+) /.exec(msg)?.[1] ?? "";
    const top = field.split(".")[0]!;
    const key = field.startsWith("curve") ? sources[0] ?? "preset" : lines.has(top) ? top : field;
    throw new InputError(msg, file, lines.get(key) ?? firstLine, key || undefined);
  }
  return spec;
}
