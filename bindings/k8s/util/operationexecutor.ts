// pkg/volume/util/operationexecutor: which nestedpendingoperations key each
// operation runs under, i.e. which operations may run at the same time.
//
// The operation executor wraps every generated operation in
// pendingOperations.Run(volumeName, podName, nodeName, op); the key decides
// the concurrency (nestedpendingoperations.ts: an empty pod or node name
// matches any, an empty volume name conflicts with nothing):
//
//   MountVolume         (volume, pod)  for volumes neither attachable nor
//                       device-mountable (a secret, an emptyDir, a CSI
//                       volume without staging): one per pod at a time, pods
//                       in parallel; (volume, "") otherwise: serial per volume
//   UnmountVolume       (volume, pod): pods in parallel
//   UnmountDevice       (volume, ""): serial per volume
//   VerifyControllerAttachedVolume (volume, ""): serial per volume
//   AttachVolume/DetachVolume (volume, "", node) for a volume that may be
//                       attached to several nodes (util.IsMultiAttachAllowed),
//                       (volume, "", "") otherwise: a ReadWriteOnce volume's
//                       attach and detach are serial across nodes, a
//                       ReadOnlyMany one's run in parallel on different nodes
//                       (#88678, 1.19; before it the key had no node name)
//
// Worked example: two pods on one node mounting the same GCE PD (attachable)
// get the keys (pd, "") and (pd, ""): the second MountVolume is refused with
// AlreadyExists until the first ends; the same two pods' secret volumes get
// (secret, pod-1) and (secret, pod-2) and mount at once
// (operation_executor_test.go, TestOperationExecutor_MountVolume_*).
//
// MapVolume, UnmapVolume and UnmapDevice (volumeMode: Block) use the keys of
// MountVolume, UnmountVolume and UnmountDevice.

import type { VolumeSpec } from "../volume/plugins.js";
import { isMultiAttachAllowed } from "../volume/plugins.js";
import type { Profile } from "../versions/profile.js";
import type { OpKey } from "./nestedpendingoperations.js";

/** MountVolume's (and MapVolume's) key */
export function mountVolumeKey(volumeName: string, podUID: string, pluginIsAttachable: boolean, pluginIsDeviceMountable: boolean): OpKey {
  return { volumeName, podName: pluginIsAttachable || pluginIsDeviceMountable ? "" : podUID, nodeName: "" };
}

/** UnmountVolume's (and UnmapVolume's) key */
export function unmountVolumeKey(volumeName: string, podUID: string): OpKey {
  return { volumeName, podName: podUID, nodeName: "" };
}

/** UnmountDevice's (and UnmapDevice's) key */
export function unmountDeviceKey(volumeName: string): OpKey {
  return { volumeName, podName: "", nodeName: "" };
}

/** VerifyControllerAttachedVolume's key */
export function verifyControllerAttachedVolumeKey(volumeName: string): OpKey {
  return { volumeName, podName: "", nodeName: "" };
}

/** AttachVolume's and DetachVolume's key */
export function attachDetachKey(volumeName: string, nodeName: string, spec: VolumeSpec | undefined): OpKey {
  return { volumeName, podName: "", nodeName: isMultiAttachAllowed(spec) ? nodeName : "" };
}

/**
 * The operation name the attach/detach controller's AttachVolume and
 * DetachVolume run under: none until 1.19 (#75213 named the kubelet's
 * operations in 1.15 and left attach and detach unnamed, "so this PR
 * preserves old behaviour for attach/detach operation"; they are named in
 * 1.19's operation generator), so a failed detach's backoff holds back an
 * attach of the volume and the reverse up to 1.18 (#41307).
 */
export function adcOperationName(profile: Profile, name: "volume_attach" | "volume_detach"): string {
  return profile.version.minor >= 19 ? name : "";
}
