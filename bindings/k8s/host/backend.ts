// The storage backend: the cloud or array behind the plugins. It keeps the
// ground truth the invariants are checked against (which node a disk is really
// attached or published to) and applies the scenario's faults: an error for
// the next N calls of an operation, and per-operation latencies.
//
// Operations (names used in scenario `faults[].op`):
//   attach, detach                       in-tree cloud disk API (aws-ebs, gce-pd, qcloud-cbs)
//   controllerPublish, controllerUnpublish   CSI controller service (external-attacher)
//   nodeStage, nodeUnstage, nodePublish, nodeUnpublish   CSI node service
//   rbdMap, rbdUnmap                     the rbd CLI on the node
//
// An RWO volume refuses a second attachment while attached elsewhere, with the
// array's own error (Dell Unity: "Volume has been published to a different
// host already"), which is what made seed 004's leak visible.

import type { Sim, WakeGroup } from "../engine/sim.js";

export type BackendOp =
  | "attach"
  | "detach"
  | "controllerPublish"
  | "controllerUnpublish"
  | "nodeStage"
  | "nodeUnstage"
  | "nodePublish"
  | "nodeUnpublish"
  | "rbdMap"
  | "rbdUnmap"
  // node-local operations of in-tree plugins (volume/operation.ts): no storage backend call, not in `calls`
  | "mountDevice"
  | "setUp"
  | "tearDown"
  | "unmountDevice"
  // the attach/detach controller's VerifyVolumesAreAttached (a cloud DescribeInstances, a VolumeAttachment read)
  | "verifyAttached"
  // volume expansion (expand/expand_controller.ts): an in-tree plugin's ExpandVolumeDevice (the cloud's
  // resize API), CSI ControllerExpandVolume (external-resizer), CSI NodeExpandVolume and an in-tree
  // plugin's filesystem resize on the node (resize2fs / xfs_growfs: node-local)
  | "expandVolume"
  | "controllerExpand"
  | "nodeExpand"
  | "resizeFs";

export const BACKEND_OPS: readonly BackendOp[] = [
  "attach",
  "detach",
  "controllerPublish",
  "controllerUnpublish",
  "nodeStage",
  "nodeUnstage",
  "nodePublish",
  "nodeUnpublish",
  "rbdMap",
  "rbdUnmap",
  "mountDevice",
  "setUp",
  "tearDown",
  "unmountDevice",
  "verifyAttached",
  "expandVolume",
  "controllerExpand",
  "nodeExpand",
  "resizeFs",
];

/** the in-tree plugins' node-local operations (no storage backend call: not counted in `Backend.calls`) */
export const NODE_LOCAL_OPS: readonly BackendOp[] = ["mountDevice", "setUp", "tearDown", "unmountDevice", "resizeFs"];

/**
 * What a call does when a fault says so (volume/operation.ts, section 2):
 *   error        the call fails after its latency; nothing is done
 *   timeout      the caller gives up at its timeout (DeadlineExceeded); nothing is done
 *   timeoutDone  the caller gives up at its timeout; the work is done anyway, at the latency
 *   hang         no answer until the fault's `until` (then the work is done and the call
 *                succeeds), or never; a CSI caller still gives up at its timeout
 */
export type CallOutcome = "error" | "timeout" | "timeoutDone" | "hang";
export const CALL_OUTCOMES: readonly CallOutcome[] = ["error", "timeout", "timeoutDone", "hang"];

/** gRPC status codes (google.golang.org/grpc/codes), the names CSI errors carry */
export const GRPC_CODES = [
  "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists", "PermissionDenied",
  "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
] as const;
export type GrpcCode = (typeof GRPC_CODES)[number];

/** One call's fate, drawn when it is made (Backend.call). */
export interface CallPlan {
  latencyMs: number;
  /** the error text a failing call returns (outcome error) */
  error: string | null;
  /** null: the call succeeds after latencyMs, or fails with `error` */
  outcome: CallOutcome | null;
  /** the gRPC code of the error (CSI calls; default Internal) */
  code: GrpcCode | null;
  /** a hang ends here (the fault's `until`), Infinity: never */
  hangUntilMs: number;
}

export interface StorageFault {
  op: BackendOp;
  volume?: string;
  node?: string;
  /** error text returned; absent = latency only */
  error?: string;
  /** remaining matching calls it applies to */
  count: number;
  fromMs: number;
  untilMs: number;
  latencyMs?: number;
  /** what the call does (default: error if `error` is given, else only the latency) */
  outcome?: CallOutcome;
  /** gRPC code of a CSI call's error (default Internal; a timeout is DeadlineExceeded) */
  code?: GrpcCode;
}

export interface BackendVolume {
  id: string;
  /** RWO: one node at a time */
  exclusive: boolean;
  attachedTo: Set<string>;
  /** when attachedTo last lost its last node / gained one */
  changedAt: number;
}

export const DEFAULT_LATENCY_MS: Record<BackendOp, number> = {
  attach: 2000,
  detach: 2000,
  controllerPublish: 1000,
  controllerUnpublish: 1000,
  nodeStage: 300,
  nodeUnstage: 200,
  nodePublish: 100,
  nodeUnpublish: 100,
  rbdMap: 300,
  rbdUnmap: 100,
  // in-tree mounts take no simulated time unless a scenario says so (and run
  // synchronously then, as before operations took time: volume/operation.ts)
  mountDevice: 0,
  setUp: 0,
  tearDown: 0,
  unmountDevice: 0,
  // 0 and no fault: checked in the controller's sync pass itself, as before (attach_detach_controller.ts sync)
  verifyAttached: 0,
  // volume expansion: a cloud resize call takes seconds, a CSI call or resize2fs less
  expandVolume: 2000,
  controllerExpand: 1000,
  nodeExpand: 500,
  resizeFs: 500,
};

export class Backend {
  readonly volumes = new Map<string, BackendVolume>();
  readonly faults: StorageFault[] = [];
  readonly latency: Record<BackendOp, number> = { ...DEFAULT_LATENCY_MS };
  /** called when a volume becomes attached to a second node while exclusive (never, unless forced) */
  onAttach: ((vol: BackendVolume, node: string) => void) | null = null;
  calls = 0;
  /**
   * The loops that read what is attached where themselves (engine/sim.ts
   * section 3): the attach/detach controller's VerifyVolumesAreAttached for
   * in-tree disks. Everything else reads the backend in operations, whose
   * completions wake their owners.
   */
  readonly wake: WakeGroup;

  constructor(private readonly sim: Sim) {
    this.wake = sim.group("storage-backend");
  }

  volume(id: string, exclusive = true): BackendVolume {
    let v = this.volumes.get(id);
    if (!v) this.volumes.set(id, (v = { id, exclusive, attachedTo: new Set(), changedAt: 0 }));
    return v;
  }

  /**
   * Per-plugin latencies (`settings.latencies: {PLUGIN: {op: d}}`), over
   * `latency`; null when the scenario gives none (most runs).
   */
  pluginLatency: Map<string, Partial<Record<BackendOp, number>>> | null = null;
  /**
   * calls[op][volume][node]: every call made, whatever its fate (the run's
   * `stats.calls`; node-local in-tree operations included)
   */
  get callCounts(): Map<string, Map<string, Map<string, number>>> {
    // (counted on first read from the log of calls: most runs never read them)
    const counts = new Map<string, Map<string, Map<string, number>>>();
    const log = this.callLog;
    for (let i = 0; i < log.length; i += 3) {
      const op = log[i]!;
      const volume = log[i + 1]!;
      const node = log[i + 2]!;
      let byVolume = counts.get(op);
      if (byVolume === undefined) counts.set(op, (byVolume = new Map()));
      let byNode = byVolume.get(volume);
      if (byNode === undefined) byVolume.set(volume, (byNode = new Map()));
      byNode.set(node, (byNode.get(node) ?? 0) + 1);
    }
    return counts;
  }
  /** every call as op, volume, node, flat */
  private readonly callLog: string[] = [];

  /** the scenario gives `op` a latency or a fault (a call of it is then an operation of its own) */
  modelled(op: BackendOp): boolean {
    if (this.latency[op] > 0) return true;
    if (this.pluginLatency !== null) for (const l of this.pluginLatency.values()) if ((l[op] ?? 0) > 0) return true;
    for (const f of this.faults) if (f.op === op) return true;
    return false;
  }

  /** Latency, outcome and injected error for one call of `op` on `volume` from `node` by `plugin`. */
  call(op: BackendOp, volume: string, node: string, plugin?: string): CallPlan {
    if (!isNodeLocal(op)) this.calls++;
    this.count(op, volume, node);
    let latencyMs = this.latency[op];
    if (this.pluginLatency !== null && plugin !== undefined) {
      const l = this.pluginLatency.get(plugin)?.[op];
      if (l !== undefined) latencyMs = l;
    }
    let error: string | null = null;
    let outcome: CallOutcome | null = null;
    let code: GrpcCode | null = null;
    let hangUntilMs = Infinity;
    const now = this.sim.now;
    for (const f of this.faults) {
      if (f.count <= 0 || f.op !== op) continue;
      if (f.volume !== undefined && f.volume !== volume) continue;
      if (f.node !== undefined && f.node !== node) continue;
      if (now < f.fromMs || now >= f.untilMs) continue;
      f.count--;
      if (f.latencyMs !== undefined) latencyMs = f.latencyMs;
      if (f.error !== undefined) error = f.error;
      if (f.outcome !== undefined) outcome = f.outcome;
      else if (f.error !== undefined) outcome = "error";
      if (f.code !== undefined) code = f.code;
      hangUntilMs = f.untilMs;
      break;
    }
    return { latencyMs, error, outcome, code, hangUntilMs };
  }

  /** a call the driver answered at once, before any work (a CSI driver's Aborted for a volume it is busy with): counted, not planned */
  countCall(op: BackendOp, volume: string, node: string): void {
    if (!isNodeLocal(op)) this.calls++;
    this.count(op, volume, node);
  }

  private count(op: string, volume: string, node: string): void {
    this.callLog.push(op, volume, node);
  }

  /** stats.calls: {op: {volume: {node: n}}} in the order first called */
  callsTable(): Record<string, Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, Record<string, number>>> = {};
    for (const [op, byVolume] of this.callCounts.entries()) {
      const v: Record<string, Record<string, number>> = (out[op] = {});
      for (const [volume, byNode] of byVolume) v[volume] = Object.fromEntries(byNode);
    }
    return out;
  }

  /** Attach or publish: fails for an exclusive volume attached to another node. */
  attach(id: string, node: string, conflictMessage: string): string | null {
    const v = this.volume(id);
    if (v.attachedTo.has(node)) return null;
    if (v.exclusive && v.attachedTo.size > 0) return conflictMessage;
    v.attachedTo.add(node);
    v.changedAt = this.sim.now;
    this.sim.bump(this.wake);
    this.onAttach?.(v, node);
    return null;
  }

  detach(id: string, node: string): void {
    const v = this.volume(id);
    if (v.attachedTo.delete(node)) {
      v.changedAt = this.sim.now;
      this.sim.bump(this.wake);
    }
  }
}

function isNodeLocal(op: BackendOp): boolean {
  return op === "mountDevice" || op === "setUp" || op === "tearDown" || op === "unmountDevice" || op === "resizeFs";
}
