// Prints one sha256 per simulated output the project promises to keep bit-identical across
// performance work: every oracle trace replayed, the built-in demo, the shipped scenarios and the
// fio fixtures run through `iosim run --json`, the Kubernetes seed incidents (`iosim k8s run
// NAME --json` and the text with `--logs`, at the affected and fixed versions; the JSON's
// replay event count, `stats.events`, is left out: idle-pass work changes it and nothing else), and the Monte Carlo examples' summaries (`iosim mc EXAMPLE --runs 300 --json`, one
// thread, no shrinking; without the k8s domain's `events` metric, the same count), and one of them
// on two workers.
// Usage: node scripts/output-hashes.mjs > before.txt; (change); node scripts/output-hashes.mjs | diff before.txt -
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// the command users run: package.json's "bin" (the bundle in dist/cli/ since it exists, dist/bindings/cli/main.js before)
const pkgBin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin;
const cli = join(root, typeof pkgBin === "string" ? pkgBin : pkgBin.iosim);
function walk(dir, out = []) {
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}
function hash(label, args, edit = (out) => out) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 30 });
  const h = createHash("sha256").update(String(r.status)).update(edit(r.stdout ?? "")).digest("hex").slice(0, 16);
  console.log(`${h}  ${label}`);
}
/**
 * an mc summary without the k8s domain's `events` metric (the replay's event
 * count, stats.events: how much work the simulator did, which idle-pass work
 * changes and nothing else; left as it is if it does not parse)
 */
function withoutEventMetric(out) {
  try {
    const j = JSON.parse(out);
    for (const k of Object.keys(j.metrics ?? {})) if (k === "events" || k.endsWith("/events")) delete j.metrics[k];
    return JSON.stringify(j);
  } catch {
    return out;
  }
}
/** a k8s run's JSON without stats.events (left as it is if it does not parse) */
function withoutEventCount(out) {
  try {
    const j = JSON.parse(out);
    if (j.stats) delete j.stats.events;
    return JSON.stringify(j);
  } catch {
    return out;
  }
}
const traces = walk(join(root, "test", "fixtures", "oracle")).filter((p) => p.endsWith(".jsonl") && !p.endsWith("_bins.jsonl"));
for (const t of traces) { const rel = t.slice(root.length + 1); hash(`replay ${rel}`, ["replay", rel]); }
hash("run (built-in demo) --json", ["run", "--json"]);
for (const s of walk(join(root, "scenarios")).filter((p) => p.endsWith(".yaml"))) hash(`run ${s.slice(root.length + 1)} --json`, ["run", s, "--json"]);
// (the path relative to the checkout, as the label: a job file's warnings name the path it was
// given, and an absolute one made these hashes differ between checkouts of the same commit)
for (const s of walk(join(root, "test", "fixtures", "fio")).filter((p) => p.endsWith(".fio"))) {
  const rel = s.slice(root.length + 1);
  hash(`run ${rel} --json`, ["run", rel, "--json"]);
}
const builtins = spawnSync(process.execPath, [cli, "k8s", "list", "--json"], { cwd: root, encoding: "utf8" });
for (const b of JSON.parse(builtins.stdout)) {
  for (const v of [b.affected, b.fixed]) {
    hash(`k8s run ${b.name} --version ${v} --json`, ["k8s", "run", b.name, "--version", v, "--json"], withoutEventCount);
    hash(`k8s run ${b.name} --version ${v} --logs`, ["k8s", "run", b.name, "--version", v, "--logs"]);
  }
}
const mcOut = mkdtempSync(join(tmpdir(), "iosim-hashes-"));
for (const s of walk(join(root, "bindings", "mc", "examples")).filter((p) => p.endsWith(".yaml"))) {
  const rel = s.slice(root.length + 1);
  hash(`mc ${rel} --runs 300 --seed 1 --json`, ["mc", rel, "--runs", "300", "--seed", "1", "--workers", "0", "--json", "--no-shrink", "--no-progress", "--force", "--out", join(mcOut, rel.replace(/\W/g, "_"))], withoutEventMetric);
}
// the worker pool's path (bindings/mc/pool.ts): the same sweep on two workers must give the same summary
{
  const rel = "bindings/mc/examples/k8s-detach-backoff.yaml";
  hash(`mc ${rel} --runs 300 --seed 1 --workers 2 --json`, ["mc", rel, "--runs", "300", "--seed", "1", "--workers", "2", "--json", "--no-shrink", "--no-progress", "--force", "--out", join(mcOut, "workers2")], withoutEventMetric);
}
rmSync(mcOut, { recursive: true, force: true });
