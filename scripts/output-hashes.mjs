// Prints one sha256 per simulated output the project promises to keep bit-identical across
// performance work: every oracle trace replayed, the built-in demo, the shipped scenarios and the
// fio fixtures run through `iosim run --json`, and the Kubernetes seed incidents.
// Usage: node scripts/output-hashes.mjs > before.txt; (change); node scripts/output-hashes.mjs | diff before.txt -
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "bindings", "cli", "main.js");
function walk(dir, out = []) {
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}
function hash(label, args) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 30 });
  const h = createHash("sha256").update(String(r.status)).update(r.stdout ?? "").digest("hex").slice(0, 16);
  console.log(`${h}  ${label}`);
}
const traces = walk(join(root, "test", "fixtures", "oracle")).filter((p) => p.endsWith(".jsonl") && !p.endsWith("_bins.jsonl"));
for (const t of traces) { const rel = t.slice(root.length + 1); hash(`replay ${rel}`, ["replay", rel]); }
hash("run (built-in demo) --json", ["run", "--json"]);
for (const s of walk(join(root, "scenarios")).filter((p) => p.endsWith(".yaml"))) hash(`run ${s.slice(root.length + 1)} --json`, ["run", s, "--json"]);
for (const s of walk(join(root, "test", "fixtures", "fio")).filter((p) => p.endsWith(".fio"))) hash(`run ${s.slice(root.length + 1)} --json`, ["run", s, "--json"]);
