#!/usr/bin/env node
// The figures of scenarios/iolatency-protect.md and scenarios/wbt-writeback.md:
// runs each scenario (and its variant without the policy) and prints the
// per-cgroup latency and the policy's timeline (RunResult.rqos).
//   node scripts/rqos-walkthrough.mjs
import { readFileSync } from "node:fs";
import { loadScenario, simulate } from "../dist/bindings/index.js";

const ms = (ns) => (ns / 1e6).toFixed(1);
function run(file, edit = (t) => t) {
  const text = edit(readFileSync(file, "utf8"));
  return simulate({ ...loadScenario(text, file).scenario, record: true });
}
function lat(r) {
  const by = new Map();
  for (const b of r.records) {
    const k = `${b.job === "(writeback)" ? "(writeback)" : b.cgroup || "/"} ${b.dir}`;
    const a = by.get(k) ?? [];
    a.push(b.completeNs - b.submitNs);
    by.set(k, a);
  }
  return [...by].map(([k, a]) => `${k}: ${a.length} IOs, mean ${ms(a.reduce((x, y) => x + y, 0) / a.length)} ms`).join("; ");
}

const a = run("scenarios/iolatency-protect.yaml");
const b = run("scenarios/iolatency-protect.yaml", (t) => t.replace(/^ {4}io\.latency:.*\n/gm, ""));
console.log("iolatency-protect, with io.latency:    ", lat(a));
console.log("iolatency-protect, without io.latency: ", lat(b));
for (const [cg, byDev] of Object.entries(a.rqos.iolatency)) {
  for (const [dev, pts] of Object.entries(byDev)) {
    const changes = pts.filter((p, i) => i === 0 || p.depth !== pts[i - 1].depth || p.useDelay !== pts[i - 1].useDelay);
    console.log(`  ${cg} ${dev}: ` + changes.slice(0, 14).map((p) => `${ms(p.tNs)}ms depth=${p.depth ?? "max"}${p.useDelay ? ` use_delay=${p.useDelay}` : ""} cookie-${p.cookieDown}`).join(", ") +
      (changes.length > 14 ? ` ... (${changes.length} changes)` : ""));
  }
}
const w = run("scenarios/wbt-writeback.yaml");
const w0 = run("scenarios/wbt-writeback.yaml", (t) => t.replace('wbt_lat_usec: "-1"', 'wbt_lat_usec: "0"'));
console.log("wbt-writeback, wbt_lat_usec -1:", lat(w));
console.log("wbt-writeback, wbt_lat_usec 0: ", lat(w0));
const tl = Object.values(w.rqos.wbt)[0];
const steps = new Map();
for (const p of tl) steps.set(p.step, (steps.get(p.step) ?? 0) + 1);
console.log(`  wbt states: first ${JSON.stringify(tl[0])}; ${tl.length} changes; steps seen ${[...steps].map(([s, n]) => `${s}:${n}`).join(" ")}`);
console.log("  first changes: " + tl.slice(1, 9).map((p) => `${ms(p.tNs)}ms step=${p.step} max=${p.maxDepth} normal=${p.normal} bg=${p.background} win=${ms(p.windowNs)}ms`).join(", "));
