// Version profiles: which behaviour of each loop a Kubernetes release has.
//
// A profile is resolved once per run from "1.22" or "1.22.3" plus explicit
// overrides ("104526=on"). Every upstream fix the built-in incidents depend on
// is a named switch, so a user can ask "what if 1.22.0 had had #104526" without
// inventing a version that never existed.
//
// Every switch is a modelled entry of the fix catalogue (versions/fixes.ts:
// the PR, its issue, the releases and patch releases that carry it, the
// source read); the catalogue's other entries say why they are not modelled.
// What is not a fix (log formats, paths, the klog era) follows the minor here.
//
// Worked example: "1.22.3" has neither 104526 (needs 1.22.4) nor 107025
// (needs 1.22.14); "1.22.14" has both; "1.22" means 1.22.0.

import { catalogueEntry, MODELLED } from "./fixes.js";

export type FixId =
  | "104526"
  | "107025"
  | "108997"
  | "79940"
  | "108167"
  | "110721"
  | "out-of-service"
  | "disable-force-detach-on-timeout"
  | "111205"
  | "110951"
  | "96617"
  | "102344"
  | "72096"
  | "84007"
  // ---- operations (branch k8s-ops: volume/operation.ts) ----
  | "82492"
  // ---- k8s-releases: catalogued changes made switches ----
  | "100183"
  | "71145"
  | "110670"
  | "107789"
  | "114326"
  | "122211"
  | "taint-based-evictions"
  // ---- s3-k8s-catalogue: kubelet-side changes made switches ----
  | "106853"
  | "128394"
  | "128219"
  | "113262"
  // ---- end operations ----
  // ---- interleavings (branch s2-k8s-interleave: engine/sim.ts yieldPoint) ----
  | "94599"
  // ---- end interleavings ----
  // ---- volume expansion and block volumes (expand/, kubelet/volume_manager.ts section 6) ----
  | "ExpandInUsePersistentVolumes"
  | "ExpandCSIVolumes"
  | "92986"
  | "100567"
  | "RecoverVolumeExpansionFailure"
  | "83451"
  // ---- CSI migration (volume/csimigration.ts) ----
  | "CSIMigrationAWS"
  | "CSIMigrationGCE"
  | "101737"
  | "102176";

export interface FixInfo {
  id: FixId;
  title: string;
  /** the first release with it: [minor, patch] pairs; empty = never on by default */
  since: Array<[number, number]>;
  /** [minor, patch] where a cherry-picked revert turns it off again, from that patch of that minor on */
  reverted?: Array<[number, number]>;
  seed?: string;
}

/**
 * The switches: the catalogue's modelled entries (versions/fixes.ts), in a
 * fixed order (scenario/run.ts numbers override sets by it).
 */
export const FIXES: readonly FixInfo[] = MODELLED.map((e) => ({ id: e.id as FixId, title: e.title, since: e.since, ...(e.reverted ? { reverted: e.reverted } : {}), ...(e.seed ? { seed: e.seed } : {}) }));

export const MIN_MINOR = 10;
export const MAX_MINOR = 35;

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
  /**
   * The switches named by a pull request number, as named fields:
   * `has.pr113262` is `fix["113262"]`. An object key that is an array index
   * ("113262") is an element, and a sparse object's elements are a
   * dictionary: each read of `fix["113262"]` is a hash lookup (~28 ns in
   * Node 20, against ~2 ns for a named field of one hidden class), and the
   * replays read the hot ones (113262, 71145, 128394, ...) some 50 times
   * each. Built with `fix`, never changed after.
   */
  has: Record<PrSwitch, boolean>;
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
  /**
   * kubelet nodeStatusReportFrequency: an unchanged node status is written
   * again this long after the last write (kubelet_node_status.go
   * tryUpdateNodeStatus); 0 = every nodeStatusUpdateFrequency (NodeLease
   * off: every 10 s). #72096 (1.14): 1 min; #84007 (1.17): 5 min.
   */
  nodeStatusReportMs: number;
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
  return inRelease(fix.since, v, fix.reverted);
}

/**
 * whether a change first released as `since` ([minor, patch] of master and
 * each backport) is in `v`; `reverted` lists the patch releases from which a
 * cherry-picked revert takes it out of their minor again
 */
export function inRelease(since: ReadonlyArray<readonly [number, number]>, v: Version, reverted?: ReadonlyArray<readonly [number, number]>): boolean {
  if (since.length === 0) return false;
  if (reverted !== undefined && reverted.some(([minor, patch]) => v.minor === minor && v.patch >= patch)) return false;
  const master = Math.max(...since.map((s) => s[0]));
  if (v.minor > master) return true;
  return since.some(([minor, patch]) => v.minor === minor && v.patch >= patch);
}


export type FixOverrides = Partial<Record<FixId, boolean>>;

export function isFixId(s: string): s is FixId {
  return FIXES.some((f) => f.id === s);
}

/**
 * The error for a fix id that is not a switch: a catalogued change the
 * replay does not model says so (with the reason), anything else lists the switches.
 */
export function badFixMessage(what: string, id: string | undefined): string {
  const e = id === undefined ? undefined : catalogueEntry(id);
  if (e && e.modelled !== true) return `${what}: #${e.pr ?? e.id} is catalogued but not modelled (${e.modelled}), so it is not a switch`;
  return `${what}: expected ID=on|off with ID one of ${FIXES.map((f) => f.id).join(", ")}`;
}

/** Parse CLI-style overrides: ["104526=on", "107025=off"]. */
export function parseFixOverrides(items: readonly string[]): FixOverrides {
  const out: FixOverrides = {};
  for (const it of items) {
    const m = /^#?([\w-]+)(?:=(on|off|true|false|1|0))?$/.exec(it.trim());
    if (!m || !isFixId(m[1]!)) throw new Error(badFixMessage(`bad --fix ${JSON.stringify(it)}`, m?.[1]));
    const v = m[2] ?? "on";
    out[m[1] as FixId] = v === "on" || v === "true" || v === "1";
  }
  return out;
}

/** `pr<N>` for each switch whose id is a pull request number N (Profile.has) */
export type PrSwitch = `pr${Extract<FixId, `${number}`>}`;

export function resolveProfile(versionText: string = DEFAULT_VERSION, overrides: FixOverrides = {}): Profile {
  const v = parseVersion(versionText);
  const fix = {} as Record<FixId, boolean>;
  for (const f of FIXES) fix[f.id] = overrides[f.id] ?? fixInVersion(f, v);
  // (every profile's `has` gets its fields in FIXES order: one hidden class for all)
  const has = {} as Record<string, boolean>;
  for (const f of FIXES) if (/^\d+$/.test(f.id)) has[`pr${f.id}`] = fix[f.id];
  const m = v.minor;
  return {
    version: v,
    text: `1.${v.minor}.${v.patch}`,
    era: m <= 12 ? 1 : m <= 22 ? 2 : 3,
    fix,
    has: has as Record<PrSwitch, boolean>,
    npoKeyStruct: m >= 19,
    // 267 quoted by seed 001 (1.14); a 1.15 kubelet printed :270
    npoLogLine: m <= 14 ? 267 : m <= 18 ? 270 : m <= 21 ? 301 : 335,
    npoErrorQuoted: m <= 21,
    perNodeStatusUpdate: fix["108167"],
    reAddOnStatusUpdateFailure: fix["111205"],
    npoPendingFirst: m >= 19 && fix["110951"],
    attachUncertain: m >= 14,
    processVolumeAttachmentsAtStart: fix["96617"],
    dswSkipsTerminatingPods: fix["102344"],
    nodeStatusReportMs: fix["84007"] ? 5 * 60_000 : fix["72096"] ? 60_000 : 0,
    structuredLogs: m >= 21,
    adcLogs: m <= 23 ? "text" : m <= 26 ? "structured" : m <= 29 ? "contextual" : "named",
    rbdOutputAsBytes: m <= 17,
    csiHashedGlobalMount: m >= 24,
  };
}

export { DEFAULT_VERSION };
