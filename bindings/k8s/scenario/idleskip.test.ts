// Skipping idle ticks (and waking only the loops a change can concern,
// engine/sim.ts section 3) must give exactly the run that ticking every loop at
// every period gives, not only on the built-in scenarios as they are but on
// random variations of them: other versions and seeds, watch latencies and
// watch delays, kubelet and controller-manager restarts, NotReady nodes,
// storage and API faults.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtinK8sScenarios } from "../index.js";
import { loadK8sScenario } from "./loader.js";
import { runK8sScenario } from "./run.js";
import type { K8sScenario, TimelineItem } from "./schema.js";
import { BACKEND_OPS } from "../host/backend.js";

const scenarios = builtinK8sScenarios();
const MIN = 60_000;

const variation = fc.record({
  scenario: fc.integer({ min: 0, max: scenarios.length - 1 }),
  minor: fc.integer({ min: 13, max: 30 }),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  watchLatencyMs: fc.integer({ min: 1, max: 400 }),
  restarts: fc.array(
    fc.record({ kind: fc.constantFrom("restartKubelet", "restartControllerManager", "nodeNotReady", "crashKubelet"), atMs: fc.integer({ min: 1_000, max: 8 * MIN }), downMs: fc.integer({ min: 100, max: 60_000 }) }),
    { maxLength: 3 },
  ),
  watchFaults: fc.array(
    fc.record({ component: fc.constantFrom("kube-controller-manager", "kubelet", "csi-attacher", "*"), fromMs: fc.integer({ min: 0, max: 5 * MIN }), lenMs: fc.integer({ min: 1_000, max: 3 * MIN }), extraMs: fc.integer({ min: 1, max: 20_000 }) }),
    { maxLength: 2 },
  ),
  storageFaults: fc.array(fc.record({ op: fc.constantFrom(...BACKEND_OPS), count: fc.integer({ min: 1, max: 4 }), latencyMs: fc.integer({ min: 0, max: 30_000 }), error: fc.boolean() }), { maxLength: 2 }),
  nodePatchFaults: fc.integer({ min: 0, max: 3 }),
});

function vary(v: fc.Infer<typeof variation>): { sc: K8sScenario; version: string } {
  const base = scenarios[v.scenario]!;
  const nodes = base.objects.filter((o) => o.kind === "Node").map((o) => o.metadata.name);
  const extra: TimelineItem[] = v.restarts.map((r, i) => {
    const node = nodes[i % nodes.length]!;
    const action =
      r.kind === "restartKubelet"
        ? { kind: "restartKubelet" as const, node, downMs: r.downMs }
        : r.kind === "restartControllerManager"
          ? { kind: "restartControllerManager" as const, downMs: r.downMs }
          : r.kind === "crashKubelet"
            ? { kind: "crashKubelet" as const, node }
            : { kind: "nodeNotReady" as const, node };
    return { atMs: r.atMs, action };
  });
  const sc: K8sScenario = {
    ...base,
    seed: v.seed,
    settings: { ...base.settings, watchLatencyMs: v.watchLatencyMs },
    timeline: [...base.timeline, ...extra],
    watchFaults: [...base.watchFaults, ...v.watchFaults.map((f) => ({ component: f.component, fromMs: f.fromMs, untilMs: f.fromMs + f.lenMs, extraMs: f.extraMs }))],
    storageFaults: [
      ...base.storageFaults,
      ...v.storageFaults.map((f) => ({ op: f.op, count: f.count, fromMs: 0, untilMs: Infinity, latencyMs: f.latencyMs, error: f.error ? "injected storage error" : undefined })),
    ],
    apiFaults: [...base.apiFaults, ...(v.nodePatchFaults > 0 ? [{ verb: "patch" as const, kind: "Node" as const, reason: "InternalError" as const, count: v.nodePatchFaults, fromMs: 0, untilMs: Infinity }] : [])],
  };
  return { sc, version: `1.${v.minor}` };
}

describe("idle skipping", () => {
  it("gives the same run as ticking every period, under random versions, seeds, delays, restarts and faults", () => {
    fc.assert(
      fc.property(variation, (v) => {
        const { sc, version } = vary(v);
        const fast = runK8sScenario(sc, { version, steps: true });
        const slow = runK8sScenario(sc, { version, steps: true, tickEveryPeriod: true });
        // the steps too: `after:` and `between:` timeline items and `step` checks hang on them
        expect(fast.steps).toEqual(slow.steps);
        expect(fast.logs.map((l) => l.text)).toEqual(slow.logs.map((l) => l.text));
        expect(fast.occurrences).toEqual(slow.occurrences);
        expect(JSON.stringify(fast.objects)).toBe(JSON.stringify(slow.objects));
        expect(fast.violations).toEqual(slow.violations);
      }),
      { numRuns: Number(process.env.IDLESKIP_RUNS ?? 40), seed: Number(process.env.IDLESKIP_SEED ?? 20261122) },
    );
  });

  it("keeps the times of the attach/detach controller's 3-minute pod lists it sleeps through (a claim's PV that appears 7 minutes in is found by the 9-minute list)", () => {
    // the populator's lists between 3 and 6 min find nothing and are skipped;
    // the PV's arrival wakes it at 7 min, where ticking every period it would
    // not list (its last list was at 6 min): it must list at 9 min, not at 7
    const sc = loadK8sScenario(
      `name: late-pv
duration: 15m
objects:
  - kind: Node
    metadata: {name: n1}
  - kind: PersistentVolumeClaim
    metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], volumeName: pv1}
  - kind: Pod
    metadata: {name: p}
    spec:
      nodeName: n1
      containers: [{name: c, volumeMounts: [{name: d, mountPath: /d}]}]
      volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
timeline:
  - at: 7m
    action: create
    manifest:
      kind: PersistentVolume
      metadata: {name: pv1}
      spec: {accessModes: [ReadWriteOnce], awsElasticBlockStore: {volumeID: vol-1}}
expect:
  - podRunning: p
`,
      "late-pv.yaml",
    );
    const fast = runK8sScenario(sc, { steps: true });
    const slow = runK8sScenario(sc, { steps: true, tickEveryPeriod: true });
    expect(fast.steps).toEqual(slow.steps);
    expect(fast.logs.map((l) => l.text)).toEqual(slow.logs.map((l) => l.text));
    expect(fast.violations).toEqual([]);
    // the list at 9 min (the populator's grid: 20 ms + k min), then the attach's 2 s
    const attached = fast.steps.find((s) => s.name === "adc.AttachSucceeded")!.t;
    expect(attached).toBeGreaterThanOrEqual(9 * MIN);
    expect(attached).toBeLessThan(10 * MIN);
  });

  it("stays exact with settings.interleave: call ends landing inside reconciler passes (engine/sim.ts yieldPoint), latencies on the 100 ms grid", () => {
    fc.assert(
      fc.property(variation, (v) => {
        const { sc: base, version } = vary(v);
        const sc: K8sScenario = {
          ...base,
          settings: { ...base.settings, interleave: true },
          // whole 100 ms: the ends fall on the reconcilers' grids, where they can land inside a pass
          storageFaults: base.storageFaults.map((f) => (f.latencyMs === undefined ? f : { ...f, latencyMs: Math.round(f.latencyMs / 100) * 100 })),
        };
        const fast = runK8sScenario(sc, { version, steps: true });
        const slow = runK8sScenario(sc, { version, steps: true, tickEveryPeriod: true });
        expect(fast.steps).toEqual(slow.steps);
        expect(fast.logs.map((l) => l.text)).toEqual(slow.logs.map((l) => l.text));
        expect(fast.occurrences).toEqual(slow.occurrences);
        expect(JSON.stringify(fast.objects)).toBe(JSON.stringify(slow.objects));
        expect(fast.violations).toEqual(slow.violations);
      }),
      { numRuns: Number(process.env.IDLESKIP_RUNS ?? 40), seed: Number(process.env.IDLESKIP_SEED ?? 20261122) + 1 },
    );
  });
});
