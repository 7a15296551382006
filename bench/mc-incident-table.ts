// The detach-backoff incident (seed 002, fixed by kubernetes #104526) as a
// sweep: P(incident) by how soon the new pod lands on the node after the
// failed detach, on Kubernetes 1.22 without and with the fix, and by how many
// detaches in a row the cloud refuses. Prints the Markdown tables of
// bindings/mc/README.md.
//
//   node dist/bench/mc-incident-table.js [--runs N] [--seed S] [--workers W]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runSweep } from "../bindings/mc/runner.js";
import { summarise, type McSummary } from "../bindings/mc/summary.js";
import { INCIDENT_CLASS } from "../bindings/mc/domains/k8s.js";
import { wilson } from "../bindings/mc/stats.js";

const args = process.argv.slice(2);
const arg = (k: string, d: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1]! : d;
};
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCENARIO = join(ROOT, "bindings", "mc", "examples", "k8s-detach-backoff.yaml");
const RUNS = Number(arg("--runs", "8000"));
const SEED = BigInt(arg("--seed", "1"));
const WORKERS = Number(arg("--workers", String(availableParallelism())));
const DELAY_BINS = [0, 250, 500, 750, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000];

const tmp = mkdtempSync(join(tmpdir(), "mc-table-"));
const t0 = performance.now();
const r = await runSweep({ file: SCENARIO, runs: RUNS, seed: SEED, workers: WORKERS, journal: join(tmp, "runs.jsonl") });
const wall = performance.now() - t0;
const records = r.records; // read back from the journal, before it is removed
rmSync(tmp, { recursive: true, force: true });

const pct = (c: { probability: number; wilson95: [number, number] } | undefined, n: number) => {
  if (!c) return `0 [0, ${(100 * wilson(0, n)[1]).toFixed(1)}]`;
  return `${(100 * c.probability).toFixed(1)} [${(100 * c.wilson95[0]).toFixed(1)}, ${(100 * c.wilson95[1]).toFixed(1)}]`;
};

function table(s: McSummary, col: string, colName: (v: string) => string): string {
  const cells = s.table!.cells;
  const rows = [...new Set(cells.map((c) => c.key.landDelay!))];
  const cols = [...new Set(cells.map((c) => c.key[col]!))].sort();
  const out = [
    `| new pod lands after the failed detach | ${cols.map((c) => `${colName(c)}: P(incident) % [95 % CI] (runs)`).join(" | ")} |`,
    `|---|${cols.map(() => "---").join("|")}|`,
  ];
  for (const row of rows) {
    out.push(`| ${row.replace(/[[)]/g, (m) => (m === "[" ? "" : "")).replace(", ", "–")} ms | ${cols.map((c) => {
      const cell = cells.find((x) => x.key.landDelay === row && x.key[col] === c);
      return cell ? `${pct(cell.classes[INCIDENT_CLASS], cell.runs)} (${cell.runs})` : "–";
    }).join(" | ")} |`);
  }
  return out.join("\n");
}

const byFix = summarise(r.header, records, r.model, { table: [{ param: "landDelay", bins: DELAY_BINS }, { param: "fix104526" }] });
const affected = records.filter((x) => x.params.fix104526 === false);
const byBusy = summarise(r.header, affected, r.model, { table: [{ param: "landDelay", bins: DELAY_BINS }, { param: "busyDetaches" }] });

console.log(`Seed incident 002 (detach backoff vs node status), ${RUNS} runs, seed ${SEED}, ${WORKERS} workers, ${(wall / 1000).toFixed(1)} s`);
console.log(`landDelay ~ U[0, 6 s), busyDetaches ~ U{1..4}, #104526 on in half the runs; P(incident) overall ${pct(byFix.classes[INCIDENT_CLASS], byFix.completed)} %`);
console.log("");
console.log(table(byFix, "fix104526", (v) => (v === "true" ? "1.22 + #104526" : "1.22")));
console.log("");
console.log("Kubernetes 1.22 (no fix), by the number of detaches in a row the cloud refuses:");
console.log("");
console.log(table(byBusy, "busyDetaches", (v) => `${v} refused`));
