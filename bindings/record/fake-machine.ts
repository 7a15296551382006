// A fake machine for `iosim record`'s tests: a temporary directory laid out
// as the kernel lays out /proc, /sys/fs/cgroup, /sys/kernel/tracing and
// /sys/block, commands that act on it (losetup attaches "loop7", mktemp and
// rm make and remove files below it, modprobe fails as on a kernel without
// null_blk, cc succeeds without compiling), and a job process that behaves as
// iosim_rec.c does (READY, t0 on stdin, one output line per IO) without any
// real IO. After a recording, `leftovers()` lists whatever it made that is
// still there: cgroups, tracefs instances, loop devices, backing files.
//
// `mode` makes the job misbehave: "fail" exits before READY, "hang" never
// finishes (for Ctrl-C and --timeout), "ok" completes each IO 100 us after
// its earliest submit time.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootedHost, type Host, type RunResult } from "./host.js";

export interface FakeMachine {
  root: string;
  host: Host;
  commands: string[];
  leftovers(): string[];
  remove(): void;
}

export interface FakeOptions {
  cgroupVersion?: 1 | 2;
  tracefs?: boolean;
  ioController?: boolean;
  uid?: number;
  mode?: "ok" | "fail" | "hang";
  mounts?: string[];
}

const TIMER_LIST = `Timer List Version: v0.10
HRTIMER_MAX_CLOCK_BASES: 8
now at 289789619367 nsecs

cpu: 0
 clock 0:
  .base:               pK-error
active timers:
 #0: <00000000a8d7b867>, tick_nohz_handler, S:01
 # expires at 289800000000-289800000000 nsecs [in 10380633 to 10380633 nsecs]
jiffies: 4294964679
`;

const FAKE_REC = `
import { readFileSync, writeFileSync } from "node:fs";
const a = process.argv.slice(2);
const arg = (k) => a[a.indexOf(k) + 1];
const mode = process.env.IOSIM_FAKE_REC_MODE ?? "ok";
if (mode === "fail") { process.stderr.write("cannot open the device"); process.exit(1); }
process.stdout.write("READY " + process.pid + "\\n");
let buf = "";
process.stdin.on("data", (d) => (buf += d));
process.stdin.on("end", () => {
  if (mode === "hang") { setInterval(() => {}, 1000); return; }
  const ios = readFileSync(arg("-i"), "utf8").trim().split("\\n").map((l) => l.split(" "));
  let t = 0;
  const out = ios.map(([dir, off, size, at], i) => {
    t = Math.max(t, Number(at));
    const line = [i, 0, dir, off, size, t, t + 100000, size, 0].join(" ");
    t += 100000;
    return line;
  });
  writeFileSync(arg("-o"), out.join("\\n") + "\\n");
});
`;

export function fakeMachine(o: FakeOptions = {}): FakeMachine {
  const root = mkdtempSync(join(tmpdir(), "iosim-fake-machine-"));
  const v = o.cgroupVersion ?? 1;
  const cg = v === 1 ? "/sys/fs/cgroup/blkio" : "/sys/fs/cgroup";
  const mk = (p: string) => mkdirSync(join(root, p), { recursive: true });
  const put = (p: string, s: string) => {
    mk(join(p, ".."));
    writeFileSync(join(root, p), s);
  };
  mk(cg);
  mk("/dev/shm");
  mk("/sys/block");
  const mounts = [v === 1 ? `cgroup ${cg} cgroup rw,nosuid,blkio 0 0` : `cgroup2 ${cg} cgroup2 rw 0 0`];
  if (o.tracefs !== false) {
    mounts.push("tracefs /sys/kernel/tracing tracefs rw 0 0");
    mk("/sys/kernel/tracing/instances");
  }
  put("/proc/mounts", [...mounts, ...(o.mounts ?? [])].join("\n") + "\n");
  put("/proc/timer_list", TIMER_LIST);
  put("/proc/sys/kernel/osrelease", "6.18.44-fake\n");
  put("/proc/version", "Linux version 6.18.44-fake\n");
  put("/boot/config-6.18.44-fake", "CONFIG_HZ=250\nCONFIG_BLK_DEV_THROTTLING=y\n");
  if (v === 2) {
    put(`${cg}/cgroup.controllers`, o.ioController === false ? "cpu memory\n" : "cpu io memory\n");
    put(`${cg}/cgroup.subtree_control`, "");
  }
  put("/sys/block/sda/dev", "8:0\n");
  put("/sys/block/sda/size", "2097152\n");
  const fakeRec = join(root, "fake-rec.mjs");
  writeFileSync(fakeRec, FAKE_REC);
  const commands: string[] = [];
  const ok = (stdout = ""): RunResult => ({ status: 0, stdout, stderr: "" });
  const run = (cmd: string, args: string[]): RunResult => {
    commands.push([cmd, ...args].join(" "));
    switch (cmd) {
      case "cc":
        return ok("cc (fake) 12\n");
      case "mktemp": {
        const p = `${args[args.indexOf("-p") + 1]}/${args[args.length - 1]!.replace(/X+$/, "fake01")}`;
        writeFileSync(join(root, p), "");
        return ok(p + "\n");
      }
      case "fallocate":
        return ok();
      case "losetup":
        if (args[0] === "--show") {
          put("/sys/block/loop7/dev", "7:7\n");
          put("/sys/block/loop7/size", "131072\n");
          put("/sys/block/loop7/queue/rotational", "1\n");
          put("/sys/block/loop7/queue/max_sectors_kb", "1280\n");
          put("/sys/block/loop7/queue/nr_requests", "128\n");
          return ok("/dev/loop7\n");
        }
        if (args[0] === "-d") {
          rmSync(join(root, "/sys/block/loop7"), { recursive: true, force: true });
          return ok();
        }
        return { status: 1, stdout: "", stderr: "losetup: bad usage" };
      case "rm":
        rmSync(join(root, args[args.length - 1]!), { force: true });
        return ok();
      case "modprobe":
        return { status: 1, stdout: "", stderr: "modprobe: FATAL: Module null_blk not found" };
      default:
        return { status: 127, stdout: "", stderr: `${cmd}: not found` };
    }
  };
  const base = rootedHost(root, run, {
    uid: o.uid ?? 0,
    start: (_cmd, args) => spawn(process.execPath, [fakeRec, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, IOSIM_FAKE_REC_MODE: o.mode ?? "ok" } }),
  });
  const host: Host = {
    ...base,
    // a new tracefs instance comes with its event files and trace buffer, as the kernel makes them
    mkdir(p) {
      base.mkdir(p);
      if (p.includes("/instances/")) {
        for (const e of ["block_rq_issue", "block_rq_complete"]) mk(join(p, "events/block", e));
        writeFileSync(join(root, p, "trace"), "# tracer: nop\n  iosim_rec-812 [001] ..... 289.800100: block_rq_issue: 7,7 R 4096 () 0 + 8 none,0,0 [iosim_rec]\n");
      }
    },
    // the kernel removes an instance or cgroup with its files; rmdir of a fake one removes the tree
    rmdir(p) {
      rmSync(join(root, p), { recursive: true });
    },
  };
  const list = (p: string) => (existsSync(join(root, p)) ? readdirSync(join(root, p)) : []);
  return {
    root,
    host,
    commands,
    leftovers: () => [
      ...list(cg).filter((n) => n.startsWith("iosim-rec")).map((n) => `${cg}/${n}`),
      ...list("/sys/kernel/tracing/instances").map((n) => `tracefs instance ${n}`),
      ...(existsSync(join(root, "/sys/block/loop7")) ? ["/dev/loop7 attached"] : []),
      ...list("/dev/shm").map((n) => `/dev/shm/${n}`),
    ],
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
