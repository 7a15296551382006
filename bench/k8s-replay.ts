// Replays per second of the four seed incident scenarios on one core.
//   npm run build && node dist/bench/k8s-replay.js [seconds-per-case]
// Target: >= 20,000 replays/s with logs off (the Monte Carlo setting). Printed
// side by side: logs on (CLI setting) and tick-by-tick (no idle skipping), so
// the ratios are measured in the same run on the same machine.

import { builtinK8sScenarios, runK8sScenario, type K8sRunOptions, type K8sScenario } from "../bindings/k8s/index.js";

const seconds = Number(process.argv[2] ?? 1.5);

function rate(cases: Array<{ sc: K8sScenario; version: string }>, opts: K8sRunOptions): { perSec: number; eventsPerReplay: number } {
  // warm-up
  for (let i = 0; i < 50; i++) for (const c of cases) runK8sScenario(c.sc, { ...opts, version: c.version });
  let n = 0;
  let events = 0;
  const t0 = performance.now();
  const budget = seconds * 1000;
  while (performance.now() - t0 < budget) {
    for (const c of cases) {
      const r = runK8sScenario(c.sc, { ...opts, version: c.version });
      events += r.stats.events;
      n++;
    }
  }
  const dt = (performance.now() - t0) / 1000;
  return { perSec: n / dt, eventsPerReplay: events / n };
}

const scenarios = builtinK8sScenarios();
const rows: string[] = [];
let total: { affected?: number; all?: number } = {};
const fmt = (x: number): string => Math.round(x).toLocaleString("en-US");
for (const sc of scenarios) {
  const inc = sc.incident!;
  const cases = [
    { sc, version: inc.affected },
    { sc, version: inc.fixed },
  ];
  const off = rate(cases, { logs: false });
  const on = rate(cases, { logs: true });
  const tick = rate(cases, { logs: false, tickEveryPeriod: true });
  rows.push(
    `${sc.name.padEnd(28)} ${fmt(off.perSec).padStart(8)}/s  (${off.eventsPerReplay.toFixed(0)} events)   logs on ${fmt(on.perSec).padStart(7)}/s   tick-by-tick ${fmt(tick.perSec).padStart(6)}/s (${tick.eventsPerReplay.toFixed(0)} events, idle skipping x${(off.perSec / tick.perSec).toFixed(1)})`,
  );
}
const all = rate(
  scenarios.flatMap((sc) => [
    { sc, version: sc.incident!.affected },
    { sc, version: sc.incident!.fixed },
  ]),
  { logs: false },
);
total = { all: all.perSec };
console.log(`k8s replay, one core, ${seconds}s per case, affected + fixed version of each seed scenario`);
for (const r of rows) console.log(r);
console.log(`all four seeds, both versions, logs off: ${fmt(total.all!)} replays/s (target >= 20,000)`);
