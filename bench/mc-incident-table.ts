// The seed incidents as sweeps: for each, P(failure) by the sweep's main
// parameter, on the affected Kubernetes version without and with the upstream
// fix (and by a second parameter where the sweep has one). Prints the
// Markdown tables of bindings/mc/README.md ("The seed incidents as sweeps").
//
//   node dist/bench/mc-incident-table.js [--incident 002|001|004|000/003|all] [--runs N] [--seed S] [--workers W]
//
// Each incident's sweep is bindings/mc/examples/k8s-<scenario>.yaml, run by
// runSweep (the real runner, the same summary `iosim mc` prints); the tables
// are summarise()'s cells for the axes below, each cell the class's
// probability with its Wilson 95 % interval and the cell's run count.
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runSweep } from "../bindings/mc/runner.js";
import { summarise, type McSummary } from "../bindings/mc/summary.js";
import type { RunRecord } from "../bindings/mc/journal.js";
import { INCIDENT_CLASS } from "../bindings/mc/domains/k8s.js";
import { markdownTable } from "../bindings/mc/cli.js";
import { wilson } from "../bindings/mc/stats.js";

const args = process.argv.slice(2);
const arg = (k: string, d: string) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1]! : d;
};
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const RUNS = Number(arg("--runs", "8000"));
const SEED = BigInt(arg("--seed", "1"));
const WORKERS = Number(arg("--workers", String(availableParallelism())));
const WHICH = arg("--incident", "all");

/** One table: rows by a (binned) param, one column per value of `cols` (in that order), cells the probability of `cls`. */
interface IncidentTable {
  caption?: string;
  /** the rows' param, its bins, and how a row's label reads (from the bin's ends, or the value) */
  row: { param: string; bins?: number[]; head: string; label: (key: string, runs: readonly RunRecord[]) => string };
  /** the columns: the value of each of `params` that a column takes, and its heading */
  cols: Array<{ where: Record<string, string>; name: string }>;
  /** only runs whose params match (e.g. the affected version alone) */
  filter?: (r: RunRecord) => boolean;
  /** the class whose probability the cells give */
  cls: string;
  clsName: string;
}
interface IncidentSweep {
  seed: string;
  title: string;
  file: string;
  tables: IncidentTable[];
}

/** "[250, 500)" -> "250–500 ms" (unit given), ">=x" -> "≥ x unit" */
const binLabel = (unit: string, scale = 1) => (key: string): string => {
  const m = /^\[(-?[\d.e+]+), (-?[\d.e+]+)\)$/.exec(key);
  if (m) return `${Number(m[1]) / scale}–${Number(m[2]) / scale} ${unit}`;
  return key.replace(">=", "≥ ").replace("<", "< ") + ` ${unit}`;
};

const SWEEPS: IncidentSweep[] = [
  {
    seed: "002",
    title: "detach backoff vs node status",
    file: "k8s-detach-backoff.yaml",
    tables: [
      {
        row: { param: "landDelay", bins: [0, 250, 500, 750, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000], head: "new pod lands after the failed detach", label: binLabel("ms") },
        cols: [{ where: { fix104526: "false" }, name: "1.22" }, { where: { fix104526: "true" }, name: "1.22 + #104526" }],
        cls: INCIDENT_CLASS, clsName: "P(incident)",
      },
      {
        caption: "On 1.22 (no fix), by the number of detaches in a row the cloud refuses:",
        row: { param: "landDelay", bins: [0, 250, 500, 750, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 6000], head: "new pod lands after the failed detach", label: binLabel("ms") },
        cols: [1, 2, 3, 4].map((n) => ({ where: { busyDetaches: String(n) }, name: `${n} refused` })),
        filter: (r) => r.params.fix104526 === false,
        cls: INCIDENT_CLASS, clsName: "P(incident)",
      },
    ],
  },
  {
    seed: "001",
    title: "rbd unmap EBUSY, and a retry that never unmaps",
    file: "k8s-rbd-unmap-busy.yaml",
    tables: [
      {
        row: { param: "propagationDelay", bins: [10, 25, 50, 75, 100, 125, 150, 200, 500, 1000, 3000], head: "the host's unmount reaches node_exporter after", label: binLabel("ms") },
        cols: [
          { where: { propagation: "HostToContainer", fix79940: "false" }, name: "HostToContainer, 1.14" },
          { where: { propagation: "HostToContainer", fix79940: "true" }, name: "HostToContainer, 1.14 + #79940" },
          { where: { propagation: "None", fix79940: "false" }, name: "None, 1.14" },
          { where: { propagation: "None", fix79940: "true" }, name: "None, 1.14 + #79940" },
        ],
        cls: "expect:device-unmapped", clsName: "P(/dev/rbd0 stays mapped)",
      },
    ],
  },
  {
    seed: "004",
    title: "CSI detach deletes a VolumeAttachment named after the volume",
    file: "k8s-csi-attachment-name.yaml",
    tables: [
      {
        row: { param: "lun", bins: [1, 10, 100, 1000, 10000, 100000], head: "the volume's LUN (handle length)", label: (k, runs) => {
          const m = /^\[(\d+), (\d+)\)$/.exec(k);
          if (!m) return k;
          // the handle's length as the runs drew it (its text before the LUN, and the LUN's digits)
          const r = runs.find((x) => Number(x.params.lun) >= Number(m[1]) && Number(x.params.lun) < Number(m[2]));
          return `${m[1]}–${Number(m[2]) - 1}${r ? ` (${String(r.params.handle).length} characters)` : ""}`;
        } },
        cols: [
          { where: { driver: "csi-unity.dellemc.com", fix107025: "false" }, name: "csi-unity.dellemc.com, 1.22" },
          { where: { driver: "csi-unity.dellemc.com", fix107025: "true" }, name: "csi-unity.dellemc.com, 1.22 + #107025" },
          { where: { driver: "unity.csi.dellemc.com", fix107025: "false" }, name: "unity.csi.dellemc.com, 1.22" },
        ],
        cls: INCIDENT_CLASS, clsName: "P(incident)",
      },
    ],
  },
  {
    seed: "000/003",
    title: "CSI inline volume orphaned by a kubelet restart",
    file: "k8s-csi-inline-orphan.yaml",
    tables: [
      {
        row: { param: "restartAt", bins: [50000, 60000, 65000, 70000, 80000, 90000, 100000, 110000], head: "the kubelet restarts (the pod is deleted at 60 s)", label: binLabel("s", 1000) },
        cols: [{ where: { fix108997: "false" }, name: "1.23" }, { where: { fix108997: "true" }, name: "1.23 + #108997" }],
        cls: INCIDENT_CLASS, clsName: "P(incident)",
      },
      {
        caption: "On 1.23 (no fix), by how long the container takes to exit after SIGTERM:",
        row: { param: "restartAt", bins: [50000, 60000, 65000, 70000, 80000, 90000, 100000, 110000], head: "the kubelet restarts (the pod is deleted at 60 s)", label: binLabel("s", 1000) },
        cols: ["10s", "30s", "60s"].map((v) => ({ where: { exitAfter: v }, name: `exits after ${v}` })),
        filter: (r) => r.params.fix108997 === false,
        cls: INCIDENT_CLASS, clsName: "P(incident)",
      },
    ],
  },
];

const pct = (c: { probability: number; wilson95: [number, number] } | undefined, n: number) => {
  if (!c) return `0 [0, ${(100 * wilson(0, n)[1]).toFixed(1)}]`;
  return `${(100 * c.probability).toFixed(1)} [${(100 * c.wilson95[0]).toFixed(1)}, ${(100 * c.wilson95[1]).toFixed(1)}]`;
};

function table(t: IncidentTable, s: McSummary, runs: readonly RunRecord[]): string {
  const cells = s.table!.cells;
  const rows = [...new Set(cells.map((c) => c.key[t.row.param]!))];
  const head = [t.row.head, ...t.cols.map((c) => `${c.name}: ${t.clsName} % [95 % CI] (runs)`)];
  const body = rows.map((row) => [t.row.label(row, runs), ...t.cols.map((col) => {
    const cell = cells.find((x) => x.key[t.row.param] === row && Object.entries(col.where).every(([k, v]) => x.key[k] === v));
    return cell ? `${pct(cell.classes[t.cls], cell.runs)} (${cell.runs})` : "–";
  })]);
  // (the summary's own table format: mc/cli.ts)
  return markdownTable(head, body, 1).join("\n");
}

const chosen = WHICH === "all" ? SWEEPS : SWEEPS.filter((s) => s.seed === WHICH);
if (chosen.length === 0) {
  console.error(`mc-incident-table: no seed incident "${WHICH}" (one of ${SWEEPS.map((s) => s.seed).join(", ")}, or all)`);
  process.exit(2);
}
for (const sw of chosen) {
  const tmp = mkdtempSync(join(tmpdir(), "mc-table-"));
  const t0 = performance.now();
  const file = join(ROOT, "bindings", "mc", "examples", sw.file);
  const r = await runSweep({ file, runs: RUNS, seed: SEED, workers: WORKERS, journal: join(tmp, "runs.jsonl") });
  const wall = performance.now() - t0;
  const records = r.records; // read back from the journal, before it is removed
  rmSync(tmp, { recursive: true, force: true });
  const all = summarise(r.header, records, r.model, {});
  console.log(`### Seed incident ${sw.seed}: ${sw.title}`);
  console.log("");
  console.log(`\`bindings/mc/examples/${sw.file}\`: ${RUNS} runs, seed ${SEED}, ${WORKERS} workers, ${(wall / 1000).toFixed(1)} s. ` +
    `Overall: ${Object.entries(all.classes).filter(([k]) => k !== "ok").map(([k, c]) => `${k} ${pct(c, all.completed)} %`).join("; ")}.`);
  for (const t of sw.tables) {
    const kept = t.filter ? records.filter(t.filter) : records;
    const axes = [{ param: t.row.param, bins: t.row.bins }, ...Object.keys(t.cols[0]!.where).map((param) => ({ param }))];
    const s = summarise(r.header, kept, r.model, { table: axes });
    console.log("");
    if (t.caption) console.log(t.caption + "\n");
    console.log(table(t, s, kept));
  }
  console.log("");
}
