// What the ported upstream tests share (test/k8s/upstream/README.md):
//
// - `upstream(file, name, releases, body)` registers one vitest case per
//   release the test applies to, titled `<name> [1.MINOR]` inside a suite
//   named after the upstream file, so scripts/k8s-upstream-count.mjs can tell
//   which upstream test ran and passed on which release;
// - `releases(from, to)` lists the model's releases 1.from..1.to
//   (bindings/k8s/versions/profile.ts MIN_MINOR..MAX_MINOR);
// - `newCtx(version)` builds the run context a component of the model needs
//   (clock, API server, storage backend, hosts, profile, recorder, steps),
//   without a scenario: the ported tests drive the model's own objects as
//   upstream's drive theirs (a real ASW/DSW, the operation executor, a fake
//   plugin), not a whole replay.
import { describe, it } from "vitest";
import { ApiServer } from "../../../bindings/k8s/api/apiserver.js";
import { DEFAULT_TIMERS, type TimerConfig } from "../../../bindings/k8s/engine/config.js";
import { type Ctx, Steps } from "../../../bindings/k8s/engine/context.js";
import { Sim } from "../../../bindings/k8s/engine/sim.js";
import { Backend } from "../../../bindings/k8s/host/backend.js";
import { Host } from "../../../bindings/k8s/host/mount.js";
import { Recorder } from "../../../bindings/k8s/output/recorder.js";
import { type FixOverrides, MAX_MINOR, MIN_MINOR, resolveProfile } from "../../../bindings/k8s/versions/profile.js";

/** the model's releases from 1.`from` to 1.`to` (both within MIN_MINOR..MAX_MINOR) */
export function releases(from: number = MIN_MINOR, to: number = MAX_MINOR): string[] {
  const out: string[] = [];
  for (let m = Math.max(from, MIN_MINOR); m <= Math.min(to, MAX_MINOR); m++) out.push(`1.${m}`);
  return out;
}

export const ALL = releases();

/**
 * One vitest case per release: `<name> [1.x]` in the suite `<file>`.
 * `divergent` lists releases where the model is known not to do what
 * upstream's test asserts, each with the reason: those cases run as
 * `it.fails` titled `<name> [1.x] (diverges: reason)`, so the suite stays
 * green, the count script reports them as failing, and a model fix that
 * makes them pass fails the suite until the entry is removed.
 */
export function upstream(file: string, name: string, rel: readonly string[], body: (version: string) => void | Promise<void>, divergent: Readonly<Record<string, string>> = {}): void {
  describe(file, () => {
    for (const v of rel) {
      const why = divergent[v];
      if (why === undefined) it(`${name} [${v}]`, () => body(v));
      else it.fails(`${name} [${v}] (diverges: ${why})`, () => body(v));
    }
  });
}

/** the same reason for each of `rel` (upstream()'s `divergent`) */
export function diverges(rel: readonly string[], why: string): Record<string, string> {
  return Object.fromEntries(rel.map((v) => [v, why]));
}

export interface TestCtx extends Ctx {
  sim: Sim;
}

/** a run context without a scenario; `nodes` get a host each (the kubelet's mount table) */
export function newCtx(version: string, opts: { nodes?: string[]; fixes?: FixOverrides; timers?: Partial<TimerConfig>; logs?: boolean } = {}): TestCtx {
  // every loop passes at every period, as upstream's goroutines do (no idle skipping: the tests' loops are not in the components' wake groups)
  const sim = new Sim({ seed: 1, tickEveryPeriod: true });
  const kubeletRoot = "/var/lib/kubelet";
  const hosts = new Map<string, Host>();
  for (const n of opts.nodes ?? []) hosts.set(n, new Host(n, kubeletRoot, sim));
  return {
    sim,
    api: new ApiServer(sim),
    backend: new Backend(sim),
    hosts,
    profile: resolveProfile(version, opts.fixes ?? {}),
    timers: { ...DEFAULT_TIMERS, ...(opts.timers ?? {}) },
    out: new Recorder(opts.logs ?? true, { startUtcMs: 0, offsetMin: 0, zone: "UTC" }, () => sim.now),
    steps: new Steps(sim, true),
    monitor: { podStarting: () => {} },
    watchExtra: () => () => 0,
    watchLatency: () => 0,
    propagationDelayMs: 0,
    kubeletRoot,
  };
}

/**
 * Upstream's waitFor... helpers poll a condition for up to a few seconds of
 * wall time; here simulated time runs, `stepMs` (100 ms) at a time, until the condition
 * holds or `limitMs` passes. Returns whether it held.
 */
export function runUntil(sim: Sim, cond: () => boolean, limitMs = 60_000, stepMs = 100): boolean {
  const end = sim.now + limitMs;
  while (!cond()) {
    if (sim.now >= end) return false;
    sim.run(sim.now + stepMs);
  }
  return true;
}
