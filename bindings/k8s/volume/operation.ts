// Volume operations as upstream runs them: each call a plugin makes (a cloud
// API's attach, a CSI driver's NodeStage, an in-tree plugin's mount(8)) takes
// simulated time, may fail, time out or hang, and completes as an event of
// its own, beside the loop that started it.
//
// 1. Where a call runs.
//
//    Upstream, operation_executor starts every operation (AttachVolume,
//    MountVolume, UnmountDevice, ...) in a goroutine of its own, guarded by
//    nestedpendingoperations (util/nestedpendingoperations.ts): one
//    operation per key at a time. The loop that started it (the attach/detach
//    controller's reconciler, the kubelet's volume reconciler) goes on with
//    its pass and its next passes; it only sees the operation through the
//    pending-operations table and through what the operation writes when it
//    ends (the actual state of world, node status, events). The replay does
//    the same: `NestedPendingOperations.run` schedules the operation's start
//    as an event at the current instant (after the pass that started it),
//    and each call the operation makes is planned here (`Backend.call`: its
//    latency, from `settings.latencies` per operation and per plugin, and a
//    matching fault's `latency` and `outcome`) and answered by an event at
//    its time. A call of latency 0 (the in-tree plugins' mount and unmount by
//    default) runs synchronously, as every in-tree mount did before calls
//    took time, so outputs without latencies are what they were (every other
//    call is an event even at latency 0, as it was).
//
// 2. Outcomes of a call (`faults.storage[].outcome`, CallOutcome).
//
//      (none)       success after the latency: the work lands, the caller is told
//      error        the caller is told `error` after the latency; nothing lands
//      timeout      the caller gives up at its deadline; nothing lands
//      timeoutDone  the caller gives up at its deadline; the work lands anyway
//                   at the latency (before or after the deadline)
//      hang         nothing until the fault's `until` (never without one): then
//                   the work lands and, if the caller is still waiting, it is told
//                   of success; a caller with a deadline gives up at it first
//
//    The deadline: CSI calls from the kubelet and the controller carry a
//    context with csiTimeout (2 min, `timers.CSI_TIMEOUT_MS`; csi_plugin.go);
//    the in-tree plugins' mount(8)/umount(8) and the cloud SDK calls have
//    none in the model, so there "timeout"/"timeoutDone" end the call at the
//    fault's latency (the SDK's own timeout) and a hang is a hang.
//    A CSI error carries a gRPC code (`code:`, default Internal; a deadline
//    is DeadlineExceeded) and reads `rpc error: code = C desc = D`. Whether it
//    is final (csi_client.go isFinalError): Canceled, DeadlineExceeded,
//    Unavailable, ResourceExhausted and Aborted are not (the driver may still
//    be working), every other code is. Since #82492 (1.18.0) the CSI plugin
//    returns a non-final NodeStage/NodePublish error as an
//    UncertainProgressError and the kubelet records the device or volume
//    mount as uncertain (kubelet/volume_manager.ts section 5); in-tree
//    plugins return plain errors, which are final.
//
//    A CSI node driver serialises its calls per volume (the CSI spec's
//    advice; csi-driver-host-path does it): while a NodeStage or NodePublish
//    is still running (even after the kubelet gave up), another call for the
//    same volume or target is answered at once with `code = Aborted desc =
//    an operation with the given Volume ID ... already exists`, a non-final
//    error (volume/csi.ts, Host.csiNodeBusy). Its controller service does
//    the same per volume and node for ControllerPublish/Unpublish
//    (csi/external_attacher.ts, Backend.csiControllerBusy): a detach asked
//    while a timed-out publish still runs is answered Aborted and retried,
//    so the publish cannot land after the unpublish (aws-ebs-csi-driver's
//    inFlight does this).
//
//    What a call that timed out but landed leaves, per plugin, call and
//    disruption (a pod deletion, a kubelet or controller-manager restart
//    inside it), on 1.13/1.14/1.17/1.18/1.35, each row with the upstream
//    code path that leaves it: test/k8s/disruption-table.test.ts. In short:
//    CSI NodeStage/NodePublish leak before #82492 (1.18); an attach before
//    the controller's uncertain attach (1.14); an in-tree MountDevice on
//    every release (attacher.go MountDevice removes the mount point
//    directory, which fails on the mount that landed, and the error is
//    final); rbd's MountDevice, SetUp (diskSetUp does not unmount) and map
//    leave the image mapped; aws/gce SetUpAt unmount what landed (clean).
//
// 3. What can interleave, and why.
//
//    A call's answer is an ordinary event (engine/sim.ts, class 0) at its
//    time: it lands before any loop pass due at that instant, and between any
//    two passes otherwise. So between two passes of the kubelet's reconciler
//    (100 ms apart) any number of calls can end, a pod can be deleted, a
//    kubelet or controller-manager can restart, a holdMount can begin: the
//    timeline's `after:`/`between:` items can name every call's steps
//    (`csi.NodeStageStarted`, `csi.NodeStageTimedOut`, `mount.UnmountDeviceLanded`,
//    `kubelet.MountDeviceFailed`, ...) to place an action inside any
//    operation.
//
//    Upstream a pass is not atomic either: the reconcilers take copies of
//    their caches and read the pending-operations table while the
//    operations' goroutines go on, so an operation can end between two
//    reads of one pass. Without `settings.interleave` the replay keeps a
//    pass atomic, and a call ending at the instant of a pass lands before it
//    (the order of every run before interleavings were modelled). With
//    `settings.interleave: true` the run's seed draws, for each call's end,
//    whether it lands before the passes at its instant or not; one that does
//    not may land inside a pass of the loop that reads what it writes, at an
//    interleave point (engine/sim.ts yieldPoint: one draw per point), else
//    after the passes. `iosim mc` over seeds explores all three. The points,
//    each between a read of a copy and the read it is checked against:
//
//      attach/detach controller reconciler (reconciler.go reconcile; the
//      ends of attach, detach, ControllerPublish/Unpublish, VerifyVolumesAreAttached):
//        (a) after GetAttachedVolumes, before IsOperationPending of each
//            volume to detach: a detach ending here leaves the copy stale
//            (issue #93902; #94599 re-reads the ASW, before it
//            SetDetachRequestTime fails: "Cannot trigger detach ...")
//        (b) between the detach and the attach loops: a detach ending here
//            lets this pass's attach start
//        (c) after GetVolumesToAttach, before IsOperationPending of each
//        (d) before UpdateNodeStatuses: an attach ending here is reported
//            in this pass's node status patch
//      kubelet volume reconciler (volumemanager/reconciler; the ends of the
//      node's NodeStage/Publish/Unpublish/Unstage, mount, SetUp, TearDown,
//      UnmountDevice, rbd map/unmap):
//        unmountVolumes: after GetAllMountedVolumes, before UnmountVolume's
//            Run: a TearDown ending here starts a second one
//        mountOrAttachVolumes: after PodExistsInVolume, before
//            MountVolume's (or VerifyControllerAttachedVolume's) Run: a
//            MountVolume ending here starts a second SetUp (NodePublish)
//        unmountDetachDevices: after GetUnmountedVolumes, before
//            IsOperationPending: a MountVolume whose MountDevice landed and
//            whose SetUp failed ends here; the copy says "not globally
//            mounted", MarkVolumeAsDetached drops the volume, the global
//            mount leaks and the controller detaches the disk under it
//            (mc example bindings/mc/examples/k8s-mount-device-interleave.yaml)
//
//    Upstream's order is fixed between these reads and the loop's own
//    writes (the reconciler takes no lock across a pass, but each cache
//    method holds its own), which is why a point sits only between reads.
//    Not interleaved: the kubelet's desired_state_of_world_populator (in
//    the replay it reads the pods and the runtime, which no call's end
//    writes; upstream's read of the ASW in findAndRemoveDeletedPods,
//    PodRemovedFromVolume #76980, is not modelled) and the controller's
//    populator and sync loops. A call's end lands only inside its reader's
//    passes (the controller's, or its node's kubelet's): inside any other
//    loop's pass it is the same as before or after it. Each reader loop is
//    made to pass at the instant of a late call end on its grid, so runs
//    that skip idle passes meet the same points as runs ticking every
//    period (scenario/idleskip.test.ts; test/k8s/interleave.test.ts).
//    Before a 0 ms call (the in-tree plugins' default) there is no point:
//    it runs synchronously, as before.

// 4. Worked example (1.17 vs 1.18, a NodeStage that times out but completes).
//    A CSI PV's pod starts at 0 s on n1; `faults.storage: [{op: nodeStage,
//    outcome: timeoutDone, latency: 150s}]`. At ~2.5 s MountVolume starts and
//    calls NodeStage (`csi.NodeStageStarted`). At +2 min the kubelet's
//    context expires: `rpc error: code = DeadlineExceeded desc = context
//    deadline exceeded` (`csi.NodeStageTimedOut`, `kubelet.MountDeviceFailed`).
//    1.17 records nothing; 1.18 marks the device mount uncertain. The pod is
//    deleted at 2m10s; at 2m32.5s the driver finishes staging anyway
//    (`csi.NodeStageLanded`): the global mount exists. 1.17's reconciler
//    finds the volume neither desired nor device-mounted and drops it
//    without UnmountDevice: the staging mount stays for ever (and the
//    controller detaches the disk under it). 1.18 calls UnmountDevice for
//    the uncertain device: NodeUnstage removes the mount, then the detach.

import type { Ctx } from "../engine/context.js";
import type { CallPlan, GrpcCode } from "../host/backend.js";
import { formatGoDuration } from "../engine/sim.js";

/** A call's failure as its caller sees it. */
export interface CallError {
  /** the error text (a CSI error is `rpc error: code = C desc = D`) */
  text: string;
  /** gRPC code of a CSI call's error, null for an in-tree one */
  code: GrpcCode | null;
  /** the operation may still be in progress (csi_client.go !isFinalError) */
  nonFinal: boolean;
  /** the caller gave up at its deadline */
  timedOut: boolean;
}

/** csi_client.go isFinalError: false for codes after which the driver may still be working */
export function isFinalCode(code: GrpcCode): boolean {
  return !(code === "Canceled" || code === "DeadlineExceeded" || code === "Unavailable" || code === "ResourceExhausted" || code === "Aborted");
}

/** The steps of one kind of call: `<prefix>Started`, `Succeeded`, `Failed`, `TimedOut`, `Landed` */
export const CALL_STEP_PREFIX = {
  attach: "cloud.Attach",
  detach: "cloud.Detach",
  controllerPublish: "csi.ControllerPublish",
  controllerUnpublish: "csi.ControllerUnpublish",
  nodeStage: "csi.NodeStage",
  nodeUnstage: "csi.NodeUnstage",
  nodePublish: "csi.NodePublish",
  nodeUnpublish: "csi.NodeUnpublish",
  rbdMap: "rbd.Map",
  rbdUnmap: "rbd.Unmap",
  verifyAttached: "adc.VerifyVolumesAreAttached",
  mountDevice: "mount.MountDevice",
  setUp: "mount.SetUp",
  tearDown: "mount.TearDown",
  unmountDevice: "mount.UnmountDevice",
  // volume expansion (expand/expand_controller.ts, kubelet/volume_manager.ts section 6)
  expandVolume: "cloud.ExpandVolume",
  controllerExpand: "csi.ControllerExpand",
  nodeExpand: "csi.NodeExpand",
  resizeFs: "mount.ResizeFS",
} as const;
export type CallKind = keyof typeof CALL_STEP_PREFIX;
export const CALL_PHASES = ["Started", "Succeeded", "Failed", "TimedOut", "Landed"] as const;
export type CallStepName = `${(typeof CALL_STEP_PREFIX)[CallKind]}${(typeof CALL_PHASES)[number]}`;

/** the kubelet's and the controller's operations: `kubelet.MountDeviceStarted` ... (kubelet/volume_manager.ts, attachdetach) */
export const OPERATION_STEP_PREFIX = ["kubelet.MountDevice", "kubelet.SetUp", "kubelet.TearDown", "kubelet.UnmountDevice", "adc.Attach", "adc.Detach", "kubelet.NodeExpand", "expand.ExpandVolume"] as const;
export const OPERATION_PHASES = ["Started", "Succeeded", "Failed"] as const;
export type OperationStepName = `${(typeof OPERATION_STEP_PREFIX)[number]}${(typeof OPERATION_PHASES)[number]}`;

/** every step name this module and the operations announce */
export function operationStepNames(): string[] {
  const out: string[] = [];
  for (const p of Object.values(CALL_STEP_PREFIX)) for (const ph of CALL_PHASES) out.push(p + ph);
  for (const p of OPERATION_STEP_PREFIX) for (const ph of OPERATION_PHASES) out.push(p + ph);
  return out;
}

/** the calls the attach/detach controller makes (their ends land inside its passes); the others are node-local, the kubelet's */
const CONTROLLER_CALLS: ReadonlySet<CallKind> = new Set<CallKind>(["attach", "detach", "controllerPublish", "controllerUnpublish", "verifyAttached"]);

/**
 * The step names of one call kind, built once (`perform` announces them with
 * the volume as detail).
 */
class CallSteps {
  readonly started: CallStepName;
  readonly succeeded: CallStepName;
  readonly failed: CallStepName;
  readonly timedOut: CallStepName;
  readonly landed: CallStepName;
  /** a call of the attach/detach controller (its end lands inside the controller's passes), else of a node's kubelet */
  readonly controller: boolean;
  constructor(prefix: string, kind: CallKind) {
    this.controller = CONTROLLER_CALLS.has(kind);
    this.started = `${prefix}Started` as CallStepName;
    this.succeeded = `${prefix}Succeeded` as CallStepName;
    this.failed = `${prefix}Failed` as CallStepName;
    this.timedOut = `${prefix}TimedOut` as CallStepName;
    this.landed = `${prefix}Landed` as CallStepName;
  }
}
const STEPS = new Map<string, CallSteps>();
function stepsOf(kind: CallKind): CallSteps {
  let s = STEPS.get(kind);
  if (s === undefined) STEPS.set(kind, (s = new CallSteps(CALL_STEP_PREFIX[kind], kind)));
  return s;
}

/** `rpc error: code = C desc = D`, as grpc-go's status error prints */
export function rpcError(code: GrpcCode, desc: string): string {
  return `rpc error: code = ${code} desc = ${desc}`;
}

/**
 * Run one call planned by `Backend.call`.
 *
 * `land()` does the work on the node or at the backend (mount, stage,
 * attach) and returns the error the work itself met (EBUSY: a process holds
 * the mount) or null; `reply(err)` tells the caller. `csi`: the call is a CSI
 * RPC (gRPC codes, the csiTimeout deadline); otherwise the deadline is the
 * fault's latency. `volume` is the step's detail.
 */
export function perform(
  ctx: Ctx,
  kind: CallKind,
  plan: CallPlan,
  csi: boolean,
  volume: string,
  land: () => string | null,
  reply: (err: CallError | null) => void,
  /** the driver's side of the call is over (it landed, failed or gave up), whatever the caller was told: a CSI driver's per-volume lock */
  settled?: () => void,
  /** the caller's deadline when not csiTimeout (the external-attacher's --timeout) */
  deadlineMs?: number,
): void {
  const steps = stepsOf(kind);
  ctx.steps.step(steps.started, volume);
  // whose passes read what the call's end writes (engine/sim.ts afterCall): the controller's, or the node's kubelet's
  const tag = steps.controller ? "" : plan.node;
  const o = plan.outcome;
  if (o === null || o === "error") {
    // (a node-local call of no latency, an in-tree mount by default, runs at once, as before calls took time)
    if (plan.latencyMs === 0 && (kind === "mountDevice" || kind === "setUp" || kind === "tearDown" || kind === "unmountDevice")) return finish(ctx, steps, plan, csi, volume, land, reply, settled);
    // (the call's end as a record and a function made once: no closure per call)
    ctx.sim.afterCallWith(plan.latencyMs, finishCall, new CallEnd(ctx, steps, plan, csi, volume, land, reply, settled), tag);
    return;
  }
  const deadline = deadlineMs ?? (csi ? ctx.timers.CSI_TIMEOUT_MS : plan.latencyMs);
  let answered = false;
  const timeOut = (): void => {
    if (answered) return;
    answered = true;
    ctx.steps.step(steps.timedOut, volume);
    reply(timeoutError(csi, deadline));
  };
  if (o === "timeout") {
    // (the driver gives up at the latency, having done nothing)
    if (settled !== undefined) ctx.sim.afterCall(plan.latencyMs, settled, tag);
    ctx.sim.afterCall(deadline, timeOut, tag);
    return;
  }
  if (o === "timeoutDone") {
    // (at one instant the work lands first: the caller's error arrives after the driver finished)
    ctx.sim.afterCall(plan.latencyMs, () => {
      const e = land();
      if (e === null) ctx.steps.step(steps.landed, volume);
      settled?.();
    }, tag);
    ctx.sim.afterCall(deadline, timeOut, tag);
    return;
  }
  // hang
  if (csi) ctx.sim.afterCall(deadline, timeOut, tag);
  if (plan.hangUntilMs !== Infinity)
    ctx.sim.afterCall(plan.hangUntilMs - ctx.sim.now, () => {
      const e = land();
      if (e === null) ctx.steps.step(steps.landed, volume);
      settled?.();
      if (answered) return;
      answered = true;
      if (e !== null) {
        ctx.steps.step(steps.failed, volume);
        return reply({ text: e, code: csi ? "Internal" : null, nonFinal: false, timedOut: false });
      }
      ctx.steps.step(steps.succeeded, volume);
      reply(null);
    }, tag);
}

/** a call's end due (perform's common path: success or an error after the latency) */
class CallEnd {
  constructor(
    readonly ctx: Ctx,
    readonly steps: CallSteps,
    readonly plan: CallPlan,
    readonly csi: boolean,
    readonly volume: string,
    readonly land: () => string | null,
    readonly reply: (err: CallError | null) => void,
    readonly settled: (() => void) | undefined,
  ) {}
}
function finishCall(c: CallEnd): void {
  finish(c.ctx, c.steps, c.plan, c.csi, c.volume, c.land, c.reply, c.settled);
}

function finish(ctx: Ctx, steps: CallSteps, plan: CallPlan, csi: boolean, volume: string, land: () => string | null, reply: (err: CallError | null) => void, settled: (() => void) | undefined): void {
  if (plan.error !== null) {
    settled?.();
    ctx.steps.step(steps.failed, volume);
    const code = csi ? (plan.code ?? "Internal") : null;
    return reply({ text: plan.error, code, nonFinal: code !== null && !isFinalCode(code), timedOut: false });
  }
  const e = land();
  settled?.();
  if (e !== null) {
    ctx.steps.step(steps.failed, volume);
    return reply({ text: e, code: csi ? "Internal" : null, nonFinal: false, timedOut: false });
  }
  ctx.steps.step(steps.succeeded, volume);
  reply(null);
}

function timeoutError(csi: boolean, deadline: number): CallError {
  if (csi) return { text: "context deadline exceeded", code: "DeadlineExceeded", nonFinal: true, timedOut: true };
  return { text: `timed out waiting for the condition after ${formatGoDuration(deadline)}`, code: null, nonFinal: false, timedOut: true };
}

/** a CSI error as the plugin wraps it: `rpc error: code = C desc = text` (C Internal for an in-tree-style text) */
export function csiErrorText(err: CallError): string {
  return rpcError(err.code ?? "Internal", err.text);
}
