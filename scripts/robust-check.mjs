// node scripts/robust-check.mjs [--big]
//
// Issue #33's bullets re-checked from the command line, one row each: the
// shape, the command, what it must give (exit 2 with "iosim: FILE:LINE
// (FIELD)", or a bounded run), what it gave. Then the scale bullets, measured
// with /usr/bin/time (CPU time = user + system; the machine may be loaded):
//   - 10,000 nested cgroups (100 chains of 100 levels, io.max on each leaf,
//     io.weight on every tenth level) against 2,500: CPU ratio at most 4;
//   - a Kubernetes run of 168 h against 2,000 h (and 8,760 h, 876,000 h) of
//     mostly idle simulated time: peak RSS must not grow with it;
//   - with --big: `compare` of a 2,000,000-IO trace and `replay` of
//     2,000,000 IOs over 4,096 jobs (scripts/big-trace.mjs; minutes).
// Exit status 0 when every row holds, 1 otherwise.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(root, "dist", "cli", "iosim.js");
const F = (n) => join(root, "test", "fixtures", "fuzz", n);
const tmp = mkdtempSync(join(tmpdir(), "iosim-check-"));
let bad = 0;

function timed(args, opts = {}) {
  const tf = join(tmp, "time");
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", "-o", tf, process.execPath, CLI, ...args], { cwd: opts.cwd ?? tmp, encoding: "utf8", timeout: opts.timeoutMs ?? 120_000, maxBuffer: 1 << 30 });
  let wallS = NaN, cpuS = NaN, rssMiB = NaN;
  try {
    const m = /([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(readFileSync(tf, "utf8"));
    if (m) [wallS, cpuS, rssMiB] = [Number(m[1]), Number(m[2]) + Number(m[3]), Number(m[4]) / 1024];
  } catch {
    // killed
  }
  return { code: r.status ?? -1, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "", wallS, cpuS, rssMiB };
}

function row(ok, what, detail) {
  if (!ok) bad++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ` -- ${detail}` : ""}`);
}

/** exit 2 with "iosim: <file>[:<line>] [(field)]: ..." matching msg */
function refused(what, args, where, msg) {
  const r = timed(args);
  const head = `iosim: ${where.file}${where.line !== undefined ? `:${where.line}` : ""}${where.field ? ` (${where.field})` : ""}: `;
  const ok = r.code === 2 && r.stderr.startsWith(head) && (!msg || msg.test(r.stderr)) && !/internal error/.test(r.stderr);
  row(ok, what, ok ? r.stderr.split("\n")[0].slice(0, 150) : `exit ${r.code}: ${r.stderr.slice(0, 300)}`);
}

/** a bounded run: exit 0 or 1 (or 2 naming a budget), within the time */
function bounded(what, args, okCodes = [0, 1], check) {
  const r = timed(args);
  const ok = okCodes.includes(r.code) && !/internal error/.test(r.stderr) && (!check || check(r));
  row(ok, what, `exit ${r.code}, ${r.cpuS.toFixed(2)} s CPU, ${Math.round(r.rssMiB)} MiB${ok ? "" : `: ${r.stderr.slice(0, 300)}`}`);
  return r;
}

console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}\n`);
console.log("-- exit 3, V8 fatal errors and hangs (each must be exit 2 at its place, or a bounded run)");
bounded("io.cost model of 0 runs (no divide by zero)", ["run", "-q", "--json", F("iocost0.yaml")], [0, 1]);
bounded("v1 read_iops_device 0 runs", ["run", "-q", "--json", F("v1iops0.yaml")], [0, 1, 2]);
for (const f of ["hz0.jsonl", "hzneg.jsonl"]) for (const c of [["replay"], ["compare"], ["explain", "--job", "r", "--seq", "3"]]) refused(`${c[0]} of a trace with hz ${f === "hz0.jsonl" ? "0" : "< 0"}`, [c[0], F(f), ...c.slice(1)], { file: F(f), line: 1, field: "hz" });
refused("a fractional nanosecond", ["compare", F("fracns.jsonl")], { file: F("fracns.jsonl"), line: 2, field: "submit_ns" });
refused("fio iodepth 1e8", ["run", "-q", F("iodepth.fio")], { file: F("iodepth.fio"), line: 5, field: "iodepth" }, /above 65536/);
refused("devices: []", ["run", "-q", F("devempty.yaml")], { file: F("devempty.yaml"), line: 3, field: "devices" });
refused("YAML alias bomb (run)", ["run", "-q", F("bomb.yaml")], { file: F("bomb.yaml"), line: 6 }, /alias bomb/);
refused("YAML alias bomb (k8s)", ["k8s", "run", F("k8sbomb.yaml")], { file: F("k8sbomb.yaml"), line: 6 }, /alias bomb/);
refused("YAML alias bomb (mc)", ["mc", F("mcbomb.yaml"), "--runs", "2", "--workers", "0", "-o", join(tmp, "mcb")], { file: F("mcbomb.yaml"), line: 6 }, /alias bomb/);
refused("self-referencing merge key", ["run", "-q", F("selfmerge.yaml")], { file: F("selfmerge.yaml"), line: 5 }, /cycle/);
refused("two Nodes of one name", ["k8s", "run", F("k8sdupnode.yaml")], { file: F("k8sdupnode.yaml"), line: 31 }, /second Node/);
refused("mc --runs 4294967296", ["mc", join(root, "bindings", "mc", "examples", "io-depth.yaml"), "--runs", "4294967296", "-o", join(tmp, "m1")], { file: "command line", field: "--runs" });
refused("series 1 ns over 1 h", ["run", "-q", F("series1ns1h.yaml")], { file: F("series1ns1h.yaml"), field: "series" }, /--max-series-bins/);
refused("recording every bio past the budget", ["run", "-q", "--max-records", "20000", F("record10s.yaml")], { file: F("record10s.yaml"), field: "record" }, /--max-records/);
bounded("k8s duration 876000h (a century, idle)", ["k8s", "run", F("k8s-876000h.yaml"), "--json"], [0, 1], (r) => r.cpuS < 30);
refused("iosim run /dev/zero", ["run", "-q", "/dev/zero"], { file: "/dev/zero" }, /larger than/);
refused("iosim k8s run /dev/zero", ["k8s", "run", "/dev/zero"], { file: "/dev/zero" }, /larger than/);
refused("device with 1e12 IOPS points", ["run", "-q", "--device", F("devhugepoints.yaml")], { file: F("devhugepoints.yaml"), line: 2, field: "points" }, /at most 1e9/);
bounded("fio read_iolog=/dev/zero", ["run", "-q", F("iolog-devzero.fio")], [2], (r) => /larger than/.test(r.stderr));
bounded("fio runtime of years", ["run", "-q", F("runtimeyears.fio")], [2], (r) => /--max-events|runtime/.test(r.stderr));
bounded("buffered reads of a whole device (page cache growth; exit 3 at 1.7 GB before)", ["run", "-q", "--json", "--device", "ssd", join(root, "test", "fixtures", "fuzz", "found", "257c603c0732", "j.fio"), "--max-memory", "512"], [2], (r) => /--max-memory/.test(r.stderr));

console.log("\n-- wrong results, silently (each must now be right or refused)");
refused("a YAML job value with a newline", ["run", "-q", F("newline.yaml")], { file: F("newline.yaml"), line: 6, field: "bs" }, /line break/);
refused("iodepth 4294967297 (wrapped to 1)", ["run", "-q", F("iodepth-wrap.yaml")], { file: F("iodepth-wrap.yaml"), line: 6, field: "iodepth" }, /4294967297/);
refused("a device file's u32 fields", ["run", "-q", "--device", F("devu32.yaml")], { file: F("devu32.yaml"), line: 2, field: "channels" }, /4294967297/);
refused("a device's name and devno disagree", ["run", "-q", "--device", F("devnamedevno.yaml")], { file: F("devnamedevno.yaml"), line: 3, field: "devno" }, /agrees with the name/);
refused("compare of a trace without IOs", ["compare", F("noios.jsonl")], { file: F("noios.jsonl"), line: 1 }, /no IO records/);
refused("explain --seq with a duplicated sequence number", ["explain", F("dupseq.jsonl"), "--job", "r", "--seq", "2"], { file: F("dupseq.jsonl"), line: 3, field: "seq" }, /twice/);
refused("a Kubernetes clock offset past 14 h", ["k8s", "run", F("k8sbadoffset.yaml")], { file: F("k8sbadoffset.yaml"), line: 23 });
refused("a Kubernetes duration of 0", ["k8s", "run", F("k8sdur0.yaml")], { file: F("k8sdur0.yaml"), line: 20 });
refused("an undefined YAML alias, at its line", ["run", "-q", F("undefalias.yaml")], { file: F("undefalias.yaml"), line: 4 });
{
  // the summary's IOPS above io.max: now with a note that says why
  const p = join(tmp, "cap.yaml");
  writeFileSync(p, 'name: cap\ndevices:\n  - {preset: nvme, name: nvme0n1}\ncgroups:\n  a: {io.max: "259:0 riops=1000"}\njobs:\n  - {name: r, cgroup: a, rw: randread, ioengine: libaio, direct: 1, iodepth: 16, number_ios: 300}\n');
  bounded("IOPS above io.max over a short run carry the first-slice note", ["run", "-q", p], [0], (r) => /note: a read: \d+ IOPS is above io\.max riops=1000: .*first slice/.test(r.stdout));
}

{
  // Ctrl-C during a run with the progress bar (a terminal: script(1)) leaves the cursor shown
  const p = join(tmp, "long.yaml");
  writeFileSync(p, "name: long\nduration: 600s\ndevices:\n  - preset: nullb\njobs:\n  - {name: a, rw: randread, bs: 4k, iodepth: 64, ioengine: libaio, direct: 1, runtime: 600s, time_based: 1}\n");
  const log = join(tmp, "tty.log");
  spawnSync("script", ["-qec", `timeout -s INT 4 ${process.execPath} ${CLI} run ${p}`, log], { cwd: tmp, timeout: 60_000 });
  const t = readFileSync(log, "latin1");
  const hid = t.lastIndexOf("\x1b[?25l");
  const shown = t.lastIndexOf("\x1b[?25h");
  row(hid >= 0 && shown > hid, "Ctrl-C during a run restores the terminal's cursor", hid < 0 ? "no progress bar was drawn" : shown > hid ? "cursor hidden, then shown again" : "left hidden");
}

console.log("\n-- scale");
function cgroupScenario(n) {
  const chains = n / 100;
  const l = ["name: nested", "duration: 200ms", "devices:\n  - {preset: nvme, name: nvme0n1}", "cgroups:"];
  const leaves = [];
  for (let c = 0; c < chains; c++) {
    let p = "";
    for (let d = 0; d < 100; d++) {
      p = p ? `${p}/c${c}d${d}` : `c${c}d${d}`;
      const files = d === 99 ? `{io.max: "259:0 riops=${20000 + c}"}` : d % 10 === 0 ? "{io.weight: 200}" : "{}";
      l.push(`  ${p}: ${files}`);
    }
    leaves.push(p);
  }
  l.push("jobs:");
  for (let k = 0; k < 8; k++) l.push(`  - {name: j${k}, cgroup: ${leaves[k * Math.floor(leaves.length / 8)]}, rw: randread, ioengine: libaio, direct: 1, iodepth: 4, number_ios: 2000}`);
  const f = join(tmp, `nested${n}.yaml`);
  writeFileSync(f, l.join("\n") + "\n");
  return f;
}
const c2500 = bounded("2,500 nested cgroups", ["run", "-q", "--json", cgroupScenario(2500)], [0, 1]);
const c10000 = bounded("10,000 nested cgroups", ["run", "-q", "--json", cgroupScenario(10000)], [0, 1]);
const ratio = c10000.cpuS / c2500.cpuS;
row(ratio <= 4, "10,000 nested cgroups cost at most 4x 2,500 (CPU time)", `${c10000.cpuS.toFixed(2)} s / ${c2500.cpuS.toFixed(2)} s = ${ratio.toFixed(2)}x`);

const k8sText = readFileSync(F("k8s-876000h.yaml"), "utf8");
const k8s = {};
for (const h of ["168h", "2000h", "8760h"]) {
  const p = join(tmp, `k8s-${h}.yaml`);
  writeFileSync(p, k8sText.replace(/^duration: .*$/m, `duration: ${h}`));
  k8s[h] = bounded(`Kubernetes run of ${h}`, ["k8s", "run", p, "--json"], [0, 1]);
}
row(k8s["2000h"].rssMiB <= k8s["168h"].rssMiB * 1.25 && k8s["8760h"].rssMiB <= k8s["168h"].rssMiB * 1.25, "a Kubernetes run's memory does not grow with idle simulated time",
  `peak RSS 168 h ${Math.round(k8s["168h"].rssMiB)} MiB, 2,000 h ${Math.round(k8s["2000h"].rssMiB)} MiB, 8,760 h ${Math.round(k8s["8760h"].rssMiB)} MiB (was 297 MB, 2.3 GB, V8 fatal)`);

if (process.argv.includes("--big")) {
  const t2m = join(tmp, "t2m.jsonl");
  spawnSync(process.execPath, [join(root, "scripts", "big-trace.mjs"), t2m, "--ios", "2000000"]);
  bounded("compare of a 2,000,000-IO trace", ["compare", "--json", t2m], [0, 1], (r) => JSON.parse(r.stdout).overall.ios === 2_000_000);
  rmSync(t2m, { force: true });
  const t2m4k = join(tmp, "t2m4k.jsonl");
  spawnSync(process.execPath, [join(root, "scripts", "big-trace.mjs"), t2m4k, "--ios", "2000000", "--jobs", "4096"]);
  bounded("replay of 2,000,000 IOs over 4,096 jobs", ["replay", t2m4k, "-o", join(tmp, "r.jsonl")], [0]);
}

rmSync(tmp, { recursive: true, force: true });
console.log(`\n${bad ? `${bad} FAILED` : "all hold"}`);
process.exit(bad ? 1 : 0);
