// The time-series table of scenarios/iocost-bursty.md, made from a run of
// scenarios/iocost-bursty.yaml: web's and batch's reads per second in chosen
// 50 ms bins and vrate (blk-iocost's last iocost_ioc_vrate_adj in the bin).
// test/iocost/bursty-scenario.test.ts checks that the walk-through holds this
// table, so the two cannot drift apart.
// Usage: node scripts/iocost-bursty-table.mjs   (after npm run build)
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROWS = [
  [0, ""], [200, ""], [400, ""], [600, ""], [1000, ""], [1900, ""],
  [2100, "first burst"], [2200, "batch idle"], [2400, "batch idle"],
  [2500, "burst"], [2550, ""], [2600, ""], [2650, "burst ends"], [2700, "batch idle"],
  [3000, "burst"], [5500, "last burst"], [5650, ""],
];

export async function burstyTable() {
  const { Simulation } = await import(join(root, "dist/bindings/engine/simulation.js"));
  const { readIocostTrace } = await import(join(root, "dist/bindings/engine/modules/iocost.js"));
  await import(join(root, "dist/bindings/engine/modules/index.js"));
  const { loadScenario } = await import(join(root, "dist/bindings/scenario/load.js"));
  const file = join(root, "scenarios/iocost-bursty.yaml");
  const sim = new Simulation(loadScenario(readFileSync(file, "utf8"), file).scenario);
  const res = sim.runToEnd();
  const vr = readIocostTrace(sim.core, sim.context().cgroupPaths(), ["sda"]).filter((e) => e.event === "iocost_ioc_vrate_adj");
  const bin = 50;
  const rate = (cg, t) => res.series.filter((s) => s.cgroup === cg && s.t0Ns === t * 1e6).reduce((a, s) => a + s.ios, 0) * (1000 / bin);
  const vrate = (t) => {
    const e = [...vr].reverse().find((x) => x.tNs < (t + bin) * 1e6);
    return e ? `${Math.round((e.vrate[1] / 137438) * 100)}%` : "100%";
  };
  const n = (x) => x.toLocaleString("en-US");
  const lines = ["| t (ms) | web | batch | vrate |", "|---:|---:|---:|---:|"];
  for (const [t, what] of ROWS) lines.push(`| ${t}${what ? ` (${what})` : ""} | ${n(rate("web", t))} | ${n(rate("batch", t))} | ${vrate(t)} |`);
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await burstyTable());
