import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { PARSE_OPTIONS } from "../../util/yaml-merge.js";
import { BUILTIN_YAML } from "../scenarios/builtin.generated.js";
import { deepFreeze } from "../../util/deep-freeze.js";
import type { KObj } from "../api/types.js";
import { checkK8sReferences, k8sScenarioFromValue, k8sScenarioKeysFromValue, loadK8sScenario, ScenarioError } from "./loader.js";
import type { TimelineItem } from "./schema.js";

// (merge keys as the loader reads them: a built-in may write `<<: *pod`)
const parse = (text: string): unknown => parseYaml(text, PARSE_OPTIONS);

const base = `name: t
objects:
  - kind: Node
    metadata: {name: n1}
`;

/** objects to append to `base` (its last key): a cloud disk, an rbd image and pods on n1 */
const DISK = "  - {kind: PersistentVolume, metadata: {name: pv1}, spec: {awsElasticBlockStore: {volumeID: disk-1}}}\n";
const RBD = "  - {kind: PersistentVolume, metadata: {name: pv2}, spec: {rbd: {pool: p, image: i}}}\n";
const pods = (...names: string[]) => names.map((n) => `  - {kind: Pod, metadata: {name: ${n}}, spec: {nodeName: n1, containers: [{name: c}]}}\n`).join("");

function err(text: string): ScenarioError {
  try {
    loadK8sScenario(text, "bad.yaml");
  } catch (e) {
    return e as ScenarioError;
  }
  throw new Error("no error");
}

describe("scenario loader", () => {
  it("names file, line and field of a bad duration", () => {
    const e = err(base + "timeline:\n  - at: soon\n    action: nodeReady\n    node: n1\n");
    expect(e.message).toBe('bad.yaml:6: timeline[0].at: expected a duration like "500ms" or "2m2s", got "soon"');
  });
  it("rejects an unknown action with the known ones", () => {
    const e = err(base + "timeline:\n  - at: 1s\n    action: explode\n");
    expect(e.line).toBe(7);
    expect(e.message).toContain("unknown action");
  });
  it("rejects a pod without a node, an unknown field, a bad version and a YAML syntax error", () => {
    // (k8s-incidents) no nodeName: the scheduler's (scheduler/); an empty one is still refused
    expect(err(base + "  - kind: Pod\n    metadata: {name: p}\n    spec: {nodeName: \"\", containers: [{name: c}]}\n").message).toMatch(/^bad\.yaml:7: objects\[1\]\.spec\.nodeName: expected a node name/);
    expect(err(base + "colour: blue\n").message).toMatch(/^bad\.yaml:5: colour: unknown field/);
    expect(err(base + "version: '2.0'\n").message).toMatch(/^bad\.yaml:5: version: bad Kubernetes version/);
    expect(err("name: [\n").message).toMatch(/^bad\.yaml:\d+: YAML:/);
  });
  it("rejects a step name no component announces, and counts and seeds that are not whole numbers, at their line", () => {
    const tl = (item: string) => err(base + "timeline:\n  - " + item + "\n    action: nodeReady\n    node: n1\n");
    const typo = tl("after: adc.DetachFaild");
    expect(typo.message).toMatch(/^bad\.yaml:6: timeline\[0\]\.after: unknown step "adc\.DetachFaild" \(known: adc\.AttachSucceeded, /);
    expect(tl("between: [adc.DetachFailed, kubelet.Nope]").message).toMatch(/^bad\.yaml:6: timeline\[0\]\.between\[1\]: unknown step "kubelet\.Nope"/);
    for (const c of ["0", "abc", "1.5", "-2"]) {
      expect(err(base + `timeline:\n  - after: adc.DetachFailed\n    count: ${c}\n    action: nodeReady\n    node: n1\n`).message)
        .toMatch(/^bad\.yaml:7: timeline\[0\]\.count: expected a whole number >= 1/);
    }
    expect(err(base + "faults:\n  storage:\n    - {op: detach, count: -1, error: busy}\n").message).toMatch(/^bad\.yaml:\d+: faults\.storage\[0\]\.count: expected a whole number >= 0, got -1/);
    expect(err(base + "seed: 1.5\n").message).toMatch(/^bad\.yaml:5: seed: expected a whole number >= 0, got 1\.5/);
    expect(err(base + "expect:\n  - step: {name: adc.Detached}\n").message).toMatch(/expect\[0\]\.step\.name: unknown step "adc\.Detached"/);
    // what the docs allow still loads
    const ok = loadK8sScenario(base + DISK + "seed: 7\ntimeline:\n  - between: [adc.DetachFailed, adc.DetachSucceeded]\n    count: 2\n    action: nodeReady\n    node: n1\nfaults:\n  storage:\n    - {op: detach, count: always, error: busy}\n    - {op: attach, count: \"3\", error: busy}\n", "ok.yaml");
    expect(ok.seed).toBe(7);
    expect(ok.timeline[0]!.between).toEqual({ from: "adc.DetachFailed", to: "adc.DetachSucceeded", count: 2 });
    expect(ok.storageFaults.map((f) => f.count)).toEqual([Infinity, 3]);
  });

  it("parses faults, the timeline and checks", () => {
    const sc = loadK8sScenario(
      base +
        DISK +
        pods("web-0") +
        `timeline:
  - after: adc.DetachFailed
    delay: 300ms
    action: restartControllerManager
faults:
  storage:
    - {op: detach, count: 2, error: busy}
  watch:
    - {component: kube-controller-manager, delay: 5s, from: 1m, until: 2m}
expect:
  - podRunning: web-0
`,
      "ok.yaml",
    );
    expect(sc.timeline[0]!.after).toEqual({ step: "adc.DetachFailed", count: 1, delayMs: 300 });
    expect(sc.storageFaults[0]).toMatchObject({ op: "detach", count: 2, error: "busy" });
    expect(sc.watchFaults[0]).toEqual({ component: "kube-controller-manager", extraMs: 5000, fromMs: 60000, untilMs: 120000 });
    expect(sc.expect[0]!.check).toEqual({ kind: "podRunning", pod: "default/web-0" });
  });

  it("loads some keys as the whole load does (fields, defaults, errors) and reads no other", () => {
    const fieldsOf: Record<string, string[]> = { version: ["version"], fixes: ["fixes"], clock: ["clock"], settings: ["settings"], duration: ["durationMs"], timeline: ["timeline"], faults: ["storageFaults", "apiFaults", "watchFaults"], expect: ["expect"] };
    for (const text of Object.values(BUILTIN_YAML)) {
      const doc = parse(text) as Record<string, unknown>;
      const whole = k8sScenarioFromValue(parse(text), "w.yaml") as unknown as Record<string, unknown>;
      for (const [key, fields] of Object.entries(fieldsOf)) {
        // the other keys are junk the whole load would reject
        const part = k8sScenarioKeysFromValue({ ...doc, name: 7, objects: "junk", [key]: doc[key] }, [key], "w.yaml") as Record<string, unknown>;
        for (const f of fields) expect(part[f]).toEqual(whole[f]);
      }
    }
    const lines = new Map([["timeline[0].at", 9]]);
    const bad = { name: "t", timeline: [{ at: "soon", action: "nodeReady", node: "n1" }] };
    const errOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    };
    expect(errOf(() => k8sScenarioKeysFromValue(bad, ["timeline"], "b.yaml", lines))).toBe(errOf(() => k8sScenarioFromValue(bad, "b.yaml", lines)));
    expect(errOf(() => k8sScenarioKeysFromValue(bad, ["timeline"], "b.yaml", lines))).toBe('b.yaml:9: timeline[0].at: expected a duration like "500ms" or "2m2s", got "soon"');
  });
  it("reuses the load of a frozen manifest or timeline item, and gives what an unfrozen document gives", () => {
    const freeze = <T>(v: T): T => {
      if (typeof v === "object" && v !== null) {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
      return v;
    };
    for (const text of Object.values(BUILTIN_YAML)) {
      const plain = k8sScenarioFromValue(parse(text), "f.yaml");
      const frozen = freeze(parse(text));
      const a = k8sScenarioFromValue(frozen, "f.yaml");
      const b = k8sScenarioFromValue(frozen, "f.yaml");
      expect(a).toEqual(plain);
      expect(b).toEqual(plain);
      for (let i = 0; i < a.objects.length; i++) {
        expect(b.objects[i]).toBe(a.objects[i]);
        expect(Object.isFrozen(a.objects[i]!.metadata)).toBe(true);
      }
      for (let i = 0; i < a.timeline.length; i++) expect(b.timeline[i]).toBe(a.timeline[i]);
    }
  });
});

describe("a check's fields", () => {
  const check = (line: string) => err(base + "expect:\n  - " + line + "\n").message;

  it("refuses a misspelt field at its line (nodeVolumesAttached {node, contain} held whatever the node had; log {compnent} read every component)", () => {
    expect(check("nodeVolumesAttached: {node: n1, contain: kubernetes.io/csi/d^v}")).toBe("bad.yaml:6: expect[0].nodeVolumesAttached.contain: unknown field (expected one of node, contains, lacks)");
    expect(check("log: {contains: x, compnent: kubelet}")).toMatch(/^bad\.yaml:6: expect\[0\]\.log\.compnent: unknown field/);
    expect(check("step: {name: adc.DetachFailed, mx: 0}")).toMatch(/^bad\.yaml:6: expect\[0\]\.step\.mx: unknown field/);
  });

  it("refuses nodeVolumesAttached with neither contains nor lacks, which held on any node", () => {
    expect(check("nodeVolumesAttached: {node: n1}")).toMatch(/^bad\.yaml:6: expect\[0\]\.nodeVolumesAttached: give contains or lacks/);
  });

  it("takes only true or false for exists, present and mapped (a quoted \"false\" or a YAML 1.1 `no` was read as true)", () => {
    expect(check("volumeAttachment: {volumeHandle: v, node: n1, exists: no}")).toBe('bad.yaml:6: expect[0].volumeAttachment.exists: expected true or false, got "no"');
    expect(check('hostMount: {node: n1, pathContains: x, present: "false"}')).toMatch(/^bad\.yaml:6: expect\[0\]\.hostMount\.present: expected true or false, got "false"/);
    expect(check("rbdMapped: {node: n1, image: p/i, mapped: 0}")).toMatch(/^bad\.yaml:6: expect\[0\]\.rbdMapped\.mapped: expected true or false, got 0/);
    const ok = loadK8sScenario(base + RBD + "expect:\n  - rbdMapped: {node: n1, image: p/i, mapped: false}\n  - hostMount: {node: n1, pathContains: x}\n", "ok.yaml");
    expect(ok.expect.map((e) => e.check)).toEqual([
      { kind: "rbdMapped", node: "n1", image: "p/i", mapped: false },
      { kind: "hostMount", node: "n1", pathContains: "x", present: true },
    ]);
  });

  it("refuses a log component no component logs as (a noLog check on `kublet` held unread) and a pod phase Kubernetes has not", () => {
    expect(check("noLog: {contains: attach, component: kublet}")).toMatch(/^bad\.yaml:6: expect\[0\]\.noLog\.component: unknown component "kublet" \(known: kube-controller-manager, csi-attacher, csi-resizer, kubelet, rbd, kubelet\/NODE, rbd\/NODE\)/);
    expect(check("podPhase: {pod: p, phase: running}")).toMatch(/^bad\.yaml:6: expect\[0\]\.podPhase\.phase: unknown pod phase "running"/);
    const ok = loadK8sScenario(base + "expect:\n  - log: {contains: x, component: kubelet/n1}\n  - log: {contains: x, component: kube-controller-manager}\n  - log: {contains: x, component: rbd}\n", "ok.yaml");
    expect(ok.expect.map((e) => (e.check as { component?: string }).component)).toEqual(["kubelet/n1", "kube-controller-manager", "rbd"]);
  });

  it("refuses a step check whose max is below its min", () => {
    expect(check("step: {name: adc.DetachFailed, min: 2, max: 1}")).toMatch(/^bad\.yaml:6: expect\[0\]\.step\.max: max 1 is below min 2/);
  });
});

describe("fixes:", () => {
  it("takes on, off, true or false and refuses anything else (`79940: 1` or `104526: yes` turned the fix off, even where the version has it)", () => {
    expect(err(base + "fixes: {79940: 1}\n").message).toBe("bad.yaml:5: fixes.79940: expected on or off, got 1");
    expect(err(base + "fixes: {104526: yes}\n").message).toBe('bad.yaml:5: fixes.104526: expected on or off, got "yes"');
    const ok = loadK8sScenario(base + "fixes: {104526: on, 79940: off, 107025: true, '#108997': false}\n", "ok.yaml");
    expect(ok.fixes).toEqual({ 104526: true, 79940: false, 107025: true, 108997: false });
  });
});

describe("a timeline item's fields", () => {
  const item = (fields: string) => err(base + "timeline:\n  - {" + fields + "}\n").message;

  it("refuses a field its action does not take (restartKubelet's `delay: 4s` was dropped and the kubelet came back after the default 2 s; `count:` with `at:` fired once)", () => {
    expect(item("at: 60s, action: restartKubelet, node: n1, delay: 4s")).toBe("bad.yaml:6: timeline[0].delay: delay is for after:, not at:");
    expect(item("at: 60s, action: deletePod, pod: p, count: 3")).toBe("bad.yaml:6: timeline[0].count: count is for after: and between:, not at:");
    expect(item("at: 60s, action: deletePod, pod: p, node: n1")).toBe("bad.yaml:6: timeline[0].node: deletePod does not take node (it takes pod, grace)");
    expect(item("at: 60s, action: crashControllerManager, down: 5s")).toBe("bad.yaml:6: timeline[0].down: crashControllerManager does not take down (it takes no other field)");
    const ok = loadK8sScenario(base + "timeline:\n  - {after: adc.DetachFailed, count: 2, delay: 1s, action: restartKubelet, node: n1, down: 4s}\n", "ok.yaml");
    expect(ok.timeline[0]).toMatchObject({ after: { step: "adc.DetachFailed", count: 2, delayMs: 1000 }, action: { kind: "restartKubelet", node: "n1", downMs: 4000 } });
  });
});

describe("deletePod's grace", () => {
  it("needs a unit: `grace: 30` (kubectl's --grace-period=30) was 30 ms", () => {
    expect(err(base + "timeline:\n  - {at: 60s, action: deletePod, pod: p, grace: 30}\n").message).toBe('bad.yaml:6: timeline[0].grace: give a unit, e.g. "30s" (a bare number would be ms, not kubectl\'s --grace-period seconds)');
    const ok = loadK8sScenario(base + pods("p", "q", "r") + "timeline:\n  - {at: 60s, action: deletePod, pod: p, grace: 30s}\n  - {at: 70s, action: deletePod, pod: q, grace: 0s}\n  - {at: 80s, action: deletePod, pod: r, grace: 0}\n", "ok.yaml");
    expect(ok.timeline.map((t) => (t.action as { graceSeconds?: number }).graceSeconds)).toEqual([30, 0, 0]);
  });
});

describe("a timeline item's at:", () => {
  it("past the end of the run is refused (it never fired)", () => {
    expect(err(base + "duration: 10m\ntimeline:\n  - {at: 30m, action: nodeReady, node: n1}\n").message).toBe("bad.yaml:7: timeline[0].at: 30m0s is after the end of the run (duration 10m0s)");
    expect(err(base + "timeline:\n  - {at: 21m, action: nodeReady, node: n1}\n").message).toBe("bad.yaml:6: timeline[0].at: 21m0s is after the end of the run (duration 20m0s, the default)");
  });
});

describe("a name that points at nothing the scenario defines", () => {
  // a node, an in-tree disk and a CSI volume with their claims, a pod on n1
  const world = `name: t
objects:
  - kind: Node
    metadata: {name: n1}
  - {kind: PersistentVolume, metadata: {name: pv1}, spec: {awsElasticBlockStore: {volumeID: disk-1}}}
  - {kind: PersistentVolume, metadata: {name: pv2}, spec: {csi: {driver: d, volumeHandle: vol-2}}}
  - {kind: PersistentVolumeClaim, metadata: {name: c1}, spec: {volumeName: pv1}}
  - {kind: Pod, metadata: {name: web-0}, spec: {nodeName: n1, containers: [{name: c}], volumes: [{name: d, persistentVolumeClaim: {claimName: c1}}]}}
`;
  const bad = (rest: string) => err(world + rest).message;

  it("a check on a pod or node that never exists (podGone: web-O held, hostMount on an unknown node held)", () => {
    expect(bad("expect:\n  - podGone: web-O\n")).toBe(
      'bad.yaml:10: expect[0].podGone.pod: pod "web-O" never exists in this scenario (no Pod of objects: or of the timeline\'s create/createPod has that name); did you mean "web-0"?',
    );
    expect(bad("symptom:\n  - podNotRunning: kube-system/web-0\n")).toMatch(/^bad\.yaml:10: symptom\[0\]\.podNotRunning\.pod: pod "kube-system\/web-0" never exists/);
    expect(bad("expect:\n  - nodeVolumesAttached: {node: n2, lacks: x}\n")).toMatch(/^bad\.yaml:10: expect\[0\]\.nodeVolumesAttached\.node: node "n2" is not in this scenario .*did you mean "n1"\?$/);
    expect(bad("expect:\n  - hostMount: {node: n2, pathContains: x}\n")).toMatch(/^bad\.yaml:10: expect\[0\]\.hostMount\.node: node "n2" is not in this scenario/);
    expect(bad("expect:\n  - rbdMapped: {node: n1, image: k8s/x}\n")).toMatch(/^bad\.yaml:10: expect\[0\]\.rbdMapped\.image: no rbd volume of this scenario has image "k8s\/x"/);
    expect(bad("expect:\n  - volumeAttachment: {volumeHandle: vol2, node: n1}\n")).toMatch(/volumeAttachment\.volumeHandle: no CSI PersistentVolume of this scenario has volumeHandle "vol2"; did you mean "vol-2"\?$/);
    expect(bad("expect:\n  - event: {reason: FailedMount, object: pod/web-1}\n")).toMatch(/event\.object: pod "web-1" never exists in this scenario; did you mean "pod\/web-0"\?$/);
    expect(bad("expect:\n  - event: {reason: FailedMount, object: web-0}\n")).toMatch(/event\.object: expected pod\/NAME, node\/NAME or volumeattachment\/NAME/);
    expect(bad("expect:\n  - log: {contains: x, component: kubelet/n3}\n")).toMatch(/^bad\.yaml:10: expect\[0\]\.log\.component: node "n3" is not in this scenario/);
  });

  it("a timeline action on a pod, node or process that never exists (it did nothing)", () => {
    expect(bad("timeline:\n  - {at: 1s, action: deletePod, pod: web-1}\n")).toMatch(/^bad\.yaml:10: timeline\[0\]\.pod: pod "web-1" never exists in this scenario .*did you mean "web-0"\?$/);
    // a name two edits from a 4-character one is another name, not a typo: the known names, no did-you-mean
    expect(bad("timeline:\n  - {at: 1s, action: deletePod, pod: db-0}\n")).toMatch(/^bad\.yaml:10: timeline\[0\]\.pod: pod "db-0" never exists in this scenario .*\(known: web-0\)$/);
    expect(bad("timeline:\n  - {at: 1s, action: delete, kind: PersistentVolumeClaim, name: c2}\n")).toMatch(/^bad\.yaml:10: timeline\[0\]\.name: PersistentVolumeClaim "c2" never exists .*did you mean "c1"\?$/);
    for (const a of ["crashKubelet", "startKubelet", "restartKubelet", "nodeNotReady", "nodeReady"])
      expect(bad(`timeline:\n  - {at: 1s, action: ${a}, node: n11}\n`)).toMatch(/^bad\.yaml:10: timeline\[0\]\.node: node "n11" is not in this scenario .*did you mean "n1"\?$/);
    expect(bad("timeline:\n  - {at: 1s, action: taintNode, node: n0, key: k}\n")).toMatch(/timeline\[0\]\.node: node "n0"/);
    // untaintNode of a key nothing sets on that node removed nothing
    expect(bad("timeline:\n  - {at: 1s, action: untaintNode, node: n1, key: k}\n")).toBe(
      'bad.yaml:10: timeline[0].key: no taintNode of the timeline nor spec.taints of Node "n1" sets taint key "k", so there is nothing to remove (nothing taints this node)');
    expect(bad("timeline:\n  - {at: 1s, action: taintNode, node: n1, key: node.kubernetes.io/out-of-service, effect: NoExecute}\n  - {at: 2s, action: untaintNode, node: n1, key: node.kubernetes.io/out-of-servce}\n"))
      .toMatch(/^bad\.yaml:11: timeline\[1\]\.key: .* taint key "node\.kubernetes\.io\/out-of-servce", so there is nothing to remove; did you mean "node\.kubernetes\.io\/out-of-service"\?$/);
    // a key a taintNode or the Node's spec.taints sets loads
    const untaint = "  - {at: 2s, action: untaintNode, node: n1, key: k}\n";
    expect(() => loadK8sScenario(world + "timeline:\n  - {at: 1s, action: taintNode, node: n1, key: k, effect: NoSchedule}\n" + untaint, "ok.yaml")).not.toThrow();
    expect(() => loadK8sScenario(world.replace("metadata: {name: n1}", "metadata: {name: n1}\n    spec: {taints: [{key: k, effect: NoSchedule}]}") + "timeline:\n" + untaint, "ok.yaml")).not.toThrow();
    // a taint on another node is not this node's
    expect(bad("  - {kind: Node, metadata: {name: n2}}\ntimeline:\n  - {at: 1s, action: taintNode, node: n2, key: k, effect: NoSchedule}\n" + untaint)).toMatch(/timeline\[1\]\.key: no taintNode .* of Node "n1" sets taint key "k"/);
    expect(bad("timeline:\n  - {at: 1s, action: holdMount, node: n0, process: p}\n")).toMatch(/timeline\[0\]\.node: node "n0"/);
    // a Node the timeline creates is an API object, but has no host and no kubelet
    expect(bad("timeline:\n  - {at: 1s, action: create, manifest: {kind: Node, metadata: {name: n2}}}\n  - {at: 2s, action: restartKubelet, node: n2}\n")).toBe(
      'bad.yaml:11: timeline[1].node: node "n2" is created by timeline[0], and only the Nodes of objects: have a host and a kubelet',
    );
    expect(bad("timeline:\n  - {at: 1s, action: holdMount, node: n1, process: exporter}\n  - {at: 2s, action: releaseMount, node: n1, process: exportr}\n")).toBe(
      'bad.yaml:11: timeline[1].process: no holdMount of the timeline starts process "exportr" on node "n1", so there is nothing to release; did you mean "exporter"?',
    );
    expect(bad("timeline:\n  - {at: 1s, action: createPod, manifest: {kind: Pod, metadata: {name: p}, spec: {nodeName: n9, containers: [{name: c}]}}}\n")).toMatch(/timeline\[0\]\.manifest\.spec\.nodeName: node "n9" is not in this scenario/);
    expect(bad("settings:\n  noKubelet: [n2]\n")).toMatch(/^bad\.yaml:10: settings\.noKubelet\[0\]: node "n2" is not in this scenario/);
    // (k8s-incidents) the node actions and the static API server's node
    expect(bad("timeline:\n  - {at: 1s, action: rebootNode, node: n0, down: 1m}\n")).toMatch(/timeline\[0\]\.node: node "n0"/);
    expect(bad("timeline:\n  - {at: 1s, action: shutdownNode, node: n1, down: 1m}\n")).toMatch(/timeline\[0\]\.down: shutdownNode does not take down/);
    expect(bad("timeline:\n  - {at: 1s, action: restartApiServer, down: soon}\n")).toMatch(/timeline\[0\]\.down: expected a duration/);
    expect(bad("settings:\n  apiServer: {node: n7}\n")).toMatch(/settings\.apiServer\.node: node "n7" is not in this scenario/);
    expect(bad("settings:\n  apiServer: {node: n1, port: 6443}\n")).toMatch(/settings\.apiServer/);
    expect(bad("settings:\n  csiNodeRegistration: later\n")).toMatch(/settings\.csiNodeRegistration: expected a duration/);
  });

  it("an object naming a node, claim or volume that is not there", () => {
    expect(bad("  - {kind: Pod, metadata: {name: p}, spec: {nodeName: n2, containers: [{name: c}]}}\n")).toMatch(/^bad\.yaml:9: objects\[5\]\.spec\.nodeName: node "n2" is not in this scenario/);
    expect(bad("  - {kind: Pod, metadata: {name: p}, spec: {nodeName: n1, containers: [{name: c}], volumes: [{name: d, persistentVolumeClaim: {claimName: c3}}]}}\n")).toMatch(
      /^bad\.yaml:9: objects\[5\]\.spec\.volumes\[0\]\.persistentVolumeClaim\.claimName: PersistentVolumeClaim "c3" never exists .*did you mean "c1"\?$/,
    );
    expect(bad("  - {kind: PersistentVolumeClaim, metadata: {name: c9}, spec: {volumeName: pv3}}\n")).toMatch(/objects\[5\]\.spec\.volumeName: PersistentVolume "pv3" never exists .*did you mean "pv1"\?$/);
  });

  it("a storage fault on an op the volume's CSIDriver turns off (attachRequired: false, no stage) is refused, unless the timeline changes that CSIDriver", () => {
    const noAttach = "  - {kind: CSIDriver, metadata: {name: d}, spec: {attachRequired: false}}\n";
    const noStage = "  - {kind: CSIDriver, metadata: {name: d, annotations: {iosim.dev/stage-unstage: \"false\"}}}\n";
    const fault = (op: string, vol = ", volume: vol-2") => `faults:\n  storage:\n    - {op: ${op}${vol}, error: busy}\n`;
    expect(bad(noAttach + fault("controllerPublish"))).toBe(
      'bad.yaml:12: faults.storage[0].op: controllerPublish is never called for volume "vol-2" (PersistentVolume pv2): its CSIDriver "d" (objects[5]) says attachRequired: false, so the volume is never attached',
    );
    expect(bad(noAttach + fault("controllerUnpublish"))).toMatch(/controllerUnpublish is never called for volume "vol-2" .*CSIDriver "d" \(objects\[5\]\) says attachRequired: false/);
    // without volume: every CSI volume's driver skips it, and no other volume has it
    expect(bad(noAttach + fault("controllerPublish", ""))).toBe(
      'bad.yaml:12: faults.storage[0].op: controllerPublish is never called for any volume of this scenario: "vol-2": its CSIDriver "d" (objects[5]) says attachRequired: false, so the volume is never attached',
    );
    expect(bad(noStage + fault("nodeStage"))).toMatch(/^bad\.yaml:12: faults\.storage\[0\]\.op: nodeStage is never called for volume "vol-2" .*CSIDriver "d" \(objects\[5\]\) has iosim\.dev\/stage-unstage: "false", so the volume is never staged$/);
    expect(bad(noStage + fault("nodeUnstage", ""))).toMatch(/nodeUnstage is never called for any volume of this scenario/);
    const loads = (text: string) => expect(() => loadK8sScenario(world + text, "ok.yaml")).not.toThrow();
    // the ops the driver still calls, and the other kind's
    loads(noAttach + fault("nodeStage"));
    loads(noAttach + fault("nodePublish"));
    loads(noStage + fault("controllerPublish"));
    // another driver's CSIDriver is not this volume's
    loads("  - {kind: CSIDriver, metadata: {name: other}, spec: {attachRequired: false}}\n" + fault("controllerPublish"));
    // a CSIDriver the timeline deletes or creates can turn attach on while the run goes: left to the run
    loads(noAttach + "timeline:\n  - {at: 1s, action: delete, kind: CSIDriver, name: d}\n" + fault("controllerPublish"));
    loads(noAttach + "timeline:\n  - {at: 1s, action: create, manifest: {kind: CSIDriver, metadata: {name: d}, spec: {attachRequired: true}}}\n" + fault("controllerPublish"));
  });

  it("a storage fault on a PV's name, an unknown volume, or an op the volume's plugin never calls (it never fired)", () => {
    expect(bad("faults:\n  storage:\n    - {op: detach, volume: pv1, error: busy}\n")).toBe(
      'bad.yaml:11: faults.storage[0].volume: "pv1" is a PersistentVolume\'s name; a storage fault names the volume as the storage backend is called with it (a disk id, a CSI volume handle or rbd:POOL/IMAGE): "disk-1"',
    );
    expect(bad("faults:\n  storage:\n    - {op: detach, volume: c1, error: busy}\n")).toMatch(/"c1" is a PersistentVolumeClaim's name; .*: "disk-1"$/);
    expect(bad("faults:\n  storage:\n    - {op: detach, volume: disk-2, error: busy}\n")).toMatch(/^bad\.yaml:11: faults\.storage\[0\]\.volume: no volume of this scenario is "disk-2" .*did you mean "disk-1"\?$/);
    expect(bad("faults:\n  storage:\n    - {op: detach, volume: vol-2, error: busy}\n")).toBe(
      'bad.yaml:11: faults.storage[0].op: detach is never called for volume "vol-2": it is a CSI volume (PersistentVolume pv2), whose operations are controllerPublish, controllerUnpublish, verifyAttached, nodeStage, nodeUnstage, nodePublish, nodeUnpublish, controllerExpand, nodeExpand',
    );
    // an in-tree EBS volume is called with the CSI operations on a release that migrates it (same id): both sets load
    expect(() => loadK8sScenario(world + "faults:\n  storage:\n    - {op: nodeStage, volume: disk-1, error: busy}\n", "ok.yaml")).not.toThrow();
    expect(() => loadK8sScenario(world + "faults:\n  storage:\n    - {op: controllerPublish, error: busy}\n", "ok.yaml")).not.toThrow();
    expect(bad("faults:\n  storage:\n    - {op: rbdMap, volume: disk-1, error: busy}\n")).toMatch(/rbdMap is never called for volume "disk-1": it is an in-tree cloud disk .*operations are attach, .*, nodeStage, /);
    // a GCE PD migrated to CSI is called with its CSI handle, not its pdName: a CSI op on the pdName never fires
    const pd = (rest: string) => err(world.replace("awsElasticBlockStore: {volumeID: disk-1}", "gcePersistentDisk: {pdName: disk-1}") + rest).message;
    expect(pd("faults:\n  storage:\n    - {op: controllerPublish, volume: disk-1, error: busy}\n")).toMatch(/controllerPublish is never called for volume "disk-1": it is an in-tree cloud disk .*\(a GCE PD migrated to CSI is called with its CSI volume handle, "projects\/UNSPECIFIED\/zones\/UNSPECIFIED\/disks\/disk-1", not its pdName\)$/);
    // ... which loads, with the CSI ops only
    const pdWorld = world.replace("awsElasticBlockStore: {volumeID: disk-1}", "gcePersistentDisk: {pdName: disk-1}");
    expect(() => loadK8sScenario(pdWorld + "faults:\n  storage:\n    - {op: controllerPublish, volume: projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1, error: busy}\n", "ok.yaml")).not.toThrow();
    expect(pd("faults:\n  storage:\n    - {op: attach, volume: projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk-1, error: busy}\n")).toMatch(/attach is never called for volume "projects\/UNSPECIFIED\/zones\/UNSPECIFIED\/disks\/disk-1": it is a CSI volume \(PersistentVolume pv1, migrated to CSI\)/);
    expect(bad("faults:\n  storage:\n    - {op: rbdUnmap, error: busy}\n")).toBe(
      "bad.yaml:11: faults.storage[0].op: no volume of this scenario is ever called with rbdUnmap, which is for rbd images, and the scenario has only CSI PersistentVolumes and in-tree cloud disks",
    );
    expect(bad("faults:\n  storage:\n    - {op: detach, node: n2, error: busy}\n")).toMatch(/faults\.storage\[0\]\.node: node "n2" is not in this scenario/);
  });

  it("a watch fault or latency on a component that does not exist, and an API fault on an object that never exists", () => {
    expect(bad("faults:\n  watch:\n    - {component: kube-controler-manager, delay: 1s}\n")).toBe(
      'bad.yaml:11: faults.watch[0].component: no component "kube-controler-manager" watches the API server (known: kube-controller-manager, csi-attacher, csi-resizer, kubelet, kubelet/NODE, * for every one); did you mean "kube-controller-manager"?',
    );
    expect(bad("faults:\n  watch:\n    - {component: kubelet/n2, delay: 1s}\n")).toMatch(/faults\.watch\[0\]\.component: node "n2" is not in this scenario/);
    expect(bad("settings:\n  watchLatencyByComponent: {attacher: 1s}\n")).toMatch(/^bad\.yaml:10: settings\.watchLatencyByComponent\.attacher: no component "attacher" watches the API server .*did you mean "csi-attacher"\?$/);
    expect(bad("faults:\n  api:\n    - {verb: delete, kind: Pod, name: web-1}\n")).toMatch(/^bad\.yaml:11: faults\.api\[0\]\.name: pod "web-1" never exists/);
    expect(bad("faults:\n  api:\n    - {verb: patch, kind: Node, name: n2}\n")).toMatch(/faults\.api\[0\]\.name: node "n2" is not in this scenario/);
  });

  it("what the scenario defines, now or later in its timeline, loads", () => {
    const sc = loadK8sScenario(
      world +
        `settings:
  watchLatencyByComponent: {kubelet/n1: 30ms, csi-attacher: 10ms}
timeline:
  - {at: 1s, action: deletePod, pod: web-0}
  - {at: 2s, action: deletePod, pod: late}
  - {at: 3s, action: createPod, manifest: {kind: Pod, metadata: {name: late}, spec: {nodeName: n1, containers: [{name: c}]}}}
  - {at: 4s, action: create, manifest: {kind: Node, metadata: {name: n2}}}
  - {at: 5s, action: nodeNotReady, node: n2}
  - {at: 6s, action: holdMount, node: n1, process: exporter}
  - {at: 7s, action: releaseMount, node: n1, process: exporter}
  - {at: 8s, action: delete, kind: PersistentVolumeClaim, name: c1}
  - {at: 9s, action: delete, kind: VolumeAttachment, name: csi-made-by-the-controller}
faults:
  storage:
    - {op: detach, volume: disk-1, error: busy}
    - {op: nodeStage, volume: vol-2, node: n2, error: busy}
    - {op: attach, error: busy}
  api:
    - {verb: create, kind: Pod, name: late}
  watch:
    - {component: "*", delay: 1s}
    - {component: kubelet/n1, delay: 1s}
expect:
  - podRunning: late
  - podGone: web-0
  - nodeVolumesAttached: {node: n2, lacks: x}
  - event: {reason: NodeNotReady, object: node/n2}
  - noEvent: {reason: FailedAttach, object: volumeattachment/csi-abc}
  - volumeAttachment: {volumeHandle: vol-2, node: n1, exists: false}
  - log: {contains: x, component: rbd/n1}
`,
      "ok.yaml",
    );
    // delete of a pod or claim keys it by namespace/name, as deletePod does (a bare name never matched)
    expect(sc.timeline[7]!.action).toEqual({ kind: "delete", objectKind: "PersistentVolumeClaim", name: "default/c1" });
    expect(sc.expect).toHaveLength(7);
    // an inline CSI volume's handle is made at run time: a handle of its form is taken for its operations
    const inline = `  - {kind: Pod, metadata: {name: e}, spec: {nodeName: n1, containers: [{name: c}], volumes: [{name: v, csi: {driver: lvm}}]}}\n`;
    const handle = `csi-${"0".repeat(64)}`;
    expect(loadK8sScenario(world + inline + `faults:\n  storage:\n    - {op: nodeUnpublish, volume: ${handle}, error: busy}\n`, "ok.yaml").storageFaults).toHaveLength(1);
    expect(bad(inline + `faults:\n  storage:\n    - {op: nodeStage, volume: ${handle}, error: busy}\n`)).toMatch(/nodeStage is never called for an inline CSI volume/);
  });

  it("version: 1.20 unquoted (YAML's number 1.2) says to quote it; an unquoted 1.22 still loads", () => {
    expect(bad("version: 1.20\n")).toBe('bad.yaml:9: version: Kubernetes version 1.2 is outside the modelled range 1.10-1.35: YAML reads an unquoted 1.20 as the number 1.2; quote the version, e.g. version: "1.20"');
    expect(bad('version: "1.20"\nincident: {title: t, affected: 1.10, fixed: "1.22"}\n')).toMatch(/^bad\.yaml:10: incident\.affected: .*quote the version, e\.g\. affected: "1\.10"$/);
    expect(loadK8sScenario(world + "version: 1.22\n", "ok.yaml").version).toBe("1.22");
    expect(loadK8sScenario(world + 'version: "1.20"\n', "ok.yaml").version).toBe("1.20");
  });

  it("scenarios sharing frozen objects and manifests (a sweep's base): each checked as a whole load checks it", () => {
    // the parts a sweep shares are frozen; checks that passed with the same names are not repeated (references.ts KnownNames)
    const sc = deepFreeze(k8sScenarioFromValue(parse(world + "expect:\n  - podGone: late\n"), "sweep.yaml", undefined, { references: false }));
    const lateNode = deepFreeze({ apiVersion: "v1", kind: "Node", metadata: { name: "n2", uid: "", resourceVersion: "" }, spec: {}, status: {} } as KObj);
    const late = deepFreeze({ ...sc.objects[4]!, metadata: { ...sc.objects[4]!.metadata, name: "late" } });
    const at = (kind: string, rest: object): TimelineItem => ({ atMs: 1000, action: { kind, ...rest } as TimelineItem["action"] });
    const check = (...timeline: TimelineItem[]): string => {
      try {
        checkK8sReferences({ ...sc, timeline }, "sweep.yaml");
        return "ok";
      } catch (e) {
        return (e as Error).message;
      }
    };
    // the frozen expect passes while the timeline creates pod `late`, not once it does not
    expect(check(at("createPod", { manifest: late }))).toBe("ok");
    expect(check(at("createPod", { manifest: late }))).toBe("ok");
    expect(check(at("nodeReady", { node: "n1" }))).toMatch(/^sweep\.yaml: expect\[0\]\.podGone\.pod: pod "late" never exists/);
    // where the timeline creates a name is part of the names: the same manifest at another index
    expect(check(at("create", { manifest: lateNode }), at("crashKubelet", { node: "n2" }))).toMatch(/node "n2" is created by timeline\[0\],/);
    expect(check(at("nodeReady", { node: "n1" }), at("create", { manifest: lateNode }), at("crashKubelet", { node: "n2" }))).toMatch(/node "n2" is created by timeline\[1\],/);
  });
});

describe("merge keys (<<: *anchor)", () => {
  const spec = (name: string, node: string) => `  - kind: Pod\n    metadata: {name: ${name}}\n    spec: {nodeName: ${node}, containers: [{name: c}], terminationGracePeriodSeconds: 5}\n`;
  it("a pod whose spec merges another pod's anchor loads as if written out, with its own fields winning", () => {
    const merged = loadK8sScenario(
      base + "  - {kind: Node, metadata: {name: n2}}\n" +
        "  - kind: Pod\n    metadata: {name: web-0}\n    spec: &web {nodeName: n1, containers: [{name: c}], terminationGracePeriodSeconds: 5}\n" +
        "  - kind: Pod\n    metadata: {name: web-1}\n    spec:\n      <<: *web\n      nodeName: n2\n",
      "merged.yaml",
    );
    const plain = loadK8sScenario(base + "  - {kind: Node, metadata: {name: n2}}\n" + spec("web-0", "n1") + spec("web-1", "n2"), "plain.yaml");
    expect(merged.objects).toEqual(plain.objects);
    // written without the merge support, the pod had no nodeName (a key "<<" instead)
    expect(merged.objects[3]!.spec).toEqual({ nodeName: "n2", containers: [{ name: "c" }], terminationGracePeriodSeconds: 5 });
  });
  it("names a merged field's error at the line it is written on, under the anchor, and a merge of a list at its line", () => {
    const tl = "timeline:\n  - &del\n    at: 60s\n    action: deletePod\n    pod: p1\n  - <<: *del\n    action: nodeNotReady\n    node: n1\n";
    expect(err(base + pods("p1") + tl).message).toBe("bad.yaml:10: timeline[1].pod: nodeNotReady does not take pod (it takes node)");
    expect(err(base + pods("p1") + "timeline:\n  - at: 1s\n    <<: [1, 2]\n").message).toMatch(/^bad\.yaml:8: YAML: <<: a merge key takes a mapping/);
  });
});

describe("a pod's terminationGracePeriodSeconds", () => {
  const pod = (v: string) => base + `  - kind: Pod\n    metadata: {name: p}\n    spec:\n      nodeName: n1\n      containers: [{name: c}]\n      terminationGracePeriodSeconds: ${v}\n`;
  it("is whole seconds, as the Pod API decodes it: \"30s\", 2.5 and -4 are refused at their line (\"30s\" deleted the pod at once)", () => {
    for (const v of ['"30s"', "2.5", "-4", "thirty"]) expect(err(pod(v)).message).toMatch(/^bad\.yaml:10: objects\[1\]\.spec\.terminationGracePeriodSeconds: expected a whole number of seconds >= 0/);
    expect(loadK8sScenario(pod("0"), "ok.yaml").objects[1]!.spec.terminationGracePeriodSeconds).toBe(0);
    expect(loadK8sScenario(pod("45"), "ok.yaml").objects[1]!.spec.terminationGracePeriodSeconds).toBe(45);
  });
});

describe("a pod's containers and volumes, a PersistentVolume's source (each a crash of the run before, now an error at its line)", () => {
  const pod = (containers: string, volumes = "[{name: data, emptyDir: {}}]") => base + `  - kind: Pod\n    metadata: {name: p}\n    spec:\n      nodeName: n1\n      containers: ${containers}\n      volumes: ${volumes}\n`;
  it("refuses a container or a volumeMount that is not a mapping, volumeMounts that are not a list, and a mount of no volume of the pod", () => {
    expect(err(pod("[null]")).message).toBe("bad.yaml:9: objects[1].spec.containers[0]: expected a mapping, got null");
    expect(err(pod("[{name: c, volumeMounts: {}}]")).message).toBe("bad.yaml:9: objects[1].spec.containers[0].volumeMounts: expected a list");
    expect(err(pod("[{name: c, volumeMounts: [null]}]")).message).toBe("bad.yaml:9: objects[1].spec.containers[0].volumeMounts[0]: expected a mapping, got null");
    expect(err(pod("[{name: c, volumeMounts: [{name: dta, mountPath: /d}]}]")).message).toBe(
      'bad.yaml:9: objects[1].spec.containers[0].volumeMounts[0].name: Not found: "dta" (no volume of the pod has that name; the pod\'s volumes: data)',
    );
    expect(err(pod("[{name: c}]", "[null]")).message).toBe("bad.yaml:10: objects[1].spec.volumes[0]: expected a mapping, got null");
    expect(loadK8sScenario(pod("[{name: c, volumeMounts: [{name: data, mountPath: /d}]}]"), "ok.yaml").objects.length).toBe(2);
  });
  it("refuses a volume source that is not a mapping or lacks the field that names the volume", () => {
    const pv = (spec: string) => base + `  - kind: PersistentVolume\n    metadata: {name: pv1}\n    spec: ${spec}\n`;
    expect(err(pv('{accessModes: [ReadWriteOnce], awsElasticBlockStore: "vol-1"}')).message).toBe('bad.yaml:7: objects[1].spec.awsElasticBlockStore: expected a mapping, got "vol-1"');
    expect(err(pv("{accessModes: [ReadWriteOnce], awsElasticBlockStore: {volumeID: []}}")).message).toMatch(/^bad\.yaml:7: objects\[1\]\.spec\.awsElasticBlockStore\.volumeID: expected a non-empty string/);
    expect(err(pv("{accessModes: [ReadWriteOnce], gcePersistentDisk: {fsType: ext4}}")).message).toMatch(/objects\[1\]\.spec\.gcePersistentDisk\.pdName: expected a non-empty string, got undefined$/);
    expect(err(pv("{accessModes: null, csi: {driver: d, volumeHandle: h}}")).message).toMatch(/objects\[1\]\.spec\.accessModes: expected a list of access modes/);
    expect(err(pod("[{name: c}]", "[{name: data, rbd: {pool: kube}}]")).message).toMatch(/objects\[1\]\.spec\.volumes\[0\]\.rbd\.image: expected a non-empty string/);
  });
});
