// The machine `iosim record` works on, as the few operations it needs: read,
// write, make and remove files under /sys, /proc and /dev; run a command;
// start a job process. Three implementations:
//
//  * realHost(): this machine, as root;
//  * a host rooted in a directory (`root`): every absolute path is looked up
//    below it, so tests lay out a fake cgroupfs / tracefs / sysfs tree in a
//    temporary directory and check what was made and that all of it is gone;
//  * dryRun(host): reads go through (they change nothing), every write,
//    mkdir, rmdir and command is printed instead of done.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface Host {
  /** the file's text, or undefined when it cannot be read */
  read(path: string): string | undefined;
  write(path: string, value: string): void;
  exists(path: string): boolean;
  list(path: string): string[];
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** run a command to its end (losetup, modprobe, cc, ...) */
  run(cmd: string, args: string[]): RunResult;
  /** start a job process with piped stdin/stdout */
  start(cmd: string, args: string[]): ChildProcess;
  uid(): number;
  /** CLOCK_MONOTONIC in ns (libuv's hrtime is CLOCK_MONOTONIC on Linux) */
  monoNs(): bigint;
  /** printed lines of a dry run */
  readonly log?: string[];
  /** a dry run's own line (a job it would start, a write at its time) */
  print?(line: string): void;
}

export function rootedHost(root: string, commands: (cmd: string, args: string[]) => RunResult, opts: { uid?: number; start?: Host["start"] } = {}): Host {
  const at = (p: string) => (root ? join(root, p) : p);
  return {
    read(p) {
      try {
        return readFileSync(at(p), "utf8");
      } catch {
        return undefined;
      }
    },
    write(p, v) {
      writeFileSync(at(p), v);
    },
    exists: (p) => existsSync(at(p)),
    list(p) {
      try {
        return readdirSync(at(p));
      } catch {
        return [];
      }
    },
    mkdir: (p) => mkdirSync(at(p)),
    rmdir: (p) => rmdirSync(at(p)),
    run: commands,
    start: opts.start ?? ((cmd, args) => spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] })),
    uid: () => opts.uid ?? (process.getuid ? process.getuid() : -1),
    monoNs: () => process.hrtime.bigint(),
  };
}

export function realHost(): Host {
  return rootedHost("", (cmd, args) => {
    const r = spawnSync(cmd, args, { encoding: "utf8" });
    if (r.error) return { status: 127, stdout: "", stderr: String((r.error as Error).message) };
    return { status: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  });
}

/** A host that prints what it would change. Commands that only look (losetup --find without a file) still print. */
export function dryRun(h: Host, print: (line: string) => void): Host {
  const log: string[] = [];
  const say = (l: string) => {
    log.push(l);
    print(l);
  };
  let fakeLoop = 0;
  return {
    ...h,
    log,
    print: say,
    write(p, v) {
      say(`write ${p} ${JSON.stringify(v)}`);
    },
    mkdir(p) {
      say(`mkdir ${p}`);
    },
    rmdir(p) {
      say(`rmdir ${p}`);
    },
    run(cmd, args) {
      say(`run ${[cmd, ...args].join(" ")}`);
      // what the real commands would answer, so the plan goes on
      if (cmd === "losetup" && args.includes("--show")) return { status: 0, stdout: `/dev/loop${100 + fakeLoop++}\n`, stderr: "" };
      if (cmd === "mktemp") return { status: 0, stdout: `${args[args.indexOf("-p") + 1]}/${args[args.length - 1]}\n`, stderr: "" };
      if (cmd === "cc" && args[0] === "--version") return h.run(cmd, args);
      return { status: 0, stdout: "", stderr: "" };
    },
    start(cmd, args) {
      say(`start ${[cmd, ...args].join(" ")}`);
      throw new Error("dry run: no job is started");
    },
  };
}
