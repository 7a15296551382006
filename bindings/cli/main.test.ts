// The command line's handling of the user's files and pipes: an --out that
// cannot be a directory is bad input naming the path (exit 2), not an
// internal error with a stack trace; `iosim ... | head` stops quietly.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const MAIN = join(resolve(__dirname, "..", ".."), "dist", "bindings", "cli", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "iosim-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const iosim = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: tmp, encoding: "utf8" });

describe("iosim and the user's files", () => {
  it("an --out that is a file, or under one, is an input error naming the path and errno (exit 2)", () => {
    writeFileSync(join(tmp, "afile"), "");
    const a = iosim("run", "--out", "afile", "-q");
    expect(a.status).toBe(2);
    expect(a.stderr.trim()).toBe("iosim: afile: cannot create the directory: EEXIST");
    const b = iosim("mc", resolve(__dirname, "..", "mc", "examples", "io-depth.yaml"), "--runs", "3", "--out", "afile/sub", "--no-progress");
    expect(b.status).toBe(2);
    expect(b.stderr.trim()).toBe("iosim: afile/sub: cannot create the directory: ENOTDIR");
  });

  it("an --out mkdir cannot make (under /proc) is exit 2 naming it, and parents are made (Node's recursive mkdir never returned)", () => {
    const r = spawnSync(process.execPath, [MAIN, "run", "-q", "--out", "/proc/iosim-nope/x"], { cwd: tmp, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe("iosim: /proc/iosim-nope: cannot create the directory: ENOENT");
    expect(iosim("run", "-q", "--out", "deep/er/out").status).toBe(0);
    expect(readFileSync(join(tmp, "deep", "er", "out", "io.stat"), "utf8")).toMatch(/^# capped\/io\.stat/m);
  });

  it("a directory where a journal or trace should be is an input error", () => {
    mkdirSync(join(tmp, "adir"), { recursive: true });
    const m = iosim("mc", "merge", "adir");
    expect(m.status).toBe(2);
    expect(m.stderr.trim()).toBe("iosim: adir: cannot read the journal: EISDIR");
    const c = iosim("compare", "adir");
    expect(c.status).toBe(2);
    expect(c.stderr.trim()).toBe("iosim: adir: cannot read the trace: EISDIR");
  });

  it("replay and compare check --kernel and --seed as run does (banana ran the 6.1 rules; abc crashed with a BigInt RangeError)", () => {
    const trace = resolve(__dirname, "..", "..", "test", "fixtures", "oracle", "throtl", "traces", "iops100_qd1_read", "run2.jsonl");
    for (const cmd of ["replay", "compare"]) {
      const k = iosim(cmd, trace, "--kernel", "banana");
      expect(k.status).toBe(2);
      expect(k.stderr.trim()).toBe("iosim: command line (--kernel): --kernel must be one of 6.1, 6.12, 6.18");
      const s = iosim(cmd, trace, "--seed", "abc");
      expect(s.status).toBe(2);
      expect(s.stderr.trim()).toBe('iosim: command line (--seed): --seed must be a non-negative integer, got "abc"');
    }
    expect(iosim("compare", trace, "--kernel", "6.1", "--seed", "3").status).toBe(0);
    // explain --seq is an index (abc explained "r#NaN")
    for (const bad of ["abc", "-1", "2.5"]) {
      const e = iosim("explain", trace, "--job", "r", "--seq", bad);
      expect(e.status).toBe(2);
      expect(e.stderr.trim()).toBe(`iosim: command line (--seq): --seq must be a non-negative integer, got "${bad}"`);
    }
    expect(iosim("explain", trace, "--job", "r", "--seq", "5").stdout).toMatch(/^IO r#5 \(R\) entered blk-throttle/);
  });

  it("a trace cut short after its header is bad input naming its line, not 0/0 IOs matched and PASS", () => {
    const traces = resolve(__dirname, "..", "..", "test", "fixtures", "oracle");
    const full = join(traces, "throtl", "traces", "iops100_qd1_read", "run2.jsonl");
    for (const src of [full, join(traces, "guest", "iomax.jsonl")]) {
      writeFileSync(join(tmp, "cut.jsonl"), readFileSync(src, "utf8").split("\n")[0] + "\n");
      for (const cmd of ["compare", "replay"]) {
        const r = iosim(cmd, "cut.jsonl");
        expect(r.status).toBe(2);
        expect(r.stderr.trim()).toBe("iosim: cut.jsonl:1: the trace has a header but no IO records to score (a capture cut short?)");
      }
    }
  });

  it("run --json keeps stdout one JSON document, with the warnings in it (iosim_warnings) and on stderr (they were dropped)", () => {
    writeFileSync(join(tmp, "verify.fio"), "[a]\nrw=randread\nbs=4k\nsize=1m\nverify=md5\ndirect=1\n");
    const r = iosim("run", "verify.fio", "--json", "-q");
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { jobs: Array<{ jobname: string }>; iosim_warnings?: string[] };
    expect(doc.jobs[0]!.jobname).toBe("a");
    expect(doc.iosim_warnings).toEqual(["verify.fio:5: verify=md5: no effect in a simulation, ignored"]);
    // a run without warnings is fio's JSON alone
    writeFileSync(join(tmp, "clean.fio"), "[a]\nrw=randread\nbs=4k\nsize=1m\ndirect=1\n");
    expect(Object.keys(JSON.parse(iosim("run", "clean.fio", "--json", "-q").stdout))).not.toContain("iosim_warnings");
    expect(r.stderr).toBe("iosim: warning: verify.fio:5: verify=md5: no effect in a simulation, ignored\n");
  });

  it("run --output-format json+ gives each latency's bins for fio_jsonplus_clat2csv (there was no json+); terse is refused by name", () => {
    writeFileSync(join(tmp, "plus.fio"), "[p]\nrw=randread\nbs=4k\nsize=64k\ndirect=1\n");
    const r = iosim("run", "plus.fio", "--output-format", "json+", "-q");
    expect(r.status).toBe(0);
    const clat = (JSON.parse(r.stdout) as { jobs: Array<{ read: { clat_ns: { N: number; bins: Record<string, number> } } }> }).jobs[0]!.read.clat_ns;
    expect(Object.values(clat.bins).reduce((a, b) => a + b, 0)).toBe(clat.N);
    expect(clat.N).toBe(16);
    expect(JSON.parse(iosim("run", "plus.fio", "--output-format", "json", "-q").stdout).jobs[0].read.clat_ns.bins).toBeUndefined();
    const t = iosim("run", "plus.fio", "--output-format", "terse", "-q");
    expect(t.status).toBe(2);
    expect(t.stderr).toBe('iosim: command line (--output-format): --output-format must be normal, json or json+, not "terse" (fio\'s terse format is not produced)\n');
  });

  it("run x.fio with an option fio does not know is bad input naming file, line and option (it ran at depth 1 with a warning)", () => {
    writeFileSync(join(tmp, "typo.fio"), "[global]\nioengine=libaio\ndirect=1\n[a]\nrw=randread\nsize=1m\niodeph=32\n");
    const r = iosim("run", "typo.fio", "--json", "-q");
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe('iosim: typo.fio:7 (iodeph): fio does not know the option "iodeph" (fio: Bad option <iodeph=32>); did you mean "iodepth"?\n');
  });

  it("no command is a usage error (exit 2, help on stderr); --help asked for is success", () => {
    for (const args of [[], ["k8s"], ["mc"]]) {
      const r = iosim(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^Usage: iosim/);
    }
    const h = iosim("--help");
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/^Usage: iosim/);
  });

  it("output into a pipe closed early (| head -1) ends without an EPIPE stack", async () => {
    const p = spawn(process.execPath, [MAIN, "k8s", "run", "rbd-unmap-busy", "--logs"], { cwd: tmp });
    let err = "";
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const first = await new Promise<string>((res) => p.stdout.once("data", (d: Buffer) => res(d.toString())));
    p.stdout.destroy();
    const code = await new Promise<number | null>((res) => p.on("close", (c) => res(c)));
    expect(first).toMatch(/^scenario rbd-unmap-busy on Kubernetes/);
    expect(err).toBe("");
    expect([0, 1]).toContain(code);
  });
});

describe("exit 3: a bug, where to report it, and the input to attach", () => {
  it("an internal error (an injected failure instantiating the core) says it is a bug, names the tracker and writes the input beside the output", () => {
    const dir = mkdtempSync(join(tmp, "bug-"));
    const scen = join(dir, "s.yaml");
    writeFileSync(scen, "name: t\nduration: 10ms\ndevices:\n  - preset: ssd\njobs:\n  - {name: a, rw: read, number_ios: 5}\n");
    // a preload that makes instantiating the WebAssembly core throw a plain Error: a failure no input explains
    const inject = `WebAssembly.Instance = class { constructor() { throw new Error("injected failure"); } };`;
    const r = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(inject)}`, MAIN, "run", "-q", scen, "--out", join(dir, "out")], { cwd: dir, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^iosim: internal error: this is a bug in iosim, not a problem with your input\.\nPlease report it at the iosim issue tracker and attach (\S+iosim-bug-[^ ]+\.json) \(the command line, the files it names, and this error\)\.\n/);
    const saved = /attach (\S+\.json)/.exec(r.stderr)![1]!;
    expect(saved.startsWith(dir)).toBe(true);
    const report = JSON.parse(readFileSync(saved, "utf8")) as { argv: string[]; files: Record<string, string>; error: string };
    expect(report.argv).toContain(scen);
    expect(report.files[scen]).toContain("number_ios: 5");
    expect(report.error).toMatch(/injected failure/);
  });
  it("package.json's bugs field is where to report when the package has one", async () => {
    const { reportTo, internalErrorMessage } = (await import(MAIN)) as typeof import("./main.js");
    expect(reportTo({ name: "iosim", bugs: { url: "https://tracker.example/iosim/issues" } })).toBe("https://tracker.example/iosim/issues");
    expect(reportTo({ name: "iosim", bugs: "https://tracker.example/b" })).toBe("https://tracker.example/b");
    expect(reportTo({ name: "iosim", bugs: { email: "bugs@example.org" } })).toBe("bugs@example.org");
    expect(reportTo({ name: "iosim" })).toBe("the iosim issue tracker");
    expect(internalErrorMessage(new Error("x"), undefined, "T")).toMatch(/Please report it at T with the command line and the files it names\./);
  });
});
