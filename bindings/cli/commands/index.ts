// Every `iosim` subcommand, registered on the program.
import type { Command } from "commander";
import { register as registerRun } from "./run.js";

export function registerCommands(program: Command): void {
  registerRun(program);
}
