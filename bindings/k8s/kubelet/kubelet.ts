// pkg/kubelet: the parts of one node's kubelet that the volume lifecycle
// touches: pod workers (WaitForAttachAndMount, start, kill, final delete),
// the node status loop that publishes volumesInUse, housekeeping of orphaned
// pod directories, and the container runtime on the host.
//
// The container runtime is host state, not kubelet state: a kubelet crash
// leaves containers running and a SIGTERM already sent keeps its course
// (seed 000/003 depends on this: the container is still exiting after the
// kubelet comes back).
//
// WaitForAttachAndMount polls every 300 ms for up to 2m3s; on timeout the pod
// gets a FailedMount event ("Unable to attach or mount volumes: unmounted
// volumes=[data], unattached volumes=[data]: timed out waiting for the
// condition"), the sync fails and is retried after the pod worker backoff
// (10 s, jitter 0.5). The pod shows ContainerCreating throughout.

import { ApiError, type Informer } from "../api/apiserver.js";
import { keyOf, type Kind, KObj, PodVolume } from "../api/types.js";
import { type ContainerState, kubeletPodStatus } from "../api/podstatus.js";
import type { Ctx } from "../engine/context.js";
import { Rng, type Ticker, type WakeGroup } from "../engine/sim.js";
import type { Host, RuntimePod } from "../host/mount.js";
import { MIGRATED_PLUGINS_ANNOTATION, MIGRATIONS, migratedPluginsAnnotation } from "../volume/csimigration.js";
import { joinInterned, podVolumePaths, type PluginMgr } from "../volume/plugins.js";
import { isTerminal, VolumeManager } from "./volume_manager.js";
import type { PodLookup } from "./volume_manager.js";
import { boundedMemo } from "../../util/bounded-memo.js";

/**
 * An event's object, "pod/<name>", one string per name (plugins.ts
 * joinInterned; so are the container events' texts): the recorder compares
 * every event's object and text with the earlier events of its reason, and a
 * new string equal to one of them is compared character by character.
 */
const podObject = (name: string): string => joinInterned("pod", "/", name);

/** the container runtime on a host (Host.runtimePods), surviving kubelet restarts */
export function runtimeOf(host: Host): Map<string, RuntimePod> {
  return host.runtimePods;
}

type WorkerState = "waiting" | "backoff" | "starting" | "running" | "terminating";

/** status_manager.go syncPeriod: a refused final pod delete is sent again this much later */
const STATUS_SYNC_PERIOD_MS = 10_000;

interface Worker {
  uid: string;
  key: string;
  state: WorkerState;
  since: number;
  retryAt: number;
  statusReported: boolean;
  /** when the status manager sends a refused final delete again */
  deleteRetryAt: number;
  /** the texts of its last FailedMount (waitForAttachAndMount) */
  failedMount: FailedMountTexts | null;
}

/**
 * A pod worker's FailedMount texts for one set of unmounted and unattached
 * volumes: a pod stuck waiting fails the same way at every retry, so they are
 * built once and the event recorder, which compares each new event with the
 * earlier ones, meets the same strings again.
 */
interface FailedMountTexts {
  unmounted: string;
  unattached: string;
  /** WaitForAttachAndMount's error */
  err: string;
  /** the event's message and object */
  msg: string;
  object: string;
}

/**
 * The kubelet is its volume manager's pod manager and container runtime view
 * (PodLookup: upstream's podManager and podStateProvider): the volume manager
 * gets the kubelet itself, not an object of closures made per kubelet and run.
 */
export class Kubelet implements PodLookup {
  readonly component: string;
  readonly vm: VolumeManager;
  private inf: Informer | null = null;
  private tickers: Ticker[] = [];
  private workers = new Map<string, Worker>();
  private dead = false;
  private readonly host: Host;
  /** housekeeping's (made by its first pass: it runs only in runs that build log lines) */
  private orphansLogged: Set<string> | undefined = undefined;
  /**
   * Narrower wake groups for informer deliveries (engine/sim.ts section 3):
   * PersistentVolumes and claims are read from the cache by the populator
   * alone; nodes and CSIDrivers by none of the loops (the status loop and the
   * plugins read the API store). Pods wake every loop (the host group).
   */
  private readonly dswpWake: WakeGroup;
  private readonly unreadWake: WakeGroup;
  /** pod deliveries: housekeeping reads this node's pods (the populator and the pod workers are woken apart: VolumeManager.podDeliveryMatters, podDeliveryWakesWorkers) */
  private readonly podsWake: WakeGroup;
  /** the pod workers' own state, read by them alone */
  private readonly workersWake: WakeGroup;
  /** the volume manager's state: the reconciler, pod workers and node status loop (volume_manager.ts) */
  private readonly vmWake: WakeGroup;
  private readonly names: KubeletNames;
  /** its events' source (one string: the event recorder compares it with earlier events') */
  private readonly eventSource: string;

  constructor(
    private readonly ctx: Ctx,
    readonly nodeName: string,
    plugins: PluginMgr,
  ) {
    const names = (this.names = kubeletNames(nodeName));
    this.component = names.component;
    this.eventSource = `kubelet, ${nodeName}`;
    this.host = ctx.hosts.get(nodeName)!;
    this.dswpWake = ctx.sim.group(names.dswp);
    this.unreadWake = ctx.sim.group(names.unread);
    this.podsWake = ctx.sim.group(names.pods);
    this.workersWake = ctx.sim.group(names.workers);
    this.vmWake = ctx.sim.group(names.volumes);
    this.vm = new VolumeManager(ctx, nodeName, this.component, plugins, this, this.vmWake);
  }

  // ---- PodLookup (the volume manager's view of the kubelet) ----

  /** the pod of this node with UID `uid` */
  pod(uid: string): KObj | undefined {
    return this.podByUID(uid);
  }
  /** a claim or volume from the informer cache */
  lookup(kind: "PersistentVolumeClaim" | "PersistentVolume", key: string): KObj | undefined {
    return this.inf?.cache.get(kind, key);
  }
  /** the pod's containers are all stopped (the runtime's view) */
  containersStopped(uid: string): boolean {
    return !runtimeOf(this.host).get(uid)?.running;
  }

  private log(sev: "I" | "W" | "E", src: string, msg: string): void {
    this.ctx.out.on && this.ctx.out.log(this.component, sev, src, msg);
  }

  /**
   * This node's pods in informer-cache order (the cache holds no other: the
   * watch's field selector). The pod workers, the populator and housekeeping
   * read it on every pass, so it is kept as an array and rebuilt (never
   * changed in place) after the informer delivers a Pod event.
   */
  pods(): readonly KObj[] {
    if (this.nodePodsStale && this.inf) {
      const a: KObj[] = [];
      for (const o of this.inf.cache.list("Pod")) a.push(o);
      this.nodePods = a;
      this.nodePodsStale = false;
    }
    return this.nodePods;
  }
  private nodePods: readonly KObj[] = [];
  private nodePodsStale = true;

  /**
   * Whether a (non-delete) delivery of `pod` replacing the cached `prev` can
   * change a pass of the pod workers beyond what podEvent does with it. The
   * workers' passes go over their workers: a new pod's worker, a deleted
   * one's removal and a worker's move to terminating are podEvent's, which
   * wakes them when the change calls for a pass. Of a pod a worker already
   * has, a pass reads its spec, and its phase only as the final status a
   * terminating worker that has not reported it yet sends (syncPods). The
   * kubelet's own status writes coming back (Pending, then Running) change
   * none of it.
   */
  private podDeliveryWakesWorkers(pod: KObj, prev: KObj | undefined): boolean {
    if (prev === undefined || prev.metadata.uid !== pod.metadata.uid) return false;
    if (prev.spec !== pod.spec) return true;
    if (prev.status?.phase === pod.status?.phase) return false;
    const w = this.workers.get(pod.metadata.uid);
    return w !== undefined && w.state === "terminating" && !w.statusReported;
  }

  private podByUID(uid: string): KObj | undefined {
    const pods = this.pods();
    for (let i = 0; i < pods.length; i++) if (pods[i]!.metadata.uid === uid) return pods[i];
    return undefined;
  }

  start(): void {
    const { ctx } = this;
    ctx.out.processStarted(this.component);
    this.ctx.out.on && this.log("I", "server.go:446", `"Kubelet version" kubeletVersion="v${ctx.profile.text}"`);
    this.inf = ctx.api.informer(
      ["Pod", "Node", "PersistentVolume", "PersistentVolumeClaim", "CSIDriver"],
      ctx.watchLatency(this.component),
      ctx.watchExtra(this.component),
      (type, obj, prev) => {
        // (only this node's pods come: the watch's field selector)
        if (obj.kind !== "Pod") return;
        this.nodePodsStale = true;
        // the populator and the pod workers are woken by the deliveries that
        // can change their next pass (VolumeManager.podDeliveryMatters,
        // podDeliveryWakesWorkers; a new worker and a worker's move to
        // terminating wake them in podEvent)
        if (type === "DELETED" || this.vm.podDeliveryMatters(obj, prev)) ctx.sim.bump(this.dswpWake);
        if (type !== "DELETED" && this.podDeliveryWakesWorkers(obj, prev)) ctx.sim.bump(this.workersWake);
        this.podEvent(type, obj);
      },
      () => this.run(),
      this.podsWake,
      { PersistentVolume: this.dswpWake, PersistentVolumeClaim: this.dswpWake, Node: this.unreadWake, CSIDriver: this.unreadWake },
      onNodeFields,
      this.nodeName,
      // (the handler ignores both, and the kubelet reads its Node and the
      // CSIDrivers from the store: their watch events are never delivered)
      UNREAD_KINDS,
    );
  }

  stop(): void {
    this.dead = true;
    this.vm.dead = true;
    for (const t of this.tickers) t.stop();
    if (this.inf) this.ctx.api.stopInformer(this.inf);
  }

  private run(): void {
    if (this.dead) return;
    const { ctx } = this;
    const t = ctx.timers;
    if (ctx.migration?.volumes) this.initializeCSINode();
    for (const p of this.pods()) this.podEvent("ADDED", p);
    const now = ctx.sim.now;
    // each loop is woken by what it reads (engine/sim.ts section 3): host.wake
    // (all of them), the groups of the state it reads, and the API store's
    // readers of the kinds it reads from the store itself (the status loop the
    // node). The reconciler reads the host's directories only in the pass
    // that reconstructs (after the populator's first pass, which wakes it), so
    // it is not in h.fsWake. The pod workers read one thing from the store:
    // before the final delete, whether the worker's pod is still there under
    // its UID. No Pod write can turn that from false to true (a UID is never
    // stored again once its pod is gone), so no store write can make their
    // next pass act; they are not among the Pod store's readers (a refused
    // delete's retry is a wakeAt).
    const h = this.host;
    const names = this.names;
    // (each pass a method called on its owner: Sim.loop)
    const vm = this.vm;
    this.tickers.push(ctx.sim.loop(names.dswp, t.KUBELET_DSWP_LOOP_MS, now, vm.populate, vm, h.wake, this.dswpWake, h.runtimeWake));
    // (its passes have interleave points: volume_manager.ts section 7, engine/sim.ts yieldPoint)
    this.tickers.push(ctx.sim.interleavable(ctx.sim.loop(names.reconciler, t.KUBELET_RECONCILER_LOOP_MS, now, vm.reconcile, vm, h.wake, this.vmWake, vm.opsWake), this.nodeName));
    this.tickers.push(ctx.sim.loop(names.podworkers, t.POD_ATTACH_AND_MOUNT_RETRY_INTERVAL_MS, now, this.syncPods, this, h.wake, this.workersWake, this.vmWake, h.runtimeWake));
    this.tickers.push(ctx.sim.loop(names.nodestatus, t.NODE_STATUS_UPDATE_FREQUENCY_MS, now, this.syncNodeStatus, this, h.wake, this.vmWake, ctx.api.storeReaders("Node")));
    // Housekeeping's only output is its "orphaned pod found" line: a run that
    // builds no log line has nothing for it to do (the recorder never turns
    // logging on during a run), so the loop is not started. Its passes change
    // no state any other loop reads, and leaving one ticker out keeps the
    // others' order among themselves, so no other pass moves. Its turns are
    // not counted in the run's events (Sim.markLogOnly), so those are the
    // same with and without lines.
    if (ctx.out.on) this.tickers.push(ctx.sim.markLogOnly(ctx.sim.loop(names.housekeeping, t.HOUSEKEEPING_PERIOD_MS, now, this.housekeeping, this, h.wake, this.podsWake, h.fsWake, h.runtimeWake)));
  }

  // ---- CSINode (volume/csimigration.ts section 1) ----
  // The kubelet's CSI plugin writes the node's CSINode when it starts
  // (nodeinfomanager InitializeCSINodeWithAnnotation: the annotation
  // storage.kubernetes.io/migrated-plugins, the in-tree plugins this kubelet's
  // gates migrate; an existing object keeps its drivers) and adds a driver
  // when its node plugin registers (installDriverToCSINode). Only the drivers
  // of migrated plugins are listed (no loop reads any other). A refused write
  // is retried a second later, as the plugin's initialization retries.

  private initializeCSINode(): void {
    if (this.dead) return;
    const { ctx } = this;
    const ann = migratedPluginsAnnotation(ctx.profile, ctx.migration!.kubeletGates);
    ctx.api.caller = this.component;
    try {
      const cur = ctx.api.tryGet("CSINode", this.nodeName);
      if (cur === undefined) {
        ctx.api.create({
          apiVersion: "storage.k8s.io/v1",
          kind: "CSINode",
          metadata: { name: this.nodeName, uid: "", resourceVersion: "", annotations: { [MIGRATED_PLUGINS_ANNOTATION]: ann } },
          spec: { drivers: [] },
        });
      } else if (cur.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION] !== ann) {
        ctx.api.patch("CSINode", this.nodeName, (d) => {
          d.metadata.annotations = { ...(d.metadata.annotations ?? {}), [MIGRATED_PLUGINS_ANNOTATION]: ann };
          return true;
        });
      }
    } catch {
      ctx.sim.after(1000, () => this.initializeCSINode());
      return;
    } finally {
      ctx.api.caller = "";
    }
    if (!ctx.migration!.drivers) return;
    const at = this.host.csiRegisteredAt;
    if (at <= ctx.sim.now) this.installCSIDrivers();
    else ctx.sim.call(at, Kubelet.installDriversOf, this);
  }
  private static installDriversOf(k: Kubelet): void {
    k.installCSIDrivers();
  }
  /** the migrated plugins' node plugins registered: their drivers in the CSINode */
  private installCSIDrivers(): void {
    if (this.dead) return;
    const { ctx } = this;
    ctx.api.caller = this.component;
    try {
      ctx.api.patch("CSINode", this.nodeName, (d) => {
        const drivers = (d.spec?.drivers ?? []) as Array<{ name: string; nodeID: string }>;
        const add = MIGRATIONS.map((m) => m.driver).filter((n) => !drivers.some((x) => x.name === n));
        if (add.length === 0) return false;
        d.spec = { ...d.spec, drivers: [...drivers, ...add.map((name) => ({ name, nodeID: this.nodeName }))] };
        return true;
      });
    } catch {
      ctx.sim.after(1000, () => this.installCSIDrivers());
    } finally {
      ctx.api.caller = "";
    }
  }

  private podEvent(type: string, pod: KObj): void {
    const uid = pod.metadata.uid;
    const structured = this.ctx.profile.structuredLogs;
    if (type === "DELETED") {
      this.workers.delete(uid);
      this.ctx.out.on && this.log("I", "kubelet.go:2120", structured ? `"SyncLoop REMOVE" source="api" pods=[${keyOf(pod)}]` : `SyncLoop (REMOVE, "api"): "${pod.metadata.name}_${pod.metadata.namespace}(${uid})"`);
      return;
    }
    // (every Pod delivery of this node comes here: the key is built only when a line or a new worker needs it)
    let w = this.workers.get(uid);
    if (!w) {
      const key = keyOf(pod);
      this.ctx.out.on && this.log("I", "kubelet.go:2096", structured ? `"SyncLoop ADD" source="api" pods=[${key}]` : `SyncLoop (ADD, "api"): "${pod.metadata.name}_${pod.metadata.namespace}(${uid})"`);
      const rt = runtimeOf(this.host).get(uid);
      const state: WorkerState = rt?.running ? "running" : "waiting";
      w = { uid, key, state, since: this.ctx.sim.now, retryAt: 0, statusReported: false, deleteRetryAt: 0, failedMount: null };
      this.ctx.out.podSynced(uid, this.ctx.sim.now);
      this.workers.set(uid, w);
      // The new worker's first pass acts only if it can start the pod's
      // containers at once (no volumes, or all mounted); else it only sets a
      // wake for the mount timeout (waitForAttachAndMount), and the mounts
      // wake the workers through the volume manager's group, so the pass is
      // deferred to the timeout. A worker for running containers, or one
      // terminating (below), has nothing to do here.
      if (state === "waiting" && pod.metadata.deletionTimestamp === undefined) {
        if ((pod.spec?.volumes?.length ?? 0) === 0 || this.vm.podVolumesAllMounted(uid)) this.ctx.sim.bump(this.workersWake);
        else this.ctx.sim.deferGroup(this.workersWake, w.since + this.ctx.timers.POD_ATTACH_AND_MOUNT_TIMEOUT_MS);
      }
      if (state === "waiting" && pod.status?.phase !== "Pending" && !pod.metadata.deletionTimestamp) this.patchPod(pod, "Pending", false);
    }
    if (pod.metadata.deletionTimestamp !== undefined && w.state !== "terminating") {
      w.state = "terminating";
      // a terminating worker's pass waits for the containers to stop (their
      // stop wakes it through the runtime's group): it acts now only if none run
      if (!runtimeOf(this.host).get(uid)?.running) this.ctx.sim.bump(this.workersWake);
      this.ctx.out.on && this.log("I", "kubelet.go:2126", structured ? `"SyncLoop DELETE" source="api" pods=[${w.key}]` : `SyncLoop (DELETE, "api"): "${pod.metadata.name}_${pod.metadata.namespace}(${uid})"`);
      this.killPod(pod);
    }
  }

  /** SIGTERM; the container exits after its stop time, capped by the grace period. */
  private killPod(pod: KObj): void {
    const { ctx } = this;
    const rt = runtimeOf(this.host).get(pod.metadata.uid);
    if (!rt || !rt.running || rt.stopping) return;
    rt.stopping = true;
    for (const c of pod.spec.containers ?? []) ctx.out.event("Normal", "Killing", podObject(pod.metadata.name), joinInterned("Stopping container", " ", c.name), this.eventSource, pod.metadata.namespace, pod.metadata.uid);
    const stopMs = parseStop(pod, ctx.timers.CONTAINER_STOP_MS);
    const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    ctx.sim.call(ctx.sim.now + Math.min(stopMs, graceMs), containersExited, new ContainerExit(this.host, ctx, rt, pod.metadata.uid));
  }

  /** the status manager's write: phase, conditions and container states with their times (api/podstatus.ts) */
  private patchPod(pod: KObj, phase: string, running: boolean, terminated = false): void {
    this.podPhase = phase;
    this.podState = running ? "running" : terminated ? "terminated" : "waiting";
    const api = this.ctx.api;
    api.caller = this.component;
    api.subresource = "status";
    try {
      api.patch("Pod", keyOf(pod), Kubelet.mutatePodStatus, undefined, this);
    } catch {
      /* pod gone, or the write refused */
    } finally {
      api.caller = "";
      api.subresource = "";
    }
  }
  /** the pod status patch in progress (read by mutatePodStatus) */
  /** the phase and container state patchPod is writing, read by mutatePodStatus within that call only */
  private podPhase = "";
  private podState: ContainerState = "waiting";
  /** patchPod's change (a function made once, not a closure per patch: api/apiserver.ts patch) */
  private static mutatePodStatus(d: KObj, k: Kubelet): boolean {
    const { ctx } = k;
    d.status = kubeletPodStatus(d, d.status, k.podPhase, k.podState, ctx.sim.now, ctx.profile.version.minor, ctx.out.podSyncedAt.get(d.metadata.uid));
    return true;
  }

  private syncPods(): void {
    const { ctx } = this;
    const t = ctx.timers;
    const now = ctx.sim.now;
    for (const w of this.workers.values()) {
      const pod = this.podByUID(w.uid);
      if (!pod) continue;
      switch (w.state) {
        case "backoff":
          if (now < w.retryAt) {
            ctx.sim.wakeAt(w.retryAt);
            break;
          }
          w.state = "waiting";
          w.since = now;
          // narrowsOnly: this pass goes on to wait for the volumes as the next
          // one would, so the next pass repeats it (idle) unless what it reads changes
          ctx.sim.bump(this.workersWake, true);
          this.waitForAttachAndMount(pod, w, now);
          break;
        case "waiting":
          this.waitForAttachAndMount(pod, w, now);
          break;
        case "terminating": {
          const rt = runtimeOf(this.host).get(w.uid);
          if (rt?.running) break;
          if (!w.statusReported) {
            w.statusReported = true;
            ctx.sim.bump(this.workersWake);
            this.patchPod(pod, pod.status?.phase === "Running" ? "Succeeded" : pod.status?.phase ?? "Pending", false, true);
            break;
          }
          // status manager: delete once resources are reclaimed (no mounted volumes)
          if (!this.vm.dsw.has(w.uid) && !this.vm.podHasMountedVolumes(w.uid) && this.vm.statesSynced) {
            if (now < w.deleteRetryAt) ctx.sim.wakeAt(w.deleteRetryAt);
            else if (ctx.api.tryGet("Pod", w.key)?.metadata.uid === w.uid) {
              ctx.api.caller = this.component;
              try {
                ctx.api.delete("Pod", w.key, 0);
              } catch (e) {
                // status_manager.go syncPod: a refused delete is logged and sent
                // again at the next sync, every 10 s (syncPeriod); it was thrown
                // out of the replay. (The source line is not checked against each
                // release.)
                if (!(e instanceof ApiError)) throw e;
                const structured = ctx.profile.structuredLogs;
                this.ctx.out.on &&
                  this.log("I", "status_manager.go:700", structured ? `"Failed to delete status for pod" pod=${JSON.stringify(w.key)} err=${JSON.stringify(e.message)}` : `Failed to delete status for pod "${pod.metadata.name}_${pod.metadata.namespace}(${w.uid})": ${e.message}`);
                w.deleteRetryAt = now + STATUS_SYNC_PERIOD_MS;
                ctx.sim.wakeAt(w.deleteRetryAt);
              } finally {
                ctx.api.caller = "";
              }
            }
          }
          break;
        }
        default:
          break;
      }
    }
  }

  private waitForAttachAndMount(pod: KObj, w: Worker, now: number): void {
    const { ctx } = this;
    const t = ctx.timers;
    // volumemanager.WaitForAttachAndMount: a pod without volumes has nothing
    // to wait for (getExpectedVolumes is empty: return nil at once); the
    // volume manager's desired state never holds an entry for it
    if ((pod.spec?.volumes?.length ?? 0) === 0 || this.vm.podVolumesAllMounted(w.uid)) {
      w.state = "starting";
      // narrowsOnly: the workers' next pass skips a starting worker (no case for it)
      ctx.sim.bump(this.workersWake, true);
      this.startContainers(pod, w);
      return;
    }
    if (now - w.since >= t.POD_ATTACH_AND_MOUNT_TIMEOUT_MS) {
      const m = this.vm.podVolumesMounted(w.uid);
      const old = ctx.profile.version.minor <= 16;
      const unmounted = `[${m.unmounted.join(" ")}]`;
      const unattached = `[${m.unattached.join(" ")}]`;
      const podName = `"${pod.metadata.name}_${pod.metadata.namespace}(${w.uid})"`;
      let f = w.failedMount;
      // Three texts, as upstream builds them: volumemanager.WaitForAttachAndMount's
      // error, kubelet.syncPod's FailedMount event and log line, which wrap it,
      // and the pod worker's line, which gets syncPod's error (the bare one):
      //   1.10-1.16: "timeout expired waiting for volumes to attach or mount for pod %q/%q.
      //     list of unmounted volumes=%v. list of unattached volumes=%v"; the event
      //     "Unable to mount volumes for pod %q: %v", the log "...; skipping pod"
      //   1.17+: "unmounted volumes=%v, unattached volumes=%v: %s" (wait.ErrWaitTimeout:
      //     "timed out waiting for the condition"); the event "Unable to attach or
      //     mount volumes: %v"; from 1.21 the log lines are klog.ErrorS
      //     (kubelet.go syncPod: "Unable to attach or mount volumes for pod; skipping pod").
      // Not modelled: 1.25+'s ", failed to process volumes=[...]" before the colon.
      // (a worker's pod, and so its name, is the same at every retry)
      if (f === null || f.unmounted !== unmounted || f.unattached !== unattached) {
        const err = old
          ? `timeout expired waiting for volumes to attach or mount for pod "${pod.metadata.namespace}"/"${pod.metadata.name}". list of unmounted volumes=${unmounted}. list of unattached volumes=${unattached}`
          : `unmounted volumes=${unmounted}, unattached volumes=${unattached}: timed out waiting for the condition`;
        const msg = old ? `Unable to mount volumes for pod ${podName}: ${err}` : `Unable to attach or mount volumes: ${err}`;
        w.failedMount = f = { unmounted, unattached, err, msg, object: podObject(pod.metadata.name) };
      }
      const err = f.err;
      ctx.out.event("Warning", "FailedMount", f.object, f.msg, this.eventSource, pod.metadata.namespace, pod.metadata.uid);
      if (this.ctx.out.on) {
        const structured = ctx.profile.structuredLogs;
        // line numbers: kubelet.go:1635 as a 1.10 kubelet printed it, 1682 a 1.20 one (kubernetes/kubernetes#103530),
        // 1841 a 1.25/1.26 one; pod_workers.go as before (see README "What the log lines match")
        const line = old ? "kubelet.go:1635" : structured ? "kubelet.go:1841" : "kubelet.go:1682";
        this.log(
          "E",
          line,
          structured
            ? `"Unable to attach or mount volumes for pod; skipping pod" err=${JSON.stringify(err)} pod=${JSON.stringify(w.key)}`
            : old
              ? `Unable to mount volumes for pod ${podName}: ${err}; skipping pod`
              : `Unable to attach or mount volumes for pod ${podName}: ${err}; skipping pod`,
        );
        this.log("E", structured ? "pod_workers.go:951" : "pod_workers.go:190", structured ? `"Error syncing pod, skipping" err=${JSON.stringify(err)} pod=${JSON.stringify(w.key)} podUID=${w.uid}` : `Error syncing pod ${w.uid} (${podName}), skipping: ${err}`);
      }
      ctx.steps.step("kubelet.WaitForAttachAndMountTimeout", w.key);
      w.state = "backoff";
      w.retryAt = now + t.POD_WORKER_BACKOFF_MS + Math.floor(ctx.sim.rng.float() * 0.5 * t.POD_WORKER_BACKOFF_MS);
      // narrowsOnly: until retryAt the workers' next pass only sets this wake
      ctx.sim.bump(this.workersWake, true);
      ctx.sim.wakeAt(w.retryAt);
    } else ctx.sim.wakeAt(w.since + t.POD_ATTACH_AND_MOUNT_TIMEOUT_MS);
    
  }

  private startContainers(pod: KObj, w: Worker): void {
    const { ctx } = this;
    ctx.monitor.podStarting(w.key, w.uid, this.nodeName);
    ctx.sim.call(ctx.sim.now + ctx.timers.CONTAINER_START_MS, Kubelet.containersDue, new ContainerStart(this, pod, w));
  }

  /** the containers of `w`'s pod start, CONTAINER_START_MS after startContainers (unless the worker moved on) */
  private runContainers(pod: KObj, w: Worker): void {
    const { ctx } = this;
    if (this.dead || w.state !== "starting") return;
    const fresh = this.podByUID(w.uid);
    if (!fresh || fresh.metadata.deletionTimestamp !== undefined) return;
    const rt: RuntimePod = { running: true, stopping: false, nsIds: [] };
    runtimeOf(this.host).set(w.uid, rt);
    const vols = (pod.spec.volumes ?? []) as PodVolume[];
    for (const c of (pod.spec.containers ?? []) as Array<{ name: string; volumeMounts?: Array<{ name: string; mountPropagation?: "None" | "HostToContainer" | "Bidirectional" }> }>) {
      const paths: string[] = [];
      let root: string | null = null;
      let prop: "None" | "HostToContainer" | "Bidirectional" = "None";
      for (const vm of c.volumeMounts ?? []) {
        const v = vols.find((x) => x.name === vm.name);
        if (!v) continue;
        if (v.hostPath) {
          root = v.hostPath.path;
          prop = vm.mountPropagation ?? "None";
          continue;
        }
        for (const a of this.vm.asw.values()) {
          const spec = a.pods.get(w.uid);
          if (spec === undefined) continue;
          if (spec !== v.name && !a.spec.pv) continue;
          const p = podVolumePaths(this.host, w.uid, a.plugin.dirName, spec);
          paths.push(p.dir, p.mount);
        }
      }
      const id = `${w.uid}/${c.name}`;
      this.host.startNamespace(id, `${pod.metadata.namespace}/${pod.metadata.name}/${c.name}`, paths, root, prop, ctx.propagationDelayMs);
      rt.nsIds.push(id);
    }
    w.state = "running";
    // the runtime's new pod (host state) and the worker's state
    ctx.sim.bump(this.host.runtimeWake);
    this.patchPod(fresh, "Running", true);
    for (const c of pod.spec.containers ?? []) ctx.out.event("Normal", "Started", podObject(pod.metadata.name), joinInterned("Started container", " ", c.name), this.eventSource, pod.metadata.namespace, pod.metadata.uid);
    ctx.steps.step("kubelet.PodRunning", w.key);
  }
  /** Sim.call's function for a ContainerStart (made once: no closure per start) */
  static containersDue(s: ContainerStart): void {
    s.kubelet.runContainers(s.pod, s.w);
  }

  // ---- node status reporting (k8s-releases: #72096, #84007) ----
  /**
   * kubelet_node_status.go tryUpdateNodeStatus: the status is written when
   * it changed (Ready, volumesInUse) or, unchanged, when
   * nodeStatusReportFrequency has passed since the last write (1.10-1.13:
   * every nodeStatusUpdateFrequency, 10 s; #72096, 1.14: 1 min; #84007, 1.17:
   * 5 min; from 1.34, #128394, the first unchanged report after a change
   * or a start comes a random delay earlier or later: delayAfterNodeStatusChange).
   * Each write sets the Ready condition's lastHeartbeatTime, so an
   * unchanged report is a real write: every watcher of the Node gets an
   * update (the attach/detach controller re-reads volumesInUse, which is
   * how it learns that a volume it assumed mounted after an attach is not).
   */
  private syncNodeStatus(): void {
    const { ctx } = this;
    const now = ctx.sim.now;
    const inUse = this.vm.statesSynced ? this.vm.getVolumesInUse() : null;
    const reportMs = ctx.profile.nodeStatusReportMs || ctx.timers.NODE_STATUS_UPDATE_FREQUENCY_MS;
    const arg = this.statusArg;
    arg.inUse = inUse;
    arg.now = now;
    // (isUpdateStatusPeriodExpired: never written since the start, or the period and its delay passed)
    arg.report = now - this.lastStatusWriteAt >= reportMs + this.delayAfterNodeStatusChange;
    let written: KObj;
    const before = ctx.api.tryGet("Node", this.nodeName);
    const unchanged = before !== undefined && !notReady(before) && (inUse === null || !volumesInUseDiffer(before, inUse));
    ctx.api.caller = this.component;
    ctx.api.subresource = "status";
    // an unchanged report: no loop reads the heartbeat time from the store
    ctx.api.unreadWrite = arg.report && unchanged;
    arg.unchanged = unchanged;
    try {
      written = ctx.api.patch("Node", this.nodeName, mutateNodeStatus, nodeStatusChanges, arg);
    } catch {
      // the status is sent again on the next pass: that pass is not idle (engine/sim.ts section 3)
      ctx.sim.wakeAt(now + 1);
      return;
    } finally {
      ctx.api.caller = "";
      ctx.api.subresource = "";
      ctx.api.unreadWrite = false;
    }
    if (written !== before) {
      // #128394 (#130919, 1.34): a status change or the kubelet's first write draws the next
      // unchanged report's delay; an unchanged report puts it back to 0
      if (ctx.profile.has.pr128394) this.delayAfterNodeStatusChange = !unchanged || this.lastStatusWriteAt === -Infinity ? this.calculateDelay(reportMs) : 0;
      this.lastStatusWriteAt = now;
    }
    // the next unchanged report: the pass at or after it is not idle
    ctx.sim.wakeAt(this.lastStatusWriteAt + reportMs + this.delayAfterNodeStatusChange);
    if (inUse) this.vm.markVolumesAsReportedInUse(inUse);
  }
  /** when this kubelet last wrote its node's status */
  private lastStatusWriteAt = -Infinity;
  /**
   * kubelet.go delayAfterNodeStatusChange (#128394, relanded as #130919 in
   * 1.34; switch `128394`): "the one-time random duration that we add to
   * the next node status report interval every time when there's an actual
   * node status change or kubelet restart. But all future node status
   * update that is not caused by real status change will stick with
   * nodeStatusReportFrequency", uniform over [-0.5, 0.5) x
   * nodeStatusReportFrequency (calculateDelay). Drawn from a stream of the
   * run's seed per node (hostDelayRng), so the run's other draws do not
   * move and a restarted kubelet draws anew. 0 before 1.34.
   */
  private delayAfterNodeStatusChange = 0;
  /** calculateDelay: nodeStatusReportFrequency x (-0.5 + rand.Float64()), in whole milliseconds */
  private calculateDelay(reportMs: number): number {
    let rng = hostDelayRng.get(this.host);
    if (rng === undefined) hostDelayRng.set(this.host, (rng = new Rng((this.ctx.sim.seed ^ strHash(`delayAfterNodeStatusChange/${this.nodeName}`)) >>> 0)));
    return Math.floor(reportMs * (rng.float() - 0.5));
  }
  /** syncNodeStatus's patch argument (one object per kubelet, not one per pass) */
  private readonly statusArg: NodeStatusArg = { inUse: null, now: 0, report: false, unchanged: false };
  // ---- end node status reporting ----

  private housekeeping(): void {
    const logged = (this.orphansLogged ??= new Set());
    for (const uid of this.podDirUIDs()) {
      if (this.podByUID(uid) || logged.has(uid)) continue;
      if (runtimeOf(this.host).get(uid)?.running) continue;
      logged.add(uid);
      this.ctx.out.on && this.log("E", "kubelet_volumes.go:245", this.ctx.profile.structuredLogs ? `"There were many similar errors. Turn up verbosity to see them." err="orphaned pod \\"${uid}\\" found, but volume paths are still present on disk" numErrs=1` : `orphaned pod "${uid}" found, but volume paths are still present on disk : There were a total of 1 errors similar to this. Turn up verbosity to see them.`);
    }
  }

  /**
   * UIDs of the pods with a directory under <root>/pods/, in the order first
   * seen; rebuilt only when a directory was made or removed (Host.dirsVersion)
   */
  private podDirUIDs(): readonly string[] {
    const h = this.host;
    if (this.podDirsVersion === h.dirsVersion) return this.podDirs;
    // (a handful: an array beats a Set)
    const uids: string[] = [];
    for (const p of h.dirs.keys()) {
      const uid = this.podDirUID(p);
      if (uid !== null && !uids.includes(uid)) uids.push(uid);
    }
    this.podDirs = uids;
    this.podDirsVersion = h.dirsVersion;
    return uids;
  }
  private podDirs: readonly string[] = [];
  private podDirsVersion = -1;
  /**
   * The pod UID a directory is under (null if none), each path cut once: the
   * list is rebuilt at every directory made or removed, from the same paths
   * (whose hash the host's map has already computed), and the same UID
   * string comes back each time (the orphan set hashes it once).
   */
  private podDirUID(p: string): string | null {
    const dirUIDs = (this.dirUIDs ??= new Map());
    let uid = dirUIDs.get(p);
    if (uid === undefined) {
      const prefix = (this.podsPrefix ??= `${this.ctx.kubeletRoot}/pods/`);
      if (!p.startsWith(prefix)) uid = null;
      else {
        const end = p.indexOf("/", prefix.length);
        uid = end < 0 ? p.slice(prefix.length) : p.slice(prefix.length, end);
      }
      dirUIDs.set(p, uid);
    }
    return uid;
  }
  /** (made by housekeeping's first pass, as orphansLogged) */
  private dirUIDs: Map<string, string | null> | undefined = undefined;
  private podsPrefix: string | undefined = undefined;

  /** pods this kubelet treats as running (for tests and outputs) */
  runningPods(): string[] {
    return [...this.workers.values()].filter((w) => w.state === "running").map((w) => w.key);
  }

  isTerminal = isTerminal;
}

/** the kinds of the kubelet's watch whose events it never reads (ApiServer.informer unreadKinds) */
const UNREAD_KINDS: readonly Kind[] = ["Node", "CSIDriver"];

/** a pod's containers due to start (startContainers) */
class ContainerStart {
  constructor(
    readonly kubelet: Kubelet,
    readonly pod: KObj,
    readonly w: Worker,
  ) {}
}

/**
 * A pod's containers due to exit after their SIGTERM (killPod). Host state: the
 * exit happens whatever becomes of the kubelet that sent the signal.
 */
class ContainerExit {
  constructor(
    readonly host: Host,
    readonly ctx: Ctx,
    readonly rt: RuntimePod,
    readonly uid: string,
  ) {}
}
function containersExited(x: ContainerExit): void {
  const { host, ctx, rt } = x;
  for (const id of rt.nsIds) host.stopNamespace(id);
  rt.running = false;
  rt.stopping = false;
  ctx.sim.bump(host.runtimeWake);
  ctx.steps.step("runtime.ContainersStopped", x.uid);
}

/**
 * A kubelet's component name and the names of its wake groups and loops,
 * built once per node name (every run of a scenario starts its kubelets
 * again, and the same strings serve them all).
 */
interface KubeletNames {
  component: string;
  dswp: string;
  unread: string;
  pods: string;
  workers: string;
  volumes: string;
  reconciler: string;
  podworkers: string;
  nodestatus: string;
  housekeeping: string;
}
const kubeletNames = boundedMemo(1024, (nodeName: string): KubeletNames => {
  const c = `kubelet/${nodeName}`;
  return { component: c, dswp: `${c}/dswp`, unread: `${c}/unread`, pods: `${c}/pods`, workers: `${c}/workers`, volumes: `${c}/volumes`, reconciler: `${c}/reconciler`, podworkers: `${c}/podworkers`, nodestatus: `${c}/nodestatus`, housekeeping: `${c}/housekeeping` };
});

/**
 * The node status patch: Ready, and volumesInUse when the volume manager's
 * states are synced (`inUse` not null). Made once (api/apiserver.ts patch).
 */
interface NodeStatusArg {
  inUse: readonly string[] | null;
  now: number;
  /** nodeStatusReportFrequency has passed: write even if nothing changed */
  report: boolean;
  /** the stored status is Ready with these volumesInUse (syncNodeStatus read it just before the patch) */
  unchanged: boolean;
}
/** each node's stream for delayAfterNodeStatusChange: on its host, so it goes on across kubelet restarts */
const hostDelayRng = new WeakMap<Host, Rng>();
/** FNV-1a of a string (a stream's seed from the run's seed and a name) */
function strHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
/** the patch writes: a report is due, or the status syncNodeStatus read is not what it sends */
function nodeStatusChanges(_cur: KObj, a: NodeStatusArg): boolean {
  return a.report || !a.unchanged;
}
function mutateNodeStatus(d: KObj, a: NodeStatusArg): boolean {
  const inUse = a.inUse;
  const setInUse = !a.unchanged && inUse !== null && volumesInUseDiffer(d, inUse);
  // every write renews the Ready condition's heartbeat (setNodeReadyCondition):
  // the other conditions as they are, Ready last (loops, one shape: no spread)
  const st = d.status;
  const conds = (st?.conditions ?? EMPTY_CONDS) as ReadonlyArray<{ type: string }>;
  const ready = new ReadyCondition(a.now);
  let out: Array<{ type: string }>;
  if (conds.length === 0 || (conds.length === 1 && conds[0]!.type === "Ready")) out = [ready]; // (the usual case: a one-element literal, not a grown array)
  else {
    out = [];
    for (let i = 0; i < conds.length; i++) if (conds[i]!.type !== "Ready") out.push(conds[i]!);
    out.push(ready);
  }
  // (a copy, then its fields set: the keys in the order Object.assign({}, st,
  // {conditions, volumesInUse}) gives them, without the second source object)
  const s = Object.assign({}, st);
  s.conditions = out;
  if (setInUse) s.volumesInUse = inUse;
  d.status = s;
  return true;
}
const EMPTY_CONDS: ReadonlyArray<{ type: string }> = [];
/** the Ready condition a kubelet writes (a class: one shape for every write) */
class ReadyCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly lastHeartbeatTime: number;
  constructor(t: number) {
    // (in this order: the JSON of the final objects lists the keys so)
    this.type = "Ready";
    this.status = "True";
    this.reason = "KubeletReady";
    this.lastHeartbeatTime = t;
  }
}

/**
 * The kubelet's watch selectors: upstream's kubelet watches pods with a
 * spec.nodeName field selector and nodes with metadata.name, so another
 * node's pods and Node never reach its cache.
 */
function onNodeFields(obj: KObj, nodeName: string): boolean {
  return obj.kind === "Pod" ? obj.spec?.nodeName === nodeName : obj.kind !== "Node" || obj.metadata.name === nodeName;
}

/** the node's Ready condition is not True */
function notReady(o: KObj): boolean {
  const conds = (o.status?.conditions ?? []) as Array<{ type: string; status: string }>;
  for (let i = 0; i < conds.length; i++) if (conds[i]!.type === "Ready") return conds[i]!.status !== "True";
  return true;
}

/** node.status.volumesInUse is not `inUse` */
function volumesInUseDiffer(o: KObj, inUse: readonly string[]): boolean {
  const cur = (o.status?.volumesInUse ?? []) as string[];
  if (cur.length !== inUse.length) return true;
  for (let i = 0; i < cur.length; i++) if (cur[i] !== inUse[i]) return true;
  return false;
}

function parseStop(pod: KObj, dflt: number): number {
  const a = pod.metadata.annotations?.["iosim.dev/stop-after"];
  if (!a) return dflt;
  const m = /^(\d+)(ms|s|m)?$/.exec(a);
  if (!m) return dflt;
  const n = Number(m[1]);
  return m[2] === "ms" ? n : m[2] === "m" ? n * 60000 : n * 1000;
}
