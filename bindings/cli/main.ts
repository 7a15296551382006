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
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export const EXIT_OK = 0;
export const EXIT_FINDING = 1;
export const EXIT_INPUT = 2;
export const EXIT_INTERNAL = 3;

/** The package's version: from the package.json above this file (dist/bindings/cli/ when built by tsc, dist/cli/ when bundled). */
function version(): string {
  try {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let up = 0; up < 4; up++, dir = dirname(dir)) {
      const p = join(dir, "package.json");
      if (!existsSync(p)) continue;
      const pkg = JSON.parse(readFileSync(p, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "iosim") return pkg.version ?? "unknown";
    }
  } catch {
    // unreadable: "unknown"
  }
  return "unknown";
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
    process.stderr.write(`iosim: internal error: ${(e as Error).stack ?? e}\n`);
    return EXIT_INTERNAL;
  }
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
