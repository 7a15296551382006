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
  | "rbdUnmap";

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
];

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

  /** Latency and injected error for one call. */
  call(op: BackendOp, volume: string, node: string): { latencyMs: number; error: string | null } {
    this.calls++;
    let latencyMs = this.latency[op];
    let error: string | null = null;
    const now = this.sim.now;
    for (const f of this.faults) {
      if (f.count <= 0 || f.op !== op) continue;
      if (f.volume !== undefined && f.volume !== volume) continue;
      if (f.node !== undefined && f.node !== node) continue;
      if (now < f.fromMs || now >= f.untilMs) continue;
      f.count--;
      if (f.latencyMs !== undefined) latencyMs = f.latencyMs;
      if (f.error !== undefined) error = f.error;
      break;
    }
    return { latencyMs, error };
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
