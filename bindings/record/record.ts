// `iosim record`: run a scenario on this machine's real kernel and write what
// the kernel did, IO by IO, as a trace `iosim replay` / `compare` read.
//
// Design. A recording is the oracle's recorder (shared/oracle/throtl
// run_scenario.py) made part of the product and driven by the same Scenario
// `iosim run` simulates. It goes in five steps, each of which pushes its own
// undo onto one stack before it changes anything, so a failure at any step,
// Ctrl-C (SIGINT) or SIGTERM unwinds exactly what was made, newest first:
//
//   1. look:    root? which cgroup version holds the io controller? tracefs?
//               a C compiler for the recorder? refuse with what to do if not;
//   2. device:  a loop device on a tmpfs file (default), null_blk, or a device
//               the user names (--device /dev/X --yes), or a file on a mounted
//               filesystem (--file); its MAJ:MIN, size and queue facts;
//   3. plan:    bindings/record/plan.ts turns the scenario into cgroups,
//               writes and per-job IO lists for that device and cgroup version;
//   4. run:     cgroups made under a group of our own (iosim-rec.XXXXXX), the
//               recorder (iosim_rec.c, compiled into a temporary directory)
//               started once per job in its cgroup, the jiffies map read from
//               /proc/timer_list, the initial writes made, then t0 handed to
//               every job; timed writes at their times (with the times each
//               write started and returned); block tracepoints in a tracefs
//               instance of our own;
//   5. write:   one header (machine facts, device, cgroups, writes, jiffies
//               map, counters) and one line per IO (and per block event).
//
// Time. The scenario's t = 0 is when its initial writes returned (Z). Job j
// starts at Z + startNs_j, never sooner than 50 ms after every job reported
// ready. The trace's t0 is the earliest job start; every time in the trace is
// ns relative to it, so the writes at t = 0 have negative times, as in the
// oracle's traces.
//
// Worked example: `iosim record iops100_qd1_read.json -o r.jsonl` on this
// project's hosts (6.18, v1 blkio): loop device /dev/loop0 (7:0) on a 64 MiB
// tmpfs file, group blkio/iosim-rec.ab12cd/a, write "7:0 100" to
// blkio.throttle.read_iops_device at Z, job r started at Z + 200 ms; 300
// reads, the last ~2.9 s after t0; then the group, the loop device and the
// file are gone, and `iosim compare r.jsonl` scores it.

import { basename, dirname, join } from "node:path";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, statSync, openSync, closeSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { ChildProcess } from "node:child_process";
import type { Scenario } from "../scenario/types.js";
import type { Host } from "./host.js";
import { ioListText, planRecording, type RecordPlan } from "./plan.js";
import { hzOfConfig, jiffiesMap } from "./jiffies.js";
import { BLOCK_EVENTS, IOCOST_EVENTS, parseBlockTrace, parseIocostTrace, traceDev, type BlockEvent } from "./tracepoints.js";

/** Refusals before anything is changed, and failures midway: exit 2 with what to do. */
export class RecordError extends Error {}

export interface RecordOptions {
  /** "loop" (default), "null_blk", or a block device path (needs yes) */
  device?: string;
  yes?: boolean;
  /** a file on a mounted filesystem to record against instead of a device */
  file?: string;
  /** null_blk module parameters (irqmode, completion_nsec, queue_mode) */
  nullBlk?: Record<string, string>;
  tracepoints?: boolean;
  repeat?: number;
  /** seconds before the jobs are stopped and the recording fails */
  timeoutS?: number;
  /** where tmpfs backing files go */
  shm?: string;
  /** a recorder binary built beforehand (cc -O2 -pthread [-static] iosim_rec.c): no compiler needed */
  recorder?: string;
  /**
   * false: the jiffies map is recorded but marked not to be trusted, so
   * compare estimates the tick phase from the trace (a guest under software
   * emulation, whose ticks are delivered late by a varying amount, as the
   * oracle's guest traces are scored)
   */
  jiffiesMap?: boolean;
  say?: (line: string) => void;
}

export interface Recording {
  header: Record<string, unknown>;
  ios: Array<Record<string, unknown>>;
  block: BlockEvent[];
  lines: string[];
}

interface Mounts {
  v1Blkio?: string;
  v2?: string;
  tracefs?: string;
}

export function readMounts(h: Host): Mounts {
  const m: Mounts = {};
  for (const l of (h.read("/proc/mounts") ?? "").split("\n")) {
    const [, dir, type, opts] = l.split(" ");
    if (!dir) continue;
    if (type === "cgroup" && (opts ?? "").split(",").includes("blkio")) m.v1Blkio = dir;
    else if (type === "cgroup2") m.v2 ??= dir;
    else if (type === "tracefs") m.tracefs ??= dir;
  }
  // newer kernels mount tracefs on first access of /sys/kernel/tracing
  if (!m.tracefs && h.exists("/sys/kernel/tracing/trace")) m.tracefs = "/sys/kernel/tracing";
  return m;
}

/** Step 1: what this machine offers, or a refusal saying what to do. */
export function look(h: Host, s: Scenario, o: RecordOptions): { version: 1 | 2; cgroot: string; tracefs?: string } {
  if (h.uid() !== 0 && h.log === undefined) throw new RecordError("iosim record needs root: it makes cgroups, a loop device and tracefs instances (run it with sudo; --dry-run shows every change it would make)");
  const m = readMounts(h);
  let version: 1 | 2;
  let cgroot: string;
  if (m.v1Blkio) {
    version = 1;
    cgroot = m.v1Blkio;
  } else if (m.v2) {
    const ctl = (h.read(join(m.v2, "cgroup.controllers")) ?? "").split(/\s+/);
    if (!ctl.includes("io")) throw new RecordError(`the io controller is not available on the cgroup v2 hierarchy at ${m.v2} (cgroup.controllers: "${ctl.join(" ").trim()}"): boot with it enabled, or bind it to v1 blkio`);
    version = 2;
    cgroot = m.v2;
  } else {
    throw new RecordError("no cgroup hierarchy with the io controller is mounted (neither cgroup2 nor cgroup v1 blkio in /proc/mounts): mount -t cgroup2 none /sys/fs/cgroup");
  }
  if (o.tracepoints !== false && !m.tracefs) {
    throw new RecordError("tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing (or pass --no-tracepoints to record user-space timings only)");
  }
  if (o.recorder) {
    if (!h.exists(o.recorder)) throw new RecordError(`--recorder ${o.recorder}: no such file`);
  } else if (h.run("cc", ["--version"]).status !== 0) {
    throw new RecordError("no C compiler (cc) on this machine: the recorder (bindings/record/iosim_rec.c) is compiled at run time; install gcc (apt-get install gcc libc6-dev), or build it elsewhere and pass --recorder PATH");
  }
  void s;
  return { version, cgroot, tracefs: o.tracepoints === false ? undefined : m.tracefs };
}

/** The undo stack: every change pushes how to take it back; unwind() runs them newest first, each once, all of them even if one fails. */
export class Undo {
  private steps: Array<{ what: string; fn: () => void }> = [];
  push(what: string, fn: () => void): void {
    this.steps.push({ what, fn });
  }
  unwind(): string[] {
    const failed: string[] = [];
    while (this.steps.length) {
      const s = this.steps.pop()!;
      try {
        s.fn();
      } catch (e) {
        failed.push(`${s.what}: ${(e as Error).message}`);
      }
    }
    return failed;
  }
  get size(): number {
    return this.steps.length;
  }
}

function must(h: Host, cmd: string, args: string[]): string {
  const r = h.run(cmd, args);
  if (r.status !== 0) throw new RecordError(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${r.stderr.trim()}`);
  return r.stdout.trim();
}

interface DeviceFacts {
  path: string;
  name: string;
  devno: string;
  sizeBytes: number;
  /** the file IOs go to (the device, or --file) */
  target: string;
  facts: Record<string, unknown>;
  queueDir?: string;
}

function queueFacts(h: Host, name: string): Record<string, string | undefined> {
  const q = `/sys/block/${name}/queue`;
  const f: Record<string, string | undefined> = {};
  for (const k of ["rotational", "max_sectors_kb", "max_hw_sectors_kb", "logical_block_size", "scheduler", "nr_requests", "nomerges", "read_ahead_kb", "wbt_lat_usec"]) f[k] = h.read(`${q}/${k}`)?.trim();
  return f;
}

/** Step 2: the device IOs go to. */
export function makeDevice(h: Host, undo: Undo, o: RecordOptions, bytesNeeded: number): DeviceFacts {
  const dev = o.device ?? "loop";
  const mounted = new Set((h.read("/proc/mounts") ?? "").split("\n").map((l) => l.split(" ")[0]).filter(Boolean));
  if (o.file) {
    const st = statOrCreate(o.file, bytesNeeded, undo);
    const major = Number((BigInt(st.dev) >> 8n) & 0xfffn) | Number((BigInt(st.dev) >> 32n) & ~0xfffn);
    const minor = Number(BigInt(st.dev) & 0xffn) | Number((BigInt(st.dev) >> 12n) & ~0xffn);
    const devno = `${major}:${minor}`;
    const name = h.list("/sys/block").find((n) => h.read(`/sys/block/${n}/dev`)?.trim() === devno) ?? devno;
    return { path: o.file, name, devno, sizeBytes: st.size, target: o.file, facts: { file: o.file, ...queueFacts(h, name) } };
  }
  if (dev === "loop") {
    const shm = o.shm ?? "/dev/shm";
    const mb = Math.max(64, Math.ceil(bytesNeeded / 1048576));
    const file = must(h, "mktemp", ["-p", shm, "iosim-rec.XXXXXX"]);
    undo.push(`remove ${file}`, () => must(h, "rm", ["-f", file]));
    must(h, "fallocate", ["-l", `${mb}M`, file]);
    const path = must(h, "losetup", ["--show", "-f", file]);
    undo.push(`detach ${path}`, () => must(h, "losetup", ["-d", path]));
    const name = basename(path);
    return { path, name, devno: (h.read(`/sys/block/${name}/dev`) ?? "7:0").trim(), sizeBytes: mb * 1048576, target: path, queueDir: `/sys/block/${name}/queue`, facts: { backing: `tmpfs file ${mb} MiB`, ...queueFacts(h, name) } };
  }
  if (dev === "null_blk") {
    if (h.exists("/sys/module/null_blk")) throw new RecordError("null_blk is already loaded: unload it (modprobe -r null_blk) or name its device with --device /dev/nullb0 --yes");
    const params = Object.entries({ nr_devices: "1", ...(o.nullBlk ?? {}), gb: String(Math.max(1, Math.ceil(bytesNeeded / 2 ** 30))) }).map(([k, v]) => `${k}=${v}`);
    const r = h.run("modprobe", ["null_blk", ...params]);
    if (r.status !== 0) throw new RecordError(`this kernel has no null_blk module (modprobe null_blk: ${r.stderr.trim() || "exit " + r.status}); record on a loop device instead (--device loop)`);
    undo.push("unload null_blk", () => must(h, "modprobe", ["-r", "null_blk"]));
    const devno = (h.read("/sys/block/nullb0/dev") ?? "").trim() || "251:0";
    const size = Number(h.read("/sys/block/nullb0/size") ?? 0) * 512 || Math.max(1, Math.ceil(bytesNeeded / 2 ** 30)) * 2 ** 30;
    return { path: "/dev/nullb0", name: "nullb0", devno, sizeBytes: size, target: "/dev/nullb0", queueDir: "/sys/block/nullb0/queue", facts: { null_blk: Object.fromEntries(params.map((p) => p.split("="))), ...queueFacts(h, "nullb0") } };
  }
  if (!dev.startsWith("/dev/")) throw new RecordError(`--device: "${dev}" is neither loop, null_blk nor a /dev path`);
  const name = basename(dev);
  if (!h.exists(`/sys/block/${name}`)) throw new RecordError(`--device ${dev}: no such whole block device (/sys/block/${name} is missing)`);
  const busy = [...mounted].filter((m) => m === dev || (m ?? "").startsWith(dev));
  if (busy.length) throw new RecordError(`--device ${dev} holds a mounted filesystem (${busy.join(", ")}): writing to it would corrupt it; name a file on it with --file PATH instead`);
  if (!o.yes) throw new RecordError(`--device ${dev}: iosim record writes to the device it records on, over whatever it holds; add --yes to confirm`);
  const devno = (h.read(`/sys/block/${name}/dev`) ?? "").trim();
  // a null_blk device made before the recording (the guest scripts insmod it): its timing parameters
  const nb: Record<string, string> = {};
  if (/^nullb\d+$/.test(name)) {
    for (const p of ["queue_mode", "irqmode", "completion_nsec", "hw_queue_depth", "submit_queues", "bs"]) {
      const v = h.read(`/sys/module/null_blk/parameters/${p}`)?.trim();
      if (v !== undefined && v !== "") nb[p] = v;
    }
  }
  return { path: dev, name, devno, sizeBytes: Number(h.read(`/sys/block/${name}/size`) ?? 0) * 512, target: dev, facts: { ...(Object.keys(nb).length ? { null_blk: nb } : {}), ...queueFacts(h, name) } };
}

function statOrCreate(file: string, bytes: number, undo: Undo): { dev: number; size: number } {
  try {
    const st = statSync(file);
    return { dev: st.dev, size: st.size };
  } catch {
    const fd = openSync(file, "w");
    ftruncateSync(fd, Math.max(bytes, 64 * 1048576));
    closeSync(fd);
    undo.push(`remove ${file}`, () => rmSync(file, { force: true }));
    const st = statSync(file);
    return { dev: st.dev, size: st.size };
  }
}

/** the recorder's C source, shipped beside this module's source */
export function recorderSource(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // beside this module (tsx), from dist/bindings/record/ (tsc) and from dist/cli/ (the bundle, scripts/bundle.mjs)
  for (const p of [join(here, "iosim_rec.c"), join(here, "..", "..", "..", "bindings", "record", "iosim_rec.c"), join(here, "..", "..", "bindings", "record", "iosim_rec.c")]) {
    try {
      return readFileSync(p, "utf8");
    } catch {
      /* next */
    }
  }
  throw new RecordError("the recorder's source iosim_rec.c is missing from this installation");
}

function kernelConfig(h: Host): string | undefined {
  const rel = (h.read("/proc/sys/kernel/osrelease") ?? "").trim();
  const boot = h.read(`/boot/config-${rel}`);
  if (boot) return boot;
  try {
    return gunzipSync(readFileSync("/proc/config.gz")).toString("utf8");
  } catch {
    return undefined;
  }
}

const CONFIG_KEYS = /^(CONFIG_HZ|CONFIG_BLK_DEV_THROTTLING\w*|CONFIG_BLK_CGROUP\w*|CONFIG_CGROUP_WRITEBACK|CONFIG_BLK_WBT\w*|CONFIG_BLK_DEV_NULL_BLK|CONFIG_BLK_DEV_LOOP|CONFIG_PREEMPT\w*|CONFIG_NO_HZ\w*)[=\s]/;

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Steps 4 and 5. `plan` is made from the scenario for the device step 2 made. */
export async function record(h: Host, s: Scenario, o: RecordOptions = {}): Promise<Recording> {
  const say = o.say ?? (() => {});
  const machine = look(h, s, o);
  const undo = new Undo();
  const onSignal = (sig: NodeJS.Signals) => {
    const failed = undo.unwind();
    process.stderr.write(`\niosim record: ${sig}: removed what the recording made${failed.length ? `, except: ${failed.join("; ")}` : ""}\n`);
    process.exit(sig === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const children: ChildProcess[] = [];
  try {
    const bytes = Math.max(0, ...s.jobs.map((j) => Math.min(j.offset + j.regionLen, 1 << 30)));
    const dev = makeDevice(h, undo, o, bytes);
    const plan = planRecording(s, { cgroupVersion: machine.version, devno: dev.devno, sizeBytes: dev.sizeBytes });
    for (const w of plan.warnings) say(`warning: ${w}`);
    const rotAtAttach = dev.queueDir ? h.read(`${dev.queueDir}/rotational`)?.trim() : undefined;
    if (dev.queueDir && rotAtAttach !== undefined && rotAtAttach !== (plan.rotational ? "1" : "0")) {
      h.write(`${dev.queueDir}/rotational`, plan.rotational ? "1" : "0");
      undo.push(`restore ${dev.queueDir}/rotational`, () => h.write(`${dev.queueDir}/rotational`, rotAtAttach));
    }

    // cgroups under a group of our own
    const base = join(machine.cgroot, `iosim-rec.${Math.random().toString(36).slice(2, 8)}`);
    const enableIo = (dir: string) => {
      if (machine.version !== 2) return;
      const ctl = join(dir, "cgroup.subtree_control");
      if (!(h.read(ctl) ?? "").split(/\s+/).includes("io")) {
        h.write(ctl, "+io");
        if (dir === machine.cgroot) undo.push(`-io at the root`, () => h.write(ctl, "-io"));
      }
    };
    enableIo(machine.cgroot);
    h.mkdir(base);
    undo.push(`rmdir ${base}`, () => rmdirRetry(h, base));
    const dirOf = (p: string) => (p ? join(base, p) : base);
    for (const p of plan.cgroups) {
      enableIo(dirname(dirOf(p)));
      h.mkdir(dirOf(p));
      undo.push(`rmdir ${dirOf(p)}`, () => rmdirRetry(h, dirOf(p)));
    }

    // root-only files (io.cost.qos / io.cost.model): keep our device's old line to put back
    for (const f of new Set(plan.writes.filter((w) => w.file.startsWith("io.cost")).map((w) => w.file))) {
      const path = join(machine.cgroot, f);
      const old = (h.read(path) ?? "").split("\n").find((l) => l.startsWith(dev.devno + " "));
      undo.push(`restore ${path}`, () => h.write(path, old ?? (f === "io.cost.qos" ? `${dev.devno} enable=0` : `${dev.devno} ctrl=auto`)));
    }
    const pathOfWrite = (w: { cgroup: string; file: string }) => (w.file.startsWith("io.cost") ? join(machine.cgroot, w.file) : join(dirOf(w.cgroup), w.file));

    // the recorder
    const dry = h.log !== undefined;
    const work = dry ? join(tmpdir(), "iosim-rec-XXXXXX") : mkdtempSync(join(tmpdir(), "iosim-rec-"));
    if (!dry) undo.push(`remove ${work}`, () => rmSync(work, { recursive: true, force: true }));
    const exe = o.recorder ?? join(work, "iosim_rec");
    if (!o.recorder) {
      if (!dry) writeFileSync(join(work, "iosim_rec.c"), recorderSource());
      must(h, "cc", ["-O2", "-Wall", "-pthread", "-o", exe, join(work, "iosim_rec.c")]);
    }

    // tracepoints
    let instance: string | undefined;
    const usesIocost = plan.writes.some((w) => w.file === "io.cost.qos");
    const iocostTp: string[] = [];
    if (machine.tracefs) {
      instance = join(machine.tracefs, "instances", basename(base));
      h.mkdir(instance);
      undo.push(`rmdir ${instance}`, () => rmdirRetry(h, instance!));
      h.write(join(instance, "trace_clock"), "mono");
      h.write(join(instance, "buffer_size_kb"), "65536");
      for (const e of BLOCK_EVENTS) {
        h.write(join(instance, "events", "block", e, "filter"), `dev == ${traceDev(dev.devno)}`);
        h.write(join(instance, "events", "block", e, "enable"), "1");
      }
      // io.cost: its tracepoints too (the period timer's firings sharpen compare's replay)
      if (usesIocost && h.exists(join(instance, "events", "iocost"))) {
        for (const e of IOCOST_EVENTS) {
          if (h.exists(join(instance, "events", "iocost", e))) {
            h.write(join(instance, "events", "iocost", e, "enable"), "1");
            iocostTp.push(e);
          }
        }
      }
    }

    // jobs: started in their cgroups, each reports READY
    const outs: string[] = [];
    for (const j of plan.jobs) {
      const list = join(work, `${j.name}.iolist`);
      const out = join(work, `${j.name}.out`);
      outs.push(out);
      const args = ["-d", dev.target, "-i", list, "-o", out, "-q", String(j.qd), "-c", dirOf(j.cgroup)];
      if (j.endNs !== undefined) args.push("-T", String(j.endNs));
      if (dry) {
        h.print?.(`start ${exe} ${args.join(" ")}   (${j.ios.length} IOs from t = ${j.startNs / 1e6} ms)`);
        continue;
      }
      writeFileSync(list, ioListText(j.ios));
      children.push(h.start(exe, args));
    }
    if (dry) {
      for (const w of plan.writes) h.print?.(`at t = ${w.atNs / 1e6} ms: write ${pathOfWrite(w)} ${JSON.stringify(w.value)}`);
      h.print?.("# afterwards, or on an error or Ctrl-C, newest first:");
      return { header: {}, ios: [], block: [], lines: [] };
    }
    undo.push("stop the jobs", () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    });
    await Promise.all(children.map((c, i) => readyOf(c, plan.jobs[i]!.name)));

    const hz = hzOfConfig(kernelConfig(h));
    const reads: string[] = [];
    for (let i = 0; i < 8; i++) {
      reads.push(h.read("/proc/timer_list") ?? "");
      sleepMs(1.3);
    }
    const jm = jiffiesMap(reads, hz) as ReturnType<typeof jiffiesMap> & Record<string, unknown>;
    if (o.jiffiesMap === false) {
      jm.reliable = false;
      jm.note = "recorded with --no-jiffies-map: the tick phase is estimated from the trace";
    }

    // t = 0: the initial writes
    const limitsWritten: Array<Record<string, unknown>> = [];
    const writeAt = (w: RecordPlan["writes"][number]) => {
      const a = h.monoNs();
      try {
        h.write(pathOfWrite(w), w.value);
      } catch (e) {
        throw new RecordError(`writing ${JSON.stringify(w.value)} to ${pathOfWrite(w)} failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (the kernel refused it)`);
      }
      return { a, b: h.monoNs() };
    };
    const initial = plan.writes.filter((w) => w.atNs === 0);
    const later = plan.writes.filter((w) => w.atNs > 0);
    const initialTimes = initial.map((w) => ({ w, ...writeAt(w) }));
    const z = h.monoNs();
    const ready = z + 50_000_000n;
    const starts = plan.jobs.map((j) => {
      const want = z + BigInt(j.startNs);
      return want > ready ? want : ready;
    });
    const t0 = starts.length ? starts.reduce((a, b) => (a < b ? a : b)) : z;
    for (const { w, b } of initialTimes) limitsWritten.push({ cgroup: w.cgroup, file: w.file, value: w.value, t_ns: Number(b - t0) });
    children.forEach((c, i) => c.stdin!.end(`${starts[i]}\n`));
    say(`recording ${plan.jobs.length} job(s) on ${dev.path} (${dev.devno}), cgroup v${machine.version}`);

    // timed writes
    const events: Array<Record<string, unknown>> = [];
    const writer = (async () => {
      for (const w of later) {
        const target = z + BigInt(w.atNs);
        for (;;) {
          const d = Number(target - h.monoNs());
          if (d <= 0) break;
          if (d > 3e6) await new Promise((r) => setTimeout(r, Math.min(500, (d - 2e6) / 1e6)));
        }
        const { a, b } = writeAt(w);
        events.push({ type: "write", cgroup: w.cgroup, file: w.file, value: w.value, scheduled_ns: Number(target - t0), write_start_ns: Number(a - t0), write_return_ns: Number(b - t0) });
      }
    })();
    const timeout = (o.timeoutS ?? 600) * 1000;
    await Promise.race([
      Promise.all(children.map((c, i) => exitOf(c, plan.jobs[i]!.name))),
      new Promise((_, rej) => setTimeout(() => rej(new RecordError(`the jobs did not finish within ${timeout / 1000} s (--timeout)`)), timeout).unref()),
    ]);
    await writer;

    // counters and tracepoints
    const counters: Record<string, unknown> = {};
    for (const p of plan.cgroups) {
      const files = machine.version === 1 ? ["blkio.throttle.io_serviced", "blkio.throttle.io_service_bytes"] : ["io.stat"];
      counters[p] = Object.fromEntries(files.map((f) => [f, (h.read(join(dirOf(p), f)) ?? "").split("\n").filter((l) => l.startsWith(dev.devno))]));
    }
    const traceText = instance ? h.read(join(instance, "trace")) ?? "" : "";
    const block = instance ? parseBlockTrace(traceText, t0) : [];
    const iocostEvents = iocostTp.length ? parseIocostTrace(traceText, t0) : [];

    const ios: Array<Record<string, unknown>> = [];
    plan.jobs.forEach((j, k) => {
      const shift = Number(starts[k]! - t0);
      for (const line of (safeRead(outs[k]!) ?? "").split("\n")) {
        const f = line.split(" ");
        if (f.length < 9) continue;
        const r: Record<string, unknown> = { job: j.name, seq: Number(f[0]), thread: Number(f[1]), dir: f[2], off: Number(f[3]), size: Number(f[4]), submit_ns: Number(f[5]) + shift, complete_ns: Number(f[6]) + shift, ret: Number(f[7]) };
        if (Number(f[8])) r.errno = Number(f[8]);
        ios.push(r);
      }
    });
    plan.jobs.forEach((j) => {
      const n = ios.filter((r) => r.job === j.name).length;
      if (j.endNs !== undefined && n === j.ios.length) say(`warning: job ${j.name} issued all ${n} planned IOs before its runtime ended; the trace ends early`);
    });
    ios.sort((a, b) => (a.submit_ns as number) - (b.submit_ns as number) || String(a.job).localeCompare(String(b.job)) || (a.seq as number) - (b.seq as number));

    if (jm.tick_ns) {
      const tk = BigInt(jm.tick_ns);
      const g = BigInt(jm.grid_offset_ns!);
      jm.jiffies_at_t0 = Number((t0 - g) / tk) + jm.offset!;
      jm.t0_after_tick_ns = Number((t0 - g) % tk);
    }
    const cfg = kernelConfig(h);
    const header: Record<string, unknown> = {
      type: "header",
      scenario: plan.name,
      description: plan.description ?? "",
      repeat: o.repeat ?? 1,
      recorder: "iosim record",
      kernel: (h.read("/proc/sys/kernel/osrelease") ?? "").trim(),
      kernel_version: (h.read("/proc/version") ?? "").trim(),
      hz: hz ?? null,
      clock: "CLOCK_MONOTONIC, ns relative to t0 (trace start)",
      wallclock_utc: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      cgroup_version: machine.version,
      scenario_spec: { name: plan.name, source: s.source?.file, kernel_profile: s.kernel, jobs: plan.jobs.map((j) => j.spec) },
      machine: { cpus: (h.read("/proc/cpuinfo") ?? "").split("\n").filter((l) => l.startsWith("processor")).length, config: (cfg ?? "").split("\n").filter((l) => CONFIG_KEYS.test(l)) },
      device: { path: dev.path, devno: dev.devno, size_bytes: dev.sizeBytes, rotational_at_attach: rotAtAttach, rotational_during_run: dev.queueDir ? h.read(`${dev.queueDir}/rotational`)?.trim() : dev.facts.rotational, ...dev.facts },
      cgroups: plan.cgroups.map((p) => ({ name: p, parent: null, path: dirOf(p).slice(machine.cgroot.length + 1) })),
      t0_mono_ns: Number(t0),
      jiffies: jm,
      limits_written: limitsWritten,
      events,
      counters,
      tracepoints: instance ? [...BLOCK_EVENTS, ...iocostTp] : [],
      n_ios: ios.length,
      jobs: plan.jobs.map((j) => ({ name: j.name, cgroup: j.cgroup })),
    };
    const lines = [JSON.stringify(header), ...ios.map((r) => JSON.stringify(r)), ...block.map((b) => JSON.stringify(b)), ...iocostEvents.map((e) => JSON.stringify(e))];
    return { header, ios, block, lines };
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(0) : c.once("exit", r)))));
    const failed = undo.unwind();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (failed.length) say(`warning: could not undo: ${failed.join("; ")}`);
  }
}

function safeRead(p: string): string | undefined {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return undefined;
  }
}

function rmdirRetry(h: Host, p: string): void {
  for (let i = 0; ; i++) {
    try {
      h.rmdir(p);
      return;
    } catch (e) {
      if (!h.exists(p)) return;
      if (i >= 50) throw e;
      sleepMs(100);
    }
  }
}

function readyOf(c: ChildProcess, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let err = "";
    c.stderr?.on("data", (d) => (err += d));
    const onData = (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) {
        c.stdout!.off("data", onData);
        if (buf.startsWith("READY")) resolve();
        else reject(new RecordError(`job ${name} did not start: ${buf.trim()} ${err.trim()}`));
      }
    };
    c.stdout!.on("data", onData);
    c.once("exit", (code) => reject(new RecordError(`job ${name} exited (${code}) before it was ready: ${err.trim()}`)));
    c.once("error", (e) => reject(new RecordError(`job ${name} could not start: ${e.message}`)));
  });
}

function exitOf(c: ChildProcess, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let err = "";
    c.stderr?.on("data", (d) => (err += d));
    const done = (code: number | null) => (code === 0 ? resolve() : reject(new RecordError(`job ${name} failed (exit ${code}): ${err.trim()}`)));
    if (c.exitCode !== null) done(c.exitCode);
    else c.once("exit", done);
  });
}
