// Generators of hostile and careless inputs for the CLI fuzz suite (issue #33):
// scenario YAML, fio job files, cgroup interface-file values, device files,
// blk-throttle traces and Kubernetes scenarios, built from their grammars with
// values drawn from pools of ordinary, boundary and absurd values, and
// mutations of the project's own valid examples (lines dropped, doubled or
// swapped, numbers replaced by extremes, YAML specials inserted).
//
// A case is the files it writes (name -> text) and the command line that
// reads them ("{dir}" is replaced by the case's directory).
import fc from "fast-check";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { ROOT } from "../helpers/cli-inproc.js";

export interface FuzzCase {
  kind: string;
  files: Record<string, string>;
  args: string[];
}

// ------------------------------------------------------------ value pools

const NUMS = ["0", "-1", "1", "2", "1.5", "1e300", "-1e300", ".nan", ".inf", "-.inf", "4294967295", "4294967296", "4294967297",
  "9007199254740993", "18446744073709551616", "0x10", "1e-300", "100", "1000", "65536", "128", "3", "abc", "''", "null", "~", "true"];
const TIMES = ["1s", "0s", "0", "1ns", "1us", "100ms", "2s", "1h", "8760h", "-1s", "1e9h", "abc", "1.5", "10y", "1m", "250ms", "99999999999999h", "3.7s"];
const SIZES = ["4k", "0", "1", "512", "1g", "-4k", "4294967297", "1e30", "4k:8k", "1k-64k", "4k/50:64k/50", "512b", "17", "16m", "8p", "4K"];
const FIO_OPTS: Record<string, string[]> = {
  rw: ["read", "write", "randread", "randwrite", "rw", "randrw", "trim", "readwrite", "bogus", ""],
  bs: SIZES, bsrange: SIZES, blocksize: SIZES, size: SIZES, filesize: SIZES, offset: SIZES, io_size: SIZES,
  iodepth: NUMS, numjobs: NUMS, rwmixread: NUMS, number_ios: NUMS, thinktime: TIMES, thinktime_blocks: NUMS,
  runtime: TIMES, startdelay: TIMES, time_based: ["0", "1", ""], ioengine: ["libaio", "psync", "sync", "io_uring", "null", "bogus"],
  direct: ["0", "1", "2"], rate: ["1m", "0", "1", "10k,5k", "-1", "1e30"], rate_iops: NUMS, kb_base: ["1000", "1024", "7"],
  filename: ["/dev/sda", "/dev/nvme0n1", "/dev/zero", "a:b", ""], stonewall: [""], group_reporting: [""], cgroup: ["a", "a/b", "/", "../x", ""],
  bssplit: ["4k/50:64k/50", "4k/200", "0/0", "4k"], read_iolog: ["/dev/zero", "nope.log", "it.log"], loops: NUMS, ramp_time: TIMES,
};
const CGROUP_FILES: Record<string, string[]> = {
  "io.max": ["8:0 rbps=1048576", "8:0 riops=0", "8:0 wiops=max", "8:0 rbps=18446744073709551616", "8:0 riops=4294967297", "259:0 rbps=1", "8:0", "garbage", "8:0 rbps=10m"],
  "io.weight": ["100", "0", "10000", "default 50", "8:0 200", "4294967397", "-1"],
  "io.cost.qos": ["8:0 enable=1 ctrl=user rpct=95 rlat=5000 wpct=95 wlat=5000 min=50 max=150", "8:0 enable=1 min=0 max=0", "8:0 enable=1 rlat=0 wlat=0", "8:0 rpct=101"],
  "io.cost.model": ["8:0 ctrl=user model=linear rbps=0 rseqiops=0 rrandiops=0 wbps=0 wseqiops=0 wrandiops=0", "8:0 ctrl=user rbps=1", "8:0 ctrl=auto", "8:0 model=quadratic"],
  "blkio.throttle.read_iops_device": ["8:0 0", "8:0 1", "8:0 4294967297", "8:0 -1"],
  "blkio.throttle.read_bps_device": ["8:0 0", "8:0 1", "8:0 1048576"],
  "io.latency": ["8:0 target=0", "8:0 target=100"],
  "io.bfq.weight": ["100"],
};
const DEVICE_KEYS: Record<string, string[]> = {
  preset: ["ssd", "nvme", "hdd", "ideal", "nullb", "floppy"],
  name: ["sda", "nvme0n1", "loop1", "x", "", "sdb\nc"],
  devno: ['"8:0"', '"259:0"', '"7:1"', "8:0", '"a:b"', '"4294967297:0"'],
  channels: NUMS, nr_requests: NUMS, latency: TIMES, jitter: NUMS, max_sectors_kb: NUMS, rotational: ["true", "false", "2"],
  curve: ["ssd", "nvme", "hdd", "banana"],
  model: ["wdc-sn730-256g", "8:0 rbps=1 rseqiops=1 rrandiops=1 wbps=1 wseqiops=1 wrandiops=1", "{rbps: 0}", "nope"],
  points: ["[[4096, 80000]]", "[[4096, 1e12]]", "[[4096, 0]]", "[[0, 1]]", "[]", "[[4096, 1], [2048, 2]]", "{read: [[4096, 10]]}", "[[4294967297, 1]]"],
};

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

// ------------------------------------------------------------ scenario YAML

const job = fc.dictionary(pick(Object.keys(FIO_OPTS)), fc.constant(""), { maxKeys: 6 }).chain((d) =>
  fc.record(Object.fromEntries(Object.keys(d).map((k) => [k, pick(FIO_OPTS[k]!)]))),
).map((o) => o as Record<string, string>);

const cgroups = fc.dictionary(pick(["a", "b", "a/b", "/", "", "a/b/c", "x y", "../up"]),
  fc.dictionary(pick(Object.keys(CGROUP_FILES)), fc.constant(""), { maxKeys: 3 }).chain((d) =>
    fc.record(Object.fromEntries(Object.keys(d).map((k) => [k, pick(CGROUP_FILES[k]!)]))),
  ), { maxKeys: 3 });

const device = fc.dictionary(pick(Object.keys(DEVICE_KEYS)), fc.constant(""), { maxKeys: 4 }).chain((d) =>
  fc.record(Object.fromEntries(Object.keys(d).map((k) => [k, pick(DEVICE_KEYS[k]!)]))),
);

/** YAML text of a device mapping whose values are written raw (their own YAML) */
function rawYamlMap(o: Record<string, string>, indent: string): string {
  return Object.entries(o).map(([k, v]) => `${indent}${k}: ${v === "" ? "''" : v.includes("\n") ? JSON.stringify(v) : v}`).join("\n");
}

export const scenarioCase: fc.Arbitrary<FuzzCase> = fc.record({
  name: pick(["t", "", "a b", "x\ny"]),
  kernel: fc.option(pick(['"6.1"', '"6.12"', '"6.18"', "6.10", "5.4"]), { nil: undefined }),
  hz: fc.option(pick(["100", "250", "1000", "0", "-250", "7"]), { nil: undefined }),
  cgv: fc.option(pick(["1", "2", "3"]), { nil: undefined }),
  duration: fc.option(pick(TIMES), { nil: undefined }),
  series: fc.option(pick(TIMES), { nil: undefined }),
  record: fc.option(pick(["true", "false"]), { nil: undefined }),
  devices: fc.option(fc.array(device, { maxLength: 3 }), { nil: undefined }),
  cgroups: fc.option(cgroups, { nil: undefined }),
  jobs: fc.array(job, { maxLength: 3 }),
}).map((s) => {
  const lines = [`name: ${JSON.stringify(s.name)}`];
  if (s.kernel) lines.push(`kernel: ${s.kernel}`);
  if (s.hz) lines.push(`hz: ${s.hz}`);
  if (s.cgv) lines.push(`cgroup_version: ${s.cgv}`);
  if (s.duration) lines.push(`duration: ${s.duration}`);
  if (s.series) lines.push(`series: ${s.series}`);
  if (s.record) lines.push(`record: ${s.record}`);
  if (s.devices) lines.push(s.devices.length ? "devices:\n" + s.devices.map((d) => "  -\n" + (rawYamlMap(d, "    ") || "    preset: ssd")).join("\n") : "devices: []");
  if (s.cgroups) lines.push("cgroups:\n" + Object.entries(s.cgroups).map(([p, f]) => `  ${JSON.stringify(p)}:\n${Object.entries(f).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join("\n") || "    {}"}`).join("\n"));
  if (s.jobs.length) lines.push("jobs:\n" + s.jobs.map((j, i) => `  - name: j${i}\n` + Object.entries(j).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`).join("\n")).join("\n"));
  return { kind: "scenario", files: { "s.yaml": lines.join("\n") + "\n", "it.log": "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda read 0 4096\n/dev/sda close\n" }, args: ["run", "-q", "--json", "{dir}/s.yaml", "--out", "{dir}/out"] };
});

// ------------------------------------------------------------ fio job files

export const fioCase: fc.Arbitrary<FuzzCase> = fc.record({
  global: fc.option(job, { nil: undefined }),
  jobs: fc.array(fc.tuple(pick(["j", "global", "a b", "x]", ""]), job), { minLength: 1, maxLength: 3 }),
  device: pick(["ssd", "nvme", "hdd", "ideal", "nullb"]),
}).map((f) => {
  const sec = (name: string, o: Record<string, string>) => `[${name}]\n` + Object.entries(o).map(([k, v]) => (v === "" ? k : `${k}=${v}`)).join("\n");
  const text = [f.global ? sec("global", f.global) : "", ...f.jobs.map(([n, o]) => sec(n, o))].filter(Boolean).join("\n") + "\n";
  return { kind: "fio", files: { "j.fio": text, "it.log": "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda read 0 4096\n/dev/sda write 4096 8192\n/dev/sda close\n" }, args: ["run", "-q", "--json", "--device", f.device, "{dir}/j.fio"] };
});

// ------------------------------------------------------------ device files

export const deviceCase: fc.Arbitrary<FuzzCase> = device.map((d) => ({
  kind: "device",
  files: { "d.yaml": (rawYamlMap(d, "") || "{}") + "\n" },
  args: ["run", "-q", "--json", "--device", "{dir}/d.yaml"],
}));

// ------------------------------------------------------------ traces

const TRACE = readFileSync(join(ROOT, "test", "fixtures", "oracle", "throtl", "traces", "iops100_qd1_read", "run1.jsonl"), "utf8").split("\n").slice(0, 12);
const TRACE_VALUES: unknown[] = [0, -1, 1, 1.5, 3944016.5, 1e300, -1e300, 2 ** 53, 2 ** 64, "x", null, true, [], {}, 250, 1000];

export const traceCase: fc.Arbitrary<FuzzCase> = fc.record({
  header: fc.array(fc.tuple(pick(["hz", "t0_mono_ns", "jiffies.tick_ns", "jiffies.offset", "jiffies.grid_offset_ns", "cgroups", "jobs", "device", "scenario_spec", "limits_written", "events", "type", "kernel"]), pick(TRACE_VALUES)), { maxLength: 2 }),
  recs: fc.array(fc.tuple(fc.nat(10), pick(["seq", "submit_ns", "complete_ns", "off", "size", "dir", "job", "errno", "type"]), pick([...TRACE_VALUES, "R", "W", "r"])), { maxLength: 3 }),
  drop: fc.array(fc.nat(11), { maxLength: 2 }),
  cmd: pick([["compare"], ["replay"], ["explain", "--job", "r", "--seq", "2"], ["compare", "--kernel", "6.1"]]),
}).map((t) => {
  const h = JSON.parse(TRACE[0]!);
  for (const [k, v] of t.header) {
    const [a, b] = k.split(".");
    if (b) {
      if (typeof h[a!] === "object" && h[a!] !== null) h[a!][b] = v;
    } else h[a!] = v;
  }
  const recs = TRACE.slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l));
  for (const [i, k, v] of t.recs) if (recs[i % recs.length]) recs[i % recs.length][k] = v;
  const lines = [JSON.stringify(h), ...recs.map((r) => JSON.stringify(r))].filter((_, i) => !t.drop.includes(i));
  return { kind: "trace", files: { "t.jsonl": lines.join("\n") + "\n" }, args: [t.cmd[0]!, "{dir}/t.jsonl", ...t.cmd.slice(1)] };
});

// ------------------------------------------------------------ mutations of valid examples

function examples(): Array<{ name: string; text: string; args: (p: string) => string[] }> {
  const out: Array<{ name: string; text: string; args: (p: string) => string[] }> = [];
  const k8s = join(ROOT, "bindings", "k8s", "scenarios");
  for (const f of readdirSync(k8s).filter((f) => f.endsWith(".yaml"))) out.push({ name: f, text: readFileSync(join(k8s, f), "utf8"), args: (p) => ["k8s", "run", p, "--json"] });
  for (const f of ["iocost-bursty.yaml", "shared-log-writeback.yaml"]) out.push({ name: f, text: readFileSync(join(ROOT, "scenarios", f), "utf8"), args: (p) => ["run", "-q", "--json", p] });
  const fio = join(ROOT, "test", "fixtures", "fio");
  for (const f of readdirSync(fio).filter((f) => f.endsWith(".fio"))) out.push({ name: f, text: readFileSync(join(fio, f), "utf8"), args: (p) => ["run", "-q", "--json", p] });
  const mc = join(ROOT, "bindings", "mc", "examples");
  for (const f of readdirSync(mc).filter((f) => f.endsWith(".yaml"))) out.push({ name: f, text: readFileSync(join(mc, f), "utf8"), args: (p) => ["mc", p, "--runs", "3", "--workers", "0", "--no-shrink", "--no-progress", "--json", "--out", p.replace(/[^/]*$/, "mcout")] });
  return out;
}
let EXAMPLES: ReturnType<typeof examples> | undefined;

const INSERTS = ["&a", "*a", "<<: *a", "<<: [*a, *a]", "[", "{", "}", "]", ":", "- ", "\t", "'", '"', "!!binary", "%YAML 1.1", "---", "\\n", "#", "\u0000", "\uFEFF", "? ", "|", ">"];

type Mutation = { op: "drop" | "dup" | "swap" | "num" | "insert" | "trunc" | "indent"; at: number; at2: number; v: string };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: pick(["drop", "dup", "swap", "num", "insert", "trunc", "indent"] as const),
  at: fc.nat(400),
  at2: fc.nat(400),
  v: fc.oneof(pick(NUMS), pick(TIMES), pick(SIZES), pick(INSERTS)),
});

export function mutate(text: string, ms: Mutation[]): string {
  let lines = text.split("\n");
  for (const m of ms) {
    const i = m.at % Math.max(1, lines.length);
    const j = m.at2 % Math.max(1, lines.length);
    switch (m.op) {
      case "drop": lines.splice(i, 1); break;
      case "dup": lines.splice(i, 0, lines[i] ?? ""); break;
      case "swap": [lines[i], lines[j]] = [lines[j] ?? "", lines[i] ?? ""]; break;
      case "num": {
        let k = 0;
        lines[i] = (lines[i] ?? "").replace(/-?\d+(\.\d+)?/g, (x) => (k++ === m.at2 % 3 ? m.v : x));
        break;
      }
      case "insert": {
        const l = lines[i] ?? "";
        const c = m.at2 % (l.length + 1);
        lines[i] = l.slice(0, c) + m.v + l.slice(c);
        break;
      }
      case "trunc": lines = lines.slice(0, i + 1); break;
      case "indent": lines[i] = "  " + (lines[i] ?? ""); break;
    }
  }
  return lines.join("\n");
}

export const mutatedCase: fc.Arbitrary<FuzzCase> = fc.tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([n, ms]) => {
  EXAMPLES ??= examples();
  const ex = EXAMPLES[n % EXAMPLES.length]!;
  const file = ex.name;
  return { kind: `mutated ${ex.name}`, files: { [file]: mutate(ex.text, ms), "common.inc": readFileSync(join(ROOT, "test", "fixtures", "fio", "common.inc"), "utf8"), "replay-v2.log": readFileSync(join(ROOT, "test", "fixtures", "fio", "replay-v2.log"), "utf8"), "replay-v3.log": readFileSync(join(ROOT, "test", "fixtures", "fio", "replay-v3.log"), "utf8") }, args: ex.args(`{dir}/${file}`) };
});

// ------------------------------------------------------------ Kubernetes, from its grammar

export const k8sCase: fc.Arbitrary<FuzzCase> = fc.record({
  duration: fc.option(pick(["20m", "0s", "8760h", "876000h", "1e9h", "-1m", "abc", "1ms"]), { nil: undefined }),
  offset: fc.option(pick(['"+08:00"', '"-0700"', '"+99:99"', '"+14:00"', '"+14:01"', "x"]), { nil: undefined }),
  nodes: fc.array(pick(["n1", "n1", "n2", "", "N"]), { maxLength: 3 }),
  pods: fc.array(fc.record({ name: pick(["p", "p", "q", ""]), node: pick(["n1", "n2", "nope"]), claim: fc.option(pick(["c", "d"]), { nil: undefined }) }), { maxLength: 3 }),
  at: fc.array(fc.tuple(pick(["1s", "0s", "30m", "-1s", "1e9h", "x"]), pick(["deletePod", "restartKubelet", "deleteNode", "bogus", "taint"])), { maxLength: 3 }),
  version: pick(['"1.22"', '"1.25"', '"1.9"', "1.3", '"9.99"']),
  seed: fc.option(pick(NUMS), { nil: undefined }),
}).map((k) => {
  const l = ["name: fuzz", `version: ${k.version}`];
  if (k.seed) l.push(`seed: ${k.seed}`);
  if (k.duration) l.push(`duration: ${k.duration}`);
  if (k.offset) l.push(`clock:\n  utcOffset: ${k.offset}`);
  l.push("objects:");
  for (const n of k.nodes) l.push(`  - kind: Node\n    metadata: {name: ${JSON.stringify(n)}}`);
  for (const p of k.pods) {
    l.push(`  - kind: Pod\n    metadata: {name: ${JSON.stringify(p.name)}}\n    spec:\n      nodeName: ${p.node}\n      containers: [{name: app${p.claim ? ", volumeMounts: [{name: v, mountPath: /d}]" : ""}}]`);
    if (p.claim) l.push(`      volumes: [{name: v, persistentVolumeClaim: {claimName: ${p.claim}}}]`);
  }
  if (!k.nodes.length && !k.pods.length) l.push("  []");
  if (k.at.length) l.push("timeline:\n" + k.at.map(([t, a]) => `  - at: ${t}\n    action: ${a}\n    pod: p\n    node: n1`).join("\n"));
  return { kind: "k8s", files: { "k.yaml": l.join("\n") + "\n" }, args: ["k8s", "run", "{dir}/k.yaml", "--json"] };
});

// ------------------------------------------------------------ Monte Carlo command lines

const JDIR = join(ROOT, "test", "fixtures", "fuzz", "journal");
const SWEEP = readFileSync(join(JDIR, "sweep.yaml"), "utf8");
const JOURNAL = readFileSync(join(JDIR, "runs.jsonl"), "utf8").split("\n").filter((l) => l.trim());

const MC_OPTS: Record<string, string[]> = {
  "--runs": ["3", "0", "-1", "1.5", "4294967296", "1e12", "abc", "18446744073709551617", "2", "9007199254740993"],
  "--seed": ["1", "0", "-1", "18446744073709551616", "abc", "0x10", "1e3"],
  "--shard": ["0/1", "1/2", "2/2", "1/0", "a/b", "0/4294967297", "-1/2"],
  "--by": ["depth", "nope", "depth:1,2", "depth:abc", "cap", "depth:", ":"],
  "--max-runs": ["1", "0", "10", "-1", "abc", "1e30"],
  "--shrink-budget": ["0", "1", "5", "-1", "1e30"],
};

/** `iosim mc` of a small sweep with drawn options (always in this thread, a bounded number of runs) */
export const mcArgsCase: fc.Arbitrary<FuzzCase> = fc.record({
  opts: fc.dictionary(pick(Object.keys(MC_OPTS)), fc.constant(""), { maxKeys: 3 }).chain((d) => fc.record(Object.fromEntries(Object.keys(d).map((k) => [k, pick(MC_OPTS[k]!)])))),
  flags: fc.subarray(["--no-shrink", "--json", "--resume", "--force"]),
  param: pick(["{choice: [1, 4]}", "{randint: [1, 4]}", "{randint: [0, 4294967297]}", "{uniform: [.nan, 1]}", "{choice: []}", "{choice: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}", "{randint: [4, 1]}", "{weights: [1]}", "7"]),
}).map((m) => {
  const opts = m.opts as Record<string, string>;
  if (opts["--runs"] !== undefined && Number(opts["--runs"]) > 3 && Number.isFinite(Number(opts["--runs"]))) opts["--max-runs"] ??= "5"; // a huge --runs meets the per-process budget
  const runs = opts["--runs"] ?? "3";
  delete opts["--runs"];
  const text = SWEEP.replace("{choice: [1, 4]}", m.param);
  return {
    kind: "mc args",
    files: { "sweep.yaml": text },
    args: ["mc", "{dir}/sweep.yaml", "--runs", runs, "--workers", "0", "--no-progress", "-o", "{dir}/out", ...Object.entries(opts).flat(), ...m.flags, ...(m.flags.includes("--no-shrink") ? [] : ["--shrink-budget", "3"])],
  };
});

// ------------------------------------------------------------ journals (--resume of a damaged or foreign one)

type JournalEdit = { op: "drop" | "dup" | "dupOther" | "trunc" | "garbage" | "classes" | "index" | "header" | "blank"; at: number; v: string };
export const journalCase: fc.Arbitrary<FuzzCase> = fc.record({
  keep: fc.nat(JOURNAL.length),
  edits: fc.array(fc.record({ op: pick(["drop", "dup", "dupOther", "trunc", "garbage", "classes", "index", "header", "blank"] as const), at: fc.nat(20), v: pick(["x", "{}", "[]", "{\"i\":", "\u0000", "null", "-1", "1e300", "4294967297", "2.5"]) }), { maxLength: 3 }),
  lock: fc.option(pick(["1\n", "999999999\n", "abc", "", `${2 ** 31}\n`]), { nil: undefined }),
  runs: pick(["6", "4", "10", "1"]),
  sweepEdit: pick(["", "number_ios: 40", "depth"]),
  cmd: pick(["resume", "merge"]),
}).map((j) => {
  let lines = JOURNAL.slice(0, Math.max(1, j.keep));
  for (const e of j.edits as JournalEdit[]) {
    const k = e.at % lines.length;
    const r = (l: string) => {
      try {
        const o: unknown = JSON.parse(l);
        return typeof o === "object" && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    };
    switch (e.op) {
      case "drop": if (k > 0) lines.splice(k, 1); break;
      case "dup": lines.splice(k, 0, lines[k]!); break;
      case "dupOther": { const o = r(lines[k]!); if (o && "i" in o) { o.classes = ["other"]; lines.push(JSON.stringify(o)); } break; }
      case "trunc": lines[k] = lines[k]!.slice(0, Math.floor(lines[k]!.length / 2)); break;
      case "garbage": lines.splice(k, 0, e.v); break;
      case "classes": { const o = r(lines[k]!); if (o) { o.classes = e.v === "[]" ? [] : e.v; lines[k] = JSON.stringify(o); } break; }
      case "index": { const o = r(lines[k]!); if (o) { o.i = Number(e.v); lines[k] = JSON.stringify(o); } break; }
      case "header": { const o = r(lines[0]!); if (o) { (o as Record<string, unknown>)[["runs", "seed", "mc", "shard"][e.at % 4]!] = e.v === "null" ? null : Number.isFinite(Number(e.v)) ? Number(e.v) : e.v; lines[0] = JSON.stringify(o); } break; }
      case "blank": lines.splice(k, 0, ""); break;
    }
  }
  const sweep = j.sweepEdit === "" ? SWEEP : j.sweepEdit === "depth" ? SWEEP.replace("{choice: [1, 4]}", "{choice: [1, 8]}") : SWEEP.replace("number_ios: 40", "number_ios: 41");
  const files: Record<string, string> = { "sweep.yaml": sweep, "out/runs.jsonl": lines.join("\n") + "\n" };
  if (j.lock !== undefined) files["out/runs.jsonl.lock"] = j.lock;
  const args = j.cmd === "merge"
    ? ["mc", "merge", "{dir}/out/runs.jsonl", "--json"]
    : ["mc", "{dir}/sweep.yaml", "--runs", j.runs, "--workers", "0", "--no-progress", "--no-shrink", "-o", "{dir}/out", "--resume", "--json"];
  return { kind: "journal", files, args };
});

// ------------------------------------------------------------ YAML resource shapes: alias bombs, merge chains, self-references

export const yamlShapeCase: fc.Arbitrary<FuzzCase> = fc.record({
  shape: pick(["bomb", "mergechain", "selfmerge", "undefalias", "deep", "anchorcycle"] as const),
  n: fc.integer({ min: 1, max: 3000 }),
  w: fc.integer({ min: 1, max: 12 }),
  host: pick(["run", "k8s", "mc"] as const),
}).map((y) => {
  let doc = "";
  const n = y.n;
  switch (y.shape) {
    case "bomb": {
      const depth = Math.min(12, 1 + (n % 12));
      doc = `x0: &x0 [${Array(y.w).fill('"lol"').join(",")}]\n` + Array.from({ length: depth }, (_, k) => `x${k + 1}: &x${k + 1} [${Array(y.w).fill(`*x${k}`).join(",")}]`).join("\n") + "\n";
      break;
    }
    case "mergechain":
      doc = "m0: &m0 {a: 1}\n" + Array.from({ length: n }, (_, k) => `m${k + 1}: &m${k + 1} {<<: *m${k}, k${k}: ${k}}`).join("\n") + "\n";
      break;
    case "selfmerge":
      doc = `x: &x\n  a: 1\n  <<: ${y.w % 2 ? "*x" : "[*x, *x]"}\n`;
      break;
    case "undefalias":
      doc = `x: *nowhere${n}\n`;
      break;
    case "deep":
      doc = "d: " + "[".repeat(n) + "]".repeat(n) + "\n";
      break;
    case "anchorcycle":
      doc = `a: &a {b: &b {c: *a}}\n`;
      break;
  }
  if (y.host === "k8s") return { kind: `yaml ${y.shape} (k8s)`, files: { "k.yaml": doc + "name: y\nversion: \"1.25\"\nobjects: []\n" }, args: ["k8s", "run", "{dir}/k.yaml", "--json"] };
  if (y.host === "mc") return { kind: `yaml ${y.shape} (mc)`, files: { "m.yaml": doc + SWEEP }, args: ["mc", "{dir}/m.yaml", "--runs", "2", "--workers", "0", "--no-progress", "--no-shrink", "-o", "{dir}/out"] };
  return { kind: `yaml ${y.shape} (run)`, files: { "s.yaml": doc + "name: t\nduration: 100ms\ndevices:\n  - preset: ssd\njobs:\n  - {name: a, rw: randread, number_ios: 10}\n" }, args: ["run", "-q", "--json", "{dir}/s.yaml"] };
});

// ------------------------------------------------------------ cgroup trees: nesting, width, limits at many levels

export const cgroupTreeCase: fc.Arbitrary<FuzzCase> = fc.record({
  depth: fc.integer({ min: 1, max: 400 }),
  width: fc.integer({ min: 1, max: 300 }),
  every: fc.integer({ min: 1, max: 50 }),
  file: pick(Object.keys(CGROUP_FILES)),
  v: fc.nat(20),
  series: fc.option(pick(["1ms", "10ms", "1ns", "100us"]), { nil: undefined }),
  record: fc.boolean(),
  flags: fc.subarray(["--max-series-bins", "--max-records"]),
}).map((t) => {
  const vals = CGROUP_FILES[t.file]!;
  const lines = ["name: tree", "duration: 50ms", "devices:\n  - {preset: ssd, name: sda}"];
  if (t.series) lines.push(`series: ${t.series}`);
  if (t.record) lines.push("record: true");
  lines.push("cgroups:");
  let path = "";
  for (let d = 0; d < t.depth; d++) {
    path = path ? `${path}/c${d}` : "c0";
    lines.push(`  ${path}: ${d % t.every === 0 ? `{${t.file}: ${JSON.stringify(vals[(t.v + d) % vals.length])}}` : "{}"}`);
  }
  for (let k = 0; k < t.width; k++) lines.push(`  w${k}: {}`);
  lines.push(`jobs:\n  - {name: a, cgroup: ${JSON.stringify(path)}, rw: randread, number_ios: 20}\n  - {name: b, cgroup: w${t.width - 1}, rw: write, number_ios: 20}`);
  const extra = t.flags.flatMap((f) => [f, f === "--max-series-bins" ? "1000" : "10"]);
  return { kind: "cgroup tree", files: { "s.yaml": lines.join("\n") + "\n" }, args: ["run", "-q", "--json", "{dir}/s.yaml", ...extra] };
});

// ------------------------------------------------------------ iocost and writeback traces (the throttle one is above)

const OTHER_TRACES = ["guest/iocost_fixed.jsonl", "guest/wb_foreign.jsonl", "guest/iolat.jsonl", "bufread/bufread.jsonl"].map((f) => {
  const lines = readFileSync(join(ROOT, "test", "fixtures", "oracle", f), "utf8").split("\n").filter((l) => l.trim());
  return { name: f, lines: lines.slice(0, 14) };
});
export const otherTraceCase: fc.Arbitrary<FuzzCase> = fc.record({
  t: fc.nat(OTHER_TRACES.length - 1),
  edits: fc.array(fc.tuple(fc.nat(13), pick(["hz", "submit_ns", "complete_ns", "t0_mono_ns", "seq", "size", "off", "ns", "dir", "cgroup", "vtime", "weight", "events", "jobs", "devices", "dev", "sector"]), pick(TRACE_VALUES)), { maxLength: 3 }),
  dup: fc.option(fc.nat(13), { nil: undefined }),
  cmd: pick([["compare"], ["replay"], ["explain", "--job", "r", "--seq", "3"], ["explain", "--job", "nope", "--seq", "1"], ["compare", "--kernel", "6.12"]]),
}).map((t) => {
  const tr = OTHER_TRACES[t.t]!;
  const recs = tr.lines.map((l) => JSON.parse(l) as Record<string, unknown>); // objects: the fixtures' lines
  for (const [i, k, v] of t.edits) {
    const r = recs[i % recs.length]!;
    if (k in r || i === 0) r[k] = v;
  }
  const lines = recs.map((r) => JSON.stringify(r));
  if (t.dup !== undefined) lines.splice(1 + (t.dup % (lines.length - 1)), 0, lines[1 + (t.dup % (lines.length - 1))]!);
  return { kind: `trace ${tr.name.replace(/.*\//, "").replace(/\.jsonl$/, "")}`, files: { "t.jsonl": lines.join("\n") + "\n" }, args: [t.cmd[0]!, "{dir}/t.jsonl", ...t.cmd.slice(1)] };
});

// ------------------------------------------------------------ run options

export const runOptsCase: fc.Arbitrary<FuzzCase> = fc.record({
  scen: pick(["scenarios/iocost-bursty.yaml", "scenarios/shared-log-writeback.yaml", ""]),
  opts: fc.dictionary(pick(["--max-events", "--max-series-bins", "--max-records", "--seed", "--kernel", "--output-format", "--device"]), pick(["0", "1", "-1", "1e30", "abc", "4294967297", "6.1", "6.18", "json", "text", "ssd", "5.4", ""]), { maxKeys: 3 }),
  flags: fc.subarray(["--strict", "--json", "-q"]),
}).map((r) => {
  const files: Record<string, string> = {};
  if (r.scen) files["s.yaml"] = readFileSync(join(ROOT, r.scen), "utf8");
  return { kind: "run options", files, args: ["run", ...(r.scen ? ["{dir}/s.yaml"] : []), ...Object.entries(r.opts as Record<string, string>).flat(), ...r.flags, "--out", "{dir}/out"] };
});

export const anyCase: fc.Arbitrary<FuzzCase> = fc.oneof(scenarioCase, fioCase, deviceCase, traceCase, k8sCase, mutatedCase, mcArgsCase, journalCase, yamlShapeCase, cgroupTreeCase, otherTraceCase, runOptsCase);

/** the same case as YAML text (for a found case's sidecar, readable in a review) */
export function describeCase(c: FuzzCase): string {
  return stringify({ kind: c.kind, args: c.args }, { lineWidth: 0 });
}

const CHUNK = 1000;
let chunkAt: { key: string; cases: FuzzCase[] } | undefined;
/**
 * Case i of a long run with this seed: the cases are drawn 1,000 at a time
 * (fc.sample, so their sizes and biases are those of a property run), chunk
 * k from seed (seed * 1,000,003 + k): any process can regenerate case i
 * alone (scripts/fuzz.mjs re-runs a case that killed its worker).
 */
export function caseAt(seed: number, i: number): FuzzCase {
  const k = Math.floor(i / CHUNK);
  const key = `${seed}:${k}`;
  if (chunkAt?.key !== key) chunkAt = { key, cases: fc.sample(anyCase, { seed: (seed * 1_000_003 + k) | 0, numRuns: CHUNK }) };
  return chunkAt.cases[i % CHUNK]!;
}
