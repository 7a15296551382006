#!/usr/bin/env node
// The `iosim` command line.
//
// Exit codes: 0 success; 1 the run found what it was asked to look for
// (failed expectations, invariant violations, fidelity below a bar, two
// `k8s diff` runs that diverge);
// 2 bad input or usage (the message names file, line and field);
// 3 an internal error (a bug: please report it with the input).
import { Command, CommanderError } from "commander";
import { InputError } from "../scenario/errors.js";
import { registerCommands } from "./commands/index.js";
import { closeSync, existsSync, openSync, readFileSync, readSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";

export const EXIT_OK = 0;
export const EXIT_FINDING = 1;
export const EXIT_INPUT = 2;
export const EXIT_INTERNAL = 3;

interface PackageJson {
  name?: string;
  version?: string;
  bugs?: string | { url?: string; email?: string };
}

/** The package's package.json: the one above this file (dist/bindings/cli/ when built by tsc, dist/cli/ when bundled). */
function packageJson(): PackageJson | undefined {
  try {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let up = 0; up < 4; up++, dir = dirname(dir)) {
      const p = join(dir, "package.json");
      if (!existsSync(p)) continue;
      const pkg = JSON.parse(readFileSync(p, "utf8")) as PackageJson;
      if (pkg.name === "iosim") return pkg;
    }
  } catch {
    // unreadable: none
  }
  return undefined;
}

function version(): string {
  return packageJson()?.version ?? "unknown";
}

/**
 * Where exit 3 asks to report: package.json's `bugs` (its url, else its
 * email) when the package names one, else "the iosim issue tracker" (no
 * host is invented: the package has no repository field to derive one from).
 */
export function reportTo(pkg: PackageJson | undefined = packageJson()): string {
  const b = pkg?.bugs;
  const at = typeof b === "string" ? b : (b?.url ?? b?.email);
  return at && at.trim() ? at.trim() : "the iosim issue tracker";
}

/** exit 3's message: a bug, where to report it, the file to attach (when one was written), the error */
export function internalErrorMessage(e: unknown, saved: string | undefined, to: string = reportTo()): string {
  return (
    `iosim: internal error: this is a bug in iosim, not a problem with your input.\n` +
    `Please report it at ${to}` +
    (saved ? ` and attach ${saved} (the command line, the files it names, and this error).\n` : ` with the command line and the files it names.\n`) +
    `${(e as Error)?.stack ?? e}\n`
  );
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command();
  program
    .name("iosim")
    .description(
      "Deterministic simulator of the Linux cgroup-v2 block-IO control path (blk-throttle, blk-iocost, " +
        "writeback ownership) and of the Kubernetes volume lifecycle.",
    )
    .version(version())
    // the program's options (--version, --help) only before a subcommand: after
    // one, `--version` is the subcommand's (`iosim k8s run X --version 1.22`)
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT_OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version asked for: success; help shown because no command was given ("commander.help"): a usage error
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return EXIT_OK;
      return EXIT_INPUT;
    }
    if (e instanceof InputError) {
      process.stderr.write(`iosim: ${e.message}\n`);
      return EXIT_INPUT;
    }
    const io = fileError(e);
    if (io) {
      process.stderr.write(`iosim: ${io}\n`);
      return EXIT_INPUT;
    }
    process.stderr.write(internalErrorMessage(e, saveBugReport(argv, e)));
    return EXIT_INTERNAL;
  }
}


/** the most of one named file a bug report copies */
const REPORT_FILE_BYTES = 4 << 20;

/**
 * Exit 3's attachment: a JSON file holding the command line, the working
 * directory, the version, the error and the text of every file the command
 * line names (up to 4 MiB each), written beside the output (the --out or -o
 * directory's parent when given, else the working directory, else the
 * system's temporary directory). Returns its path, or undefined if none could
 * be written.
 */
export function saveBugReport(argv: string[], e: unknown): string | undefined {
  const args = argv.slice(2);
  const files: Record<string, string> = {};
  for (const a of args) {
    if (a.startsWith("-") || a.length > 4096) continue;
    try {
      const st = statSync(a);
      if (!st.isFile()) continue;
      const fd = openSync(a, "r");
      try {
        const buf = Buffer.alloc(Math.min(st.size, REPORT_FILE_BYTES));
        const n = readSync(fd, buf, 0, buf.length, 0);
        files[a] = buf.subarray(0, n).toString("utf8");
      } finally {
        closeSync(fd);
      }
    } catch {
      // not a file: only an argument
    }
  }
  const report = JSON.stringify({ iosim: version(), node: process.version, argv: args, cwd: process.cwd(), error: String((e as Error)?.stack ?? e), files }, null, 2) + "\n";
  const name = `iosim-bug-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.json`;
  const outAt = args.findIndex((a) => a === "--out" || a === "-o" || a === "--output");
  const dirs = [outAt >= 0 && args[outAt + 1] ? dirname(resolve(args[outAt + 1]!)) : undefined, process.cwd(), tmpdir()];
  for (const d of dirs) {
    if (!d) continue;
    try {
      const p = join(d, name);
      writeFileSync(p, report, { flag: "wx" });
      return p;
    } catch {
      // read-only or gone: the next place
    }
  }
  return undefined;
}

/**
 * A file-system error about a path the user gave (an --out that is a file, a
 * directory where a file was expected, no permission): bad input, not a bug.
 * The message names the path and the errno.
 */
export function fileError(e: unknown): string | undefined {
  const x = e as NodeJS.ErrnoException;
  if (!(e instanceof Error) || typeof x.code !== "string" || typeof x.path !== "string") return undefined;
  if (!["ENOENT", "EEXIST", "ENOTDIR", "EISDIR", "EACCES", "EPERM", "EROFS", "ENOSPC", "ENAMETOOLONG"].includes(x.code)) return undefined;
  const what = x.syscall === "mkdir" ? "cannot create the directory" : x.syscall === "open" || x.syscall === "read" || x.syscall === "scandir" ? "cannot open" : "cannot write";
  return `${x.path}: ${what}: ${x.code}`;
}

/** `iosim ... | head`: the reader went away; stop quietly, as a Unix filter does. */
function quietOnClosedPipe(): void {
  for (const s of [process.stdout, process.stderr]) {
    s.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw err;
    });
  }
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1]);
if (isMain) {
  quietOnClosedPipe();
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
