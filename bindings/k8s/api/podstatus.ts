// The status fields the API shows for Pods, PersistentVolumes and claims, as
// far as a run knows them.
//
// Pods: the kubelet's status (pkg/kubelet/kubelet_pods.go
// generateAPIPodStatus, status/generate.go, status_manager.go; v1.10-v1.31):
// conditions in the kubelet's order Initialized, Ready, ContainersReady (from
// 1.11), then PodScheduled (set True by the binding, i.e. at creation here:
// pods name their node), each with `lastProbeTime: null` and a
// lastTransitionTime that moves only when the condition's status changes
// (status_manager updateLastTransitionTime); while a container is not
// running, Ready and ContainersReady are False with reason
// ContainersNotReady and "containers with unready status: [c1 c2]", after
// the pod completed with reason PodCompleted (Initialized too). Each
// container's status: waiting {reason: ContainerCreating}, running
// {startedAt}, or terminated {exitCode: 0, reason: Completed, startedAt,
// finishedAt}; ready, restartCount 0, `started` from 1.16 (the field came
// with startup probes). The pod's startTime is when the kubelet first
// synced it. Not modelled: PodReadyToStartContainers (1.29+), podIP,
// hostIP, containerID, imageID, qosClass.
//
// The kubelet writes this status where the replay has it write a status
// (kubelet.ts patchPod). A pod the kubelet synced while it was still
// Pending gets no write in the replay (upstream's first sync writes these
// conditions; the replay leaves that write out, and adding it would change
// every run's API traffic), so the final objects (podStatusView) show what
// that write would have said, from the time the kubelet first synced it.
//
// PersistentVolumes and claims: the replay has no PV controller; a claim
// names its volume (spec.volumeName) and the volume its claim (claimRef).
// The phase shown is what the PV controller would have set for the final
// objects: a PV is Bound when its claimRef names a claim that exists (or,
// without a claimRef, a claim's volumeName names it: the controller would
// have bound them), Released when its claimRef's claim is gone, Available
// otherwise; a claim
// is Bound (with the volume's accessModes and capacity in its status, as
// the controller copies them) when its volume exists, Lost when its
// volumeName names no PV, Pending without one.

import type { KObj, PodStatus } from "./types.js";
import { keyOf, plainKeyOf } from "./types.js";

export interface PodCondition {
  type: "Initialized" | "Ready" | "ContainersReady" | "PodScheduled";
  status: "True" | "False";
  lastProbeTime: null;
  lastTransitionTime: number;
  reason?: string;
  message?: string;
}

export type ContainerState = "waiting" | "running" | "terminated";

type CStatus = { name: string; state: Record<string, Record<string, unknown>>; lastState: Record<string, never>; ready: boolean; restartCount: number; image?: string; started?: boolean };

/** a condition, keeping the previous lastTransitionTime when its status did not change */
function cond(prev: readonly PodCondition[] | undefined, type: PodCondition["type"], status: "True" | "False", now: number, reason?: string, message?: string): PodCondition {
  const old = findCondition(prev, type);
  const c: PodCondition = { type, status, lastProbeTime: null, lastTransitionTime: old && old.status === status && typeof old.lastTransitionTime === "number" ? old.lastTransitionTime : now };
  if (reason !== undefined) c.reason = reason;
  if (message !== undefined) c.message = message;
  return c;
}

function findCondition<C extends { type: string }>(conds: readonly C[] | undefined, type: string): C | undefined {
  if (conds === undefined) return undefined;
  for (let i = 0; i < conds.length; i++) if (conds[i]!.type === type) return conds[i];
  return undefined;
}

/** the container status the kubelet writes for container `c` (`old`: its previous one) */
function containerStatus(c: { name: string; image?: string }, old: CStatus | undefined, state: ContainerState, now: number, minor: number): CStatus {
  const startedAt = old?.state.running?.startedAt ?? old?.state.terminated?.startedAt;
  const st: Record<string, Record<string, unknown>> =
    state === "running"
      ? { running: { startedAt: typeof startedAt === "number" ? startedAt : now } }
      : state === "terminated"
        ? { terminated: typeof startedAt === "number" ? { exitCode: 0, reason: "Completed", startedAt, finishedAt: old?.state.terminated?.finishedAt ?? now } : { exitCode: 0, reason: "Completed", finishedAt: old?.state.terminated?.finishedAt ?? now } }
        : { waiting: { reason: "ContainerCreating" } };
  const s: CStatus = { name: c.name, state: st, lastState: {}, ready: state === "running", restartCount: 0 };
  if (c.image !== undefined) s.image = c.image;
  if (minor >= 16) s.started = state === "running";
  return s;
}

/**
 * The status the kubelet writes for `pod` (as stored, with `prev` its
 * current status) with its containers in `state` at `now`; `syncedAt`: when
 * a kubelet first synced the pod (its startTime and first conditions).
 */
export function kubeletPodStatus(pod: KObj, prev: PodStatus | undefined, phase: string, state: ContainerState, now: number, minor: number, syncedAt = now): PodStatus {
  // the first sync's status (that the replay did not write) under this one: its times stay
  if (syncedAt < now && findCondition(prev?.conditions, "Initialized") === undefined) prev = kubeletPodStatus(pod, prev, prev?.phase ?? "Pending", "waiting", syncedAt, minor);
  const containers = (pod.spec?.containers ?? []) as Array<{ name: string; image?: string }>;
  const prevCs = (prev as { containerStatuses?: CStatus[] } | undefined)?.containerStatuses;
  const cs = new Array<CStatus>(containers.length);
  for (let i = 0; i < containers.length; i++) {
    const c = containers[i]!;
    cs[i] = containerStatus(c, prevCs === undefined ? undefined : findContainer(prevCs, c.name), state, now, minor);
  }
  const prevConds = prev?.conditions as PodCondition[] | undefined;
  const completed = phase === "Succeeded" || phase === "Failed";
  // every container is unready unless they run (a pod without containers is ready)
  const ready = (state === "running" || containers.length === 0) && !completed;
  let notReadyReason: string | undefined;
  let notReadyMessage: string | undefined;
  if (completed) notReadyReason = "PodCompleted";
  else if (!ready) {
    notReadyReason = "ContainersNotReady";
    let names = "";
    for (let i = 0; i < containers.length; i++) names += i === 0 ? containers[i]!.name : ` ${containers[i]!.name}`;
    notReadyMessage = `containers with unready status: [${names}]`;
  }
  const initialized = cond(prevConds, "Initialized", "True", now, completed ? "PodCompleted" : undefined);
  const readyCond = ready ? cond(prevConds, "Ready", "True", now) : cond(prevConds, "Ready", "False", now, notReadyReason, notReadyMessage);
  const scheduled = cond(prevConds, "PodScheduled", "True", pod.metadata.creationTimestamp ?? now);
  // ContainersReady from 1.11
  const conditions: PodCondition[] =
    minor >= 11
      ? [initialized, readyCond, ready ? cond(prevConds, "ContainersReady", "True", now) : cond(prevConds, "ContainersReady", "False", now, notReadyReason, notReadyMessage), scheduled]
      : [initialized, readyCond, scheduled];
  const out = Object.assign({}, prev) as PodStatus & { containerStatuses?: CStatus[] };
  out.phase = phase as PodStatus["phase"];
  out.conditions = conditions;
  out.containerStatuses = cs;
  out.startTime = typeof prev?.startTime === "number" ? prev.startTime : now;
  return out;
}

function findContainer(cs: readonly CStatus[], name: string): CStatus | undefined {
  for (let i = 0; i < cs.length; i++) if (cs[i]!.name === name) return cs[i];
  return undefined;
}

/**
 * A final Pod as the API would show it: a pod the kubelet synced (at
 * `syncedAt`) but never wrote a status for gets the status of that first
 * sync; a pod no kubelet synced shows the binding's PodScheduled alone.
 * Returns `pod` itself when its status is already the kubelet's.
 */
export function podStatusView(pod: KObj, syncedAt: number | undefined, minor: number): KObj {
  const st = pod.status as PodStatus | undefined;
  if (findCondition(st?.conditions, "Initialized") !== undefined) return pod;
  const out = Object.assign({}, pod);
  if (syncedAt !== undefined && !pod.metadata.deletionTimestamp) out.status = kubeletPodStatus(pod, st, st?.phase ?? "Pending", "waiting", syncedAt, minor);
  else out.status = Object.assign({}, st, { conditions: [cond(undefined, "PodScheduled", "True", pod.metadata.creationTimestamp ?? 0)] });
  return out;
}

/**
 * In `objs` (the final objects, replaced in place by copies): each PV with
 * status.phase, each claim with status.phase (and accessModes and capacity
 * when Bound).
 */
export function volumeStatusViews(objs: KObj[]): void {
  const pvs = new Map<string, KObj>();
  const claims = new Map<string, KObj>();
  /** PV name -> a claim whose spec.volumeName names it */
  const claimOf = new Map<string, KObj>();
  for (const o of objs)
    if (o.kind === "PersistentVolume") pvs.set(o.metadata.name, o);
    else if (o.kind === "PersistentVolumeClaim") {
      claims.set(keyOf(o), o);
      if (o.spec?.volumeName) claimOf.set(o.spec.volumeName as string, o);
    }
  for (let i = 0; i < objs.length; i++) {
    const o = objs[i]!;
    if (o.kind === "PersistentVolume") {
      const ref = o.spec?.claimRef as { namespace?: string; name: string } | undefined;
      const bound = ref ? claims.has(plainKeyOf({ metadata: { name: ref.name, namespace: ref.namespace ?? "default" } })) : claimOf.has(o.metadata.name);
      const phase = bound ? "Bound" : ref ? "Released" : "Available";
      objs[i] = Object.assign({}, o, { status: Object.assign({}, o.status, { phase }) });
    } else if (o.kind === "PersistentVolumeClaim") {
      const name = o.spec?.volumeName as string | undefined;
      const pv = name ? pvs.get(name) : undefined;
      const status: Record<string, unknown> = Object.assign({}, o.status, { phase: !name ? "Pending" : pv ? "Bound" : "Lost" });
      if (pv?.spec?.accessModes) status.accessModes = pv.spec.accessModes;
      // (a claim whose status.capacity was written in the run, by a resize, keeps it: expand/)
      if (pv?.spec?.capacity && o.status?.capacity === undefined) status.capacity = pv.spec.capacity;
      objs[i] = Object.assign({}, o, { status });
    }
  }
}
