// node scripts/big-trace.mjs OUT.jsonl --ios N [--jobs J] [--iops R]
//
// Writes a blk-throttle trace (the recorder's format: a header line, then one
// line per IO) of N 4 KiB reads spread round-robin over J jobs in one cgroup
// under read_iops R (default: no limit), for measuring `iosim compare` and
// `iosim replay` at sizes no recording has (issue #33: 2 M IOs, 4,096 jobs).
// The header is the oracle fixture iops100_qd1_read run1's with its jobs,
// limits and counts replaced; IO i of job k is submitted at i * 10 us and
// completes 50 us later (a QD-1 closed loop per job).
import { createWriteStream, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (n, d) => (args.includes(n) ? Number(args[args.indexOf(n) + 1]) : d);
const out = args[0];
const N = opt("--ios", 200_000);
const J = opt("--jobs", 1);
const R = opt("--iops", 0);
if (!out || !Number.isSafeInteger(N) || N < 1 || !Number.isSafeInteger(J) || J < 1) {
  console.error("usage: node scripts/big-trace.mjs OUT.jsonl --ios N [--jobs J] [--iops R]");
  process.exit(2);
}
const fixture = join(root, "test", "fixtures", "oracle", "throtl", "traces", "iops100_qd1_read", "run1.jsonl");
const h = JSON.parse(readFileSync(fixture, "utf8").split("\n", 1)[0]);
h.scenario = h.scenario_spec.name = `big_${N}_${J}`;
h.description = h.scenario_spec.description = `${N} x 4 KiB reads over ${J} jobs (scripts/big-trace.mjs)`;
h.jobs = Array.from({ length: J }, (_, k) => ({ name: `j${k}`, cgroup: "a", rw: "read", bs: 4096, count: k < N ? Math.floor((N - 1 - k) / J) + 1 : 0, qd: 1, pattern: { type: "closed" } }));
h.scenario_spec.jobs = h.jobs;
const limits = R > 0 ? { read_iops: R } : {};
h.cgroups = [{ ...h.cgroups[0], limits }];
h.scenario_spec.cgroups = [{ name: "a", limits }];
h.limits_written = R > 0 ? [{ cgroup: "a", limit: "read_iops", value: R, t_ns: -200000000 }] : [];
h.events = [];
h.n_ios = N;
delete h.counters;
delete h.counters_trace_root_group;
h.device.size_bytes = Math.max(h.device.size_bytes, N * 4096 + (1 << 20));
const w = createWriteStream(out);
const write = (s) => (w.write(s) ? undefined : new Promise((r) => w.once("drain", r)));
await write(JSON.stringify(h) + "\n");
const seq = new Array(J).fill(0);
let buf = "";
for (let i = 0; i < N; i++) {
  const k = i % J;
  const t = 1_000_000 + i * 10_000;
  buf += `{"job":"j${k}","seq":${seq[k]++},"thread":0,"dir":"R","off":${(i * 4096) % (h.device.size_bytes - 4096)},"size":4096,"submit_ns":${t},"complete_ns":${t + 50_000},"ret":4096}\n`;
  if (buf.length > 1 << 20) {
    await write(buf);
    buf = "";
  }
}
await write(buf);
w.end();
await new Promise((r) => w.on("finish", r));
