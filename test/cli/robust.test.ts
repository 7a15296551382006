// Issue #33: no input crashes iosim. Each shape a hostile or careless user
// tried (exit 3, a V8 fatal error, or a hang) and each quietly wrong result,
// as a regression test of the command line: exit 2 with a message naming the
// file, the line and the field, or a bounded, correct run. Inputs are in
// test/fixtures/fuzz/ (small ones) or made here (large ones).
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { cli, cliSpawn, ROOT } from "../helpers/cli-inproc.js";

const F = (name: string) => join(ROOT, "test", "fixtures", "fuzz", name);
const tmp = mkdtempSync(join(tmpdir(), "iosim-robust-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** exit 2, one line "iosim: FILE:LINE (FIELD): ..." (line and field where given) matching `msg` */
async function refused(args: string[], where: { file: string; line?: number; field?: string }, msg: RegExp) {
  const r = await cli(...args);
  expect(r.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
  expect(r.code, r.stderr).toBe(2);
  const head = `iosim: ${where.file}${where.line !== undefined ? `:${where.line}` : ""}${where.field ? ` (${where.field})` : ""}: `;
  expect(r.stderr.startsWith(head), `${r.stderr} should start with ${head}`).toBe(true);
  expect(r.stderr).toMatch(msg);
  return r;
}

describe("traces: hz, whole nanoseconds, one IO per sequence number", () => {
  it("hz 0 or negative is refused at the header (divide / remainder by zero in WASM) in replay, compare and explain", async () => {
    for (const cmd of [["replay"], ["compare"], ["explain", "--job", "r", "--seq", "3"]]) {
      await refused([cmd[0]!, F("hz0.jsonl"), ...cmd.slice(1)], { file: F("hz0.jsonl"), line: 1, field: "hz" }, /"hz" must be a whole number >= 1, got 0/);
    }
    await refused(["compare", F("hzneg.jsonl")], { file: F("hzneg.jsonl"), line: 1, field: "hz" }, /got -250/);
    await refused(["compare", F("tick0.jsonl")], { file: F("tick0.jsonl"), line: 1, field: "tick_ns" }, /got 0/);
  });
  it("a fractional or huge nanosecond is refused at its line (a BigInt RangeError; a heap exhausted)", async () => {
    await refused(["compare", F("fracns.jsonl")], { file: F("fracns.jsonl"), line: 2, field: "submit_ns" }, /3944016\.5/);
    await refused(["compare", F("hugens.jsonl")], { file: F("hugens.jsonl"), line: 2, field: "complete_ns" }, /whole number/);
    await refused(["compare", F("huge_t0.jsonl")], { file: F("huge_t0.jsonl"), line: 1, field: "t0_mono_ns" }, /1e\+300/);
  });
  it("a sequence number given twice is refused (explain --seq explained another IO); a header without IOs is not scored", async () => {
    await refused(["explain", F("dupseq.jsonl"), "--job", "r", "--seq", "0"], { file: F("dupseq.jsonl"), line: 3, field: "seq" }, /IO seq 0 twice \(first at line 2\)/);
    await refused(["compare", F("dupseq.jsonl")], { file: F("dupseq.jsonl"), line: 3, field: "seq" }, /twice/);
    await refused(["compare", F("noios.jsonl")], { file: F("noios.jsonl"), line: 1 }, /no IO records/);
  });
  it("a corrupt header is not scored as PASS", async () => {
    const text = readFileSync(F("hz0.jsonl"), "utf8").split("\n");
    const h = JSON.parse(text[0]!);
    delete h.jiffies;
    const p = join(tmp, "nojiffies.jsonl");
    writeFileSync(p, [JSON.stringify(h), ...text.slice(1)].join("\n"));
    const r = await cli("compare", p);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/PASS/);
  });
  it("compare of a 200,000-IO trace runs (Math.max(...ios) overflowed the stack)", async () => {
    const lines = readFileSync(F("hz0.jsonl"), "utf8").split("\n");
    const h = JSON.parse(lines[0]!);
    h.hz = 250;
    h.limits_written = [];
    h.events = [];
    const out = [JSON.stringify(h)];
    for (let i = 0; i < 200_000; i++) out.push(`{"job":"r","seq":${i},"thread":0,"dir":"R","off":${i * 4096},"size":4096,"submit_ns":${i * 100_000},"complete_ns":${i * 100_000 + 50_000},"ret":4096}`);
    const p = join(tmp, "big.jsonl");
    writeFileSync(p, out.join("\n") + "\n");
    const r = await cli("compare", "--json", p);
    expect(r.stderr).not.toMatch(/internal error/);
    expect([0, 1]).toContain(r.code);
    expect(JSON.parse(r.stdout).overall.ios).toBe(200_000);
  });
  it("replay of 200,000 IOs over 4,096 jobs runs and writes every IO (the jobs' iodepths, one per listed IO, were refused as 'more than 1048576 in flight')", async () => {
    const p = join(tmp, "big4k.jsonl");
    const made = spawnSync(process.execPath, [join(ROOT, "scripts", "big-trace.mjs"), p, "--ios", "200000", "--jobs", "4096", "--iops", "50000"], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    const out = join(tmp, "big4k.out.jsonl");
    const r = await cli("replay", p, "-o", out);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = readFileSync(out, "utf8").trimEnd().split("\n");
    expect(lines.length).toBe(200_001);
    const jobs = new Set<string>();
    let released = 0;
    for (const l of lines.slice(1)) {
      const o = JSON.parse(l) as { job: string; submit_ns: number; release_ns: number };
      jobs.add(o.job);
      if (o.release_ns > o.submit_ns) released++;
    }
    expect(jobs.size).toBe(4096);
    // 100,000 IOPS submitted under read_iops 50000: the throttle holds most of them
    expect(released).toBeGreaterThan(100_000);
    expect(readdirSync(tmp).filter((f) => f.includes(".tmp"))).toEqual([]);
  });
});

describe("scenario, fio and device files", () => {
  it("devices: [] is refused at its line (TypeError reading 'name')", async () => {
    await refused(["run", "-q", F("devempty.yaml")], { file: F("devempty.yaml"), line: 3, field: "devices" }, /empty/);
  });
  it("a newline in a YAML job value is refused, not a second fio section", async () => {
    await refused(["run", "-q", F("newline.yaml")], { file: F("newline.yaml"), line: 6, field: "bs" }, /one line/);
  });
  it("iodepth beyond what the core holds is refused at its line, in YAML and in fio files (4 GiB abort; 2^32+1 ran at depth 1)", async () => {
    await refused(["run", "-q", F("iodepth-1e8.yaml")], { file: F("iodepth-1e8.yaml"), line: 6, field: "iodepth" }, /above 65536/);
    await refused(["run", "-q", F("iodepth-wrap.yaml")], { file: F("iodepth-wrap.yaml"), line: 6, field: "iodepth" }, /4294967297/);
    await refused(["run", "-q", F("iodepth.fio")], { file: F("iodepth.fio"), line: 5, field: "iodepth" }, /above 65536/);
  });
  it("runtime beyond fio's units or range is refused at its line", async () => {
    await refused(["run", "-q", F("runtimeyears.fio")], { file: F("runtimeyears.fio"), line: 4, field: "runtime" }, /suffix/);
    await refused(["run", "-q", F("runtimehuge.fio")], { file: F("runtimehuge.fio"), line: 4, field: "runtime" }, /too large/);
  });
  it("a device file's u32 fields, 1e12 IOPS and a name/devno mismatch are refused at their line", async () => {
    await refused(["run", "-q", "--device", F("devu32.yaml")], { file: F("devu32.yaml"), line: 2, field: "channels" }, /channels must be at most 65536, got 4294967297/);
    await refused(["run", "-q", "--device", F("devhugepoints.yaml")], { file: F("devhugepoints.yaml"), line: 2, field: "points" }, /at most 1e9/);
    await refused(["run", "-q", "--device", F("devnamedevno.yaml")], { file: F("devnamedevno.yaml"), line: 3, field: "devno" }, /not a SCSI disk number.*name is sda/);
  });
  it("a known io.cost key with a bad value is not called unknown; too many fio sections do not blame numjobs", async () => {
    await refused(["run", "-q", F("iocost-abc.yaml")], { file: F("iocost-abc.yaml"), line: 7, field: "io.cost.model" }, /rbps takes an unsigned integer, not "abc"/);
    const p = join(tmp, "many.fio");
    writeFileSync(p, Array.from({ length: 4100 }, (_, i) => `[j${i}]\nrw=read\nsize=4k\n`).join(""));
    const r = await refused(["run", "-q", p], { file: p, line: 4097 * 3 - 2, field: "j4096" }, /at most 4096 jobs.*at job \[j4096\]/);
    expect(r.stderr).not.toMatch(/numjobs/);
  });
  it("Infinity and NaN are named as such, not as null", async () => {
    const p = join(tmp, "inf.yaml");
    writeFileSync(p, "preset: ssd\nchannels: .inf\n");
    await refused(["run", "-q", "--device", p], { file: p, line: 2, field: "channels" }, /got Infinity/);
    writeFileSync(p, "preset: ssd\njitter: .nan\n");
    await refused(["run", "-q", "--device", p], { file: p, line: 2, field: "jitter" }, /got NaN/);
  });
  it("io.cost and v1 throttle values of 0 run (no divide by zero in WASM)", async () => {
    for (const f of ["iocost0.yaml", "v1iops0.yaml"]) {
      const r = await cli("run", "-q", "--json", F(f));
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
    }
  });
  it("a series of 1 ns over 1 s or 1 h is refused before the run, naming series and --max-series-bins", async () => {
    await refused(["run", "-q", F("series1ns.yaml")], { file: F("series1ns.yaml"), field: "series" }, /1000000000 bins.*--max-series-bins/);
    await refused(["run", "-q", F("series1ns1h.yaml")], { file: F("series1ns1h.yaml"), field: "series" }, /3600000000000 bins/);
    // and the option raises it
    const short = join(tmp, "s.yaml");
    writeFileSync(short, readFileSync(F("series1ns.yaml"), "utf8").replace("duration: 1s", "duration: 1ms").replace("runtime: 1s", "runtime: 1ms"));
    await refused(["run", "-q", "--max-series-bins", "100000", short], { file: short, field: "series" }, /1000000 bins, more than the 100000/);
    expect((await cli("run", "-q", "--json", "--max-series-bins", "2000000", short)).code).toBe(0);
  });
  it("recording every bio past the budget stops with an error naming record and --max-records (10 s of nullb exhausted the heap)", async () => {
    await refused(["run", "-q", "--max-records", "20000", F("record10s.yaml")], { file: F("record10s.yaml"), field: "record" }, /passed 20000 recorded bios at [\d.]+ ms simulated.*--max-records/);
    // predictable: refused before the run, with the estimate
    const p = join(tmp, "rec.yaml");
    writeFileSync(p, readFileSync(F("record10s.yaml"), "utf8").replace("runtime: 10s, time_based: 1", "number_ios: 3000000").replace("duration: 10s\n", ""));
    await refused(["run", "-q", p], { file: p, field: "record" }, /3000000 bios, more than the 1000000 records.*MiB/);
  });
  it("a run past the event budget stops naming --max-events", async () => {
    await refused(["run", "-q", "--max-events", "100000", F("record10s.yaml")], { file: F("record10s.yaml"), field: "duration" }, /passed 100000 simulated events.*--max-events/);
  });
  it("an endless input file is refused at the cap, naming it (run /dev/zero, k8s run /dev/zero, read_iolog=/dev/zero)", async () => {
    await refused(["run", "/dev/zero"], { file: "/dev/zero" }, /larger than 64 MiB.*IOSIM_MAX_INPUT_BYTES/);
    await refused(["k8s", "run", "/dev/zero"], { file: "/dev/zero" }, /larger than 64 MiB/);
    await refused(["run", "-q", F("iolog-devzero.fio")], { file: F("iolog-devzero.fio"), line: 2, field: "read_iolog" }, /\/dev\/zero is larger than 480 MiB/);
  }, 60_000);
  it("a fio read_iolog of 200,000 entries runs (the spread overflowed the stack)", async () => {
    const lines = ["fio version 2 iolog", "/dev/sda add", "/dev/sda open"];
    for (let i = 0; i < 200_000; i++) lines.push(`/dev/sda read ${i * 4096} 4096`);
    lines.push("/dev/sda close");
    writeFileSync(join(tmp, "big.iolog"), lines.join("\n") + "\n");
    writeFileSync(join(tmp, "iolog.fio"), "[j]\nread_iolog=big.iolog\n");
    const r = await cli("run", "-q", "--json", join(tmp, "iolog.fio"));
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).jobs[0].read.total_ios).toBe(200_000);
  });
});

describe("YAML resource guards are input errors at their line", () => {
  it("an alias bomb in run, k8s and mc files", async () => {
    await refused(["run", "-q", F("bomb.yaml")], { file: F("bomb.yaml"), line: 6 }, /YAML: aliases expand this file past 100000 values/);
    await refused(["k8s", "run", F("k8sbomb.yaml")], { file: F("k8sbomb.yaml"), line: 6 }, /alias bomb/);
    await refused(["mc", F("mcbomb.yaml"), "--runs", "2", "--out", join(tmp, "mcb")], { file: F("mcbomb.yaml"), line: 6 }, /alias bomb/);
    expect(existsSync(join(tmp, "mcb"))).toBe(false);
  });
  it("a merge key naming its own mapping, and an undefined alias, at their line", async () => {
    await refused(["run", "-q", F("selfmerge.yaml")], { file: F("selfmerge.yaml"), line: 5 }, /alias \*x is inside the value its anchor marks/);
    await refused(["run", "-q", F("selfmerge2.yaml")], { file: F("selfmerge2.yaml"), line: 2 }, /cycle/);
    await refused(["run", "-q", F("undefalias.yaml")], { file: F("undefalias.yaml"), line: 4 }, /alias \*nope names no anchor/);
  });
  it("a chain of 3,000 merge keys is answered in seconds (each alias walked the whole document)", async () => {
    let s = "name: t\nm0: &m0 {k0: 1}\n";
    for (let i = 1; i < 3000; i++) s += `m${i}: &m${i} {<<: *m${i - 1}, k${i}: 1}\n`;
    const p = join(tmp, "chain.yaml");
    writeFileSync(p, s);
    const r = await refused(["run", "-q", p], { file: p, line: 226 }, /aliases expand/);
    expect(r.ms).toBeLessThan(20_000);
  });
  it("the yaml package's own texts do not leak", async () => {
    const p = join(tmp, "broken.yaml");
    writeFileSync(p, "name: t\njobs:\n  - {name: a\n");
    const r = await cli("run", "-q", p);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^iosim: .*broken\.yaml:\d+: YAML: /);
    expect(r.stderr).not.toMatch(/Implicit|MISSING_CHAR|at line \d+, column/);
  });
});

describe("Kubernetes scenarios", () => {
  it("two Nodes of one name, a clock offset past 14 h and a zero duration are refused at their line", async () => {
    await refused(["k8s", "run", F("k8sdupnode.yaml")], { file: F("k8sdupnode.yaml"), line: 31 }, /objects\[1\]\.metadata\.name: a second Node named "tess-node-kltc4-tess19"/);
    await refused(["k8s", "run", F("k8sbadoffset.yaml")], { file: F("k8sbadoffset.yaml"), line: 23 }, /clock\.utcOffset: an offset from UTC is at most 14 hours/);
    await refused(["k8s", "run", F("k8sdur0.yaml")], { file: F("k8sdur0.yaml"), line: 20 }, /duration: a run lasts more than 0s/);
  });
  it("a century of idle simulated time costs only its heartbeats, in a 256 MiB heap (8760h was a V8 fatal error)", () => {
    // (a generous time limit for a loaded machine: the bound asserted is the work, not the clock)
    const r = cliSpawn(["k8s", "run", F("k8s-876000h.yaml"), "--json"], { heapMb: 256, timeoutMs: 300_000 });
    expect(r.signal).toBeNull();
    expect([0, 1]).toContain(r.code);
    const st = JSON.parse(r.stdout).stats as { endMs: number; events: number; nodePatches: number };
    expect(st.endMs).toBe(876000 * 3600_000);
    // the kubelet's node status every 5 min (12 an hour) and its event: idle ticks are skipped
    const hours = 876000;
    expect(st.nodePatches).toBeLessThanOrEqual(12 * hours + 10);
    expect(st.events).toBeLessThanOrEqual(2 * st.nodePatches + 100);
  });
});

describe("Monte Carlo", () => {
  it("--runs 4294967296 and runs past the per-process budget are refused naming --runs and the options (V8 'invalid size')", async () => {
    const ex = join(ROOT, "bindings", "mc", "examples", "io-depth.yaml");
    await refused(["mc", ex, "--runs", "4294967296", "--out", join(tmp, "m1")], { file: "command line", field: "--runs" }, /31-bit/);
    await refused(["mc", ex, "--runs", "400000000", "--out", join(tmp, "m2")], { file: "command line", field: "--runs" }, /--shard.*--max-runs/);
    expect(existsSync(join(tmp, "m1")) || existsSync(join(tmp, "m2"))).toBe(false);
  });
  it("a journal written by another live sweep is locked; a line repeating a run with another result is an error naming it", async () => {
    const ex = join(ROOT, "bindings", "mc", "examples", "io-depth.yaml");
    const out = join(tmp, "mj");
    const a = await cli("mc", ex, "--runs", "6", "--workers", "0", "--out", out, "--no-progress", "--no-shrink", "--json");
    expect(a.code, a.stderr).toBe(0);
    const journal = join(out, "runs.jsonl");
    // a live process holds the lock (this test's parent: alive, not us)
    writeFileSync(journal + ".lock", `${process.ppid}\n`);
    await refused(["mc", ex, "--runs", "8", "--workers", "0", "--out", out, "--resume", "--no-progress", "--no-shrink"], { file: journal, field: "--resume" }, /another sweep \(process \d+\)/);
    // a stale lock (no such process) is taken over
    writeFileSync(journal + ".lock", "999999999\n");
    const b = await cli("mc", ex, "--runs", "6", "--workers", "0", "--out", out, "--resume", "--no-progress", "--no-shrink", "--json");
    expect(b.code, b.stderr).toBe(0);
    expect(existsSync(journal + ".lock")).toBe(false);
    // a repeated run index with other classes
    const lines = readFileSync(journal, "utf8").trimEnd().split("\n");
    const rec = JSON.parse(lines[1]!);
    rec.classes = [...rec.classes, "tampered"];
    writeFileSync(journal, [...lines, JSON.stringify(rec)].join("\n") + "\n");
    await refused(["mc", ex, "--runs", "6", "--workers", "0", "--out", out, "--resume", "--no-progress", "--no-shrink"], { file: journal, line: lines.length + 1, field: "i" }, /given again with another result \(first at line 2\)/);
  });
});

describe("outputs and exit codes", () => {
  it("--out is complete or untouched: a rejected input changes nothing on disk", async () => {
    const out = join(tmp, "out");
    mkdirSync(out);
    writeFileSync(join(out, "keep.txt"), "x");
    const r = await cli("run", "-q", "--out", out, F("devempty.yaml"));
    expect(r.code).toBe(2);
    expect(readdirSync(out)).toEqual(["keep.txt"]);
    expect(readdirSync(tmp).filter((n) => n.includes("iosim-partial"))).toEqual([]);
    const ok = await cli("run", "-q", "--out", out);
    expect(ok.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["fio.json", "io.stat", "keep.txt", "report.html", "series.csv", "series.json", "summary.json", "summary.txt"]);
    expect(readdirSync(tmp).filter((n) => n.includes("iosim-partial"))).toEqual([]);
  });
});
