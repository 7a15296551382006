// npm run fuzz -- --cases 100000 [--seed N] [--report FILE] [--spawn-every K]
// The CLI fuzz suite (test/fuzz/fuzz.test.ts) run long: N generated and
// mutated inputs, each asserted to exit 0, 1 or 2 within 30 s and 1 GiB and
// to leave the disk as it was when rejected; a failure is kept under
// test/fixtures/fuzz/found/. Prints the run's numbers (cases, exit codes,
// slowest case, largest RSS) when it ends.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const cases = Number(opt("--cases", "1000"));
if (!Number.isSafeInteger(cases) || cases < 1) {
  console.error(`fuzz: --cases takes a whole number >= 1, got ${opt("--cases")}`);
  process.exit(2);
}
const report = opt("--report", join(root, "fuzz-report.json"));
const env = { ...process.env, FUZZ_CASES: String(cases), FUZZ_REPORT: report, FUZZ_SPAWN_EVERY: opt("--spawn-every", "25") };
const seed = opt("--seed", undefined);
if (seed !== undefined) env.FC_SEED = seed;
const r = spawnSync(process.execPath, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "test/fuzz/fuzz.test.ts"], { cwd: root, env, stdio: "inherit" });
try {
  console.log(readFileSync(report, "utf8"));
} catch {
  // no report: the run failed before its end (the failure is printed above)
}
process.exit(r.status ?? 1);
