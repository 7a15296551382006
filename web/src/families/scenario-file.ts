// A whole `iosim run` scenario file in the playground: one editable file,
// scenario.yaml, read by the same loader as the CLI (bindings/scenario/load.ts),
// so a scenario opened from disk (the page's Open button, or a file dropped
// on the page) or pasted runs here as `iosim run FILE` runs it: the same
// result hash for the same kernel and seed. The built-in is the README's io.cost
// example (scenarios/iocost-bursty.yaml). Panels: the block-IO charts and
// tables, iocost's vrate and weights, and blk-throttle's waits.
//
// Worked example: open scenarios/iocost-bursty.yaml -> kernel 6.12 (its
// kernel: line), seed 1 -> result hash fb9ee9ec94c639f2..., as the CLI prints.
import { loadScenario } from "../iosim.js";
import { blockFamily, type BlockBuiltin } from "./blockio.js";
import { iocostPanels } from "./iocost.js";
import bursty from "../../../scenarios/iocost-bursty.yaml?raw";

export const SCENARIO_FILE = "scenario.yaml";

function load(text: string, name: string) {
  const l = loadScenario(text, name);
  return { scenario: l.scenario, warnings: l.warnings };
}

const builtins: BlockBuiltin[] = [
  {
    id: "file",
    title: "Your scenario file (Open… or drop one here)",
    description: "a whole iosim scenario YAML, run as `iosim run FILE` runs it; starts with scenarios/iocost-bursty.yaml",
    build: () => load(bursty, SCENARIO_FILE).scenario,
    text: bursty,
  },
];

export const scenarioFileFamily = blockFamily({
  id: "file",
  title: "Scenario file (YAML)",
  missing: async () => undefined,
  builtins: async () => builtins,
  extras: iocostPanels,
  file: { name: SCENARIO_FILE, syntax: "iosim scenario YAML (as `iosim run FILE` reads it)", load },
});
