// `npm test`'s lint step (Biome, biome.json): the linter on every file this
// branch changed since it left main (committed, staged, edited or new), the
// formatter on the files it added. Existing files keep their layout until a
// change of their own reformats them on purpose (`npx biome format --write FILE`
// in a commit that changes nothing else), so one branch's lint never rewrites
// lines other branches edit. `.ci/run` lints the whole tree (`npm run lint`).
//
//   node scripts/lint-changed.mjs            lint changed, format-check added
//   node scripts/lint-changed.mjs --write    apply Biome's safe fixes and format the added files
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const git = (...args) => {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  return r.status === 0 ? r.stdout.split("\n").filter(Boolean) : undefined;
};
const base = ["main", "origin/main"].map((b) => git("merge-base", "HEAD", b)?.[0]).find(Boolean);
const untracked = git("ls-files", "--others", "--exclude-standard") ?? [];
const changed = new Set([
  ...(base ? (git("diff", "--name-only", "--diff-filter=ACMR", base) ?? []) : []),
  ...(git("diff", "--name-only", "--diff-filter=ACMR", "HEAD") ?? []),
  ...untracked,
]);
const added = new Set([...(base ? (git("diff", "--name-only", "--diff-filter=A", base) ?? []) : []), ...untracked]);
const ours = (f) => /\.(c|m)?[jt]s$|\.json$/.test(f) && existsSync(join(root, f));
const lint = [...changed].filter(ours);
const format = [...added].filter(ours);
const write = process.argv.includes("--write");
const biome = (args) => {
  if (!args.length) return 0;
  const bin = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, stdio: "inherit" }).status ?? 1;
};
const opts = ["--no-errors-on-unmatched", "--files-ignore-unknown=true"];
const a = biome(lint.length ? ["lint", ...opts, ...(write ? ["--write"] : []), ...lint] : []);
const b = biome(format.length ? ["format", ...opts, ...(write ? ["--write"] : []), ...format] : []);
console.log(`lint: ${lint.length} changed file(s) linted, ${format.length} added file(s) format-checked against ${base ? base.slice(0, 9) : "no main branch"}`);
if (a || b) {
  console.error("lint: Biome found problems (above); `node scripts/lint-changed.mjs --write` fixes what it can");
  process.exit(1);
}
