// pkg/controller/nodelifecycle: the node lifecycle controller in
// kube-controller-manager, the part that decides volume incidents: a node
// whose kubelet stops posting status becomes Ready=Unknown after
// --node-monitor-grace-period (40 s), gets the
// node.kubernetes.io/unreachable:NoExecute taint, and its pods are evicted
// (DELETEd with their grace period) once their toleration of that taint runs
// out.
//
// Design. Upstream monitorNodeHealth runs every --node-monitor-period (5 s)
// and compares each node's last heartbeat (its Lease, or its status) with the
// grace period. In the replay a kubelet that runs writes its Ready condition
// itself (kubelet.ts syncNodeStatus), so only a kubelet that stops (crash,
// shutdown, reboot) starts the clock: `kubeletStopped` arms a timer for the
// grace period, `kubeletStarted` disarms it. When it fires, the controller
// PATCHes Ready=Unknown ("NodeStatusUnknown") and records the NodeNotReady
// event (what ClusterRun did before this module; those writes are unchanged);
// then, per release:
//
//   1.13+  TaintBasedEvictions (beta, on by default; GA 1.18; switch
//          `taint-based-evictions`, #69824): PATCH the
//          unreachable:NoExecute taint (doNoExecuteTaintingPass). The taint
//          manager (NoExecuteTaintManager; from 1.29 the separate
//          taint-eviction-controller, same behaviour) deletes each pod on the
//          node that does not tolerate the taint, once its
//          tolerationSeconds run out: the DefaultTolerationSeconds admission
//          plugin gives every pod `node.kubernetes.io/unreachable:NoExecute
//          for 300s` unless it has its own toleration of that key; one
//          without tolerationSeconds tolerates it for ever. Event
//          TaintManagerEviction "Marking for deletion Pod ns/name".
//   <=1.12 no taint by default; the controller itself evicts the node's pods
//          --pod-eviction-timeout (5 min) after the node went NotReady/Unknown
//          (evictPods through the rate-limited zone queue; not modelled:
//          the queue's rate, 0.1 node/s).
//
// When the node's kubelet writes Ready=True again the taint is removed
// (markNodeAsReachable) and pending evictions are cancelled: a loop on the
// node status, registered the first time a node is tainted (5 s period, as
// upstream's monitor), checks the tainted nodes.
//
// Not modelled: Ready=False reported by a kubelet (the `nodeNotReady` action)
// tainting not-ready:NoExecute; MarkPodsNotReady's pod status writes; the
// zone disruption modes (partial/full disruption stop evictions); the
// NoSchedule taints of TaintNodesByCondition.
//
// Worked example (1.26, node-1's kubelet killed by a power-off at 60 s): at
// 100 s Ready=Unknown and the taint; web-0 has the default toleration, so at
// 400 s the taint manager DELETEs it (deletionTimestamp, grace 30 s). No
// kubelet finishes the deletion: web-0 stays Terminating, its containers
// "Running" in its last status, and its volume stays in the attach/detach
// controller's desired state of world until a person or the pod garbage
// collector (out-of-service taint, podgc/) force-deletes it.

import { ApiError } from "../api/apiserver.js";
import type { KObj, Taint } from "../api/types.js";
import { keyOf, nodeReady } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import type { Ticker } from "../engine/sim.js";

export const NODE_LIFECYCLE_COMPONENT = "kube-controller-manager";
export const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
/** DefaultTolerationSeconds admission: --default-unreachable-toleration-seconds */
export const DEFAULT_TOLERATION_SECONDS = 300;
/** --pod-eviction-timeout (<= 1.12 eviction without taints) */
export const POD_EVICTION_TIMEOUT_MS = 5 * 60_000;
/** --node-monitor-period */
export const NODE_MONITOR_PERIOD_MS = 5_000;

/** sets a node's Ready condition and records the event (ClusterRun.setReady) */
export type SetReady = (node: string, status: "True" | "False" | "Unknown", reason: string) => void;

export class NodeLifecycleController {
  /** node -> the time of the kubelet stop whose grace period is running */
  private readonly graceTimers = new Map<string, number>();
  /** tainted node -> the taint's time (evictions scheduled from it) */
  private readonly tainted = new Map<string, number>();
  private monitor: Ticker | null = null;

  constructor(
    private readonly ctx: Ctx,
    private readonly setReady: SetReady,
  ) {}

  /** the node's kubelet stopped posting status at now */
  kubeletStopped(node: string): void {
    const token = this.ctx.sim.now;
    this.graceTimers.set(node, token);
    this.ctx.sim.call(token + this.ctx.timers.NODE_MONITOR_GRACE_PERIOD_MS, graceOver, new NodeTimer(this, node, token));
  }

  /** the node's kubelet runs again */
  kubeletStarted(node: string): void {
    this.graceTimers.delete(node);
  }

  /** the grace period after a kubelet stop is over (the stop at `token`, unless the kubelet came back since) */
  onGraceOver(node: string, token: number): void {
    if (this.graceTimers.get(node) !== token) return;
    this.graceTimers.delete(node);
    this.setReady(node, "Unknown", "NodeStatusUnknown");
    this.ctx.steps.step("nodelifecycle.NodeUnreachable", node);
    const { ctx } = this;
    const taintBased = ctx.profile.fix["taint-based-evictions"];
    if (taintBased) {
      try {
        ctx.api.patch("Node", node, addUnreachableTaint);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        return;
      }
      ctx.out.note(`node:${node}`, `the node lifecycle controller marked ${node} Ready=Unknown after ${ctx.timers.NODE_MONITOR_GRACE_PERIOD_MS / 1000} s without status and tainted it ${UNREACHABLE_TAINT}:NoExecute`);
    } else ctx.out.note(`node:${node}`, `the node lifecycle controller marked ${node} Ready=Unknown after ${ctx.timers.NODE_MONITOR_GRACE_PERIOD_MS / 1000} s without status; its pods are evicted after --pod-eviction-timeout (5 min)`);
    const at = ctx.sim.now;
    this.tainted.set(node, at);
    // evictions: each pod of the node as it is now; a pod created there later is not considered (not modelled)
    for (const pod of ctx.api.list("Pod")) {
      if (pod.spec?.nodeName !== node || pod.metadata.deletionTimestamp !== undefined) continue;
      const delay = taintBased ? tolerationMs(pod) : POD_EVICTION_TIMEOUT_MS;
      if (delay === Infinity) continue;
      ctx.sim.call(at + delay, evictDue, new Eviction(this, node, at, keyOf(pod), pod.metadata.uid));
    }
    if (this.monitor === null) this.monitor = ctx.sim.loop("node-lifecycle-monitor", NODE_MONITOR_PERIOD_MS, ctx.sim.now, this.monitorNodeHealth, this, ctx.api.storeReaders("Node"));
  }

  /** the tainted nodes whose kubelet reports Ready again lose the taint; their evictions are cancelled */
  monitorNodeHealth(): void {
    const { ctx } = this;
    for (const node of [...this.tainted.keys()]) {
      const n = ctx.api.tryGet("Node", node);
      if (n !== undefined && !nodeReady(n)) continue;
      this.tainted.delete(node);
      if (n === undefined || !ctx.profile.fix["taint-based-evictions"]) continue;
      try {
        ctx.api.patch("Node", node, removeUnreachableTaint);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
      }
    }
  }

  /** the taint manager's (or, <= 1.12, the controller's) eviction of one pod */
  evict(x: Eviction): void {
    const { ctx } = this;
    if (this.tainted.get(x.node) !== x.since) return;
    const pod = ctx.api.tryGet("Pod", x.podKey);
    if (!pod || pod.metadata.uid !== x.uid || pod.metadata.deletionTimestamp !== undefined) return;
    const taintBased = ctx.profile.fix["taint-based-evictions"];
    ctx.out.event("Normal", "TaintManagerEviction", `pod/${pod.metadata.name}`, `Marking for deletion Pod ${x.podKey}`, taintBased ? "taint-controller" : "node-controller", pod.metadata.namespace, x.uid);
    try {
      ctx.api.delete("Pod", x.podKey);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return;
    }
    ctx.out.note(`pod:${x.podKey}`, `pod ${x.podKey} was evicted from unreachable node ${x.node} (deleted with its grace period); no kubelet runs there to finish the deletion, so it stays Terminating`);
    ctx.steps.step("nodelifecycle.PodEvicted", x.podKey);
  }
}

/** how long the pod tolerates unreachable:NoExecute (Infinity: for ever) */
function tolerationMs(pod: KObj): number {
  const ts = (pod.spec?.tolerations ?? []) as Array<{ key?: string; operator?: string; effect?: string; tolerationSeconds?: number }>;
  for (const t of ts) {
    const keyMatches = t.key === UNREACHABLE_TAINT || ((t.key === undefined || t.key === "") && t.operator === "Exists");
    if (!keyMatches || (t.effect !== undefined && t.effect !== "" && t.effect !== "NoExecute")) continue;
    return t.tolerationSeconds === undefined ? Infinity : Math.max(0, t.tolerationSeconds) * 1000;
  }
  return DEFAULT_TOLERATION_SECONDS * 1000;
}

/** (upstream also sets the taint's timeAdded; the replay's final objects leave it out) */
function addUnreachableTaint(d: KObj): boolean {
  const taints = (d.spec?.taints ?? []) as Taint[];
  if (taints.some((t) => t.key === UNREACHABLE_TAINT && t.effect === "NoExecute")) return false;
  d.spec = Object.assign({}, d.spec, { taints: [...taints, { key: UNREACHABLE_TAINT, effect: "NoExecute" }] });
  return true;
}
function removeUnreachableTaint(d: KObj): boolean {
  const taints = (d.spec?.taints ?? []) as Taint[];
  if (!taints.some((t) => t.key === UNREACHABLE_TAINT)) return false;
  d.spec = Object.assign({}, d.spec, { taints: taints.filter((t) => t.key !== UNREACHABLE_TAINT) });
  return true;
}

class NodeTimer {
  constructor(
    readonly nlc: NodeLifecycleController,
    readonly node: string,
    readonly token: number,
  ) {}
}
function graceOver(t: NodeTimer): void {
  t.nlc.onGraceOver(t.node, t.token);
}

class Eviction {
  constructor(
    readonly nlc: NodeLifecycleController,
    readonly node: string,
    readonly since: number,
    readonly podKey: string,
    readonly uid: string,
  ) {}
}
function evictDue(x: Eviction): void {
  x.nlc.evict(x);
}
