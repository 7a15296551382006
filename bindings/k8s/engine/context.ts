// What every component of a run shares: clock, API server, storage backend,
// nodes' hosts, the resolved version profile, timers, the output recorder and
// the step bus that timeline triggers hook into.

import type { ApiServer } from "../api/apiserver.js";
import type { Backend } from "../host/backend.js";
import type { Host } from "../host/mount.js";
import type { Recorder } from "../output/recorder.js";
import type { Profile } from "../versions/profile.js";
import type { TimerConfig } from "./config.js";
import type { Sim } from "./sim.js";
import { operationStepNames, type CallStepName, type OperationStepName } from "../volume/operation.js";

/**
 * Every step a component can announce: what `after:`/`between:` items and
 * `step` expectations may name (the loader rejects any other name, so a typo
 * is an error instead of a trigger that never fires). `Steps.step` takes only
 * these, so the compiler keeps the list complete.
 */
const BASE_STEP_NAMES = [
  "adc.AttachSucceeded", "adc.AttachFailed", "adc.DetachStarted", "adc.DetachFailed", "adc.DetachSucceeded",
  "adc.DetachSkippedAfterRemove", "adc.SetDetachRequestTimeFailed", "adc.ForceDetachTimeout", "csi.VolumeAttachmentNotFound",
  "kubelet.VolumeNotAttachedAccordingToNodeStatus", "kubelet.VolumeNotReportedInUse", "kubelet.TearDownSucceeded", "kubelet.UnmountDeviceFailed",
  "kubelet.ReconstructFailed", "kubelet.CleanupMountsFailed", "kubelet.WaitForAttachAndMountTimeout", "kubelet.PodRunning",
  "runtime.ContainersStopped", "rbd.UnmapBusy", "cloud.DetachedWhileMounted",
  // (k8s-releases) NodePublish without NodeStage (#100182); a disk detached while MountDevice formats it (#70319)
  "csi.NodePublishUnstaged", "cloud.DetachedDuringMountDevice",
  // the components that decide node-loss incidents (podgc/, nodelifecycle/, the node and API server actions of scenario/run.ts)
  "podgc.PodForceDeleted", "nodelifecycle.NodeUnreachable", "nodelifecycle.PodEvicted", "node.Rebooted", "apiserver.Down", "apiserver.Up",
] as const;
/**
 * The base steps, then every call's and operation's start and end
 * (volume/operation.ts: `csi.NodeStageStarted` ... `csi.NodeStageLanded`,
 * `kubelet.MountDeviceStarted` ... `adc.DetachFailed`), each once.
 */
export const STEP_NAMES: readonly string[] = [...new Set<string>([...BASE_STEP_NAMES, ...operationStepNames()])];
export type StepName = (typeof BASE_STEP_NAMES)[number] | CallStepName | OperationStepName;

/**
 * Named steps components announce ("DetachVolume.Detach failed",
 * "UnmountVolume.TearDown started"); a timeline action can fire right after a
 * step ("between step X and Y" = right after X, before anything else runs).
 */
export class Steps {
  /** made by the first hook (a scenario's `after:` items; most runs have none): a function and its argument each */
  private hooks: Map<string, Array<StepHook<any>>> | undefined;
  /** every step seen (when recording): the result's `steps`, `step:` checks, `between:` probes */
  readonly seen: Array<{ t: number; name: string; detail: string }> = [];
  constructor(
    private readonly sim: Sim,
    readonly record: boolean,
  ) {}
  /** call `fn(arg, detail)` at every step `name` (a function made once and its argument: no closure per hook and run) */
  on<A>(name: string, fn: (arg: A, detail: string) => void, arg: A): void {
    const hooks = (this.hooks ??= new Map());
    let a = hooks.get(name);
    if (!a) hooks.set(name, (a = []));
    a.push({ fn, arg });
  }
  step(name: StepName, detail: string): void {
    if (this.record) this.seen.push({ t: this.sim.now, name, detail });
    const a = this.hooks?.get(name);
    if (a) for (const h of a.slice()) h.fn(h.arg, detail);
  }
}

interface StepHook<A> {
  fn: (arg: A, detail: string) => void;
  arg: A;
}

export interface Monitor {
  /** a pod's containers are about to start on node */
  podStarting(podKey: string, podUID: string, node: string): void;
}

export interface Ctx {
  sim: Sim;
  api: ApiServer;
  backend: Backend;
  hosts: Map<string, Host>;
  profile: Profile;
  timers: TimerConfig;
  out: Recorder;
  steps: Steps;
  monitor: Monitor;
  /** extra watch delay for a component at `now` (scenario watch-delay faults) */
  watchExtra(component: string): (now: number) => number;
  /** watch latency of a component's informers */
  watchLatency(component: string): number;
  /** mount propagation delay on a node */
  propagationDelayMs: number;
  kubeletRoot: string;
  /** the run resizes a claim (a `resize` action): volume expansion's controllers and checks run (expand/) */
  expansion?: boolean;
  /**
   * in-tree -> CSI migration (volume/csimigration.ts): the scenario's feature
   * gates that are not switches, the kubelets' own migration gates, whether
   * the migrated plugins' CSI drivers are deployed, and whether the run has
   * a volume that can migrate at all (kubelets write CSINode objects only then)
   */
  migration?: { gates: Readonly<Record<string, boolean>>; kubeletGates: Readonly<Record<string, boolean>> | undefined; drivers: boolean; volumes: boolean };
}
