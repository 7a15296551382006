// Records oracle throttle scenarios on this machine with `iosim record` and
// scores them with `iosim compare` beside the shipped recordings of the same
// scenarios (test/fixtures/oracle/throtl/traces), one Markdown row each:
// the check of issue #29 ("each within 3 points of the shipped traces' share").
// Needs root, cgroup v1 blkio or v2 io, tracefs and cc (see bindings/record).
// Usage: node scripts/record-check.mjs [--repeats 3] [--out DIR] [SCENARIO...] > docs/record-check.md
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { uname } from "./uname.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "bindings", "cli", "main.js");
const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args.splice(args.indexOf(k), 2)[1] : d);
const repeats = Number(opt("--repeats", "3"));
const out = opt("--out", "/tmp/iosim-record-check");
const names = args.length ? args : ["iops100_qd1_read", "bps1m_read_4k", "limit_change_iops", "siblings_iops100_50", "bursts20_gap150ms"];
mkdirSync(out, { recursive: true });
const share = (files) => {
  const r = spawnSync(process.execPath, [cli, "compare", "--json", ...files], { encoding: "utf8", maxBuffer: 1 << 28 });
  const j = JSON.parse(r.stdout);
  return { share: 100 * j.overall.share, n: j.overall.ios };
};
console.log(`Recorded with \`iosim record\` on ${uname()}, ${repeats} repeat(s) each, ${new Date().toISOString().slice(0, 10)}; scored with \`iosim compare\` (IOs within 4 ms, order-free per cgroup and direction).\n`);
console.log("| scenario | shipped traces | recorded here | difference |");
console.log("|---|---|---|---|");
for (const n of names) {
  const scen = join(root, "test/fixtures/oracle/throtl/scenarios", `${n}.json`);
  const rec = spawnSync(process.execPath, [cli, "record", scen, "-o", join(out, `${n}.jsonl`), "--repeats", String(repeats)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (rec.status !== 0) {
    console.log(`| ${n} | | recording failed (exit ${rec.status}) | |`);
    continue;
  }
  const mine = readdirSync(out).filter((f) => f.startsWith(n + ".")).map((f) => join(out, f));
  const shippedDir = join(root, "test/fixtures/oracle/throtl/traces", n);
  const shipped = readdirSync(shippedDir).map((f) => join(shippedDir, f));
  const a = share(shipped);
  const b = share(mine);
  console.log(`| ${n} | ${a.share.toFixed(2)} % of ${a.n} | ${b.share.toFixed(2)} % of ${b.n} | ${(b.share - a.share).toFixed(2)} points |`);
}
