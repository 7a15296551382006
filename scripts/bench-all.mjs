// Runs every bench in dist/bench (built by `npm run build`), one after another.
// Helper modules (plain-*.js, *-lib.js) are not benches.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "bench");
const benches = readdirSync(dir).filter((f) => f.endsWith(".js") && !/^plain-|-lib\.js$|\.test\.js$/.test(f)).sort();
let failed = 0;
for (const b of benches) {
  console.log(`\n### ${b}`);
  const r = spawnSync(process.execPath, [join(dir, b), ...process.argv.slice(2)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
