#!/usr/bin/env node
// A runnable `iosim`-like entry with only the mc commands, for tests and for
// use before the main CLI wires registerMcCommands in:
//   node dist/bindings/mc/cli-entry.js mc SCENARIO --runs 1000
import { Command } from "commander";
import { InputError } from "../scenario/errors.js";
import { registerMcCommands } from "./commands.js";

// options are read where they are written, as in the main CLI (bindings/cli/main.ts)
const program = new Command("iosim").description("iosim Monte Carlo commands").enablePositionalOptions();
registerMcCommands(program);
program.parseAsync(process.argv).catch((e: unknown) => {
  process.stderr.write(`iosim: ${e instanceof InputError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(2);
});
