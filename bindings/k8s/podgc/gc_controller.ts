// pkg/controller/podgc: the pod garbage collector in kube-controller-manager.
//
// Design. Upstream's PodGCController lists pods and nodes from its informers
// every gcCheckPeriod (20 s, wait.UntilWithContext after the caches sync) and
// force-deletes (grace period 0) three kinds of pods:
//
//   gcTerminated   more terminated pods than --terminated-pod-gc-threshold
//                  (12,500): never reached by a replay, not modelled;
//   gcTerminating  pods with a deletionTimestamp on a node that is not Ready
//                  and carries the node.kubernetes.io/out-of-service taint
//                  (its key, any effect: taints.TaintKeyExists). Added by
//                  #108486 (KEP-2268, non-graceful node shutdown) in 1.24
//                  behind the NodeOutOfServiceVolumeDetach gate: alpha (off)
//                  1.24-1.25, beta (on) 1.26-1.27, GA 1.28. The same gate as
//                  the attach/detach controller's out-of-service force detach,
//                  so it follows the `out-of-service` switch;
//   gcOrphaned     pods bound to a node the informer does not have: the node
//                  name goes into a delaying queue for quarantineTime (40 s);
//                  if it is still missing from the informer then, a GET of the
//                  node tells whether it is truly gone (NotFound), and its pods
//                  are force-deleted (logged "Found orphaned Pod ... deleting",
//                  then "Forced deletion of orphaned Pod succeeded");
//   gcUnscheduledTerminating  terminating pods with no spec.nodeName.
//
// From 1.26 (PodDisruptionConditions, beta on by default) a pod not yet
// Succeeded or Failed is first PATCHed to phase Failed (markFailedAndDeletePod:
// "the pod would remain in the Running phase forever as there is no kubelet
// running to change the phase"); earlier releases DELETE at once.
// [I]: the quarantine (nodeQueue) is modelled in every release; it is in the
// source read (master, gc_controller.go quarantineTime = 40 s) and in 1.2x
// controller-manager logs; the release that introduced it was not read.
//
// What it decides in an incident: a node that is shut down leaves its pods
// Running in the API; the node lifecycle controller evicts them after 300 s
// (nodelifecycle/), which only sets a deletionTimestamp, and no kubelet ever
// confirms the deletion. The pods stay Terminating, their volumes stay in the
// attach/detach controller's desired state of world, and a StatefulSet's
// replacement cannot start (Multi-Attach, or no replacement at all). An
// administrator's out-of-service taint lets gcTerminating force-delete them
// (1.26+, or 1.24-1.25 with the gate on), after which the attach/detach
// controller force-detaches at once (the same taint).
//
// Worked example (scenario non-graceful-node-shutdown, 1.26): node-1 powers
// off at 60 s; Ready=Unknown and the unreachable:NoExecute taint at 100 s;
// the taint manager deletes web-0 at 400 s (deletionTimestamp, grace 30 s);
// the out-of-service taint comes at 480 s; this loop's next pass (grid
// 20 s from its start, so 480 s) sees web-0 terminating on a NotReady node
// with the taint, PATCHes it Failed and DELETEs it with grace 0; the ADC's
// populator drops it from the desired state, its reconciler force-detaches
// the volume from node-1 without waiting for the 6 minutes; the StatefulSet's
// new web-0 on node-2 attaches and runs. On 1.25 the same pass does nothing
// (gate off) and web-0 is Terminating at the end of the run.
//
// The loop reads pods and nodes from the controller-manager's shared informer
// cache (the one the attach/detach controller fills: upstream's
// SharedInformerFactory), wakes with its node and pod deliveries (engine/sim.ts
// section 3), and a quarantine sets a wake at its end.

import { ApiError } from "../api/apiserver.js";
import type { AttachDetachController } from "../attachdetach/attach_detach_controller.js";
import { hasOutOfServiceTaint, keyOf, type KObj, nodeReady } from "../api/types.js";
import type { Ctx } from "../engine/context.js";
import type { Ticker, WakeGroup } from "../engine/sim.js";

export const PODGC_COMPONENT = "kube-controller-manager";

/** gc_controller.go gcCheckPeriod */
export const GC_CHECK_PERIOD_MS = 20_000;
/** gc_controller.go quarantineTime */
export const QUARANTINE_TIME_MS = 40_000;

export class PodGCController {
  private ticker: Ticker | null = null;
  private dead = false;
  private readonly wake: WakeGroup;
  /** nodeQueue: missing node name -> when its quarantine ends */
  private readonly quarantine = new Map<string, number>();

  constructor(
    private readonly ctx: Ctx,
    /** the controller-manager's shared informers (the attach/detach controller's) */
    private readonly informers: AttachDetachController,
  ) {
    this.wake = ctx.sim.group("kube-controller-manager/podgc");
  }

  /** the shared cache (set once the informers have synced) */
  private get inf(): { cache: NonNullable<AttachDetachController["sharedCache"]> } | null {
    const c = this.informers.sharedCache;
    return c === undefined ? null : { cache: c };
  }

  start(): void {
    this.informers.shareInformers(
      (type, obj) => this.delivered(type, obj),
      () => this.run(),
    );
  }

  stop(): void {
    this.dead = true;
    this.ticker?.stop();
  }

  private run(): void {
    if (this.dead) return;
    const { ctx } = this;
    this.startedAt = ctx.sim.now;
    // (upstream logs "Starting GC controller" here, as every controller of the
    // controller-manager logs its start; the replay prints the attach/detach
    // controller's alone, so that a run's lines are those it always had)
    for (const p of this.inf!.cache.list("Pod")) if (this.mayAct(p)) return this.startLoop();
  }

  /** when the caches synced: the loop's grid is startedAt + k * 20 s */
  private startedAt = -1;

  /**
   * The loop is registered the first time a delivery can give a pass work
   * (mayAct): its passes before that find nothing to delete, so leaving
   * them out changes no outcome, and a run without node loss, out-of-service
   * taints or unscheduled pods (every seed) has no pod GC turns at all. The
   * grid stays the one upstream's wait.Until has from the start.
   */
  private delivered(type: string, obj: KObj): void {
    if (this.ticker !== null || this.startedAt < 0 || this.dead) return;
    if ((obj.kind === "Node" && (type === "DELETED" || hasOutOfServiceTaint(obj))) || (obj.kind === "Pod" && type !== "DELETED" && this.mayAct(obj))) this.startLoop();
  }

  private startLoop(): void {
    const { sim } = this.ctx;
    const k = Math.ceil((sim.now - this.startedAt) / GC_CHECK_PERIOD_MS);
    this.ticker = sim.loop("podgc", GC_CHECK_PERIOD_MS, this.startedAt + k * GC_CHECK_PERIOD_MS, this.gc, this, this.wake, ...this.informers.sharedWakes);
  }

  /** a pass could delete this pod: unscheduled and terminating, on a node the cache lacks, or terminating on an out-of-service node */
  private mayAct(pod: KObj): boolean {
    const n = pod.spec?.nodeName;
    if (!n) return pod.metadata.deletionTimestamp !== undefined;
    const node = this.inf!.cache.get("Node", n);
    if (!node) return true;
    return pod.metadata.deletionTimestamp !== undefined && this.ctx.profile.fix["out-of-service"] && hasOutOfServiceTaint(node);
  }

  private log(sev: "I" | "W" | "E", src: string, msg: string): void {
    const out = this.ctx.out;
    out.on && out.wants(PODGC_COMPONENT) && out.log(PODGC_COMPONENT, sev, src, msg);
  }

  /** gc(): one pass (the informer caches, read every 20 s) */
  gc(): void {
    if (this.dead || !this.inf) return;
    const cache = this.inf.cache;
    const pods: KObj[] = [];
    for (const p of cache.list("Pod")) pods.push(p);
    if (pods.length === 0) return;
    if (this.ctx.profile.fix["out-of-service"]) this.gcTerminating(pods);
    this.gcOrphaned(pods);
    this.gcUnscheduledTerminating(pods);
  }

  private gcTerminating(pods: readonly KObj[]): void {
    const cache = this.inf!.cache;
    const victims: KObj[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp === undefined) continue;
      const node = cache.get("Node", pod.spec?.nodeName ?? "");
      if (!node) continue;
      if (!nodeReady(node) && hasOutOfServiceTaint(node)) victims.push(pod);
    }
    // byEvictionAndCreationTimestamp: creation time, then name
    victims.sort((a, b) => (a.metadata.creationTimestamp ?? 0) - (b.metadata.creationTimestamp ?? 0) || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    for (const pod of victims) this.forceDelete(pod, "out-of-service");
  }

  private gcOrphaned(pods: readonly KObj[]): void {
    const { ctx } = this;
    const cache = this.inf!.cache;
    const now = ctx.sim.now;
    // newly found unknown nodes go into quarantine (AddAfter: a name already waiting keeps its time)
    for (const pod of pods) {
      const n = pod.spec?.nodeName;
      if (!n || cache.get("Node", n)) continue;
      if (!this.quarantine.has(n)) {
        this.quarantine.set(n, now + QUARANTINE_TIME_MS);
        ctx.sim.bump(this.wake);
      }
    }
    if (this.quarantine.size === 0) return;
    // discoverDeletedNodes: the names whose quarantine is over, still missing, and NotFound on a GET
    const deleted = new Set<string>();
    for (const [name, due] of [...this.quarantine]) {
      if (due > now) {
        ctx.sim.wakeAt(due);
        continue;
      }
      this.quarantine.delete(name);
      ctx.sim.bump(this.wake);
      if (cache.get("Node", name)) continue;
      try {
        ctx.api.get("Node", name);
      } catch (e) {
        if (e instanceof ApiError && e.reason === "NotFound") deleted.add(name);
        else this.log("E", "gc_controller.go:212", `"Error while getting node" err="${(e as Error).message}" node="${name}"`);
      }
    }
    for (const pod of pods) {
      if (!deleted.has(pod.spec?.nodeName ?? "")) continue;
      this.log("I", "gc_controller.go:182", ctx.profile.structuredLogs ? `"Found orphaned Pod assigned to the Node, deleting" pod="${keyOf(pod)}" node="${pod.spec.nodeName}"` : `Found orphaned Pod ${pod.metadata.namespace}/${pod.metadata.name} assigned to the Node ${pod.spec.nodeName}. Deleting.`);
      if (this.forceDelete(pod, "orphaned")) this.log("I", "gc_controller.go:194", ctx.profile.structuredLogs ? `"Forced deletion of orphaned Pod succeeded" pod="${keyOf(pod)}"` : `Forced deletion of orphaned Pod ${pod.metadata.namespace}/${pod.metadata.name} succeeded`);
    }
  }

  private gcUnscheduledTerminating(pods: readonly KObj[]): void {
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp === undefined || pod.spec?.nodeName) continue;
      this.forceDelete(pod, "unscheduled");
    }
  }

  /** markFailedAndDeletePod: (1.26+) PATCH phase Failed, then DELETE with grace 0; false if the API refused */
  private forceDelete(pod: KObj, why: "out-of-service" | "orphaned" | "unscheduled"): boolean {
    const { ctx } = this;
    const key = keyOf(pod);
    const structured = ctx.profile.structuredLogs;
    this.log("I", "gc_controller.go:254", structured ? `"PodGC is force deleting Pod" pod="${key}"` : `PodGC is force deleting Pod: ${pod.metadata.namespace}:${pod.metadata.name}`);
    try {
      const phase = pod.status?.phase;
      if (ctx.profile.version.minor >= 26 && phase !== "Succeeded" && phase !== "Failed")
        ctx.api.patch("Pod", key, markFailed, undefined, why);
      ctx.api.delete("Pod", key, 0);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (e.reason !== "NotFound") this.log("E", "runtime.go:79", e.message);
      return false;
    }
    ctx.out.note(`pod:${key}`, `the pod garbage collector force-deleted pod ${key} (${why === "out-of-service" ? `terminating on node ${pod.spec.nodeName}, which is not Ready and has the node.kubernetes.io/out-of-service taint` : why === "orphaned" ? `its node ${pod.spec.nodeName} no longer exists` : "terminating and never scheduled"})`);
    ctx.steps.step("podgc.PodForceDeleted", key);
    return true;
  }
}

/** the status PATCH of markFailedAndDeletePodWithCondition (phase Failed; the orphan's DisruptionTarget condition is not modelled) */
function markFailed(d: KObj): boolean {
  if (d.status?.phase === "Failed") return false;
  d.status = Object.assign({}, d.status, { phase: "Failed" });
  return true;
}
