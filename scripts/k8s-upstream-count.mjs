// Counts upstream's unit tests ported into test/k8s/upstream/ (issue #26 item 6):
// for every test function of test/k8s/upstream/upstream-tests.json, whether it
// is ported (vitest cases "<name> [1.x]" in the suite named after its upstream
// file), passing on every release it runs on (a case titled "(diverges: ...)"
// is an it.fails case: a release where the model is known to do otherwise,
// counted as failing), or not portable (with the reason the manifest gives).
//
// Usage: node scripts/k8s-upstream-count.mjs            # totals per file
//        node scripts/k8s-upstream-count.mjs --write    # also rewrite the generated
//          tables in test/k8s/upstream/README.md and the figures in bindings/k8s/README.md
//        node scripts/k8s-upstream-count.mjs --json
// Runs vitest once (nice'd), about 20 s.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(root, "test/k8s/upstream/upstream-tests.json"), "utf8"));
const args = new Set(process.argv.slice(2));

const dir = mkdtempSync(join(tmpdir(), "k8s-upstream-"));
const out = join(dir, "vitest.json");
const r = spawnSync("nice", ["-n", "10", "npx", "vitest", "run", "test/k8s/upstream", "--reporter=json", `--outputFile=${out}`], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
let report;
try {
  report = JSON.parse(readFileSync(out, "utf8"));
} catch {
  console.error(r.stdout, r.stderr);
  console.error("k8s-upstream-count: vitest wrote no JSON report");
  process.exit(3);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** suite (upstream file) -> test name -> [{release, passed, diverges}] */
const cases = new Map();
const TITLE = /^(\S+) \[(1\.\d+(?:\.\d+)?)\](?: \(diverges: (.*)\))?$/;
for (const file of report.testResults) {
  for (const a of file.assertionResults) {
    const suite = a.ancestorTitles[0];
    const m = TITLE.exec(a.title);
    if (!suite || !m) continue;
    const [, name, release, why] = m;
    if (!cases.has(suite)) cases.set(suite, new Map());
    const byName = cases.get(suite);
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name).push({ release, passed: a.status === "passed" && why === undefined, diverges: why });
  }
}

const minorOf = (rel) => Number(rel.split(".")[1]);
/** "1.10-1.31", "1.19-1.31", "1.22.14, 1.23.11, 1.24.5, 1.25.1, 1.26-1.31" */
function releaseText(rels) {
  const plain = rels.filter((x) => x.split(".").length === 2).map(minorOf).sort((a, b) => a - b);
  const patch = rels.filter((x) => x.split(".").length === 3);
  const parts = [...patch];
  for (let i = 0; i < plain.length; ) {
    let j = i;
    while (j + 1 < plain.length && plain[j + 1] === plain[j] + 1) j++;
    parts.push(i === j ? `1.${plain[i]}` : `1.${plain[i]}-1.${plain[j]}`);
    i = j + 1;
  }
  return parts.join(", ");
}

const result = { files: [], total: { tests: 0, ported: 0, passing: 0, notPortable: 0, missing: 0 } };
for (const f of manifest.files) {
  const byName = cases.get(f.path) ?? new Map();
  const rows = [];
  const t = { tests: 0, ported: 0, passing: 0, notPortable: 0, missing: 0 };
  for (const test of f.tests) {
    t.tests++;
    const cs = byName.get(test.name);
    if (test.notPortable) {
      t.notPortable++;
      rows.push({ name: test.name, status: "not portable", detail: test.notPortable, releases: "" });
      if (cs) rows[rows.length - 1].detail += " (but cases exist: remove notPortable)";
      continue;
    }
    if (!cs || cs.length === 0) {
      t.missing++;
      rows.push({ name: test.name, status: "missing", detail: "no vitest case", releases: "" });
      continue;
    }
    t.ported++;
    const failing = cs.filter((c) => !c.passed);
    const releases = releaseText(cs.map((c) => c.release));
    if (failing.length === 0) {
      t.passing++;
      rows.push({ name: test.name, status: "passing", detail: "", releases });
    } else {
      const why = [...new Set(failing.map((c) => c.diverges ?? "fails"))].join("; ");
      rows.push({ name: test.name, status: `ported, failing on ${releaseText(failing.map((c) => c.release))}`, detail: why, releases });
    }
  }
  for (const k of Object.keys(t)) result.total[k] += t[k];
  result.files.push({ path: f.path, readAt: f.readAt, testFile: f.testFile, ...t, rows });
}
for (const [suite] of cases) if (!manifest.files.some((f) => f.path === suite)) console.error(`k8s-upstream-count: suite ${suite} is not in the manifest`);

const pct = (n, d) => `${((100 * n) / d).toFixed(1)} %`;
const T = result.total;
const summary = `${T.tests} upstream tests: ${T.ported} ported (${pct(T.ported, T.tests)}), ${T.passing} passing on every release they run on (${pct(T.passing, T.tests)}), ${T.notPortable} not portable${T.missing ? `, ${T.missing} missing` : ""}`;

if (args.has("--json")) console.log(JSON.stringify(result, null, 1));
else {
  for (const f of result.files) console.log(`${f.path}: ${f.tests} tests, ${f.ported} ported, ${f.passing} passing, ${f.notPortable} not portable${f.missing ? `, ${f.missing} missing` : ""}`);
  console.log(summary);
}

if (args.has("--write")) {
  const md = [];
  md.push(`${summary}.`, "");
  md.push("| upstream file | tests | ported | passing on every release | not portable |", "|---|---:|---:|---:|---:|");
  for (const f of result.files) md.push(`| \`${f.path}\` | ${f.tests} | ${f.ported} | ${f.passing} | ${f.notPortable} |`);
  md.push(`| **total** | ${T.tests} | ${T.ported} | ${T.passing} | ${T.notPortable} |`, "");
  for (const f of result.files) {
    md.push(`### \`${f.path}\``, "", `Read at ${f.readAt}; ${f.testFile ? `ported in \`${f.testFile}\`` : "nothing ported"}.`, "");
    md.push("| test | status | releases run | note |", "|---|---|---|---|");
    for (const row of f.rows) md.push(`| \`${row.name}\` | ${row.status} | ${row.releases} | ${row.detail.replace(/\|/g, "\\|")} |`);
    md.push("");
  }
  const gen = md.join("\n");
  const readme = join(root, "test/k8s/upstream/README.md");
  const text = readFileSync(readme, "utf8");
  const a = "<!-- k8s-upstream-count:start -->";
  const b = "<!-- k8s-upstream-count:end -->";
  const i = text.indexOf(a);
  const j = text.indexOf(b);
  if (i < 0 || j < 0) throw new Error(`${readme}: markers ${a} ... ${b} missing`);
  writeFileSync(readme, `${text.slice(0, i + a.length)}\n${gen}\n${text.slice(j)}`);
  const bindings = join(root, "bindings/k8s/README.md");
  const btext = readFileSync(bindings, "utf8");
  const bi = btext.indexOf(a);
  const bj = btext.indexOf(b);
  if (bi < 0 || bj < 0) throw new Error(`${bindings}: markers ${a} ... ${b} missing`);
  writeFileSync(bindings, `${btext.slice(0, bi + a.length)}\n${summary} (by file: ${result.files.map((f) => `${f.path.split("/").slice(-3).join("/")} ${f.passing}/${f.tests}`).join(", ")}).\n${btext.slice(bj)}`);
}
