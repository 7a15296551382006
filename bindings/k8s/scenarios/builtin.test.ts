// The built-in incidents (the four seeds and the ones chosen from upstream's
// tracker): each reproduces its symptom on an affected version, and every
// invariant holds with the fix (on a fixed version, on the newest release the
// model has, and as a switch on the affected version when the fix is one).
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { BUILTIN_YAML, builtinK8sScenario, builtinK8sScenarios, runK8sScenario } from "../index.js";
import { isFixId, MAX_MINOR } from "../versions/profile.js";
// @ts-expect-error plain ESM helper without types
import { generate } from "./gen.mjs";

const scenarios = builtinK8sScenarios();
/** the newest release the model has */
const NEWEST = `1.${MAX_MINOR}`;

describe("built-in incident scenarios", () => {
  it("ship the four seed incidents", () => {
    expect(scenarios.map((s) => s.incident?.seed).filter((x) => x).sort()).toEqual(["000/003", "001", "002", "004"]);
  });

  it("are each in the file named after the scenario, so builtinK8sScenario(name) parses that one alone and finds what a scan of all finds", () => {
    expect(scenarios.map((s) => s.name)).toEqual(Object.keys(BUILTIN_YAML));
    for (const sc of scenarios) expect(builtinK8sScenario(sc.name)).toBe(sc);
    expect(builtinK8sScenario("no-such-scenario")).toBeUndefined();
    expect(builtinK8sScenario("constructor")).toBeUndefined();
  });

  it("parsed one at a time, before the list, are the list's scenarios", async () => {
    vi.resetModules();
    const fresh = (await import("../index.js")) as typeof import("../index.js");
    const one = scenarios.map((s) => fresh.builtinK8sScenario(s.name));
    // (as text: the fresh modules' classes and functions are other objects than the first's)
    const text = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Map ? [...x] : x instanceof Set ? [...x] : typeof x === "function" ? String(x) : x));
    expect(text(one)).toBe(text(scenarios));
    const all = fresh.builtinK8sScenarios();
    for (let i = 0; i < all.length; i++) expect(all[i]).toBe(one[i]);
  });

  it("ship the operations' scenarios (k8s-ops: no seed)", () => {
    const names = scenarios.map((s) => s.name);
    for (const n of ["csi-nodestage-timeout", "detach-during-unmount"]) expect(names).toContain(n);
  });

  it(`ship at least ${INCIDENTS_WANTED} incidents beyond the seeds, each citing its upstream issue and fix`, () => {
    const more = scenarios.filter((s) => !s.incident?.seed);
    expect(more.length).toBeGreaterThanOrEqual(INCIDENTS_WANTED);
    for (const sc of more) {
      expect(sc.incident?.issue, sc.name).toMatch(/^#\d+/);
      expect(sc.incident?.fix, sc.name).toMatch(/\S/);
      expect(sc.symptom.length, sc.name).toBeGreaterThan(0);
      expect(sc.expect.length, sc.name).toBeGreaterThan(0);
    }
  });

  for (const sc of scenarios) {
    const inc = sc.incident!;
    it(`${sc.name}: on ${inc.affected} the incident reproduces (${inc.symptom})`, () => {
      const r = runK8sScenario(sc, { version: inc.affected });
      for (const s of r.symptoms) expect(s.held, `${s.name}: ${s.detail}`).toBe(true);
      expect(r.violations.length).toBeGreaterThan(0);
      for (const v of r.violations) expect(v.explanation.length).toBeGreaterThan(40);
    });
    it(`${sc.name}: on ${inc.fixed} every invariant and expectation holds`, () => {
      const r = runK8sScenario(sc, { version: inc.fixed });
      expect(r.violations).toEqual([]);
    });
    const blocked = NEWEST_BLOCKED[sc.name];
    if (blocked === undefined)
      it(`${sc.name}: on the newest release (${NEWEST}) every invariant and expectation holds`, () => {
        const r = runK8sScenario(sc, { version: NEWEST });
        expect(r.violations).toEqual([]);
      });
    else it.todo(`${sc.name}: on the newest release (${NEWEST}): ${blocked}`);
    if (isFixId(inc.fix))
      it(`${sc.name}: ${inc.affected} with #${inc.fix} switched on holds too`, () => {
        const r = runK8sScenario(sc, { version: inc.affected, fixes: { [inc.fix]: true } });
        expect(r.violations).toEqual([]);
      });
    it(`${sc.name}: skipping idle ticks gives the same run as ticking every period`, () => {
      for (const version of [inc.affected, inc.fixed]) {
        const fast = runK8sScenario(sc, { version });
        const slow = runK8sScenario(sc, { version, tickEveryPeriod: true });
        expect(fast.logs.map((l) => l.text)).toEqual(slow.logs.map((l) => l.text));
        expect(fast.timeline).toEqual(slow.timeline);
        expect(JSON.stringify(fast.objects)).toEqual(JSON.stringify(slow.objects));
        expect(fast.violations).toEqual(slow.violations);
        expect(fast.stats.events).toBeLessThan(slow.stats.events);
      }
    });
  }

  it("seed 002: the stuck kubelet quotes the upstream message and saturates at 2m2s", () => {
    const sc = scenarios.find((s) => s.name === "detach-backoff-node-status")!;
    const r = runK8sScenario(sc, { version: "1.22.3" });
    const line = r.logs.find((l) => l.text.includes("durationBeforeRetry 2m2s") && l.text.includes("Volume not attached according to node status"));
    expect(line?.text).toMatch(/^E\d{4} [\d:.]+ +\d+ nestedpendingoperations\.go:335\] Operation for "\{volumeName:kubernetes\.io\/qcloud-cbs\/disk-7bfqsft5 podName: nodeName:\}" failed\./);
    // 1.22.4 carries the backport
    expect(runK8sScenario(sc, { version: "1.22.4" }).violations).toEqual([]);
  });

  it("seed 001: old kubelets print the rbd output as a Go byte slice, as in the seed's log", () => {
    const sc = scenarios.find((s) => s.name === "rbd-unmap-busy")!;
    const r = runK8sScenario(sc, { version: "1.14" });
    const bytes = [..."rbd: sysfs write failed\n"].map((c) => c.charCodeAt(0)).join(" ");
    expect(r.logs.some((l) => l.text.includes(`rbd output: [${bytes}`))).toBe(true);
  });

  it("seed 004: the DELETE goes to the 68-character volume name and gets 404", () => {
    const sc = scenarios.find((s) => s.name === "csi-attachment-name")!;
    const r = runK8sScenario(sc, { version: "1.22" });
    const del = r.logs.find((l) => l.text.includes("round_trippers.go:420] DELETE"))!;
    const name = decodeURIComponent(del.text.split("/volumeattachments/")[1]!);
    expect(name).toBe("csi-unity.dellemc.com^csiunity-3a9c1d2e7f-iSCSI-APM00193821231-sv_42");
    expect(name).toHaveLength(68);
  });

  it("is deterministic for a seed", () => {
    for (const sc of scenarios) {
      const a = runK8sScenario(sc);
      const b = runK8sScenario(sc);
      expect(a.logs).toEqual(b.logs);
      expect(a.timeline).toEqual(b.timeline);
    }
  });

  it("the embedded module matches the YAML files", () => {
    const onDisk = readFileSync(new URL("./builtin.generated.ts", import.meta.url), "utf8");
    expect(onDisk).toBe(generate());
  });
});

/**
 * Incidents beyond the seeds (#27 item 5 asks for 12; this branch ships 14 from the tracker, plus the two operations' scenarios,
 * each a distinct upstream issue: bindings/k8s/README.md, "Built-in incidents
 * from upstream's tracker")
 */
const INCIDENTS_WANTED = 14;

/**
 * Incidents whose newest-release run needs a mechanism the model does not
 * have yet; each says which. (A todo, not a test that passes whatever happens.)
 */
const NEWEST_BLOCKED: Record<string, string> = {
  // (csi-dangling-attachment was here until the kubelet's periodic node status report, #72096/#84007,
  // cleared the restarted controller's "assume mounted" on the newest release)
};
