// Every `iosim` subcommand, registered on the program.
import type { Command } from "commander";
import "../../engine/modules/index.js"; // control modules: io.max, io.weight, io.cost.*, writeback
import "../../oracle/index.js"; // trace handlers: throttle, iocost, writeback
import { register as registerRun } from "./run.js";
import { register as registerReplay } from "./replay.js";
import { register as registerCompare } from "./compare.js";
import { register as registerExplain } from "./explain.js";
import { register as registerRecord } from "./record.js";
import { registerK8sCommands } from "../../k8s/cli.js";
import { registerMcCommands } from "../../mc/cli.js";

export function registerCommands(program: Command): void {
  registerRun(program);
  registerReplay(program);
  registerCompare(program);
  registerExplain(program);
  registerRecord(program);
  registerK8sCommands(program);
  registerMcCommands(program);
}
