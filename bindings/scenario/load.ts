// Scenario files: YAML that ties devices, cgroups with their interface files,
// workloads and timed config changes together.
//
//   name: tenants                      # required
//   description: two tenants share one NVMe
//   kernel: "6.18"                     # 6.1 | 6.12 | 6.18 (default 6.18)
//   cgroup_version: 2                  # 2 (io.max, io.weight) or 1 (blkio.*)
//   seed: 1
//   hz: 250                            # kernel HZ
//   jiffies_at_zero: 4294969796        # optional: jiffies at t = 0 ...
//   tick_phase_ns: 0                   # ... and how far after that tick t = 0 is
//   duration: 30s                      # stop the clock here (default: when jobs end)
//   series: 100ms                      # time-series bin (0 = none)
//   blkcg_debug_stats: true            # the blk_cgroup module parameter (default false):
//                                      # io.stat also shows cost.wait/indebt/indelay
//   devices:
//     - preset: nvme                   # ssd | nvme | hdd | ideal | nullb
//       name: nvme0n1                  # optional overrides: devno, channels, nr_requests,
//                                      # latency, jitter, max_sectors_kb, read_ahead_kb, rotational,
//                                      # wbt_lat_usec (writeback throttling: -1 = the
//                                      # kernel's default, 0 = off; unset = off)
//     - file: my-device.yaml           # or a device file (see bindings/device)
//   cgroups:
//     tenants/a:
//       io.max: "259:0 rbps=52428800 riops=2000"   # what `echo` writes; io.max and
//       io.weight: "default 100"                    # blkio.throttle.*: one write a line
//     tenants/b: {}
//   jobs:                              # fio options, one mapping per job section
//     - name: a
//       cgroup: tenants/a              # fio's own cgroup= option
//       filename: /dev/nvme0n1         # default: the first device
//       rw: randread
//       bs: 4k
//       iodepth: 32
//       ioengine: libaio
//       direct: 1
//       runtime: 30s
//       time_based: 1
//   fio: |                             # and/or a whole fio job file inline ...
//     [global] ...
//   fio_file: jobs.fio                 # ... or by path, relative to this file
//   changes:                           # config writes at simulated times
//     - at: 10s
//       cgroup: tenants/a
//       file: io.max
//       value: "259:0 rbps=max"
//
// Every error names the file, the line and the field. Times take fio's units
// (ns, us, ms, s, m, h; a bare number is seconds). A jobs: key is a fio option
// name, checked as fio checks it: one fio does not know (iodeph: 32) is an
// error at that key's line, as fio's "Bad option" (bindings/workload/fio-jobfile.ts).
//
// loadScenario reads YAML text; scenarioFromValue reads the same document as
// plain values with a map of its fields' lines (a Monte Carlo sample,
// bindings/mc/domains/io.ts), through the same loader (DocView below).

import { parseYaml, resolveAlias } from "../util/yaml-guard.js";
import { LineCounter, isAlias, isMap, isScalar, isSeq, type Document, type Node as YamlNode, type Pair } from "yaml";
import { mergedPairs } from "../util/yaml-merge.js";
import { InputError } from "./errors.js";
import { besideFile } from "../util/beside-file.js";
import { lineOfPath } from "../util/line-of-path.js";
import { normCgroupPath, withAncestors } from "../cgroup/path.js";
import { defaultClock } from "./defaults.js";
import { KERNEL_VERSIONS, DEFAULT_KERNEL, type ConfigWrite, type CgroupSpec, type DeviceSpec, type JobSpec, type KernelVersion, type Scenario } from "./types.js";
import { BadOptions, parseFioJobFile, parseTimeNs, ValueError, type FioJobMeta } from "../workload/index.js";
import { devicePreset, loadDeviceFile, validateDeviceSpec, type PresetName } from "../device/index.js";

export interface LoadOptions {
  /** read a file named by the scenario (fio_file, device file, includes), relative to the scenario */
  readFile?: (path: string, from: string) => string;
  /** values for ${VAR} in fio text */
  env?: Record<string, string>;
}

export interface LoadedScenario {
  scenario: Scenario;
  warnings: string[];
  /** fio's per-job reporting data (jobname, groupid, options) */
  fioMeta: FioJobMeta[];
  fioGlobalOptions: Record<string, string>;
}

const TOP_KEYS = new Set([
  "name", "description", "kernel", "cgroup_version", "seed", "hz", "jiffies_at_zero", "tick_phase_ns", "duration",
  "series", "record", "blkcg_debug_stats", "devices", "cgroups", "jobs", "fio", "fio_file", "changes",
]);

/**
 * How the loader reads a document: the nodes of a YAML file (yamlView: lines
 * from their source ranges) or plain values (valueView: a Monte Carlo sample,
 * lines from a map of field paths). One loader behind both, so a sampled
 * document is accepted, rejected and built exactly as the same document
 * written to a file would be.
 */
interface DocView<N> {
  root: N;
  isMap(n: N | undefined): boolean;
  isSeq(n: N | undefined): boolean;
  isScalar(n: N | undefined): boolean;
  /** a scalar's value */
  value(n: N): unknown;
  /** a mapping's entries in order; `key` undefined for a key that is not a scalar */
  pairs(m: N): readonly { key: string | undefined; keyNode: N | undefined; value: N | undefined }[];
  items(s: N): readonly N[];
  get(m: N, key: string): N | undefined;
  line(n: N | undefined): number | undefined;
  /** a number as written in the file (YAML reads an unquoted 6.10 as 6.1); undefined where there is no text */
  written(n: N | undefined): string | undefined;
}

type YNode = YamlNode | null;

function yamlView(doc: Document, lc: LineCounter, text: string): DocView<YNode> {
  // an alias (*name) reads as the node its anchor (&name) marks, as the
  // document's values have it (and as bindings/mc reads a sweep); its line
  // is the anchor's
  const res = (n: unknown): YNode => (isAlias(n) ? (resolveAlias(doc, n) as YNode | undefined) ?? null : (n as YNode));
  return {
    root: res(doc.contents),
    isMap: (n) => isMap(n),
    isSeq: (n) => isSeq(n),
    isScalar: (n) => isScalar(n),
    value: (n) => (n as { value?: unknown }).value,
    // (merge keys expanded: util/yaml-merge.ts)
    pairs: (m) => mergedPairs(doc, m).map((it: Pair) => ({
      key: isScalar(it.key) ? String(it.key.value) : undefined, keyNode: it.key as YNode, value: res(it.value),
    })),
    items: (s) => (s as unknown as { items: unknown[] }).items.map(res),
    get: (m, key) => {
      const it = mergedPairs(doc, m).find((p: Pair) => isScalar(p.key) && p.key.value === key);
      return it === undefined ? undefined : res(it.value);
    },
    line: (n) => (n?.range ? lc.linePos(n.range[0]).line : undefined),
    written: (n) => (isScalar(n) && typeof n.value === "number" && n.range ? text.slice(n.range[0], n.range[1]).trim() : undefined),
  };
}

/** A value of a plain document and where it sits (its field path is worked out only when a line is asked for). */
class ValueNode {
  constructor(readonly v: unknown, readonly up?: ValueNode, readonly key?: string | number) {}
  path(): string {
    if (!this.up) return "";
    const p = this.up.path();
    return typeof this.key === "number" ? `${p}[${this.key}]` : p ? `${p}.${this.key}` : this.key!;
  }
}

function valueView(value: unknown, lines: ReadonlyMap<string, number>): DocView<ValueNode> {
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object";
  return {
    root: new ValueNode(value),
    isMap: (n) => n !== undefined && isObj(n.v) && !Array.isArray(n.v),
    isSeq: (n) => n !== undefined && Array.isArray(n.v),
    isScalar: (n) => n !== undefined && !isObj(n.v),
    value: (n) => n.v,
    pairs: (m) => {
      const o = m.v as Record<string, unknown>;
      const out: { key: string; keyNode: ValueNode; value: ValueNode }[] = [];
      for (const k of Object.keys(o)) {
        if (o[k] === undefined) continue; // as YAML writes it: left out
        const n = new ValueNode(o[k], m, k);
        out.push({ key: k, keyNode: n, value: n });
      }
      return out;
    },
    items: (s) => (s.v as unknown[]).map((x, i) => new ValueNode(x, s, i)),
    get: (m, key) => {
      const x = (m.v as Record<string, unknown>)[key];
      return x === undefined || !Object.hasOwn(m.v as object, key) ? undefined : new ValueNode(x, m, key);
    },
    line: (n) => (n === undefined ? undefined : lineOfPath(lines, n.path())),
    written: () => undefined,
  };
}

export function loadScenario(text: string, file: string, opts: LoadOptions = {}): LoadedScenario {
  const { doc, lc, problem } = parseYaml(text);
  if (problem) throw new InputError(problem.message, file, problem.line, undefined);
  return loadView(yamlView(doc, lc, text), file, opts);
}

/**
 * The same, from an already-parsed document of plain values (a Monte Carlo
 * sample: no YAML to write and parse again per run). `lines` maps field paths
 * of the document ("jobs[0].bs") to lines of the file it came from; errors
 * and the scenario's source lines (cgroups, jobs, changes) name the line of
 * a field's path or of its nearest enclosing field (lineOfPath).
 */
export function scenarioFromValue(value: unknown, file: string, opts: LoadOptions = {}, lines: ReadonlyMap<string, number> = new Map()): LoadedScenario {
  return loadView(valueView(value, lines), file, opts);
}

function loadView<N>(view: DocView<N>, file: string, opts: LoadOptions): LoadedScenario {
  const root = view.root;
  const lineOf = (n: N | undefined) => view.line(n);
  if (!view.isMap(root)) throw new InputError("a scenario file is a YAML mapping (name:, devices:, jobs: ...)", file, 1);
  const get = (m: N, key: string): N | undefined => view.get(m, key);
  for (const it of view.pairs(root)) {
    const k = it.key ?? "";
    if (!TOP_KEYS.has(k)) throw new InputError(`unknown key "${k}" (known: ${[...TOP_KEYS].join(", ")})`, file, lineOf(it.keyNode), k);
  }
  const str = (key: string, node: N | undefined, def?: string): string => {
    if (node === undefined || node === null) {
      if (def !== undefined) return def;
      throw new InputError(`"${key}" is required`, file, lineOf(root), key);
    }
    if (!view.isScalar(node)) throw new InputError(`"${key}" must be a single value`, file, lineOf(node), key);
    return String(view.value(node));
  };
  const num = (key: string, node: N | undefined, def: number): number => {
    if (node === undefined) return def;
    const v = Number(str(key, node));
    if (!Number.isFinite(v)) throw new InputError(`"${key}" must be a number, got "${str(key, node)}"`, file, lineOf(node), key);
    return v;
  };
  const seedOf = (node: N | undefined): number => {
    const v = num("seed", node, 1);
    if (!Number.isSafeInteger(v) || v < 0) throw new InputError(`"seed" must be a non-negative integer, got "${str("seed", node!)}"`, file, lineOf(node!), "seed");
    return v;
  };
  const time = (key: string, node: N | undefined): number | undefined => {
    if (node === undefined) return undefined;
    const raw = str(key, node);
    try {
      return parseTimeNs(raw, "s");
    } catch (e) {
      throw new InputError(`"${key}": ${(e as Error).message} (got "${raw}")`, file, lineOf(node), key);
    }
  };
  const warnings: string[] = [];

  const name = str("name", get(root, "name"));
  // the version as written: YAML reads an unquoted 6.10 as the number 6.1
  const kernelNode = get(root, "kernel");
  const kernelRaw = (kernelNode !== undefined ? view.written(kernelNode) : undefined) ?? str("kernel", kernelNode, DEFAULT_KERNEL);
  if (!KERNEL_VERSIONS.includes(kernelRaw as KernelVersion)) {
    throw new InputError(`kernel "${kernelRaw}" has no profile (known: ${KERNEL_VERSIONS.join(", ")})`, file, lineOf(get(root, "kernel")), "kernel");
  }
  const cgv = num("cgroup_version", get(root, "cgroup_version"), 2);
  if (cgv !== 1 && cgv !== 2) throw new InputError(`cgroup_version must be 1 or 2, got ${cgv}`, file, lineOf(get(root, "cgroup_version")), "cgroup_version");
  const hz = num("hz", get(root, "hz"), 250);
  if (![100, 250, 300, 1000].includes(hz)) throw new InputError(`hz must be one of 100, 250, 300, 1000 (CONFIG_HZ), got ${hz}`, file, lineOf(get(root, "hz")), "hz");
  const clock = defaultClock(hz);
  const jz = get(root, "jiffies_at_zero");
  if (jz !== undefined) {
    const raw = str("jiffies_at_zero", jz);
    if (!/^\d+$/.test(raw)) throw new InputError(`jiffies_at_zero must be an unsigned integer, got "${raw}"`, file, lineOf(jz), "jiffies_at_zero");
    clock.jiffiesAtZero = BigInt(raw);
  }
  clock.zeroAfterTickNs = num("tick_phase_ns", get(root, "tick_phase_ns"), 0);
  if (clock.zeroAfterTickNs < 0 || clock.zeroAfterTickNs >= 1e9 / hz) {
    throw new InputError(`tick_phase_ns must be in [0, ${1e9 / hz})`, file, lineOf(get(root, "tick_phase_ns")), "tick_phase_ns");
  }

  // devices
  const devices: DeviceSpec[] = [];
  const devNode = get(root, "devices");
  if (devNode === undefined) devices.push(devicePreset("ssd"));
  else {
    if (!view.isSeq(devNode)) throw new InputError("devices: a list of devices", file, lineOf(devNode), "devices");
    for (const d of view.items(devNode)) {
      if (!view.isMap(d)) throw new InputError("each device is a mapping (preset: ssd, name: ...)", file, lineOf(d), "devices");
      const dfile = get(d, "file");
      let spec: DeviceSpec;
      if (dfile !== undefined) {
        const path = str("file", dfile);
        if (!opts.readFile) throw new InputError("device files can only be read from a scenario file on disk", file, lineOf(dfile), "file");
        spec = loadDeviceFile(opts.readFile(path, file), besideFile(file, path));
      } else {
        const preset = str("preset", get(d, "preset"), "ssd");
        try {
          spec = devicePreset(preset as PresetName);
        } catch (e) {
          throw new InputError((e as Error).message, file, lineOf(get(d, "preset")), "preset");
        }
      }
      const entries = view.pairs(d);
      for (const it of entries) {
        const k = it.key ?? "";
        const v = it.value;
        const line = lineOf(v);
        const n = () => {
          const x = Number(str(k, v));
          if (!Number.isFinite(x) || x < 0) throw new InputError(`"${k}" must be a non-negative number`, file, line, k);
          return x;
        };
        switch (k) {
          case "file": case "preset": break;
          case "name": spec.name = str(k, v); break;
          case "devno":
            spec.devno = str(k, v);
            if (!/^\d+:\d+$/.test(spec.devno)) throw new InputError(`devno must be MAJ:MIN, got "${spec.devno}"`, file, line, k);
            break;
          case "channels": spec.channels = n(); break;
          case "nr_requests": spec.nrRequests = n(); break;
          case "latency": spec.latencyNs = time(k, v)!; break;
          case "jitter": spec.jitterSigma = n(); break;
          case "max_sectors_kb": spec.maxSectorsKb = n(); break;
          case "read_ahead_kb": {
            const x = n();
            if (!Number.isInteger(x)) throw new InputError(`"read_ahead_kb" must be a whole number of KiB`, file, line, k);
            spec.readAheadKb = x;
            break;
          }
          case "rotational": spec.rotational = ["1", "true", "yes"].includes(str(k, v).toLowerCase()); break;
          // /sys/block/<dev>/queue/wbt_lat_usec, written at t = 0 with the kernel's rules (bindings/cgroup/iolatency.ts)
          case "wbt_lat_usec": spec.wbtLatUsec = str(k, v); break;
          default: throw new InputError(`unknown device key "${k}"`, file, lineOf(it.keyNode), k);
        }
      }
      // the checks a --device file gets (channels 0, jitter 10 or max_sectors_kb 0 ran, some as nonsense)
      try {
        validateDeviceSpec(spec);
      } catch (e) {
        const msg = (e as Error).message;
        const field = /: (\S+) /.exec(msg)?.[1] ?? "";
        const node = entries.find((it) => it.key !== undefined && it.key === field);
        throw new InputError(msg.replace(/^device [^:]*: /, ""), file, lineOf(node?.value ?? d), field || "devices");
      }
      if (devices.some((x) => x.name === spec.name || x.devno === spec.devno)) {
        throw new InputError(`two devices named ${spec.name} / ${spec.devno}: give each its own name and devno`, file, lineOf(d), "devices");
      }
      devices.push(spec);
    }
    if (devices.length === 0) throw new InputError("devices: the list is empty; a scenario needs at least one device (or no devices: key for an ssd)", file, lineOf(devNode), "devices");
  }

  // cgroups
  const cgroups: CgroupSpec[] = [];
  const cgNode = get(root, "cgroups");
  if (cgNode !== undefined) {
    if (!view.isMap(cgNode)) throw new InputError("cgroups: a mapping of cgroup path -> {file: value}", file, lineOf(cgNode), "cgroups");
    for (const it of view.pairs(cgNode)) {
      const path = it.key ?? "";
      const v = it.value;
      const files: Record<string, string> = {};
      const fileLines: Record<string, number> = {};
      if (v !== null && v !== undefined && !(view.isScalar(v) && view.value(v) === null)) {
        if (!view.isMap(v)) throw new InputError(`cgroup "${path}": a mapping of interface file -> value`, file, lineOf(v), path);
        for (const f of view.pairs(v)) {
          const fname = f.key ?? "";
          files[fname] = str(fname, f.value);
          const fl = lineOf(f.value);
          if (fl !== undefined) fileLines[fname] = fl;
        }
      }
      const line = lineOf(it.keyNode);
      cgroups.push({ path: path.replace(/^\/+|\/+$/g, ""), files, fileLines, source: { file, line, field: path } });
    }
  }

  // jobs: mappings of fio options, rendered as one fio job file so the fio
  // parser's rules apply; its line numbers are mapped back to this file.
  const iniLines: string[] = [];
  const iniToYaml: number[] = [];
  const jobsNode = get(root, "jobs");
  if (jobsNode !== undefined) {
    if (!view.isSeq(jobsNode)) throw new InputError("jobs: a list of fio job mappings", file, lineOf(jobsNode), "jobs");
    view.items(jobsNode).forEach((j, idx) => {
      if (!view.isMap(j)) throw new InputError("each job is a mapping of fio options", file, lineOf(j), "jobs");
      const jname = get(j, "name");
      // a value is one line of the job file it becomes: a newline or a bracket in
      // a name would start another section ("4k\n[evil]\nrw=write")
      const oneLine = (k: string, x: string, n: N | undefined) => {
        if (/[\r\n]/.test(x)) throw new InputError(`"${k}": a fio option's value is one line (this one holds a line break)`, file, lineOf(n), k);
        return x;
      };
      const jn = jname !== undefined ? oneLine("name", str("name", jname), jname) : `job${idx}`;
      if (/[[\]]/.test(jn)) throw new InputError(`"name": a job name cannot hold "[" or "]" (they end a fio section name)`, file, lineOf(jname), "name");
      iniLines.push(`[${jn}]`);
      iniToYaml.push(lineOf(j) ?? 0);
      for (const it of view.pairs(j)) {
        const k = it.key ?? "";
        if (k === "name") continue;
        const v = it.value;
        if (!view.isScalar(v)) throw new InputError(`fio option "${k}" must be a single value`, file, lineOf(v), k);
        const x = view.value(v!);
        oneLine(k, k, it.keyNode);
        iniLines.push(x === null || x === true ? k : `${k}=${oneLine(k, String(x === false ? 0 : x), v)}`);
        iniToYaml.push(lineOf(it.keyNode) ?? 0);
      }
    });
  }
  const fioMeta: FioJobMeta[] = [];
  let fioGlobalOptions: Record<string, string> = {};
  const jobs: JobSpec[] = [];
  const fioOpts = {
    readFile: opts.readFile,
    defaultDevice: devices[0]!.name,
    devices: devices.flatMap((d) => [d.name]),
    deviceSizes: Object.fromEntries(devices.filter((d) => d.sizeBytes).map((d) => [d.name, d.sizeBytes!])),
    env: opts.env,
  };
  if (iniLines.length > 0) {
    const label = `${file} jobs`;
    try {
      const parsed = parseFioJobFile(iniLines.join("\n") + "\n", label, fioOpts);
      jobs.push(...parsed.jobs.map((j) => ({ ...j, source: { file, line: iniToYaml[(j.source?.line ?? 1) - 1], field: j.name } })));
      fioMeta.push(...parsed.meta);
      fioGlobalOptions = parsed.globalOptions;
      warnings.push(...parsed.warnings.map((w) => remapLines(w, label, file, iniToYaml)));
    } catch (e) {
      if (e instanceof BadOptions && e.file === label) throw e.remap(file, (l) => (l !== undefined ? iniToYaml[l - 1] : undefined));
      if (e instanceof InputError && e.file === label) {
        throw new InputError(e.detail, file, e.line !== undefined ? iniToYaml[e.line - 1] : undefined, e.field, e.errno);
      }
      throw e;
    }
  }
  const addFio = (text: string, fioFile: string) => {
    const parsed = parseFioJobFile(text, fioFile, fioOpts);
    jobs.push(...parsed.jobs);
    fioMeta.push(...parsed.meta);
    fioGlobalOptions = { ...fioGlobalOptions, ...parsed.globalOptions };
    warnings.push(...parsed.warnings);
  };
  const inlineFio = get(root, "fio");
  if (inlineFio !== undefined) addFio(str("fio", inlineFio), `${file} fio`);
  const fioFile = get(root, "fio_file");
  if (fioFile !== undefined) {
    const path = str("fio_file", fioFile);
    if (!opts.readFile) throw new InputError("fio_file can only be read from a scenario file on disk", file, lineOf(fioFile), "fio_file");
    addFio(opts.readFile(path, file), besideFile(file, path));
  }

  // timed changes
  const writes: ConfigWrite[] = [];
  const chNode = get(root, "changes");
  if (chNode !== undefined) {
    if (!view.isSeq(chNode)) throw new InputError("changes: a list of {at, cgroup, file, value}", file, lineOf(chNode), "changes");
    for (const c of view.items(chNode)) {
      if (!view.isMap(c)) throw new InputError("each change is a mapping {at, cgroup, file, value}", file, lineOf(c), "changes");
      for (const it of view.pairs(c)) {
        const k = it.key ?? "";
        if (!["at", "cgroup", "file", "value"].includes(k)) throw new InputError(`unknown key "${k}" in a change (at, cgroup, file, value)`, file, lineOf(it.keyNode), k);
      }
      for (const k of ["file", "value"]) if (get(c, k) === undefined) throw new InputError(`a change needs "${k}"`, file, lineOf(c), k);
      const at = time("at", get(c, "at"));
      if (at === undefined) throw new InputError(`a change needs "at"`, file, lineOf(c), "at");
      writes.push({
        atNs: at,
        cgroup: str("cgroup", get(c, "cgroup"), "").replace(/^\/+|\/+$/g, ""),
        file: str("file", get(c, "file")),
        value: str("value", get(c, "value")),
        source: { file, line: lineOf(c), field: "changes" },
      });
    }
  }

  // a change writes a file of a cgroup that exists: one declared under
  // cgroups:, one a job runs in, or an ancestor of either (a misspelt path
  // would otherwise create an empty cgroup and change nothing; the kernel
  // answers ENOENT)
  if (chNode !== undefined && view.isSeq(chNode)) {
    const known = withAncestors([...cgroups.map((g) => g.path), ...jobs.map((j) => j.cgroup)]);
    const changes = view.items(chNode);
    writes.forEach((w, i) => {
      if (known.has(normCgroupPath(w.cgroup))) return;
      const node = get(changes[i]!, "cgroup")!;
      throw new InputError(`cgroup "${w.cgroup}" is neither declared under cgroups: nor used by a job (the kernel answers ENOENT)`, file, lineOf(node), "cgroup");
    });
  }

  const series = time("series", get(root, "series"));
  /** a time that must be > 0 when given (duration: 0 ran nothing and reported an empty run) */
  const positiveTime = (key: string): number | undefined => {
    const v = time(key, get(root, key));
    if (v !== undefined && !(v > 0)) throw new InputError(`"${key}" must be more than 0, got "${str(key, get(root, key))}"`, file, lineOf(get(root, key)), key);
    return v;
  };
  const recordNode = get(root, "record");
  const debugNode = get(root, "blkcg_debug_stats");
  let blkcgDebugStats: boolean | undefined;
  if (debugNode !== undefined) {
    // a bool module parameter: param_set_bool() -> kstrtobool() takes 1/0, y/n, on/off (YAML's true/false too)
    const raw = str("blkcg_debug_stats", debugNode).toLowerCase();
    if (["1", "y", "yes", "true", "on"].includes(raw)) blkcgDebugStats = true;
    else if (["0", "n", "no", "false", "off"].includes(raw)) blkcgDebugStats = false;
    else throw new InputError(`blkcg_debug_stats must be true or false, got "${raw}"`, file, lineOf(debugNode), "blkcg_debug_stats");
  }
  const scenario: Scenario = {
    name,
    description: get(root, "description") !== undefined ? str("description", get(root, "description")) : undefined,
    kernel: kernelRaw as KernelVersion,
    cgroupVersion: cgv,
    seed: seedOf(get(root, "seed")),
    clock,
    devices,
    cgroups,
    jobs,
    writes,
    durationNs: positiveTime("duration"),
    seriesBinNs: series ?? 100e6,
    record: recordNode !== undefined && ["1", "true", "yes"].includes(str("record", recordNode).toLowerCase()),
    ...(blkcgDebugStats !== undefined ? { blkcgDebugStats } : {}),
    source: { file },
  };
  if (jobs.length === 0) warnings.push(`${file}: the scenario has no jobs; nothing will be submitted`);
  return { scenario, warnings, fioMeta, fioGlobalOptions };
}

function remapLines(w: string, label: string, file: string, map: number[]): string {
  return w.replace(new RegExp(`${escapeRe(label)}:(\\d+)`, "g"), (_m, n) => `${file}:${map[Number(n) - 1] ?? n}`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export { ValueError };
