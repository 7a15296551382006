// pkg/scheduler: a minimal kube-scheduler, for pods that do not name their
// node.
//
// Design. Upstream's scheduler takes each unscheduled pod from its queue,
// runs the filter plugins against every node, scores the survivors and binds
// the pod to the best (POST pods/binding, which sets spec.nodeName). The
// replay keeps the filters that decide volume incidents:
//
//   NodeUnschedulable / TaintToleration  a node with a NoSchedule or
//        NoExecute taint the pod does not tolerate is out (the node lifecycle
//        controller's unreachable taint, an administrator's out-of-service
//        taint); so is a node whose Ready condition is not True;
//   NodeAffinity      spec.nodeSelector and required node affinity
//        (matchExpressions In, NotIn, Exists, DoesNotExist on node labels);
//   VolumeBinding     a bound PersistentVolume's spec.nodeAffinity (volume
//        topology: a zonal disk can only be used in its zone);
//   NodeVolumeLimits  the node's attach limit for the volume's plugin
//        (status.allocatable "attachable-volumes-csi-<driver>", or
//        "attachable-volumes-aws-ebs" / "-gce-pd" for in-tree disks, as the
//        kubelet reports them) counted over the unique volumes of the pods
//        already bound there.
//
// Score: the node with the fewest pods (NodeResourcesBalancedAllocation and
// LeastAllocated reduced to a pod count), ties by node name. A pod no node
// fits gets FailedScheduling "0/N nodes are available: ..." (one reason per
// node, counted as upstream's message counts them) and is retried when a node
// or pod changes (the scheduling queue's move-to-active on cluster events),
// at most every second (podInitialBackoff), and every 10 s otherwise
// (podMaxBackoff, simplified to a fixed period).
//
// Not modelled: resources (CPU, memory), inter-pod affinity, spreading,
// preemption, WaitForFirstConsumer provisioning (claims must be bound).
//
// Worked example: two nodes, node-a in zone a, node-b in zone b; a pod whose
// claim is bound to a PV with nodeAffinity zone In [b]; node-b is tainted
// unreachable:NoExecute (powered off). Filters: node-a fails VolumeBinding
// ("node(s) had volume node affinity conflict"), node-b fails TaintToleration
// ("node(s) had untolerated taint {node.kubernetes.io/unreachable: }"):
// FailedScheduling "0/2 nodes are available: 1 node(s) had untolerated taint
// {node.kubernetes.io/unreachable: }, 1 node(s) had volume node affinity
// conflict." and the pod stays Pending until node-b is back.
//
// The scheduler runs only in a run that has a pod without spec.nodeName (in
// objects: or created by the timeline): it is a process of its own, with its
// own informer, and a run whose pods are all bound has nothing for it.

import type { Informer } from "../api/apiserver.js";
import { ApiError } from "../api/apiserver.js";
import { keyOf, type KObj, nodeReady, nsKey, type PodVolume, type Taint } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import type { Ticker, WakeGroup } from "../engine/sim.js";

export const SCHEDULER_COMPONENT = "kube-scheduler";
/** the retry period of unschedulable pods (podMaxBackoffSeconds, simplified) */
export const SCHEDULER_RETRY_MS = 10_000;
/** the scheduling loop's period (the queue's podInitialBackoff, 1 s) */
export const SCHEDULER_PERIOD_MS = 1_000;

export class Scheduler {
  private inf: Informer | null = null;
  private ticker: Ticker | null = null;
  private readonly wake: WakeGroup;
  /** pod key -> when it may be tried again after it did not fit */
  private readonly retryAt = new Map<string, number>();
  /**
   * The scheduler cache's assumed pods: bound here, not yet seen bound by the
   * informer (AssumePod), so the next pod of the same pass counts them.
   */
  private readonly assumed = new Map<string, string>();
  /** a pod's node: its own, or the one it was assumed on */
  private nodeOfPod(p: KObj): string | undefined {
    const n = p.spec?.nodeName as string | undefined;
    if (n) return n;
    return this.assumed.size > 0 ? this.assumed.get(keyOf(p)) : undefined;
  }

  constructor(private readonly ctx: Ctx) {
    this.wake = ctx.sim.group(SCHEDULER_COMPONENT);
  }

  start(): void {
    const { ctx } = this;
    ctx.out.processStarted(SCHEDULER_COMPONENT);
    this.inf = ctx.api.informer(
      ["Pod", "Node", "PersistentVolume", "PersistentVolumeClaim"],
      ctx.watchLatency(SCHEDULER_COMPONENT),
      ctx.watchExtra(SCHEDULER_COMPONENT),
      (type, obj, old) => {
        // a cluster event moves the unschedulable pods back to the active queue;
        // a Node update only when it changes what scheduling reads
        // (eventhandlers.go updateNodeInCache, nodeSchedulingPropertiesChange:
        // a kubelet's heartbeat, or the controller's volumesAttached, moves none)
        if (this.retryAt.size === 0) return;
        if (type === "MODIFIED" && obj.kind === "Node" && old !== undefined && !nodeSchedulingPropertiesChange(obj, old)) return;
        this.retryAt.clear();
        // (a delivery of an unread write does not wake the loop: the handler does, engine/sim.ts section 3)
        ctx.sim.bump(this.wake);
      },
      () => {
        this.ticker = ctx.sim.loop("kube-scheduler", SCHEDULER_PERIOD_MS, ctx.sim.now, this.schedule, this, this.wake);
      },
      this.wake,
    );
  }

  /** one pass: bind every pod without a node that fits somewhere */
  schedule(): void {
    const { ctx } = this;
    const cache = this.inf!.cache;
    const now = ctx.sim.now;
    const nodes: KObj[] = [];
    for (const n of cache.list("Node")) nodes.push(n);
    nodes.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    for (const pod of cache.list("Pod")) {
      if (pod.spec?.nodeName || pod.metadata.deletionTimestamp !== undefined) {
        if (this.assumed.size > 0) this.assumed.delete(keyOf(pod));
        continue;
      }
      const key = keyOf(pod);
      if (this.assumed.has(key)) continue;
      const retry = this.retryAt.get(key);
      if (retry !== undefined && now < retry) {
        ctx.sim.wakeAt(retry);
        continue;
      }
      const reasons = new Map<string, number>();
      let best: KObj | undefined;
      let bestPods = Infinity;
      for (const node of nodes) {
        const why = this.filter(pod, node);
        if (why !== null) {
          reasons.set(why, (reasons.get(why) ?? 0) + 1);
          continue;
        }
        const n = this.podsOn(node.metadata.name);
        if (n < bestPods) {
          best = node;
          bestPods = n;
        }
      }
      if (best === undefined) {
        const parts = [...reasons].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([r, n]) => `${n} ${r}`);
        const msg = `0/${nodes.length} nodes are available: ${parts.join(", ")}.`;
        ctx.out.event("Warning", "FailedScheduling", `pod/${pod.metadata.name}`, msg, "default-scheduler", pod.metadata.namespace, pod.metadata.uid);
        this.retryAt.set(key, now + SCHEDULER_RETRY_MS);
        ctx.sim.bump(this.wake, true);
        ctx.sim.wakeAt(now + SCHEDULER_RETRY_MS);
        continue;
      }
      const nodeName = best.metadata.name;
      try {
        ctx.api.patch("Pod", key, bind, undefined, nodeName);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        this.retryAt.set(key, now + SCHEDULER_PERIOD_MS);
        ctx.sim.wakeAt(now + SCHEDULER_PERIOD_MS);
        continue;
      }
      this.retryAt.delete(key);
      this.assumed.set(key, nodeName);
      ctx.out.event("Normal", "Scheduled", `pod/${pod.metadata.name}`, `Successfully assigned ${key} to ${nodeName}`, "default-scheduler", pod.metadata.namespace, pod.metadata.uid);
    }
  }

  /** null if the pod fits the node, else upstream's reason text */
  private filter(pod: KObj, node: KObj): string | null {
    const taints = (node.spec?.taints ?? []) as Taint[];
    for (const t of taints) if ((t.effect === "NoSchedule" || t.effect === "NoExecute") && !tolerates(pod, t)) return `node(s) had untolerated taint {${t.key}: ${t.value ?? ""}}`;
    if (!nodeReady(node)) return "node(s) were not ready";
    if (!matchesSelector(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
    const cache = this.inf!.cache;
    const ns = pod.metadata.namespace ?? "default";
    const counts = new Map<string, number>();
    for (const v of (pod.spec?.volumes ?? []) as PodVolume[]) {
      if (!v.persistentVolumeClaim) continue;
      const pvc = cache.get("PersistentVolumeClaim", nsKey(ns, v.persistentVolumeClaim.claimName));
      const pv = pvc?.spec?.volumeName ? cache.get("PersistentVolume", pvc.spec.volumeName) : undefined;
      if (!pv) return "node(s) unbound immediate PersistentVolumeClaims";
      const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms as NodeSelectorTerm[] | undefined;
      if (terms !== undefined && !terms.some((term) => termMatches(term, node))) return "node(s) had volume node affinity conflict";
      const limitKey = attachLimitKey(pv);
      if (limitKey !== null && !this.attachedTo(node.metadata.name, pv.metadata.name)) counts.set(limitKey, (counts.get(limitKey) ?? 0) + 1);
    }
    for (const [limitKey, add] of counts) {
      const limit = Number(node.status?.allocatable?.[limitKey]);
      if (!Number.isFinite(limit)) continue;
      if (this.volumesOn(node.metadata.name, limitKey) + add > limit) return "node(s) exceed max volume count";
    }
    return null;
  }

  private podsOn(node: string): number {
    let n = 0;
    for (const p of this.inf!.cache.list("Pod")) if (this.nodeOfPod(p) === node) n++;
    return n;
  }

  /** a pod bound to the node already uses the PV */
  private attachedTo(node: string, pvName: string): boolean {
    return this.pvsOn(node).has(pvName);
  }

  /** unique PVs of the pods bound to the node, of the attach limit key */
  private volumesOn(node: string, limitKey: string): number {
    let n = 0;
    for (const pv of this.pvsOn(node)) {
      const o = this.inf!.cache.get("PersistentVolume", pv);
      if (o && attachLimitKey(o) === limitKey) n++;
    }
    return n;
  }

  private pvsOn(node: string): Set<string> {
    const cache = this.inf!.cache;
    const out = new Set<string>();
    for (const p of cache.list("Pod")) {
      if (this.nodeOfPod(p) !== node) continue;
      for (const v of (p.spec?.volumes ?? []) as PodVolume[]) {
        if (!v.persistentVolumeClaim) continue;
        const pvc = cache.get("PersistentVolumeClaim", nsKey(p.metadata.namespace ?? "default", v.persistentVolumeClaim.claimName));
        if (pvc?.spec?.volumeName) out.add(pvc.spec.volumeName);
      }
    }
    return out;
  }
}

interface NodeSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values?: string[];
}
interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
}

function termMatches(term: NodeSelectorTerm, node: KObj): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  for (const r of term.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = labels[r.key];
    switch (r.operator) {
      case "In":
        if (!has || !(r.values ?? []).includes(v!)) return false;
        break;
      case "NotIn":
        if (has && (r.values ?? []).includes(v!)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function matchesSelector(pod: KObj, node: KObj): boolean {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  const sel = (pod.spec?.nodeSelector ?? {}) as Record<string, string>;
  for (const k of Object.keys(sel)) if (labels[k] !== String(sel[k])) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms as NodeSelectorTerm[] | undefined;
  return terms === undefined || terms.some((t) => termMatches(t, node));
}

function tolerates(pod: KObj, t: Taint): boolean {
  const ts = (pod.spec?.tolerations ?? []) as Array<{ key?: string; operator?: string; value?: string; effect?: string }>;
  return ts.some((x) => (x.effect === undefined || x.effect === "" || x.effect === t.effect) && (x.operator === "Exists" ? x.key === undefined || x.key === "" || x.key === t.key : x.key === t.key && (x.value ?? "") === (t.value ?? "")));
}

/** the node allocatable key of a PV's attach limit, or null (no limit modelled) */
function attachLimitKey(pv: KObj): string | null {
  const s = pv.spec ?? {};
  if (s.csi?.driver) return `attachable-volumes-csi-${s.csi.driver}`;
  if (s.awsElasticBlockStore) return "attachable-volumes-aws-ebs";
  if (s.gcePersistentDisk) return "attachable-volumes-gce-pd";
  return null;
}

/** the binding: spec.nodeName := node (POST pods/binding) */
function bind(d: KObj, node: string): boolean {
  if (d.spec?.nodeName) return false;
  d.spec = Object.assign({}, d.spec, { nodeName: node });
  return true;
}

/**
 * eventhandlers.go nodeSchedulingPropertiesChange: whether a Node update
 * changes what the scheduler's filters read (unschedulable, allocatable,
 * labels, taints, the conditions' statuses with their heartbeat times left
 * out: nodeConditionsChanged; annotations).
 */
export function nodeSchedulingPropertiesChange(n: KObj, o: KObj): boolean {
  const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (!same(n.spec?.unschedulable ?? false, o.spec?.unschedulable ?? false)) return true;
  if (!same(n.status?.allocatable, o.status?.allocatable)) return true;
  if (!same(n.metadata.labels, o.metadata.labels)) return true;
  if (!same(n.spec?.taints, o.spec?.taints)) return true;
  if (!same(n.metadata.annotations, o.metadata.annotations)) return true;
  const statuses = (x: KObj): Record<string, unknown> => {
    const m: Record<string, unknown> = {};
    for (const c of (x.status?.conditions ?? []) as Array<{ type: string; status: unknown }>) m[c.type] = c.status;
    return m;
  };
  return !same(statuses(n), statuses(o));
}
