// pkg/volume/csimigration and staging/src/k8s.io/csi-translation-lib: the
// in-tree -> CSI migration of awsElasticBlockStore and gcePersistentDisk
// volumes (issue #26 scope 4; switches CSIMigrationAWS, CSIMigrationGCE,
// 101737, 102176 of versions/fixes.ts).
//
// 1. Who decides (PVs and inline volumes alike: 2b). Each process asks its own feature gates
//    (PluginManager.IsMigrationEnabledForPlugin: CSIMigration &&
//    CSIMigration<Plugin>; the switches here stand for both, since
//    CSIMigration was beta on from 1.17, before either plugin's gate was).
//    - The kubelet (desired_state_of_world_populator.go createVolumeSpec):
//      a migratable spec is translated when its own gate is on; nothing else.
//    - The kubelet's CSI plugin writes the node's CSINode object
//      (nodeinfomanager: InitializeCSINodeWithAnnotation at start,
//      installDriverToCSINode when a driver registers) with the annotation
//      `storage.kubernetes.io/migrated-plugins`: the in-tree plugins whose
//      migration is on in this kubelet, sorted, joined with ",", and
//      spec.drivers: the CSI drivers registered on the node.
//    - The attach/detach controller (util.go translateInTreeSpecToCSIIfNeeded,
//      isCSIMigrationSupportedOnNode): a migratable spec is translated when
//      the controller's gate is on AND the node's CSINode lists the plugin in
//      that annotation; an annotated node whose CSINode lacks the driver is an
//      error ("in-tree plugin ... is migrated on node ... but driver ... is
//      not installed") and the volume is not added to the desired state (the
//      populator tries again). So a kubelet that is not migrated keeps the
//      in-tree path even under a migrated controller.
//    The skew upstream leaves broken: a kubelet migrated under a controller
//    that is not. The kubelet waits for kubernetes.io/csi/<driver>^<handle>
//    in node.status.volumesAttached ("Volume not attached according to node
//    status") while the controller attached kubernetes.io/aws-ebs/<id>: the
//    pod never starts. Upgrade the control plane first (KEP-625).
//
// 2. Translation (csi-translation-lib plugins/aws_ebs.go, gce_pd.go;
//    TranslateInTreePVToCSI):
//      awsElasticBlockStore{volumeID}  -> csi{driver: ebs.csi.aws.com,
//        volumeHandle: the EBS id (KubernetesVolumeIDToEBSVolumeID:
//        "aws://<zone>/vol-x" -> "vol-x"), fsType}
//      gcePersistentDisk{pdName}       -> csi{driver: pd.csi.storage.gke.io,
//        volumeHandle: projects/UNSPECIFIED/zones/<zone>/disks/<pdName>, the
//        zone from the PV's failure-domain.beta.kubernetes.io/zone label or
//        else topology.kubernetes.io/zone; several zones ("a__b"): a regional
//        disk, projects/UNSPECIFIED/regions/<region>/disks/<pdName>; none:
//        zones/UNSPECIFIED}, fsType
//    The translated spec keeps the PV's name, so the kubelet's paths are the
//    CSI plugin's (pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount, the CSI
//    global mount), the unique volume name is kubernetes.io/csi/<driver>^<handle>,
//    the VolumeAttachment is csi-<sha256(handle + driver + node)> and its
//    device path in node.status.volumesAttached is "" (csi_attacher.go).
//
// 2b. Inline volumes (a pod's own awsElasticBlockStore / gcePersistentDisk).
//    Translated by the same processes under the same gates as a PV:
//    csimigration.TranslateInTreeSpecToCSI with spec.Volume set calls
//    TranslateInTreeInlineVolumeToCSI and marks the result
//    InlineVolumeSpecForCSIMigration (pkg/volume/csimigration/plugin_manager.go,
//    IsMigratable reads GetInTreePluginNameFromSpec(spec.PersistentVolume,
//    spec.Volume)); the kubelet's createVolumeSpec translates "a PVC or
//    else an inline volume source" alike, and attachdetach/util
//    CreateVolumeSpec passes an inline spec through
//    translateInTreeSpecToCSIIfNeeded too (the node's CSINode decides; its
//    refusal reads "error performing CSI migration checks and translation
//    for inline volume ..."). The translation (plugins/aws_ebs.go,
//    gce_pd.go, as stored for the newest release) is a PersistentVolume
//    that exists nowhere but in the spec:
//      awsElasticBlockStore{volumeID} -> name "ebs.csi.aws.com-<handle>",
//        csi{ebs.csi.aws.com, <handle>, fsType, volumeAttributes
//        {partition: "<n>"}}, accessModes [ReadWriteOnce]
//      gcePersistentDisk{pdName}      -> name "pd.csi.storage.gke.io-<pdName>",
//        csi{pd.csi.storage.gke.io, projects/UNSPECIFIED/zones/UNSPECIFIED/
//        disks/<pdName> (no labels to take a zone from), fsType,
//        volumeAttributes {partition: "" or "<n>"}}, accessModes
//        [ReadOnlyMany] if readOnly else [ReadWriteOnce], volumeMode Filesystem
//    ("Must be unique per disk as it is used as the unique part of the
//    staging path"). So: the unique name kubernetes.io/csi/<driver>^<handle>
//    as for a PV; spec.Name() is that PV name, hence the pod's directory
//    pods/<uid>/volumes/kubernetes.io~csi/ebs.csi.aws.com-vol-1 and, before
//    the hashed global mount, plugins/kubernetes.io/csi/pv/<name>/globalmount;
//    csi_attacher.go Attach puts the translated spec in the VolumeAttachment
//    (spec.source.inlineVolumeSpec, no persistentVolumeName); the
//    external-attacher attaches and detaches from inlineVolumeSpec.csi
//    (csi_handler.go csiAttach/csiDetach; since v1.2.0, PR #154), and the
//    controller's start-up processVolumeAttachments skips a VolumeAttachment
//    without a PV name ("Skipping the va as its pvName is nil", the
//    klog.Warningf form; its ASW comes from node status). util.IsMultiAttachAllowed
//    reads the translated PV's access modes: an inline in-tree volume (no PV)
//    was multi-attachable to the controller, its translation is ReadWriteOnce
//    (a second node's pod gets a Multi-Attach error). The kubelet's online
//    expansion skips it (no claim, no PV to read sizes from).
//    Releases: the API field came with 1.15 (#77703) and inline
//    translation by 1.16, when it ran in the operation generator at each
//    operation under the in-tree unique name (a 1.16-era
//    operation_generator.go: translateSpec handles spec.Volume); from 1.17
//    the populators translate (pkg/volume/csimigration). Migration is alpha/beta off until 1.23, so
//    the replay models only the 1.17+ form, on every release a switch turns
//    migration on, as for PVs (the essay of this file before said "from
//    1.21": no source read supports that).
//
// 3. Removal. The in-tree EBS plugin is gone from 1.27 (#115838), the GCE PD
//    plugin from 1.28 (#117055): from then on a migratable spec always goes
//    through the CSI driver, whatever a switch says. Before that the plugin
//    can be unregistered by the gates InTreePluginAWSUnregister /
//    InTreePluginGCEUnregister (alpha 1.21, default off; CSIMigrationAWSComplete /
//    CSIMigrationGCEComplete before): `settings.featureGates` of a scenario.
//
// 4. The storage backend knows a disk by the id each plugin calls it with:
//    an EBS handle is the disk's id, so a disk attached in-tree and detached
//    through the driver (or the reverse) is one disk; a PD handle is not the
//    in-tree pdName, so a PD attached one way and detached the other is two
//    disks to the replay (not modelled: no scenario mixes them yet). The
//    in-tree plugins use a volumeID as written ("aws://zone/vol-x" too).
//
// Worked example: PV pv-a {awsElasticBlockStore: {volumeID: vol-1}} on 1.23
// (CSIMigrationAWS on): the kubelet on n1 writes CSINode n1 with
// migrated-plugins "kubernetes.io/aws-ebs" and, once the EBS node plugin
// registers, drivers [ebs.csi.aws.com]; the controller translates the spec to
// csi{ebs.csi.aws.com, vol-1}, creates VolumeAttachment
// csi-<sha256("vol-1" + "ebs.csi.aws.com" + "n1")>, and reports
// kubernetes.io/csi/ebs.csi.aws.com^vol-1 attached; the kubelet stages the
// disk at plugins/kubernetes.io/csi/ebs.csi.aws.com/<sha256(vol-1)>/globalmount.
// The same disk as pod web-0's inline volume `data` {awsElasticBlockStore:
// {volumeID: vol-1}} instead: both translate it to the PV
// "ebs.csi.aws.com-vol-1"; the controller creates the same VolumeAttachment
// with spec.source.inlineVolumeSpec {csi: {driver: ebs.csi.aws.com,
// volumeHandle: vol-1, volumeAttributes: {partition: "0"}}, accessModes:
// [ReadWriteOnce]}, the kubelet publishes to
// pods/<uid>/volumes/kubernetes.io~csi/ebs.csi.aws.com-vol-1/mount, and on
// the pod's deletion unpublishes, unstages, and the controller deletes the
// VolumeAttachment, which the external-attacher ControllerUnpublishes from
// its inline spec (test/k8s/csi-migration-inline.test.ts).

import type { KObj, PodVolume } from "../api/types.js";
import type { Profile } from "../versions/profile.js";
import { intern } from "../../util/intern.js";
import type { VolumeSpec } from "./plugins.js";

export const AWS_EBS_PLUGIN = "kubernetes.io/aws-ebs";
export const GCE_PD_PLUGIN = "kubernetes.io/gce-pd";
export const AWS_EBS_DRIVER = "ebs.csi.aws.com";
export const GCE_PD_DRIVER = "pd.csi.storage.gke.io";
/** v1.MigratedPluginsAnnotationKey */
export const MIGRATED_PLUGINS_ANNOTATION = "storage.kubernetes.io/migrated-plugins";

export type MigratedPlugin = typeof AWS_EBS_PLUGIN | typeof GCE_PD_PLUGIN;

interface Migration {
  plugin: MigratedPlugin;
  driver: string;
  /** the switch (feature gate) that turns migration on */
  gate: "CSIMigrationAWS" | "CSIMigrationGCE";
  /** the gate that unregisters the in-tree plugin (InTreePlugin<X>Unregister) */
  unregisterGate: string;
  /** the first minor without the in-tree plugin */
  removedIn: number;
}
export const MIGRATIONS: readonly Migration[] = [
  { plugin: AWS_EBS_PLUGIN, driver: AWS_EBS_DRIVER, gate: "CSIMigrationAWS", unregisterGate: "InTreePluginAWSUnregister", removedIn: 27 },
  { plugin: GCE_PD_PLUGIN, driver: GCE_PD_DRIVER, gate: "CSIMigrationGCE", unregisterGate: "InTreePluginGCEUnregister", removedIn: 28 },
];
/** the feature gates a scenario may set (`settings.featureGates`, `settings.kubeletFeatureGates`), with their older names */
export const SCENARIO_GATES = ["InTreePluginAWSUnregister", "InTreePluginGCEUnregister", "CSIMigrationAWSComplete", "CSIMigrationGCEComplete"] as const;
export const KUBELET_GATES = ["CSIMigrationAWS", "CSIMigrationGCE"] as const;

/** a process's feature gates that are not switches: a scenario's (settings.featureGates / kubeletFeatureGates) */
export type Gates = Readonly<Record<string, boolean>>;

function migrationOf(plugin: string): Migration | undefined {
  return plugin === AWS_EBS_PLUGIN ? MIGRATIONS[0] : plugin === GCE_PD_PLUGIN ? MIGRATIONS[1] : undefined;
}

/** GetInTreePluginNameFromSpec(spec.PersistentVolume, spec.Volume): a PV's or a pod's inline volume's in-tree plugin */
export function inTreePluginOf(spec: VolumeSpec): MigratedPlugin | null {
  const s: Record<string, unknown> | undefined = spec.pv !== undefined ? spec.pv.spec : (spec.inline as unknown as Record<string, unknown> | undefined);
  if (!s) return null;
  if (s.awsElasticBlockStore) return AWS_EBS_PLUGIN;
  if (s.gcePersistentDisk) return GCE_PD_PLUGIN;
  return null;
}

/** the in-tree plugin's code is in this release (section 3) */
export function inTreePluginExists(profile: Profile, plugin: string): boolean {
  const m = migrationOf(plugin);
  return m === undefined || profile.version.minor < m.removedIn;
}

/** the in-tree plugin is registered: in the release and not unregistered by a gate */
export function inTreePluginRegistered(profile: Profile, gates: Gates, plugin: string): boolean {
  const m = migrationOf(plugin);
  if (m === undefined) return true;
  if (!inTreePluginExists(profile, plugin)) return false;
  const old = m.gate === "CSIMigrationAWS" ? "CSIMigrationAWSComplete" : "CSIMigrationGCEComplete";
  return !(gates[m.unregisterGate] ?? gates[old] ?? false);
}

/**
 * PluginManager.IsMigrationEnabledForPlugin of a process with these gates:
 * its switch (or a kubelet's own gate), and always once the in-tree plugin is gone
 */
export function isMigrationEnabledForPlugin(profile: Profile, plugin: string, own?: Gates): boolean {
  const m = migrationOf(plugin);
  if (m === undefined) return false;
  if (!inTreePluginExists(profile, plugin)) return true;
  return own?.[m.gate] ?? profile.fix[m.gate];
}

/** the CSI driver of a migrated in-tree plugin */
export function driverOf(plugin: MigratedPlugin): string {
  return migrationOf(plugin)!.driver;
}

/** the in-tree plugins migrated in a process with these gates, as the CSINode annotation lists them (sorted, "," joined) */
export function migratedPluginsAnnotation(profile: Profile, own?: Gates): string {
  const on = MIGRATIONS.filter((m) => isMigrationEnabledForPlugin(profile, m.plugin, own)).map((m) => m.plugin);
  return on.sort().join(",");
}

/** aws_ebs.go KubernetesVolumeIDToEBSVolumeID: "aws://<zone>/vol-x" or "aws:///vol-x" -> "vol-x"; anything else as it is */
export function ebsVolumeId(volumeID: string): string {
  if (!volumeID.startsWith("aws://")) return volumeID;
  return volumeID.slice(volumeID.lastIndexOf("/") + 1);
}

/** gce_pd.go: the handle of a PD from its PV's zone labels */
export function gcePdHandle(pv: KObj, pdName: string): string {
  const labels = pv.metadata.labels ?? {};
  const zonesLabel = labels["failure-domain.beta.kubernetes.io/zone"] || labels["topology.kubernetes.io/zone"] || "";
  const zones = zonesLabel === "" ? [] : zonesLabel.split("__");
  if (zones.length === 1) return `projects/UNSPECIFIED/zones/${zones[0]}/disks/${pdName}`;
  if (zones.length > 1) {
    // gceGetRegionFromZones: every zone's region ("us-central1-a" -> "us-central1") must be the same
    const region = zones[0]!.slice(0, zones[0]!.lastIndexOf("-"));
    return `projects/UNSPECIFIED/regions/${region}/disks/${pdName}`;
  }
  return `projects/UNSPECIFIED/zones/UNSPECIFIED/disks/${pdName}`;
}

/**
 * csimigration.TranslateInTreeSpecToCSI: the PV with its in-tree source
 * replaced by the CSI driver's (section 2); one translated object per PV
 * object, so the plugin manager's answers by source and the names built from
 * it are the same objects on every pass.
 */
export function translateInTreeSpecToCSI(spec: VolumeSpec): VolumeSpec {
  if (spec.pv === undefined) {
    const t = translateInlineVolume(spec.inline!);
    return { name: t.metadata.name, pv: t, readOnly: spec.readOnly, migrated: true, inlineMigration: true };
  }
  const pv = spec.pv;
  let t = translated.get(pv);
  if (t === undefined) {
    const s = pv.spec;
    let csi: { driver: string; volumeHandle: string; fsType?: string; readOnly?: boolean };
    if (s.awsElasticBlockStore) {
      const a = s.awsElasticBlockStore as { volumeID: string; fsType?: string; readOnly?: boolean };
      csi = {
        driver: AWS_EBS_DRIVER,
        volumeHandle: intern(ebsVolumeId(a.volumeID)),
        ...(a.fsType ? { fsType: a.fsType } : {}),
        ...(a.readOnly ? { readOnly: true } : {}),
      };
    } else {
      const g = s.gcePersistentDisk as { pdName: string; fsType?: string; readOnly?: boolean };
      csi = {
        driver: GCE_PD_DRIVER,
        volumeHandle: intern(gcePdHandle(pv, g.pdName)),
        ...(g.fsType ? { fsType: g.fsType } : {}),
        ...(g.readOnly ? { readOnly: true } : {}),
      };
    }
    const { awsElasticBlockStore: _a, gcePersistentDisk: _g, ...rest } = s;
    const tpv: KObj = { apiVersion: pv.apiVersion, kind: pv.kind, metadata: pv.metadata, spec: { ...rest, csi } };
    if (pv.status !== undefined) tpv.status = pv.status;
    translated.set(pv, (t = tpv));
  }
  return { name: spec.name, pv: t, readOnly: spec.readOnly, migrated: true };
}
const translated = new WeakMap<KObj, KObj>();

/**
 * TranslateInTreeInlineVolumeToCSI (csi-translation-lib plugins/aws_ebs.go,
 * gce_pd.go): a pod's inline awsElasticBlockStore / gcePersistentDisk as the
 * PersistentVolume the translation makes of it (section 2b), one per pod
 * volume object (a stored pod's spec is never written: api/types.ts).
 */
export function translateInlineVolume(v: PodVolume): KObj {
  let t = translatedInline.get(v);
  if (t === undefined) {
    let name: string;
    let csi: Record<string, unknown>;
    let accessModes: string[];
    if (v.awsElasticBlockStore) {
      const a = v.awsElasticBlockStore as { volumeID: string; fsType?: string; readOnly?: boolean; partition?: number };
      const handle = intern(ebsVolumeId(String(a.volumeID)));
      name = `${AWS_EBS_DRIVER}-${handle}`;
      csi = {
        driver: AWS_EBS_DRIVER,
        volumeHandle: handle,
        ...(a.readOnly ? { readOnly: true } : {}),
        ...(a.fsType ? { fsType: a.fsType } : {}),
        volumeAttributes: { partition: String(a.partition ?? 0) },
      };
      accessModes = ["ReadWriteOnce"];
    } else {
      const g = v.gcePersistentDisk as { pdName: string; fsType?: string; readOnly?: boolean; partition?: number };
      name = `${GCE_PD_DRIVER}-${g.pdName}`;
      csi = {
        driver: GCE_PD_DRIVER,
        // an inline volume has no zone labels: zones/UNSPECIFIED
        volumeHandle: intern(`projects/UNSPECIFIED/zones/UNSPECIFIED/disks/${g.pdName}`),
        ...(g.readOnly ? { readOnly: true } : {}),
        ...(g.fsType ? { fsType: g.fsType } : {}),
        volumeAttributes: { partition: g.partition ? String(g.partition) : "" },
      };
      accessModes = [g.readOnly ? "ReadOnlyMany" : "ReadWriteOnce"];
    }
    const spec: Record<string, unknown> = { csi, accessModes };
    if (v.gcePersistentDisk) spec.volumeMode = "Filesystem";
    t = { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: intern(name), uid: "", resourceVersion: "" }, spec };
    translatedInline.set(v, t);
  }
  return t;
}
const translatedInline = new WeakMap<PodVolume, KObj>();

/** what the migration helpers read of a run (engine/context.ts Ctx) */
interface MigrationCtx {
  profile: Profile;
  migration?: { gates: Gates; kubeletGates: Gates | undefined; drivers: boolean; volumes: boolean };
}
const NONE: Gates = Object.freeze({});

/**
 * The kubelet's spec for a pod volume (desired_state_of_world_populator.go
 * createVolumeSpec): translated when the kubelet's own gate is on (section
 * 1); null when its in-tree plugin is not registered and it is not migrated
 * ("no volume plugin matched").
 */
export function kubeletVolumeSpec(ctx: MigrationCtx, spec: VolumeSpec): VolumeSpec | null {
  if (ctx.migration === undefined || !ctx.migration.volumes) return spec;
  const plugin = inTreePluginOf(spec);
  if (plugin === null) return spec;
  if (isMigrationEnabledForPlugin(ctx.profile, plugin, ctx.migration.kubeletGates)) return translateInTreeSpecToCSI(spec);
  return inTreePluginRegistered(ctx.profile, ctx.migration.gates, plugin) ? spec : null;
}

/**
 * The attach/detach controller's spec for a pod volume on `node`
 * (util.go translateInTreeSpecToCSIIfNeeded, isCSIMigrationSupportedOnNode):
 * translated when the controller's gate is on and the node's CSINode lists
 * the plugin as migrated; an error text when it does but the CSINode lacks
 * the driver; null when the in-tree plugin is not registered and the volume
 * stays in-tree.
 */
export function controllerVolumeSpec(ctx: MigrationCtx, spec: VolumeSpec, node: string, csiNode: KObj | undefined): VolumeSpec | string | null {
  if (ctx.migration === undefined || !ctx.migration.volumes) return spec;
  const plugin = inTreePluginOf(spec);
  if (plugin === null) return spec;
  const gates = ctx.migration.gates ?? NONE;
  const registered = inTreePluginRegistered(ctx.profile, gates, plugin);
  if (!isMigrationEnabledForPlugin(ctx.profile, plugin)) return registered ? spec : null;
  if (csiNode === undefined) return `csinode.storage.k8s.io "${node}" not found`;
  const ann = csiNode.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION] ?? "";
  if (!ann.split(",").includes(plugin)) return registered ? spec : null;
  const driver = driverOf(plugin);
  const drivers = (csiNode.spec?.drivers ?? []) as Array<{ name: string }>;
  if (!drivers.some((d) => d.name === driver)) return `in-tree plugin ${plugin} is migrated on node ${node} but driver ${driver} is not installed`;
  return translateInTreeSpecToCSI(spec);
}

/**
 * processVolumeAttachments' plugin and spec for a VolumeAttachment's PV
 * (attach_detach_controller.go): before #101737 the spec's own plugin, so a
 * migrated PV is named in-tree; #101737 translates it when the controller's
 * gate is on, after finding its in-tree plugin, which fails when that plugin
 * is unregistered (the VolumeAttachment is skipped) until #102176 asks the
 * migration first. "in-tree": the in-tree spec; "csi": the translated one;
 * null: skipped ("no attacher interface found").
 */
export function processVolumeAttachmentSpec(ctx: MigrationCtx, spec: VolumeSpec): VolumeSpec | null {
  if (ctx.migration === undefined || !ctx.migration.volumes) return spec;
  const plugin = inTreePluginOf(spec);
  if (plugin === null) return spec;
  const registered = inTreePluginRegistered(ctx.profile, ctx.migration.gates ?? NONE, plugin);
  const enabled = isMigrationEnabledForPlugin(ctx.profile, plugin);
  if (!registered) return ctx.profile.has.pr102176 && enabled ? translateInTreeSpecToCSI(spec) : null;
  return ctx.profile.has.pr101737 && enabled ? translateInTreeSpecToCSI(spec) : spec;
}

/** a PV's CSI volume handle: its own, or the one its in-tree source translates to; undefined for neither */
export function pvVolumeHandle(pv: KObj | undefined): string | undefined {
  if (pv === undefined) return undefined;
  if (pv.spec?.csi) return pv.spec.csi.volumeHandle;
  if (pv.spec?.awsElasticBlockStore) return ebsVolumeId(String(pv.spec.awsElasticBlockStore.volumeID));
  if (pv.spec?.gcePersistentDisk) return gcePdHandle(pv, String(pv.spec.gcePersistentDisk.pdName));
  return undefined;
}
