// Runs every bench in bench/ from its TypeScript source through tsx (no
// compile step for the benches themselves; `npm run bench` builds the core and
// the bundle first, which the Monte Carlo and whole-process benches start),
// one after another. Helper modules (plain-*.ts, *-lib.ts) are not benches.
// One bench alone: npx tsx bench/throttle.ts
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "bench");
const benches = readdirSync(dir).filter((f) => f.endsWith(".ts") && !/^plain-|-lib\.ts$|\.test\.ts$/.test(f)).sort();
let failed = 0;
for (const b of benches) {
  console.log(`\n### ${b}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", join(dir, b), ...process.argv.slice(2)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
