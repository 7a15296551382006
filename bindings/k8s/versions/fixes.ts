// The fix catalogue: every change of volume-lifecycle behaviour found in
// upstream's history of the loops the replay models, release by release.
//
// One entry per upstream change (a PR, or a feature gate's default flip),
// with the releases that carry it: `since` lists [minor, patch] of the first
// master release and of each patch release a cherry-pick reached (the
// versions/profile.ts rule: a minor above the master release always has it;
// a minor listed has it from that patch on; any other minor has not).
// `releases` says how those numbers were found: "V" read in the PR thread or
// the CHANGELOG, "I" inferred from merge and cherry-pick dates.
//
// `modelled` is true when the replay implements the change and `--fix ID=on|off`
// switches it; otherwise it is the sentence that says why not, and `--fix ID`
// is refused with that sentence (no switch that silently does nothing).
// Entries reviewed and found to be no behaviour change between modelled
// releases (every release has it, it was never merged, or it is another
// switch's change) are kept apart, in REVIEWED (`reviewed: true`).
// `test` names the scenario and versions whose `iosim k8s diff` shows the
// change (versions/fixes.test.ts runs each).
//
// Worked example: 84007 (kubelet: an unchanged node status is reported every
// 5 min, not every minute) has since [[17, 0]]: `iosim k8s versions` shows it
// off up to 1.16 and on from 1.17.0; `--version 1.16 --fix 84007=on` gives
// 1.16 the 5-minute report; `iosim k8s diff node-status-heartbeat --version
// 1.16 --version 1.17` differs where the attach/detach controller, which
// waits for a Node update, detaches at +1m10s on 1.16 and at +5m10s on 1.17.
//
// docs/k8s-fixes.md is generated from this file (scripts/k8s-fixes-doc.mjs).

export type Area =
  | "attachdetach"
  | "kubelet/volumemanager"
  | "kubelet/nodestatus"
  | "operationexecutor"
  | "nestedpendingoperations"
  | "csi"
  | "rbd"
  | "podgc"
  | "nodelifecycle"
  | "expand";

export interface CatalogueEntry {
  /** the switch name: the PR number, or a feature or flag name */
  id: string;
  /** the upstream PR (kubernetes/kubernetes), if there is one */
  pr: number | null;
  title: string;
  area: Area;
  /** which process changes */
  side: "controller" | "kubelet" | "both";
  /** first releases with it: [minor, patch] of master and of each cherry-pick; [] = never on by default */
  since: Array<[number, number]>;
  /** [minor, patch]: a cherry-picked revert (or a gate turned off again) takes it out of that minor from that patch on */
  reverted?: Array<[number, number]>;
  releases: "V" | "I";
  /** the issue it fixes (kubernetes/kubernetes unless it says otherwise) */
  issue: string | null;
  /** what was read to model it */
  source: string;
  /** true, or why the replay does not model it */
  modelled: true | string;
  /**
   * reviewed and not a switch: no behaviour difference between modelled
   * releases (every one has it, or none: never merged), or the same change as
   * another switch (the REVIEWED part of the catalogue; `modelled` says which)
   */
  reviewed?: true;
  /** the built-in seed that depends on it */
  seed?: string;
  /**
   * the scenario (a built-in, or versions/scenarios/NAME.yaml) and the
   * releases on either side whose diff shows it (modelled entries); for a flag
   * (since []), the same release with the switch off and on
   */
  test?: { scenario: string; before: string; after: string };
}

/** the changes that are (or will be) switches: a behaviour difference between modelled releases */
const CHANGES: readonly CatalogueEntry[] = [
  // ---- attach/detach controller ----
  {
    id: "96617", pr: 96617, title: "ADC start-up: a VolumeAttachment of a volume the ASW does not know is marked uncertain, so a dangling attachment is detached",
    area: "attachdetach", side: "controller", since: [[21, 0]], releases: "I", issue: null,
    source: "PR thread (attach_detach_controller.go processVolumeAttachments); v1.21 attach_detach_controller.go", modelled: true, test: { scenario: "adc-restart-dangling-va", before: "1.20", after: "1.21" },
  },
  {
    id: "104526", pr: 104526, title: "ADC: no detach-path side effects while a detach is pending or backing off; re-add to the report list on any DetachVolume error",
    area: "attachdetach", side: "controller", since: [[23, 0], [22, 4], [21, 7]], releases: "I", issue: "#72181, #88565",
    source: "PR thread; reconciler.go v1.22.0 vs v1.22.4", modelled: true, test: { scenario: "detach-backoff-node-status", before: "1.22.3", after: "1.22.4" }, seed: "002",
  },
  {
    id: "108167", pr: 108167, title: "ADC node status updater: per-node update (UpdateNodeStatusForNode), does not stop at the first failing node",
    area: "attachdetach", side: "controller", since: [[24, 0], [23, 5], [22, 8], [21, 13]], releases: "V", issue: null,
    source: "PR thread and cherry-picks #108461, #108462, #109206; node_status_updater.go v1.24", modelled: true, test: { scenario: "detach-status-update-fails", before: "1.22.7", after: "1.22.8" },
  },
  {
    id: "111205", pr: 111205, title: "ADC detach path: re-add the volume to the report list when the node status update fails",
    area: "attachdetach", side: "controller", since: [[26, 0], [25, 1], [24, 5], [23, 11], [22, 14]], releases: "V", issue: "#111000",
    source: "PR thread and cherry-picks #112305, #112304, #112303, #112302; reconciler.go v1.26", modelled: true, test: { scenario: "detach-status-update-fails", before: "1.24.4", after: "1.24.5" },
  },
  {
    id: "110721", pr: 110721, title: "ADC: force detach after the 6-minute maxWaitForUnmountDuration only when the node is not Ready",
    area: "attachdetach", side: "controller", since: [[25, 0]], releases: "V", issue: "#106710, #106902",
    source: "PR thread (reconciler.go: forceDetach := !isHealthy && timeout); v1.25 reconciler.go", modelled: true, test: { scenario: "unmount-stuck-ready-node", before: "1.24", after: "1.25" },
  },
  {
    id: "out-of-service", pr: 108486, title: "ADC and PodGC: node.kubernetes.io/out-of-service taint forces detach without waiting (NodeOutOfServiceVolumeDetach: alpha 1.24, beta on 1.26, GA 1.28)",
    area: "attachdetach", side: "controller", since: [[26, 0]], releases: "V", issue: "KEP-2268 (non-graceful node shutdown)",
    source: "PR #108486 thread (reconciler.go hasOutOfServiceTaint, podgc gcTerminating); feature gate table", modelled: true, test: { scenario: "out-of-service-taint", before: "1.25", after: "1.26" },
  },
  {
    id: "disable-force-detach-on-timeout", pr: 120344, title: "kube-controller-manager --disable-force-detach-on-timeout: never force detach on the 6-minute timer (a flag, default off)",
    area: "attachdetach", side: "controller", since: [], releases: "V", issue: null,
    source: "PR thread (forceDetach := !isHealthy && timeout && !rc.disableForceDetachOnUnmount); website PR #45119 (1.30)", modelled: true, test: { scenario: "node-down-force-detach", before: "1.30", after: "1.30" },
  },
  // ---- CSI ----
  {
    id: "107025", pr: 107025, title: "CSI Detach: always compute the VolumeAttachment name csi-<sha256> (drop isAttachmentName)",
    area: "csi", side: "controller", since: [[24, 0], [23, 11], [22, 14]], releases: "I", issue: "#97230",
    source: "PR thread; csi_attacher.go v1.22 vs v1.24", modelled: true, test: { scenario: "csi-attachment-name", before: "1.22.13", after: "1.22.14" }, seed: "004",
  },
  // ---- kubelet volume manager ----
  {
    id: "108997", pr: 108997, title: "kubelet reconstruction: find plugins by spec; CSI inline volumes get the pod-scoped unique name; no mount-point check",
    area: "kubelet/volumemanager", side: "kubelet", since: [[25, 0], [24, 9], [23, 15]], releases: "I", issue: "#79980",
    source: "PR thread; reconciler.go reconstructVolume v1.23 vs v1.25", modelled: true, test: { scenario: "csi-inline-orphan", before: "1.24.8", after: "1.24.9" }, seed: "000/003",
  },
  {
    id: "102344", pr: 102344, title: "kubelet pod lifecycle in the pod worker: the DSW populator does not (re)add volumes of a pod whose containers are terminating",
    area: "kubelet/volumemanager", side: "kubelet", since: [[22, 0]], releases: "V", issue: null,
    source: "PR thread; desired_state_of_world_populator.go v1.22 findAndAddNewPods (ShouldPodContainersBeTerminating)", modelled: true, test: { scenario: "csi-inline-orphan", before: "1.21", after: "1.22" },
  },
  {
    id: "71145", pr: 71145, title: "kubelet GetVolumesInUse also lists volumes attached in the ASW, so a pod deleted while its mount is pending does not drop the volume from volumesInUse",
    area: "kubelet/volumemanager", side: "kubelet", since: [[13, 0]], releases: "I", issue: "#70319",
    source: "PR thread (volume_manager.go GetVolumesInUse: GetGloballyMountedVolumes -> GetAttachedVolumes; actual_state_of_world.go GetAttachedVolumes); issue #70319 thread",
    modelled: true, test: { scenario: "detach-while-formatting", before: "1.12", after: "1.13" },
  },
  {
    id: "106853", pr: 106853, title: "kubelet: VerifyControllerAttachedVolume waits for the volume to be reported in use before it starts, instead of failing (\"Volume has not been added to the list of VolumesInUse in the node's volume status\") into the exponential backoff of the volume's key",
    area: "kubelet/volumemanager", side: "kubelet", since: [[24, 0]], releases: "I", issue: null,
    source: "PR thread (\"When volume is not marked in-use, do not backoff\"; the review of the operation_generator.go precondition, dropped for the reconciler's check); reconciler.go waitForVolumeAttach after it (\"lets not spin a goroutine and unnecessarily trigger exponential backoff\": PluginIsAttachable && !ReportedInUse returns); operation_generator.go GenerateVerifyControllerAttachedVolumeFunc before it (the !ReportedInUse error after the !PluginIsAttachable branch, before the Node GET); a 2021 kubelet log (reconciler.go:224 started, nestedpendingoperations.go:301 durationBeforeRetry 500ms, then the status wait)",
    modelled: true, test: { scenario: "verify-before-in-use", before: "1.23", after: "1.24" },
  },
  {
    id: "113262", pr: 113262, title: "kubelet volume reconstruction at start-up, before the DSW is populated (NewVolumeManagerReconstruction: beta on 1.27, off again in 1.27.2 by #117752, on 1.28, GA 1.30 #123442): every volume found on disk goes into the ASW as an uncertain mount (its device as an uncertain device mount), unmounts wait until the DSW is populated and node.status gave the device paths, and volumesInUse is reported only then",
    area: "kubelet/volumemanager", side: "kubelet", since: [[28, 0], [27, 0]], reverted: [[27, 2]], releases: "V", issue: "KEP-3756; #117745 (the 1.27 regression)",
    source: "PR threads #113262, #115268, #117752, #123442; website PR #45282 (gate table); reconstruct_new.go at 1.28-1.29 (reconstructVolumes, updateStates: AddAttachUncertainReconstructedVolume, CheckAndMarkVolumeAsUncertainViaReconstruction, MarkDeviceAsUncertain; readyToUnmount; cleanOrphanVolumes; updateReconstructedFromNodeStatus) and reconciler_new.go runNew/reconcileNew. Not modelled: 1.30's volumesNeedReportedInUse (a reconstructed volume is in the ASW, so the replay's mount needs no report in use), mapped block volumes added as mapped rather than uncertain",
    modelled: true, test: { scenario: "kubelet-restart-remount-fails", before: "1.27.2", after: "1.28" },
  },
  {
    id: "114326", pr: 114326, title: "kubelet DSW populator: add a pod whose termination is not complete during reconstruction",
    area: "kubelet/volumemanager", side: "kubelet", since: [[27, 0]], releases: "I", issue: "#113979",
    source: "PR thread (\"Fixes #113979\"; desired_state_of_world_populator.go findAndAddNewPods: before hasAddedPods only ShouldPodRuntimeBeRemoved skips a pod, after it ShouldPodContainersBeTerminating; the review on IsTerminationStarted); issue #113979 (msau42: NodeUnpublishVolume 30 s before \"Stopping container\" after a kubelet restart)",
    modelled: true, test: { scenario: "csi-inline-orphan", before: "1.26", after: "1.27" },
  },
  {
    id: "110670", pr: 110670, title: "kubelet reconstruction: a volume skipped because its pod is in the DSW is added to the ASW as uncertain once known attached (skippedDuringReconstruction, processReconstructedVolumes), so a remount that fails and a pod deleted meanwhile still get TearDown and UnmountDevice",
    area: "kubelet/volumemanager", side: "kubelet", since: [[25, 0]], releases: "I", issue: "#96635, #70044",
    source: "PR thread (\"Fix pod stuck in termination state when mount fails or gets skipped after kubelet restart\"); reconciler_common.go processReconstructedVolumes (the runOld path); KEP-3756 text", modelled: true, test: { scenario: "kubelet-restart-mount-fails", before: "1.24", after: "1.25" },
  },
  // ---- operation executor: uncertain mount states ----
  {
    id: "82492", pr: 82492, title: "operation executor: a non-final CSI NodeStage/NodePublish error (DeadlineExceeded, Unavailable, Aborted, ResourceExhausted, Canceled) leaves the device or volume mount uncertain in the kubelet's ASW, so UnmountDevice/TearDown run when no pod wants it",
    area: "operationexecutor", side: "kubelet", since: [[18, 0]], releases: "V", issue: "#82426, #82340, #83129",
    source: "PR thread (TransientOperationFailure, UncertainProgressError in operation_generator.go; csi_client.go isFinalError); CHANGELOG-1.18 (v1.18.0-alpha.1)",
    modelled: true, test: { scenario: "csi-nodestage-timeout", before: "1.17", after: "1.18" },
  },
  {
    id: "100183", pr: 100183, title: "operation executor: a failed UnmountDevice/UnmountVolume marks the device or mount uncertain, so a new pod's MountDevice/SetUp runs again",
    area: "operationexecutor", side: "kubelet", since: [[21, 0]], releases: "I", issue: "#100182",
    source: "PR thread (release note: starting new pods after a previous pod timed out unmounting; operation_generator.go MarkDeviceAsUncertain / MarkVolumeMountAsUncertain on Unmount* errors); issue #100182 reproducer",
    modelled: true, test: { scenario: "csi-unstage-error-no-restage", before: "1.20", after: "1.21" },
  },
  {
    id: "107789", pr: 107789, title: "operation executor: UnmountDevice that finds the device still in use marks the device mount uncertain",
    area: "operationexecutor", side: "kubelet", since: [[24, 0]], releases: "I", issue: null,
    source: "PR thread (vSphere log: \"the device is in use when it was no longer expected to be in use\"; operation_generator.go GenerateUnmountDeviceFunc isDeviceOpened, MarkDeviceAsUncertain)",
    modelled: true, test: { scenario: "device-in-use-after-unmount", before: "1.23", after: "1.24" },
  },
  {
    id: "122211", pr: 122211, title: "operation executor: a device reconstruction marked uncertain stays uncertain when MountDevice then fails with a final error (IsVolumeDeviceReconstructed), so UnmountDevice still runs",
    area: "operationexecutor", side: "kubelet", since: [[30, 0]], releases: "I", issue: null,
    source: "PR thread (operation_generator.go markDeviceErrorState, IsVolumeDeviceReconstructed)",
    modelled: true, test: { scenario: "kubelet-restart-mount-fails", before: "1.29", after: "1.30" },
  },
  {
    id: "128219", pr: 128219, title: "kubelet volume manager: check the device mount state in the ASW before marking a volume detached (unmountDetachDevices reads the actual state again after IsOperationPending, so a MountVolume that ended after GetUnmountedVolumes' copy gets UnmountDevice instead of \"Volume detached\")",
    area: "kubelet/volumemanager", side: "kubelet", since: [[32, 0]], releases: "I", issue: "#127520",
    source: "PR thread (the Test_UncertainDeviceGlobalMounts flake and its log; gnufied and carlory on the race between MountVolume and unmountDetachDevices); reconciler_common.go unmountDetachDevices after it (\"Re-read the actual state of the world, maybe the volume got mounted in the meantime ... attachedVolume, _ = rc.actualStateOfWorld.GetAttachedVolume\") and before it (GetUnmountedVolumes' copy decides DeviceMayBeMounted)",
    modelled: true, test: { scenario: "kubelet-device-pass-interleave", before: "1.31", after: "1.32" },
  },
  // ---- nestedpendingoperations ----
  {
    id: "110951", pr: 110951, title: "nestedpendingoperations: isOperationExists prefers a pending matching operation, then an exact match",
    area: "nestedpendingoperations", side: "both", since: [[26, 0], [25, 1], [24, 5], [23, 11]], releases: "V", issue: "#109047",
    source: "PR thread and cherry-picks #112079, #112101, #112102; nestedpendingoperations.go v1.26", modelled: true, test: { scenario: "npo-pending-first", before: "1.25.0", after: "1.25.1" },
  },
  // ---- rbd ----
  {
    id: "79940", pr: 79940, title: "rbd UnmountDevice: rediscover the mapped device from the image and retry the unmap",
    area: "rbd", side: "kubelet", since: [[16, 0]], releases: "I", issue: "#54214",
    source: "PR thread; rbd/attacher.go v1.14 vs v1.16", modelled: true, test: { scenario: "rbd-unmap-busy", before: "1.15", after: "1.16" }, seed: "001",
  },
  // ---- kubelet node status ----
  {
    id: "72096", pr: 72096, title: "kubelet: NodeLease beta, on by default; an unchanged node status is reported every nodeStatusReportFrequency (1 min) instead of every nodeStatusUpdateFrequency (10 s)",
    area: "kubelet/nodestatus", side: "kubelet", since: [[14, 0]], releases: "V", issue: "#14733 (KEP-0009 node heartbeats)",
    source: "PR #72096 release note (10s to 1m); #69753 (kubelet_node_status.go: report on change or after nodeStatusReportFrequency, 1.13 alpha); website PR #16112",
    modelled: true, test: { scenario: "node-status-heartbeat", before: "1.13", after: "1.14" },
  },
  {
    id: "84007", pr: 84007, title: "kubelet: NodeStatusReportFrequency default 1 min -> 5 min (an unchanged status every 5 min)",
    area: "kubelet/nodestatus", side: "kubelet", since: [[17, 0]], releases: "V", issue: "kubernetes/enhancements#589",
    source: "PR thread release note (1.17 bug triage); #95135 (types.go comment); defaults.go", modelled: true, test: { scenario: "node-status-heartbeat", before: "1.16", after: "1.17" },
  },
  {
    id: "128394", pr: 130919, title: "kubelet: a random delay (delayAfterNodeStatusChange, uniform over [-0.5, 0.5) x nodeStatusReportFrequency) added to the next unchanged report after a status change or a kubelet start; an unchanged report puts it back to 0 (#128394, relanded as #130919 in 1.34; 1.32.0-1.32.2 had #128640, reverted by #130348/#130356, not modelled)",
    area: "kubelet/nodestatus", side: "kubelet", since: [[34, 0]], releases: "V", issue: "#124202",
    source: "PR threads #128394 (the review: reset the delay only once it has been used for a report), #128640 (the second attempt, in 1.32.0), #130348 and its cherry-pick #130356 (the revert in master and 1.32: after a restart with no change it never reported), #130919 (relanded: a zero lastStatusReportTime always reports; CHANGELOG-1.34 v1.34.0-beta.0); kubelet.go delayAfterNodeStatusChange's comment at 1.34+; calculateDelay nodeStatusReportFrequency x (-0.5 + rand). The downstream copy read before (which resets the delay at every try without a change) is not upstream's order",
    modelled: true, test: { scenario: "node-status-heartbeat", before: "1.33", after: "1.34" },
  },
  // ---- pod GC and node lifecycle ----
  {
    id: "taint-based-evictions", pr: 69824, title: "node lifecycle: TaintBasedEvictions beta, on (1.13): NotReady/unreachable nodes get NoExecute taints and the taint manager evicts; GA 1.18",
    area: "nodelifecycle", side: "controller", since: [[13, 0]], releases: "V", issue: "#69533 (the 1.13 umbrella issue); kubernetes/enhancements#166",
    source: "issue #69533 task list (#69824 enables the gate); website PR #19302 (GA in 1.18); node_lifecycle_controller.go v1.13 doNoExecuteTaintingPass, v1.12 evictPods (podEvictionTimeout)",
    modelled: true, test: { scenario: "node-power-off-evictions", before: "1.12", after: "1.13" },
  },
  // ---- interleavings (engine/sim.ts yieldPoint) ----
  {
    id: "94599", pr: 94599, title: "ADC reconciler: after the pending check, read the ASW again and skip a volume a detach removed since the pass's copy (no SetDetachRequestTime error)",
    area: "attachdetach", side: "controller", since: [[20, 0], [19, 8], [18, 16]], releases: "I", issue: "#93902",
    source: "PR thread and cherry-picks #98221, #98224 (with #96617, release-1.18); reconciler.go reconcile (GetAttachState == AttachStateDetached, \"Volume detached--skipping\"); actual_state_of_world.go getNodeAndVolume",
    modelled: true, test: { scenario: "adc-detach-interleave", before: "1.19", after: "1.20" },
  },
  // ---- CSI migration (issue #26 scope item 4: volume/csimigration.ts) ----
  {
    id: "CSIMigrationAWS", pr: null, title: "in-tree awsElasticBlockStore volumes handled by the EBS CSI driver (ebs.csi.aws.com): the kubelet decides by its own gates, the attach/detach controller by its gates and the node's CSINode annotation storage.kubernetes.io/migrated-plugins; VolumeAttachments named for the CSI driver and the translated handle (CSIMigration && CSIMigrationAWS: alpha 1.14, beta off 1.17, beta on 1.23, GA 1.25 locked on; in-tree plugin removed 1.27)",
    area: "csi", side: "both", since: [[23, 0]], releases: "V", issue: "KEP-625 (kubernetes/enhancements#1487)",
    source: "pkg/features/kube_features.go as stored for several releases (CSIMigrationAWS {Default: false, Beta} \"Off by default (requires AWS EBS CSI driver)\"; {Default: true, Beta} beside InTreePluginAWSUnregister alpha; the GA comment \"alpha: v1.14 beta: v1.17 GA: v1.25\"); website feature-gates/CSIMigrationAWS.md (alpha false 1.14-1.16, beta false 1.17-1.22, beta true 1.23-1.24, stable 1.25-1.26, removed) and CSIMigration.md (beta on from 1.17); PR #115838 (in-tree EBS plugin removed, 1.27); attachdetach/util isCSIMigrationSupportedOnNode; csi-translation-lib plugins/aws_ebs.go; a pod's inline volume too: csimigration/plugin_manager.go TranslateInTreeSpecToCSI (spec.Volume, TranslateInTreeInlineVolumeToCSI), attachdetach/util CreateVolumeSpec, csi_attacher.go Attach (InlineVolumeSpecForCSIMigration: spec.source.inlineVolumeSpec), external-attacher csi_handler.go (v1.2.0, #154)",
    modelled: true, test: { scenario: "migration-aws", before: "1.22", after: "1.23" },
  },
  {
    id: "CSIMigrationGCE", pr: null, title: "in-tree gcePersistentDisk volumes handled by the PD CSI driver (pd.csi.storage.gke.io, handle projects/UNSPECIFIED/zones/<zone>/disks/<name>), decided as for CSIMigrationAWS (alpha 1.14, beta off 1.17, beta on 1.23, GA 1.25; in-tree plugin removed 1.28)",
    area: "csi", side: "both", since: [[23, 0]], releases: "V", issue: "KEP-625 (kubernetes/enhancements#1488)",
    source: "pkg/features/kube_features.go as stored (CSIMigrationGCE {Default: true, Beta} \"On by default in 1.23 (requires GCE PD CSI Driver)\" beside InTreePluginGCEUnregister alpha); website feature-gates/CSIMigrationGCE.md (beta false 1.17-1.22, beta true 1.23-1.24, stable 1.25-1.27, removed); website PR #42302 (GCEPersistentDisk removed in 1.28, #117055); csi-translation-lib plugins/gce_pd.go (inline volumes: TranslateInTreeInlineVolumeToCSI, handle zones/UNSPECIFIED)",
    modelled: true, test: { scenario: "migration-gce", before: "1.22", after: "1.23" },
  },
  {
    id: "101737", pr: 101737, title: "ADC start-up (processVolumeAttachments): name a migrated PV's VolumeAttachment by its CSI driver, not its in-tree plugin; before, the volume is marked uncertain under the in-tree name, its mountedByNode clears with the next node update, and it is detached through the in-tree plugin while mounted",
    area: "attachdetach", side: "controller", since: [[22, 0], [21, 2], [20, 8], [19, 12]], releases: "V", issue: "kubernetes/cloud-provider-openstack#1531 (migrated volumes detached on kube-controller-manager restart from 1.18.16); analysis in #101423",
    source: "PR #101423 thread (the analysis: \"false postives for CSI migrated PVs, as the unique volume does not match\"), #101737 description and release note; CHANGELOG of v1.19.12 and v1.20.8 as republished (both list #101737 and #102176), v1.21.2 (#102176; #101737 inferred from the same batch); operation_generator.go GenerateDetachVolumeFunc (findDetachablePluginBySpec: an in-tree spec detaches in-tree)",
    modelled: true, test: { scenario: "migrated-adc-restart-detach", before: "1.21.1", after: "1.21.2" },
  },
  {
    id: "102176", pr: 102176, title: "ADC start-up: translate a VolumeAttachment's migrated PV when its in-tree plugin is unregistered (InTreePlugin*Unregister, CSIMigration*Complete), so the dangling attachment is detached instead of skipped",
    area: "attachdetach", side: "controller", since: [[22, 0], [21, 2], [20, 8], [19, 12]], releases: "V", issue: "#102097",
    source: "PR thread (attach_detach_controller.go processVolumeAttachments: GetInTreePluginNameFromSpec and IsMigrationEnabledForPlugin before FindAttachablePluginBySpec); cherry-picks #102456 (1.21), #102457 (1.20), #102458 (1.19); CHANGELOG v1.19.12, v1.20.8, v1.21.2",
    modelled: true, test: { scenario: "migrated-dangling-va-unregistered", before: "1.21.1", after: "1.21.2" },
  },
  // ---- volume expansion (expand/expand_controller.ts, kubelet/volume_manager.ts section 6) ----
  {
    id: "ExpandInUsePersistentVolumes", pr: null, title: "kubelet: online expansion (feature gate ExpandInUsePersistentVolumes: alpha 1.11, beta on 1.15, GA 1.24): the filesystem of a mounted volume is grown while its pod runs; off, the claim stays FileSystemResizePending until a pod mounts the volume again",
    area: "expand", side: "kubelet", since: [[15, 0]], releases: "V", issue: "kubernetes/enhancements#531",
    source: "pkg/features/kube_features.go (ExpandInUsePersistentVolumes Beta, Default true, as PR #81467 shows it beside ExpandCSIVolumes); website PR #32598 (all expansion gates GA, #108929, 1.24); operation_generator.go GenerateExpandInUseVolumeFunc",
    modelled: true, test: { scenario: "resize-online", before: "1.14", after: "1.15" },
  },
  {
    id: "ExpandCSIVolumes", pr: 81467, title: "kubelet: CSI volumes are node-expandable (feature gate ExpandCSIVolumes: alpha 1.14, beta on 1.16, GA 1.24); off, a CSI claim stays FileSystemResizePending for ever after the external-resizer's ControllerExpandVolume",
    area: "expand", side: "kubelet", since: [[16, 0]], releases: "V", issue: "kubernetes/enhancements#556",
    source: "PR #81467 (Graduate Volume Expansion to Beta: ExpandCSIVolumes Default true, beta v1.16); kubesphere#2914 (1.15: fixed by --feature-gates=ExpandCSIVolumes=true on the kubelet)",
    modelled: true, test: { scenario: "resize-csi-online", before: "1.15", after: "1.16" },
  },
  {
    id: "92986", pr: 92986, title: "kubelet: a NodeExpandVolume answered FailedPrecondition (volume in use) is not retried on that node and does not block the mount",
    area: "expand", side: "kubelet", since: [[19, 0]], releases: "I", issue: "#92931",
    source: "PR thread (milestone v1.19, merged after code freeze as a bug fix); operation_generator.go nodeExpandVolume (IsFailedPreconditionError, MarkForInUseExpansionError) at v1.21",
    modelled: true, test: { scenario: "csi-nodeexpand-in-use", before: "1.18", after: "1.19" },
  },
  {
    id: "100567", pr: 100567, title: "kubelet: a volume whose SetUp succeeded but whose expansion during the mount failed is marked mounted-uncertain, so TearDown runs when its pod goes",
    area: "expand", side: "kubelet", since: [[22, 0]], releases: "I", issue: "#99677",
    source: "PR thread (operation_generator.go GenerateMountVolumeFunc: MarkVolumeMountAsUncertain after \"MountVolume.Setup failed while expanding volume\")",
    modelled: true, test: { scenario: "resize-setup-expand-fails", before: "1.21", after: "1.22" },
  },
  {
    id: "RecoverVolumeExpansionFailure", pr: null, title: "claims' status.allocatedResources and allocatedResourceStatuses (feature gate RecoverVolumeExpansionFailure: alpha 1.23, beta on 1.32); the kubelet expands only a claim marked NodeResizePending/InProgress, and stops retrying one it marked NodeResizeInfeasible",
    area: "expand", side: "both", since: [[32, 0]], releases: "V", issue: "KEP-1790",
    source: "node_expander.go runPreCheck/expandOnPlugin at master; external-resizer pkg/features (alpha v1.23); feature gate table (beta 1.32)",
    modelled: true, test: { scenario: "resize-node-infeasible", before: "1.31", after: "1.32" },
  },
  // ---- block volumes ----
  {
    id: "83451", pr: 83451, title: "kubelet reconstruction of a mapped block volume checks the pod's device link (the map path joined with the volume's name), so a block volume whose pod went during a kubelet restart is unmapped",
    area: "kubelet/volumemanager", side: "kubelet", since: [[17, 0]], releases: "V", issue: "#83445",
    source: "PR thread (\"Fix calculation of block device symlink path to check\"; release note \"Fixed cleanup of raw block devices after kubelet restart\"); CHANGELOG-1.17",
    modelled: true, test: { scenario: "block-reconstruct-unmap-leak", before: "1.16", after: "1.17" },
  },
];

/**
 * Reviewed, not a behaviour change between modelled releases: found in the
 * history and read, but every modelled release behaves alike (each has it,
 * or it was never merged), or it is the same change as another switch. Each
 * says which; `--fix` refuses it with that sentence. Kept apart so that every
 * entry of CHANGES that is modelled is a switch with a diff test.
 */
export const REVIEWED: readonly CatalogueEntry[] = [
  {
    id: "56288", pr: 56288, title: "ADC: the Multi-Attach event names the pods that use the volume (\"Volume is already used by pod(s) ...\")",
    area: "attachdetach", side: "controller", since: [[10, 0]], releases: "I", issue: null,
    source: "PR thread (the two event texts, reconciler.go reportMultiAttachError)",
    reviewed: true,
    modelled: "not a switch: every modelled release has it, and the replay's Multi-Attach event does (attachdetach/reconciler.ts)",
  },
  {
    id: "96952", pr: 96952, title: "CSI verifyAttachmentStatus: check the deletion timestamp after status.attached (closed unmerged: every release fails a wait on a VolumeAttachment being deleted)",
    area: "csi", side: "both", since: [], releases: "V", issue: null,
    source: "PR thread (closed); csi_attacher.go verifyAttachmentStatus in v1.14 and master: the deletion timestamp is checked first",
    reviewed: true,
    modelled: "never merged: the replay follows every release, whose kubelet WaitForAttach fails with \"volume attachment is being deleted\" (volume/csi.ts)",
  },
  {
    id: "podgc-out-of-service", pr: 108486, title: "PodGC: force-delete terminating pods on a NotReady node with the out-of-service taint (gcTerminating)",
    area: "podgc", side: "controller", since: [[26, 0]], releases: "V", issue: "KEP-2268",
    source: "PR #108486 review thread (gc_controller.go gcTerminating)",
    reviewed: true,
    modelled: "not a switch of its own: the same change and feature gate (NodeOutOfServiceVolumeDetach, #108486) as the switch `out-of-service`, which turns on both halves, the pod GC's gcTerminating (podgc/gc_controller.ts) and the attach/detach controller's forced detach; upstream cannot enable one without the other",
  },
  {
    id: "node-lease-ga", pr: 105222, title: "NodeLease GA and locked on (1.17), gate removed (1.23): leases, not node status, are the node lifecycle controller's heartbeat",
    area: "nodelifecycle", side: "controller", since: [[17, 0]], releases: "V", issue: "kubernetes/enhancements#589",
    source: "PR #105222 thread; website PR #17189 (gate table)",
    reviewed: true,
    modelled: "not a switch: no default behaviour changed in 1.17 or 1.23. The gate was on from 1.14 (beta, switch 72096, which also makes the kubelet report an unchanged status every nodeStatusReportFrequency); GA locked it on and 1.23 removed it. The replay's node lifecycle controller starts its grace period when a node's kubelet stops, so leases and status posts are one heartbeat in every release (a kubelet whose status PATCHes fail while its lease renews is not told apart: nodelifecycle/node_lifecycle_controller.ts)",
  },
];

/** the whole catalogue: the changes, then the reviewed entries that are not switches */
export const CATALOGUE: readonly CatalogueEntry[] = [...CHANGES, ...REVIEWED];

/** the entries the replay implements: each a `--fix` switch */
export const MODELLED: readonly CatalogueEntry[] = CATALOGUE.filter((e) => e.modelled === true);

/** behaviour changes the replay does not model yet (neither switches nor reviewed) */
export const NOT_MODELLED: readonly CatalogueEntry[] = CHANGES.filter((e) => e.modelled !== true);

export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return CATALOGUE.find((e) => e.id === id);
}
