// Scores `iosim record` traces made in the 6.1 QEMU guest (bindings/record/guest:
// run.sh iomax, run.sh iocost) with `iosim compare`, beside the oracle's own guest
// recordings of the same cases, and prints the Markdown section of
// docs/record-check.md ("In the 6.1 QEMU guest").
// Usage: node scripts/record-check-guest.mjs --iomax DIR --iocost DIR [--load "5.1 4.0 3.2"]
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "bindings", "cli", "main.js");
const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args.splice(args.indexOf(k), 2)[1] : d);
const iomax = opt("--iomax");
const iocost = opt("--iocost");
const load = opt("--load", "");
const compare = (files) => {
  const r = spawnSync(process.execPath, [cli, "compare", "--json", ...files], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (!r.stdout) throw new Error(`iosim compare ${files.join(" ")}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const pct = (x) => (100 * x).toFixed(2);
const oracleCase = (name) => {
  const j = compare([join(root, "test/fixtures/oracle/guest/iomax.jsonl")]);
  const p = j.traces[0].parts.find((x) => x.name === `iomax#${name}`);
  return p ? `${name} ${pct(p.share)} %` : "-";
};
const when = (f) => JSON.parse(readFileSync(f, "utf8").split("\n", 1)[0]).wallclock_utc ?? "?";
console.log("## In the 6.1 QEMU guest (cgroup v2)\n");
console.log("Made by `node scripts/record-check-guest.mjs --iomax DIR --iocost DIR` on the traces of");
console.log("`bindings/record/guest/build.sh && bindings/record/guest/run.sh iomax DIR` (then `iocost`),");
console.log("each scenario three times, scored with `iosim compare`." + (load ? ` Host load average during the recordings: ${load}.` : "") + "\n");
if (iomax) {
  const files = readdirSync(iomax).filter((f) => f.endsWith(".jsonl")).sort();
  const cases = [...new Set(files.map((f) => f.replace(/\.run\d+\.jsonl$/, "")))];
  console.log(`io.max (recorded ${when(join(iomax, files[0]))}; \`--no-jiffies-map\`: the tick phase is estimated and calibrated, as for the oracle's guest traces):\n`);
  console.log("| scenario | per run | pooled | the oracle's guest recording of the same case |");
  console.log("|---|---|---|---|");
  const oracle = { "guest-riops100-qd1": "riops100_qd1", "guest-rbps400k-qd1": "rbps400k_4k_qd1", "guest-wiops100-qd4": "wiops100_qd4" };
  for (const c of cases) {
    const fs = files.filter((f) => f.startsWith(c + ".")).map((f) => join(iomax, f));
    const j = compare(fs);
    const per = j.traces.map((t) => `${pct(t.total.share)} %`).join(", ");
    console.log(`| ${c} | ${per} | ${j.overall.matched}/${j.overall.ios} (${pct(j.overall.share)} %) | ${oracle[c] ? oracleCase(oracle[c]) : "-"} |`);
  }
  console.log("");
  // where the misses are: IOs the model passes at once (within the slice's budget, no controller holds
  // them) that the kernel completed more than 4 ms after their submit, and the held IOs' lateness
  const why = (f) => {
    const r = spawnSync(process.execPath, [cli, "replay", f], { encoding: "utf8", maxBuffer: 1 << 28 });
    const rows = r.stdout.trim().split("\n").slice(1).map((l) => JSON.parse(l));
    const free = rows.filter((x) => x.complete_ns - x.submit_ns < 500_000);
    const late = free.filter((x) => x.recorded_complete_ns - x.submit_ns > 4_000_000);
    const held = rows.filter((x) => x.complete_ns - x.submit_ns >= 500_000).map((x) => (x.recorded_complete_ns - x.complete_ns) / 1e6).sort((a, b) => a - b);
    return { free: free.length, late: late.length, heldP50: held.length ? held[held.length >> 1] : 0, n: rows.length };
  };
  const wfiles = files.filter((f) => f.startsWith("guest-wiops100-qd4.")).map((f) => join(iomax, f));
  if (wfiles.length) {
    console.log("guest-wiops100-qd4, where the misses are (`iosim replay` of each trace; the oracle's own guest case for reference):\n");
    console.log("| trace | IOs the model passes at once | of them the kernel took > 4 ms | IOs the model holds: kernel's completion minus the model's, median |");
    console.log("|---|---|---|---|");
    const ow = (() => {
      const r = spawnSync(process.execPath, [cli, "replay", join(root, "test/fixtures/oracle/guest/iomax.jsonl")], { encoding: "utf8", maxBuffer: 1 << 28 });
      const rows = r.stdout.trim().split("\n").slice(1).map((l) => JSON.parse(l)).filter((x) => x.job === "wiops100_qd4");
      const free = rows.filter((x) => x.complete_ns - x.submit_ns < 500_000);
      const held = rows.filter((x) => x.complete_ns - x.submit_ns >= 500_000).map((x) => (x.recorded_complete_ns - x.complete_ns) / 1e6).sort((a, b) => a - b);
      return { free: free.length, late: free.filter((x) => x.recorded_complete_ns - x.submit_ns > 4_000_000).length, heldP50: held[held.length >> 1] ?? 0 };
    })();
    console.log(`| oracle iomax#wiops100_qd4 | ${ow.free} | ${ow.late} | ${ow.heldP50.toFixed(2)} ms |`);
    for (const f of wfiles) {
      const w = why(f);
      console.log(`| ${f.replace(/^.*\//, "")} | ${w.free} | ${w.late} | ${w.heldP50.toFixed(2)} ms |`);
    }
    console.log("");
  }
}
if (iocost) {
  const files = readdirSync(iocost).filter((f) => f.endsWith(".jsonl")).sort().map((f) => join(iocost, f));
  const j = compare(files);
  console.log(`io.cost (recorded ${when(files[0])}): \`iosim compare\` replays an io.cost recording as the closed loops it ran`);
  console.log("(bindings/oracle/record-iocost.ts): the device fitted to the recorded requests, the io.cost");
  console.log("files at their recorded times, the period timer at its recorded firings when the trace holds the");
  console.log("iocost tracepoints; per cgroup the k-th IO's latency against the model's k-th (within 4 ms) and the");
  console.log("cgroup's share of the IOs.\n");
  console.log("| trace | IO latencies within 4 ms | A share real / sim | B share real / sim | B/A real / sim | device (recorded requests) | period timer |");
  console.log("|---|---|---|---|---|---|---|");
  for (const o of j.others.filter((x) => x.kind === "record-iocost")) {
    const s = o.score;
    const g = Object.fromEntries(s.groups.map((x) => [x.cgroup, x]));
    const tr = s.groups.reduce((a, x) => a + x.real, 0), ts = s.groups.reduce((a, x) => a + x.sim, 0);
    const sh = (x) => (x ? `${pct(x.real / tr)} / ${pct(x.sim / ts)} %` : "-");
    const ba = g.A && g.B ? `${(g.B.real / g.A.real).toFixed(2)} / ${(g.B.sim / g.A.sim).toFixed(2)}` : "-";
    console.log(`| ${s.name} | ${s.total.matched}/${s.total.ios} (${pct(s.total.share)} %) | ${sh(g.A)} | ${sh(g.B)} | ${ba} | ${s.device.replace(/^fitted to \d+ recorded requests: /, "")} | ${s.timer.replace(/ \(.*\)$/, "")} |`);
  }
}
