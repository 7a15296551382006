// iosim record against a fake machine (bindings/record/fake-machine.ts): what
// it makes, that it removes all of it (after a recording, an error midway,
// Ctrl-C and a timeout), its refusals, and that its trace is one `iosim
// replay` / `compare` read.
import { afterEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeMachine, type FakeMachine } from "./fake-machine.js";
import { record, RecordError } from "./record.js";
import { dryRun } from "./host.js";
import { ioMaxAsV1, planRecording, retarget } from "./plan.js";
import { jiffiesMap, parseTimerList } from "./jiffies.js";
import { parseBlockTrace, parseIocostTrace, traceDev } from "./tracepoints.js";
import { scenarioFromThrotlJson } from "../oracle/throtl-scenario.js";
import { readTrace } from "../oracle/traces.js";
import { replayTrace } from "../oracle/replay.js";
import { loadScenario } from "../scenario/load.js";

const ROOT = resolve(__dirname, "..", "..");
const THROTL = join(ROOT, "test/fixtures/oracle/throtl/scenarios");
const throtl = (name: string) => {
  const f = join(THROTL, `${name}.json`);
  return scenarioFromThrotlJson(readFileSync(f, "utf8"), f);
};
const machines: FakeMachine[] = [];
const machine = (o: Parameters<typeof fakeMachine>[0] = {}) => {
  const m = fakeMachine(o);
  machines.push(m);
  return m;
};
afterEach(() => {
  for (const m of machines.splice(0)) m.remove();
});

describe("iosim record on a fake machine", () => {
  it("makes the cgroups, writes the limits with the device's own MAJ:MIN, and leaves nothing behind", async () => {
    const m = machine();
    const seen: string[] = [];
    const mk = m.host.mkdir.bind(m.host);
    m.host.mkdir = (p) => {
      seen.push(p);
      mk(p);
    };
    const rec = await record(m.host, throtl("limit_change_iops"), {});
    expect(seen.some((p) => /blkio\/iosim-rec\.\w+\/a$/.test(p))).toBe(true);
    expect(seen.some((p) => p.includes("/sys/kernel/tracing/instances/iosim-rec."))).toBe(true);
    expect(rec.header.limits_written).toEqual([expect.objectContaining({ cgroup: "a", file: "blkio.throttle.read_iops_device", value: "7:7 200" })]);
    expect((rec.header.events as unknown[]).map((e) => (e as { value: string }).value)).toEqual(["7:7 50", "7:7 400"]);
    expect(rec.ios).toHaveLength(550);
    expect(rec.block).toHaveLength(1);
    expect(m.commands).toContain("losetup -d /dev/loop7");
    expect(m.leftovers()).toEqual([]);
    // the queue's rotational flag was put back to what attach gave (the fake attaches rotational 1, the scenario wants 0)
    expect((rec.header.device as Record<string, unknown>).rotational_during_run).toBe("0");
  });

  it("writes a trace that iosim replay reads: same cgroups, writes at their times, every IO", async () => {
    const m = machine();
    const rec = await record(m.host, throtl("limit_change_iops"), {});
    const t = readTrace(rec.lines.join("\n"), "fake.jsonl");
    expect(t.kind).toBe("throtl");
    expect(t.cgroupVersion).toBe(1);
    expect(t.device.devno).toBe("7:7");
    expect(t.ios).toHaveLength(550);
    expect(t.writes.map((w) => [w.file, w.value])).toEqual([
      ["blkio.throttle.read_iops_device", "7:7 200"],
      ["blkio.throttle.read_iops_device", "7:7 50"],
      ["blkio.throttle.read_iops_device", "7:7 400"],
    ]);
    // the limit write 200 ms before t0, the changes at 1.25 s and 2.25 s after the scenario's t = 0
    expect(t.writes[0]!.atNs).toBeLessThan(-150e6);
    expect(t.writes[1]!.atNs - t.writes[0]!.atNs).toBeGreaterThanOrEqual(1250e6 - 5e6);
    const run = replayTrace(t, {});
    expect(run.sims).toHaveLength(550);
  });

  it("a cgroup v2 scenario's io.max on a v1 machine is written as blkio.throttle.* files", async () => {
    const yaml = `name: v2
devices: [{ preset: ideal, name: nvme0n1, devno: "259:0" }]
cgroups:
  t/a: { io.max: "259:0 rbps=1048576 riops=max" }
jobs:
  - { name: j, cgroup: t/a, rw: read, bs: 4k, size: 64k, direct: 1 }
`;
    const s = loadScenario(yaml, "v2.yaml").scenario;
    const m = machine();
    const rec = await record(m.host, s, { tracepoints: false });
    expect(rec.header.limits_written).toEqual([
      expect.objectContaining({ cgroup: "t/a", file: "blkio.throttle.read_bps_device", value: "7:7 1048576" }),
      expect.objectContaining({ cgroup: "t/a", file: "blkio.throttle.read_iops_device", value: "7:7 0" }),
    ]);
    expect(rec.ios).toHaveLength(16);
    expect(m.leftovers()).toEqual([]);
  });

  it("on a v2 machine enables +io down to the job's cgroup and puts the root's subtree_control back", async () => {
    const m = machine({ cgroupVersion: 2, tracefs: false });
    const s = loadScenario(`name: v2\ndevices: [{ preset: ideal, name: sda, devno: "8:0" }]\ncgroups:\n  a: { io.max: "8:0 wiops=100" }\njobs:\n  - { name: w, cgroup: a, rw: write, bs: 4k, size: 16k, direct: 1 }\n`, "v2.yaml").scenario;
    const rec = await record(m.host, s, { tracepoints: false });
    expect(rec.header.cgroup_version).toBe(2);
    expect(rec.header.limits_written).toEqual([expect.objectContaining({ file: "io.max", value: "7:7 wiops=100" })]);
    expect(readFileSync(join(m.root, "sys/fs/cgroup/cgroup.subtree_control"), "utf8")).toBe("-io");
    expect(m.leftovers()).toEqual([]);
  });

  it("an error midway (a job that cannot start) is a RecordError and removes everything made", async () => {
    const m = machine({ mode: "fail" });
    await expect(record(m.host, throtl("iops100_qd1_read"), {})).rejects.toThrow(/job r (did not start|exited).*cannot open the device/);
    expect(m.leftovers()).toEqual([]);
  });

  it("--timeout stops hung jobs, fails, and removes everything made", async () => {
    const m = machine({ mode: "hang" });
    await expect(record(m.host, throtl("iops100_qd1_read"), { timeoutS: 1 })).rejects.toThrow(/did not finish within 1 s/);
    expect(m.leftovers()).toEqual([]);
  });

  it("Ctrl-C (SIGINT) during a recording exits 130 and removes everything made", async () => {
    const m = machine({ mode: "hang" });
    const script = `
      import { fakeMachine } from ${JSON.stringify(join(ROOT, "dist/bindings/record/fake-machine.js"))};
      import { record } from ${JSON.stringify(join(ROOT, "dist/bindings/record/record.js"))};
      import { scenarioFromThrotlJson } from ${JSON.stringify(join(ROOT, "dist/bindings/oracle/throtl-scenario.js"))};
      import { readFileSync } from "node:fs";
      const f = ${JSON.stringify(join(THROTL, "iops100_qd1_read.json"))};
      const m = fakeMachine({ mode: "hang" });
      process.stdout.write(m.root + "\\n");
      record(m.host, scenarioFromThrotlJson(readFileSync(f, "utf8"), f), { say: (l) => process.stdout.write(l + "\\n") });
    `;
    void m;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    await new Promise<void>((r) => child.stdout.on("data", (d) => ((out += d), out.includes("recording") && r())));
    child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    expect(code).toBe(130);
    expect(err).toMatch(/SIGINT: removed what the recording made/);
    const root = out.split("\n")[0]!;
    const other = fakeMachine();
    try {
      // the same leftovers check, on the child's tree
      const { readdirSync, existsSync, rmSync } = await import("node:fs");
      expect(readdirSync(join(root, "sys/fs/cgroup/blkio")).filter((n) => n.startsWith("iosim-rec"))).toEqual([]);
      expect(readdirSync(join(root, "sys/kernel/tracing/instances"))).toEqual([]);
      expect(existsSync(join(root, "sys/block/loop7"))).toBe(false);
      expect(readdirSync(join(root, "dev/shm"))).toEqual([]);
      rmSync(root, { recursive: true, force: true });
    } finally {
      other.remove();
    }
  });

  it("refuses, saying what to do, without root, tracefs, the io controller, or --yes for a named device", async () => {
    const s = throtl("iops100_qd1_read");
    await expect(record(machine({ uid: 1000 }).host, s)).rejects.toThrow(/needs root.*sudo/);
    await expect(record(machine({ tracefs: false }).host, s)).rejects.toThrow(/tracefs is not mounted: mount -t tracefs.*--no-tracepoints/);
    await expect(record(machine({ cgroupVersion: 2, ioController: false }).host, s, { tracepoints: false })).rejects.toThrow(/io controller is not available/);
    await expect(record(machine().host, s, { device: "/dev/sda" })).rejects.toThrow(/add --yes to confirm/);
    await expect(record(machine({ mounts: ["/dev/sda1 / ext4 rw 0 0"] }).host, s, { device: "/dev/sda", yes: true })).rejects.toThrow(/holds a mounted filesystem.*--file/);
    await expect(record(machine().host, s, { device: "null_blk" })).rejects.toThrow(/no null_blk module/);
    for (const m of machines) expect(m.leftovers()).toEqual([]);
  });

  it("io.weight on a v1 machine and buffered jobs are refused naming the field", () => {
    const s = loadScenario(`name: w\ndevices: [{ preset: ideal, name: sda, devno: "8:0" }]\ncgroups:\n  a: { io.weight: "default 200" }\njobs:\n  - { name: j, cgroup: a, rw: read, bs: 4k, size: 16k, direct: 1 }\n`, "w.yaml").scenario;
    expect(() => planRecording(s, { cgroupVersion: 1, devno: "7:7", sizeBytes: 1 << 26 })).toThrow(/w\.yaml:\d+ \(io\.weight\): io\.weight needs the cgroup v2 io controller/);
    const b = loadScenario(`name: b\ndevices: [{ preset: ideal, name: sda, devno: "8:0" }]\njobs:\n  - { name: j, rw: read, bs: 4k, size: 16k, direct: 0 }\n`, "b.yaml").scenario;
    expect(() => planRecording(b, { cgroupVersion: 2, devno: "7:7", sizeBytes: 1 << 26 })).toThrow(/\(direct\): job "j": buffered IO/);
  });

  it("--dry-run prints every change and makes none", async () => {
    const m = machine();
    const lines: string[] = [];
    await record(dryRun(m.host, (l) => lines.push(l)), throtl("limit_change_iops"), { say: (l) => lines.push(l) });
    expect(lines.some((l) => /^mkdir \/sys\/fs\/cgroup\/blkio\/iosim-rec\.\w+\/a$/.test(l))).toBe(true);
    expect(lines.some((l) => /at t = 1250 ms: write .*read_iops_device "7:0 50"/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith("run losetup -d"))).toBe(true);
    expect(m.commands.filter((c) => !c.startsWith("cc --version"))).toEqual([]);
    expect(m.leftovers()).toEqual([]);
  });
});

describe("the recording's parts", () => {
  it("plans the oracle's IO lists: sequential, bursts with idle barriers, open-loop times", () => {
    const t = { cgroupVersion: 1 as const, devno: "7:3", sizeBytes: 64 << 20 };
    const a = planRecording(throtl("iops100_qd1_read"), t);
    expect(a.jobs[0]!.ios.slice(0, 2)).toEqual([{ dir: "R", off: 0, size: 4096, atNs: 0, idleNs: -1 }, { dir: "R", off: 4096, size: 4096, atNs: 0, idleNs: -1 }]);
    expect(a.writes).toEqual([{ atNs: 0, cgroup: "a", file: "blkio.throttle.read_iops_device", value: "7:3 100" }]);
    const b = planRecording(throtl("bursts20_gap150ms"), t);
    expect(b.jobs[0]!.ios.filter((io) => io.idleNs === 150e6).length).toBe(b.jobs[0]!.ios.length / 20 - 1);
    const o = planRecording(throtl("open_loop_over"), t);
    const at = o.jobs[0]!.ios.map((io) => io.atNs);
    expect(at[1]! - at[0]!).toBeGreaterThan(0);
  });

  it("retargets MAJ:MIN and maps io.max to v1 files", () => {
    expect(retarget("259:0 rbps=1\n259:0 wbps=2", "259:0", "7:1")).toBe("7:1 rbps=1\n7:1 wbps=2");
    expect(ioMaxAsV1("7:1 rbps=1048576 wiops=max", "7:1")).toEqual([
      { file: "blkio.throttle.read_bps_device", value: "7:1 1048576" },
      { file: "blkio.throttle.write_iops_device", value: "7:1 0" },
    ]);
  });

  it("reads the jiffies map and block tracepoints as the kernel prints them", () => {
    const tl = "now at 289789619367 nsecs\n #0: <x>, tick_nohz_handler, S:01\n # expires at 289800000000-289800000000 nsecs\njiffies: 4294964679\n";
    expect(parseTimerList(tl)).toEqual({ now: 289789619367, jiffies: 4294964679, expiries: [289800000000] });
    const jm = jiffiesMap([tl], 250);
    expect(jm.offset).toBe(4294964679 - Math.floor(289789619367 / 4e6));
    expect(jm.grid_offset_ns).toBe(0);
    const ev = parseBlockTrace("  <idle>-0 [000] d.h1. 1234.567990: block_rq_complete: 7,3 R () 8 + 8 none,0,0 [0]\n", 1234_000_000_000n);
    expect(ev).toEqual([{ type: "block", ev: "complete", t_ns: 567_990_000, rwbs: "R", sector: 8, nr_sector: 8 }]);
    expect(traceDev("7:3")).toBe((7 << 20) | 3);
  });

  it("reads blk-iocost's tracepoints in the shape of the oracle's guest traces", () => {
    const text = [
      "        iosim_rec-129     [001] .....    51.158793: iocost_iocg_activate: [nullb0:/iosim-rec.k1/B] now=51158793:2821315568238 vrate=165811 period=114->114 vtime=2818566808238 weight=19660800/19660800 hweight=65536/65536",
      "           <idle>-0       [001] d.s2.    51.226470: iocost_inuse_transfer: [nullb0:/iosim-rec.k1/B] now=51226390 inuse=19660800->2925682 hw_inuse=49152->20227",
      "          <idle>-0       [001] d.s2.    51.226480: block_rq_issue: 253,0 R 4096 () 8 + 8 none,0,0 [x]",
    ].join("\n");
    const ev = parseIocostTrace(text, 51_000_000_000n);
    expect(ev).toHaveLength(2);
    expect(ev[0]).toMatchObject({ type: "trace", event: "iocost_iocg_activate", t_ns: 158_793_000, dev: "nullb0", cgroup: "/iosim-rec.k1/B",
      now: "51158793:2821315568238", vrate: 165811, period: [114, 114], weight: [19660800, 19660800], hweight: [65536, 65536] });
    expect(ev[1]).toMatchObject({ event: "iocost_inuse_transfer", now: 51226390, inuse: [19660800, 2925682], hw_inuse: [49152, 20227] });
  });

  it("marks a map whose samples disagree by more than a tick unreliable, and compare then estimates the phase", async () => {
    const at = (now: number, j: number) => `now at ${now} nsecs\njiffies: ${j}\n`;
    expect(jiffiesMap([at(4e9, 1000), at(4.001e9, 1001)], 250).reliable).toBe(true);
    const late = jiffiesMap([at(4e9, 1000), at(4.001e9, 1003)], 250);
    expect(late.reliable).toBe(false);
    const m = machine();
    const rec = await record(m.host, throtl("iops100_qd1_read"), {});
    expect(readTrace(rec.lines.join("\n"), "a.jsonl").clock.source).toBe("header");
    const h = { ...rec.header, jiffies: { ...(rec.header.jiffies as object), reliable: false } };
    expect(readTrace([JSON.stringify(h), ...rec.lines.slice(1)].join("\n"), "b.jsonl").clock.source).toBe("estimated");
    // --no-jiffies-map: the map is kept for reference but marked, so compare estimates the phase
    const g = await record(machine().host, throtl("iops100_qd1_read"), { jiffiesMap: false });
    expect((g.header.jiffies as Record<string, unknown>).reliable).toBe(false);
    expect(readTrace(g.lines.join("\n"), "c.jsonl").clock.source).toBe("estimated");
  });
});

describe("iosim record's command line", () => {
  const MAIN = join(ROOT, "dist/bindings/cli/main.js");
  it("needs -o (exit 2 naming it) and refuses a bad --repeats", async () => {
    const { spawnSync } = await import("node:child_process");
    const scen = join(THROTL, "iops100_qd1_read.json");
    const a = spawnSync(process.execPath, [MAIN, "record", scen], { encoding: "utf8" });
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/command line \(-o\): -o TRACE\.jsonl is required/);
    const b = spawnSync(process.execPath, [MAIN, "record", scen, "-o", "/tmp/x.jsonl", "--repeats", "0"], { encoding: "utf8" });
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/--repeats must be at least 1/);
  });
});
