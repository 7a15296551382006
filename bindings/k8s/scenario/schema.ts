// The Kubernetes replay scenario, as loaded from YAML (see bindings/k8s/README.md
// for the file format). Durations in the file are Go-style strings ("500ms",
// "2m2s"); here they are integer ms.

import type { ApiFault } from "../api/apiserver.js";
import type { KObj } from "../api/types.js";
import type { TimerConfig } from "../engine/config.js";
import type { BackendOp, StorageFault } from "../host/backend.js";
import type { WallClock } from "../output/recorder.js";
import type { FixOverrides } from "../versions/profile.js";

export interface Incident {
  /** seed number(s), e.g. "002" */
  seed: string;
  title: string;
  /** upstream issue / fix PR numbers */
  issue?: string;
  fix: string;
  /** a version that shows the incident */
  affected: string;
  /** a version that does not */
  fixed: string;
  symptom: string;
}

export type Action =
  | { kind: "createPod"; manifest: KObj }
  | { kind: "create"; manifest: KObj }
  | { kind: "deletePod"; pod: string; graceSeconds?: number }
  | { kind: "delete"; objectKind: KObj["kind"]; name: string }
  | { kind: "crashKubelet"; node: string }
  | { kind: "startKubelet"; node: string }
  | {
      kind: "restartKubelet";
      node: string;
      downMs: number;
      /** the node's CSI node plugins register this long after the kubelet is back (their pods restarted with it: a container runtime restart); absent: at once */
      csiNodeRegistrationMs?: number;
    }
  | { kind: "crashControllerManager" }
  | { kind: "startControllerManager" }
  | { kind: "restartControllerManager"; downMs: number }
  | { kind: "nodeNotReady"; node: string }
  | { kind: "nodeReady"; node: string }
  | { kind: "taintNode"; node: string; key: string; effect: "NoExecute" | "NoSchedule"; value?: string }
  | { kind: "untaintNode"; node: string; key: string }
  | { kind: "holdMount"; node: string; process: string; path: string; propagation: "None" | "HostToContainer" }
  | { kind: "releaseMount"; node: string; process: string }
  // a node's host: reboot (down for downMs, then the kubelet starts again), power-off, power-on
  | { kind: "rebootNode"; node: string; downMs: number }
  | { kind: "shutdownNode"; node: string }
  | { kind: "startNode"; node: string }
  // the kube-apiserver process
  | { kind: "stopApiServer" }
  | { kind: "startApiServer" }
  | { kind: "restartApiServer"; downMs: number }
  // a claim's spec.resources.requests.storage raised (kubectl edit/patch pvc): volume expansion (expand/)
  | { kind: "resize"; claim: string; size: string };

export interface TimelineItem {
  /** absolute time, or */
  atMs?: number;
  /** right after the n-th occurrence of a step, plus a delay */
  after?: { step: string; count: number; delayMs: number };
  /**
   * at an instant within [n-th occurrence of `from`, next `to` after it), drawn
   * from the run's seed; `runK8sScenario` resolves it to an `after` item first
   */
  between?: { from: string; to: string; count: number };
  action: Action;
  line?: number;
}

export type Check =
  | { kind: "podPhase"; pod: string; phase: string }
  | { kind: "podRunning"; pod: string }
  | { kind: "podNotRunning"; pod: string }
  | { kind: "podGone"; pod: string }
  | { kind: "log"; contains: string; component?: string }
  | { kind: "noLog"; contains: string; component?: string }
  | { kind: "event"; reason: string; object?: string; contains?: string }
  | { kind: "noEvent"; reason: string; object?: string; contains?: string }
  | { kind: "nodeVolumesAttached"; node: string; contains?: string; lacks?: string }
  | { kind: "volumeAttachment"; volumeHandle: string; node: string; exists: boolean }
  | { kind: "hostMount"; node: string; pathContains: string; present: boolean }
  | { kind: "rbdMapped"; node: string; image: string; mapped: boolean }
  /** a kubelet directory (a block volume's device map path or global map path link, a pod volume dir) exists on the node */
  | { kind: "hostPath"; node: string; pathContains: string; present: boolean }
  /** a claim's status (expand/): its capacity, and whether it has a condition of that type */
  | { kind: "claim"; claim: string; capacity?: string; condition?: string; noCondition?: string }
  | { kind: "step"; name: string; min?: number; max?: number }
  /** calls of `op` (a storage or node-local operation, volume/operation.ts) on volume from node: stats.calls[op][volume][node] */
  | { kind: "calls"; op: string; volume?: string; node?: string; min?: number; max?: number };

export interface Expectation {
  check: Check;
  /** human name, default derived from the check */
  name: string;
  line?: number;
  /**
   * (k8s-releases) `from:`/`until:` of an event, noEvent, step, podRunning
   * or podNotRunning check: only what happens in [from, until) counts (a pod
   * check: the pod's first Running at or before `until`); absent = the run
   */
  fromMs?: number;
  untilMs?: number;
}

export interface WatchFault {
  component: string;
  fromMs: number;
  untilMs: number;
  extraMs: number;
}

export interface K8sScenario {
  name: string;
  description?: string;
  incident?: Incident;
  version: string;
  fixes: FixOverrides;
  seed: number;
  durationMs: number;
  clock: WallClock;
  settings: {
    watchLatencyMs?: number;
    watchLatencyByComponent: Record<string, number>;
    propagationDelayMs: number;
    kubeletRoot: string;
    timers: Partial<TimerConfig>;
    latencies: Partial<Record<BackendOp, number>>;
    /** per plugin (`settings.latencies: {kubernetes.io/aws-ebs: {mountDevice: 3s}}`), over `latencies` */
    pluginLatencies?: Record<string, Partial<Record<BackendOp, number>>>;
    /** the seed orders a call's end against the loop passes due at the same instant (volume/operation.ts section 3) */
    interleave?: boolean;
    /** nodes without a kubelet (objects only) */
    noKubelet: string[];
    /** after a node boots, how long until its CSI node plugins register with the new kubelet (default 0) */
    csiNodeRegistrationMs: number;
    /** kube-apiserver runs as a static pod on this node: down while the node is, up `startupMs` after its kubelet starts */
    apiServer?: { node: string; startupMs: number };
    /** feature gates of every process that are not switches: InTreePlugin<X>Unregister (volume/csimigration.ts) */
    featureGates?: Record<string, boolean>;
    /** the kubelets' own CSIMigrationAWS/GCE, over the release's and `--fix` (a kubelet migrated before its controller, or after) */
    kubeletFeatureGates?: Record<string, boolean>;
    /** the CSI drivers of migrated in-tree plugins are deployed (node plugins and controller); default true */
    csiMigrationDrivers?: boolean;
  };
  objects: KObj[];
  timeline: TimelineItem[];
  storageFaults: StorageFault[];
  apiFaults: ApiFault[];
  watchFaults: WatchFault[];
  expect: Expectation[];
  /** checks that hold on an affected version (the incident reproduces) */
  symptom: Expectation[];
  file: string;
}
