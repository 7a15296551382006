// The final objects' status fields, as `kubectl get -o json` shows them.
import { describe, expect, it } from "vitest";
import { builtinK8sScenario, runK8sScenario } from "../index.js";
import { kubernetesObjectJson } from "../output/objects.js";
import { kubeletPodStatus, volumeStatusViews } from "./podstatus.js";
import type { KObj } from "./types.js";

const sc = builtinK8sScenario("detach-backoff-node-status")!;
const json = (version: string, kind: string) => {
  const r = runK8sScenario(sc, { version });
  return r.objects.filter((o) => o.kind === kind).map((o) => kubernetesObjectJson(o, sc.clock) as { status: Record<string, any> });
};

describe("final objects' status", () => {
  it("detach-backoff-node-status 1.22: the stuck pod is Ready False (ContainersNotReady) since the kubelet's sync at 10:01:12, nginx waiting ContainerCreating; PV and claim Bound", () => {
    const [pod] = json("1.22", "Pod");
    const st = pod!.status;
    expect(st.phase).toBe("Pending");
    expect(st.startTime).toBe("2020-02-26T10:01:12Z");
    expect(st.conditions).toEqual([
      { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: "2020-02-26T10:01:12Z" },
      { type: "Ready", status: "False", lastProbeTime: null, lastTransitionTime: "2020-02-26T10:01:12Z", reason: "ContainersNotReady", message: "containers with unready status: [nginx]" },
      { type: "ContainersReady", status: "False", lastProbeTime: null, lastTransitionTime: "2020-02-26T10:01:12Z", reason: "ContainersNotReady", message: "containers with unready status: [nginx]" },
      { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: "2020-02-26T10:01:12Z" },
    ]);
    expect(st.containerStatuses).toEqual([{ name: "nginx", state: { waiting: { reason: "ContainerCreating" } }, lastState: {}, ready: false, restartCount: 0, started: false }]);
    expect(json("1.22", "PersistentVolume")[0]!.status).toEqual({ phase: "Bound" });
    expect(json("1.22", "PersistentVolumeClaim")[0]!.status).toEqual({ phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "50Gi" } });
  });

  it("detach-backoff-node-status 1.23: the pod runs from 10:01:21 (startedAt, Ready), synced and scheduled at 10:01:12", () => {
    const st = json("1.23", "Pod")[0]!.status;
    expect(st.phase).toBe("Running");
    expect(st.startTime).toBe("2020-02-26T10:01:12Z");
    expect(st.conditions.map((c: any) => `${c.type}=${c.status}@${c.lastTransitionTime}`)).toEqual([
      "Initialized=True@2020-02-26T10:01:12Z",
      "Ready=True@2020-02-26T10:01:21Z",
      "ContainersReady=True@2020-02-26T10:01:21Z",
      "PodScheduled=True@2020-02-26T10:01:12Z",
    ]);
    expect(st.containerStatuses[0].state).toEqual({ running: { startedAt: "2020-02-26T10:01:21Z" } });
    expect(st.containerStatuses[0].ready).toBe(true);
  });

  it("a completed pod: PodCompleted conditions, terminated with its start and finish; 1.10 has no ContainersReady nor started", () => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default", uid: "u", resourceVersion: "1", creationTimestamp: 0 }, spec: { containers: [{ name: "c", image: "nginx" }] }, status: { phase: "Pending" } } as KObj;
    const running = kubeletPodStatus(pod, pod.status, "Running", "running", 5000, 22, 1000);
    const done = kubeletPodStatus(pod, running, "Succeeded", "terminated", 9000, 22);
    expect(done.conditions!.map((c) => [c.type, c.status, c.reason, c.lastTransitionTime])).toEqual([
      ["Initialized", "True", "PodCompleted", 1000],
      ["Ready", "False", "PodCompleted", 9000],
      ["ContainersReady", "False", "PodCompleted", 9000],
      ["PodScheduled", "True", undefined, 0],
    ]);
    expect(done.containerStatuses![0]).toMatchObject({ image: "nginx", ready: false, started: false, state: { terminated: { exitCode: 0, reason: "Completed", startedAt: 5000, finishedAt: 9000 } } });
    expect(done.startTime).toBe(1000);
    const old = kubeletPodStatus(pod, pod.status, "Running", "running", 5000, 10);
    expect(old.conditions!.map((c) => c.type)).toEqual(["Initialized", "Ready", "PodScheduled"]);
    expect(old.containerStatuses![0]).not.toHaveProperty("started");
  });

  it("PV and claim phases: Released when the claim is gone, Available when nothing names it, a claim Lost without its PV or Pending without a volumeName", () => {
    const meta = (name: string, namespace?: string) => ({ name, namespace, uid: name, resourceVersion: "1" });
    const objs: KObj[] = [
      { apiVersion: "v1", kind: "PersistentVolume", metadata: meta("released"), spec: { claimRef: { namespace: "default", name: "gone" } } },
      { apiVersion: "v1", kind: "PersistentVolume", metadata: meta("free"), spec: {} },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: meta("lost", "default"), spec: { volumeName: "no-such-pv" } },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: meta("pending", "default"), spec: {} },
    ];
    const stored = objs[0];
    volumeStatusViews(objs);
    expect(objs.map((o) => o.status.phase)).toEqual(["Released", "Available", "Lost", "Pending"]);
    expect(stored!.status).toBeUndefined();
  });
});
