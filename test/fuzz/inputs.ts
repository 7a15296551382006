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

export const anyCase: fc.Arbitrary<FuzzCase> = fc.oneof(scenarioCase, fioCase, deviceCase, traceCase, k8sCase, mutatedCase);

/** the same case as YAML text (for a found case's sidecar, readable in a review) */
export function describeCase(c: FuzzCase): string {
  return stringify({ kind: c.kind, args: c.args }, { lineWidth: 0 });
}
