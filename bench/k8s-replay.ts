// Replays per second of the four seed incident scenarios on one core.
//   npm run build && node dist/bench/k8s-replay.js [seconds-per-case]
// Target: >= 20,000 replays/s per core with logs off (the Monte Carlo
// setting). Rates are replays per CPU-second of this process (user + system
// time), so other jobs on a shared machine slow the wall clock but not the
// figure much; each case is measured in several short rounds and the best
// round is kept (the logs-off rounds of the eight cases taken round-robin).
// Printed side by side, in the same run: logs on (the CLI setting) and
// tick-by-tick (no idle skipping).

import { builtinK8sScenarios, runK8sScenario, type K8sRunOptions, type K8sScenario } from "../bindings/k8s/index.js";

const seconds = Number(process.argv[2] ?? 1.5);
const ROUNDS = 5;

interface Case {
  sc: K8sScenario;
  version: string;
}

/**
 * The options of one replay, made per call as a literal of one shape, as a
 * caller writes them (bindings/mc: `{ seed, logs, steps }`). Not
 * `{ ...opts, version }`: an object spread per call measured 10-15 % fewer
 * replays/s for the same replays (28 Nov; the spread itself and the run's
 * reads of the options it makes came out ~40x dearer in the profile), a cost
 * of the harness, not of the replay.
 */
function optionsOf(c: Case, opts: K8sRunOptions): K8sRunOptions {
  return { version: c.version, logs: opts.logs, tickEveryPeriod: opts.tickEveryPeriod };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** best-of-rounds replays per CPU-second, and events per replay */
function rate(cases: readonly Case[], opts: K8sRunOptions, budgetMs = (seconds * 1000) / ROUNDS): { perSec: number; eventsPerReplay: number } {
  for (let i = 0; i < 20; i++) for (const c of cases) runK8sScenario(c.sc, optionsOf(c, opts)); // warm-up
  let best = 0;
  let n = 0;
  let events = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let k = 0;
    const c0 = cpuMs();
    const t0 = performance.now();
    while (performance.now() - t0 < budgetMs) {
      for (const c of cases) {
        events += runK8sScenario(c.sc, optionsOf(c, opts)).stats.events;
        k++;
      }
    }
    n += k;
    best = Math.max(best, k / ((cpuMs() - c0) / 1000));
  }
  return { perSec: best, eventsPerReplay: events / n };
}

/**
 * rate() of each case alone, measured round-robin: round r of every case
 * before round r + 1 of any, so a change of load (or the warm-up's leftover
 * GC work) during the measurement touches every case alike instead of the
 * first ones measured.
 */
function ratesInterleaved(cases: readonly Case[], opts: K8sRunOptions, budgetMs = (seconds * 1000) / ROUNDS): Array<{ perSec: number; eventsPerReplay: number }> {
  for (let i = 0; i < 20; i++) for (const c of cases) runK8sScenario(c.sc, optionsOf(c, opts)); // warm-up
  const best = cases.map(() => 0);
  const n = cases.map(() => 0);
  const events = cases.map(() => 0);
  for (let round = 0; round < ROUNDS; round++) {
    cases.forEach((c, i) => {
      let k = 0;
      const c0 = cpuMs();
      const t0 = performance.now();
      while (performance.now() - t0 < budgetMs) {
        events[i]! += runK8sScenario(c.sc, optionsOf(c, opts)).stats.events;
        k++;
      }
      n[i]! += k;
      best[i] = Math.max(best[i]!, k / ((cpuMs() - c0) / 1000));
    });
  }
  return cases.map((_, i) => ({ perSec: best[i]!, eventsPerReplay: events[i]! / n[i]! }));
}

const fmt = (x: number): string => Math.round(x).toLocaleString("en-US");
// the seed incidents (built-ins without a seed — the other incidents and the operations' scenarios — are not in the figures)
const scenarios = builtinK8sScenarios().filter((sc) => sc.incident?.seed);
const cases = scenarios.flatMap((sc) => [
  { sc, version: sc.incident!.affected, label: "affected" },
  { sc, version: sc.incident!.fixed, label: "fixed" },
]);
console.log(`k8s replay, one core, ~${seconds}s per case (best of ${ROUNDS} rounds, replays per CPU-second), logs off unless noted`);
// warm up every case together first (the JIT then sees all eight, as a sweep
// does), and measure the logs-off figures before the logs-on and tick-by-tick
// ones, whose much larger garbage would otherwise land in their rounds
const warmEnd = performance.now() + 1000;
while (performance.now() < warmEnd) for (const c of cases) runK8sScenario(c.sc, optionsOf(c, { logs: false }));
const off = ratesInterleaved(cases, { logs: false });
const all = rate(cases, { logs: false }, (2 * seconds * 1000) / ROUNDS);
cases.forEach((c, i) => {
  const one = [c];
  const on = rate(one, { logs: true });
  const tick = rate(one, { logs: false, tickEveryPeriod: true }, 200);
  const o = off[i]!;
  console.log(
    `${c.sc.name.padEnd(27)} ${c.label.padEnd(8)} ${c.version.padEnd(5)} ${fmt(o.perSec).padStart(7)}/s (${o.eventsPerReplay.toFixed(0).padStart(3)} events)  logs on ${fmt(on.perSec).padStart(7)}/s  tick-by-tick ${fmt(tick.perSec).padStart(5)}/s (${tick.eventsPerReplay.toFixed(0)} events, idle skipping x${(o.perSec / tick.perSec).toFixed(0)})`,
  );
});
// The eight together, two ways. Each case in a loop of its own, as a sweep of
// one scenario runs it (the harmonic combination of the rates above: eight
// replays, one of each, per the sum of their times); and the eight
// interleaved in one loop, one replay of each in turn, which on this VM's CPU
// costs about a third more per replay (28 Nov: 62 against 85 us) for nearly
// the same instructions (callgrind counts ~5 % more): the interleaved cases'
// different code paths and object shapes share the CPU's and V8's caches.
const own = cases.length / off.reduce((s, o) => s + 1 / o.perSec, 0);
console.log(`all four seeds, affected + fixed, logs off (target >= 20,000): ${fmt(own)} replays/s each case in its own loop, ${fmt(all.perSec)} replays/s interleaved`);
