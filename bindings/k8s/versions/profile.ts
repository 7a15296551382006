// Version profiles: which behaviour of each loop a Kubernetes release has.
//
// A profile is resolved once per run from "1.22" or "1.22.3" plus explicit
// overrides ("104526=on"). Every upstream fix the built-in incidents depend on
// is a named switch, so a user can ask "what if 1.22.0 had had #104526" without
// inventing a version that never existed.
//
// Release numbers: [V] = read in the PR thread, [I] = inferred from merge and
// cherry-pick dates (see the table in bindings/k8s/README.md).
//
//   switch                           master   backports
//   104526 detach backoff vs status  1.23.0   1.22.4, 1.21.7            [I]
//   107025 attachment-name check     1.24.0   1.23.11, 1.22.14          [V master, I backports]
//   108997 CSI inline reconstruction 1.25.0   1.24.9, 1.23.15           [V master, I backports]
//   79940  rbd UnmountDevice retry   1.16.0                             [I]
//   108167 per-node status update    1.24.0   1.23.5, 1.22.8, 1.21.13   [V cherry-picks #108461,
//                                                                        #108462, #109206; I releases]
//   110721 force detach only when    1.25.0                             [I]
//          the node is unhealthy
//   out-of-service taint (KEP-2268)  1.26.0 (beta, on by default; alpha 1.24 off)
//   disable-force-detach-on-timeout  a controller-manager flag, 1.30+ (#120344), default off
//   82492  uncertain device/volume     1.18.0                             [V CHANGELOG-1.18 alpha.1]
//          mounts (kubelet)
//
// Not switches (no built-in incident turns on them), but followed per release:
//   #111205 re-add to the report list when the detach path's node status
//           update fails           1.26.0   1.25.1, 1.24.5, 1.23.11, 1.22.14  [V cherry-picks
//                                             #112305, #112304, #112303, #112302; I releases]
//   #110951 nestedpendingoperations: a pending match wins, then an exact one
//           (issue #109047)        1.26.0   1.25.1, 1.24.5, 1.23.11           [V cherry-picks
//                                             #112079, #112101, #112102; I releases]
//
// Worked example: "1.22.3" has neither 104526 (needs 1.22.4) nor 107025
// (needs 1.22.14); "1.22.14" has both; "1.22" means 1.22.0.

export type FixId =
  | "104526"
  | "107025"
  | "108997"
  | "79940"
  | "108167"
  | "110721"
  | "out-of-service"
  | "disable-force-detach-on-timeout"
  // ---- operations (branch k8s-ops: volume/operation.ts) ----
  | "82492";
  // ---- end operations ----

export interface FixInfo {
  id: FixId;
  title: string;
  /** the first release with it: [minor, patch] pairs; empty = never on by default */
  since: Array<[number, number]>;
  seed?: string;
}

export const FIXES: readonly FixInfo[] = [
  { id: "104526", title: "ADC: no detach-path side effects while a detach is pending or backing off; re-add to the report list on any DetachVolume error", since: [[23, 0], [22, 4], [21, 7]], seed: "002" },
  { id: "107025", title: "CSI Detach: always compute the VolumeAttachment name (drop isAttachmentName)", since: [[24, 0], [23, 11], [22, 14]], seed: "004" },
  { id: "108997", title: "kubelet: reconstruct CSI inline (ephemeral) volumes with the pod-scoped unique name", since: [[25, 0], [24, 9], [23, 15]], seed: "000/003" },
  { id: "79940", title: "rbd UnmountDevice: rediscover the mapped device from the image and retry the unmap", since: [[16, 0]], seed: "001" },
  { id: "108167", title: "ADC node status updater: per-node update, do not stop at the first failing node", since: [[24, 0], [23, 5], [22, 8], [21, 13]] },
  { id: "110721", title: "ADC: force detach after the 6-minute timeout only when the node is not healthy", since: [[25, 0]] },
  { id: "out-of-service", title: "ADC: node.kubernetes.io/out-of-service taint forces detach without waiting (NodeOutOfServiceVolumeDetach)", since: [[26, 0]] },
  { id: "disable-force-detach-on-timeout", title: "kube-controller-manager --disable-force-detach-on-timeout (never force detach on the 6-minute timer)", since: [] },
  // ---- operations (branch k8s-ops: volume/operation.ts, kubelet/volume_manager.ts section 5) ----
  // #82492 "Fix uncertain mounts" (gnufied): first in v1.18.0-alpha.1 (CHANGELOG-1.18.md) [V], no backport
  { id: "82492", title: "kubelet: a non-final CSI NodeStage/NodePublish error (DeadlineExceeded, Unavailable, Aborted, ResourceExhausted, Canceled) marks the device or volume mount uncertain, so UnmountDevice/TearDown run when no pod wants it", since: [[18, 0]] },
  // ---- end operations ----
];

export const MIN_MINOR = 10;
export const MAX_MINOR = 31;

export interface Version {
  major: 1;
  minor: number;
  patch: number;
}

export interface Profile {
  version: Version;
  /** "1.22.3" */
  text: string;
  /** E1 = glog era (<= 1.12), E2 = 1.13-1.22, E3 = 1.23+ */
  era: 1 | 2 | 3;
  fix: Record<FixId, boolean>;
  /** nestedpendingoperations key printed as %q of the volume name (<= 1.18) or as a Go struct */
  npoKeyStruct: boolean;
  /** nestedpendingoperations.go line of the "Operation for ... failed" log */
  npoLogLine: number;
  /** the error after "Error:" is %q-quoted (<= 1.21) */
  npoErrorQuoted: boolean;
  /** ADC detach phase uses UpdateNodeStatusForNode (#108167) rather than UpdateNodeStatuses */
  perNodeStatusUpdate: boolean;
  /** ADC detach phase re-adds the volume to the report list when that update fails (#111205) */
  reAddOnStatusUpdateFailure: boolean;
  /** nestedpendingoperations' isOperationExists prefers a pending match, then an exact one (#110951) */
  npoPendingFirst: boolean;
  /** ADC tracks attach uncertainty (attachedConfirmed, GetAttachState), ~1.14+ */
  attachUncertain: boolean;
  /** ADC marks VolumeAttachments of unknown volumes uncertain at start (PR #96617, 1.21+) */
  processVolumeAttachmentsAtStart: boolean;
  /** kubelet DSW populator does not (re)add pods whose containers are terminating (1.22+) */
  dswSkipsTerminatingPods: boolean;
  /** klog structured logging (InfoS) in the kubelet's volume manager (1.21+): kubelet/volume_manager.ts vmMsg */
  structuredLogs: boolean;
  /**
   * The attach/detach controller's reconciler.go log calls (read in upstream
   * source and real kube-controller-manager logs; bindings/k8s/README.md,
   * "What the log lines match"):
   * - "text": klog.Infof/Warningf of GenerateMsgDetailed (<= 1.23)
   * - "structured": klog.InfoS/ErrorS with the whole cache struct as
   *   `volume={...}` (1.24-1.26: a v1.24.6 controller-manager's source)
   * - "contextual": logger.Info, the same keys for the detach lines
   *   (a v1.27 controller-manager's `reconciler.go:273` line), AttachVolume
   *   started with volumeName/nodeName/scheduledPods (#115036) (1.27-1.29)
   * - "named": `node`/`volumeName` keys, the out-of-service message of its
   *   own, and the controller's logger name (1.30+: the reconciler.go that
   *   has disableForceDetachOnTimeout)
   */
  adcLogs: "text" | "structured" | "contextual" | "named";
  /** rbd output printed as a Go byte slice ([114 98 100 ...]) (<= 1.17) */
  rbdOutputAsBytes: boolean;
  /** CSI global mount under plugins/kubernetes.io/csi/<driver>/<sha>/globalmount (1.24+) */
  csiHashedGlobalMount: boolean;
}

const DEFAULT_VERSION = "1.25";

export function parseVersion(text: string): Version {
  const m = /^v?1\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`bad Kubernetes version ${JSON.stringify(text)}: expected "1.MINOR" or "1.MINOR.PATCH"`);
  const minor = Number(m[1]);
  const patch = m[2] === undefined ? 0 : Number(m[2]);
  if (minor < MIN_MINOR || minor > MAX_MINOR)
    throw new Error(`Kubernetes version ${text} is outside the modelled range 1.${MIN_MINOR}-1.${MAX_MINOR}`);
  return { major: 1, minor, patch };
}

export function fixInVersion(fix: FixInfo, v: Version): boolean {
  return inRelease(fix.since, v);
}

/** whether a change first released as `since` ([minor, patch] of master and each backport) is in `v` */
export function inRelease(since: ReadonlyArray<readonly [number, number]>, v: Version): boolean {
  if (since.length === 0) return false;
  const master = Math.max(...since.map((s) => s[0]));
  if (v.minor > master) return true;
  return since.some(([minor, patch]) => v.minor === minor && v.patch >= patch);
}

/** #111205, see the table at the top */
const RE_ADD_ON_STATUS_UPDATE_FAILURE: ReadonlyArray<readonly [number, number]> = [[26, 0], [25, 1], [24, 5], [23, 11], [22, 14]];
/** #110951, see the table at the top */
const NPO_PENDING_FIRST: ReadonlyArray<readonly [number, number]> = [[26, 0], [25, 1], [24, 5], [23, 11]];

export type FixOverrides = Partial<Record<FixId, boolean>>;

export function isFixId(s: string): s is FixId {
  return FIXES.some((f) => f.id === s);
}

/** Parse CLI-style overrides: ["104526=on", "107025=off"]. */
export function parseFixOverrides(items: readonly string[]): FixOverrides {
  const out: FixOverrides = {};
  for (const it of items) {
    const m = /^#?([\w-]+)(?:=(on|off|true|false|1|0))?$/.exec(it.trim());
    if (!m || !isFixId(m[1]!))
      throw new Error(`bad --fix ${JSON.stringify(it)}: expected ID=on|off with ID one of ${FIXES.map((f) => f.id).join(", ")}`);
    const v = m[2] ?? "on";
    out[m[1] as FixId] = v === "on" || v === "true" || v === "1";
  }
  return out;
}

export function resolveProfile(versionText: string = DEFAULT_VERSION, overrides: FixOverrides = {}): Profile {
  const v = parseVersion(versionText);
  const fix = {} as Record<FixId, boolean>;
  for (const f of FIXES) fix[f.id] = overrides[f.id] ?? fixInVersion(f, v);
  const m = v.minor;
  return {
    version: v,
    text: `1.${v.minor}.${v.patch}`,
    era: m <= 12 ? 1 : m <= 22 ? 2 : 3,
    fix,
    npoKeyStruct: m >= 19,
    // 267 quoted by seed 001 (1.14); a 1.15 kubelet printed :270
    npoLogLine: m <= 14 ? 267 : m <= 18 ? 270 : m <= 21 ? 301 : 335,
    npoErrorQuoted: m <= 21,
    perNodeStatusUpdate: fix["108167"],
    reAddOnStatusUpdateFailure: inRelease(RE_ADD_ON_STATUS_UPDATE_FAILURE, v),
    npoPendingFirst: m >= 19 && inRelease(NPO_PENDING_FIRST, v),
    attachUncertain: m >= 14,
    processVolumeAttachmentsAtStart: m >= 21,
    dswSkipsTerminatingPods: m >= 22,
    structuredLogs: m >= 21,
    adcLogs: m <= 23 ? "text" : m <= 26 ? "structured" : m <= 29 ? "contextual" : "named",
    rbdOutputAsBytes: m <= 17,
    csiHashedGlobalMount: m >= 24,
  };
}

export { DEFAULT_VERSION };
