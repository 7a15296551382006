// pkg/volume/rbd: the in-tree Ceph RBD plugin.
//
// Attach and Detach in the ADC do nothing; the kubelet maps the image in
// WaitForAttach (`rbd map` -> /dev/rbdN), mounts it at the global mount
// plugins/kubernetes.io/rbd/mounts/<pool>-image-<image> (MountDevice), and
// bind-mounts that into the pod (SetUp). UnmountDevice undoes the first two.
//
// Seed 001 (#54214, fixed by #79940). UnmountDevice before the fix:
//   1. devicePath = GetDeviceNameFromMount(deviceMountPath)   (mount table)
//   2. Unmount(deviceMountPath)
//   3. DetachDisk(devicePath)  = rbd unmap   -> EBUSY while another mount
//      namespace (node_exporter with propagation None) still holds the fs
//   4. os.Remove(deviceMountPath)
// A failure in 3 returns an error and the operation is retried after backoff,
// but step 2 already removed the mount: the retry finds no device (1), and
// Unmount of a path that is not mounted fails (2), so step 3 never runs again.
// #79940: when the mount table has no device, find it from the image encoded
// in the directory name (/sys/bus/rbd/devices) and retry the unmap.

import { joinInterned, PluginError, podVolumePaths, type LazyCb, type PluginEnv, type VolumePlugin, type VolumeSpec } from "./plugins.js";

import { perform } from "./operation.js";

export const RBD_PLUGIN_NAME = "kubernetes.io/rbd";

function src(spec: VolumeSpec): { pool: string; image: string } | null {
  const r = spec.pv?.spec?.rbd ?? spec.inline?.rbd;
  return r ? { pool: r.pool ?? "rbd", image: r.image } : null;
}

/** rbd prints its stderr; old kubelets formatted it with %v of a []byte */
function rbdOutput(asBytes: boolean, text: string): string {
  if (!asBytes) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) bytes.push(text.charCodeAt(i));
  return `[${bytes.join(" ")}]`;
}

export function createRBDPlugin(): VolumePlugin {
  const detachDisk = (env: PluginEnv, image: string, devicePath: string, done: LazyCb): void => {
    const { ctx } = env;
    const host = env.host!;
    const id = joinInterned("rbd", ":", image);
    const r = ctx.backend.call("rbdUnmap", id, env.nodeName!);
    // `rbd unmap` as a call (volume/operation.ts): its result on the node is
    // what landing met (EBUSY, ENOENT); a fault's error or a timeout is EIO
    let landed: "EBUSY" | "ENOENT" | null = null;
    perform(ctx, "rbdUnmap", r, false, id, () => {
      landed = host.rbdUnmap(devicePath);
      if (landed === null) ctx.backend.detach(id, env.nodeName!);
      return landed;
    }, (e) => {
      const res = e === null ? null : e.timedOut || r.error !== null ? "EIO" : landed;
      if (res === null) {
        ctx.out.on && ctx.out.log(env.component, "I", "rbd_util.go:446", `rbd: successfully unmap device ${devicePath}`);
        return done(null);
      }
      const stderr =
        res === "EBUSY"
          ? "rbd: sysfs write failed\nrbd: unmap failed: (16) Device or resource busy\n"
          : res === "ENOENT"
            ? `rbd: ${devicePath || "(empty)"}: not a mapped image or snapshot\n`
            : `rbd: ${e!.text}\n`;
      const code = res === "EBUSY" ? 16 : res === "ENOENT" ? 22 : 5;
      if (ctx.out.on) for (const line of stderr.trim().split("\n")) ctx.out.raw(`rbd/${env.nodeName}`, "E", line);
      if (res === "EBUSY") {
        // a causal note whatever the logging (an explanation quotes it): the
        // holders as they are now, the text built if an explanation reads it
        const holders = host.holders(devicePath);
        const node = env.nodeName;
        ctx.out.note(`volume:rbd:${image}`, () => `rbd unmap ${devicePath} on ${node} returned EBUSY: the filesystem is still mounted in the mount namespace of ${holders.join(", ") || "another process"}`);
        ctx.steps.step("rbd.UnmapBusy", devicePath);
      }
      // read by the kubelet's failure log line alone: built only if logged
      const asBytes = ctx.profile.rbdOutputAsBytes;
      done(() => `rbd: failed to unmap device ${devicePath}, error exit status ${code}, rbd output: ${rbdOutput(asBytes, stderr)}`);
    });
  };

  const plugin: VolumePlugin = {
    name: RBD_PLUGIN_NAME,
    dirName: "kubernetes.io~rbd",
    attachableByName: true,
    canSupport: (spec) => src(spec) !== null,
    isAttachable: () => true,
    isDeviceMountable: () => true,
    getVolumeName(spec) {
      const s = src(spec);
      if (!s) throw new PluginError("Spec does not reference a RBD volume type");
      // the same string for the same image (uniqueNameFromSpec: map keys rebuilt every pass)
      return joinInterned(s.pool, ":", s.image);
    },
    attach(_env, _spec, _node, done) {
      done(null, "");
    },
    detach(_env, _volumeName, _node, done) {
      done(null);
    },
    volumeIsAttached: () => true,
    waitForAttach(env, spec, _devicePath, done) {
      const { ctx } = env;
      const s = src(spec)!;
      const image = joinInterned(s.pool, "/", s.image);
      const id = joinInterned("rbd", ":", image);
      const r = ctx.backend.call("rbdMap", id, env.nodeName!);
      // `rbd map` as a call (volume/operation.ts): the work maps the image on
      // the node unless another node has it (the image's lock); an image the
      // node has mapped already is used as it is (AttachDisk's
      // getRbdDevFromImageAndPool)
      let dev = "";
      let inUse = false;
      perform(ctx, "rbdMap", r, false, id, () => {
        for (const h of ctx.hosts.values())
          if (h !== env.host && h.rbdDeviceFor(image)) {
            inUse = true;
            return `rbd image ${image} is still being used`;
          }
        dev = env.host!.rbdMap(image);
        ctx.backend.attach(id, env.nodeName!, `rbd image ${image} is still being used`);
        return null;
      }, (e) => {
        if (e !== null) return done(inUse && !e.timedOut ? e.text : `rbd: map failed ${e.text}`);
        ctx.out.on && ctx.out.log(env.component, "I", "rbd_util.go:380", `rbd: successfully map image ${image} to ${dev}`);
        done(null, dev);
      });
    },
    getDeviceMountPath(env, spec) {
      const s = src(spec)!;
      // one string per path: a key of the host's mount and directory tables
      return joinInterned(joinInterned(env.ctx.kubeletRoot, "/plugins/kubernetes.io/rbd/mounts/", s.pool), "-image-", s.image);
    },
    mountDevice(env, spec, devicePath, deviceMountPath, done) {
      const s = src(spec)!;
      const host = env.host!;
      const id = joinInterned("rbd", ":", joinInterned(s.pool, "/", s.image));
      perform(env.ctx, "mountDevice", env.ctx.backend.call("mountDevice", id, env.nodeName!, RBD_PLUGIN_NAME), false, id, () => {
        host.mkdir(deviceMountPath, { plugin: RBD_PLUGIN_NAME, data: { pool: s.pool, image: s.image } });
        host.mount(devicePath, deviceMountPath);
        return null;
      }, (err) => done(err === null ? null : err.text));
    },
    unmountDevice(env, deviceMountPath, done) {
      const { ctx } = env;
      const host = env.host!;
      const c = env.component;
      const info = host.dirs.get(deviceMountPath);
      if (!info) {
        ctx.out.on && ctx.out.log(c, "W", "attacher.go:226", `Warning: Unmount skipped because path does not exist: ${deviceMountPath}`);
        return done(null);
      }
      const image = joinInterned(info.data.pool!, "/", info.data.image!);
      let devicePath = host.deviceAt(deviceMountPath);
      const mounted = devicePath !== "";
      if (ctx.profile.has.pr79940) {
        if (devicePath === "") {
          devicePath = host.rbdDeviceFor(image);
          // upstream passes (deviceMountPath, pool, name) to "... Image %v, Pool %v": the pool prints as the image (attacher.go UnmountDevice, v1.16.0)
          if (devicePath === "") ctx.out.on && ctx.out.log(c, "W", "attacher.go:255", `rbd: can't found devicePath for ${deviceMountPath}. Device is already unmounted, Image ${info.data.pool}, Pool ${info.data.image}`);
        }
        if (mounted) {
          // klog.V(4) and V(3), printed as every line is (bindings/k8s/README.md)
          ctx.out.on && ctx.out.log(c, "I", "attacher.go:239", `rbd: unmouting device mountpoint ${deviceMountPath}`);
          const err = host.unmount(deviceMountPath);
          if (err) return done(err);
          ctx.out.on && ctx.out.log(c, "I", "attacher.go:243", `rbd: successfully umount device mountpath ${deviceMountPath}`);
        }
        const finish = (): void => {
          host.rmdir(deviceMountPath);
          ctx.out.on && ctx.out.log(c, "I", "attacher.go:271", `rbd: successfully remove device mount point ${deviceMountPath}`);
          done(null);
        };
        if (devicePath === "") return finish();
        ctx.out.on && ctx.out.log(c, "I", "attacher.go:260", `rbd: detaching device ${devicePath}`);
        return detachDisk(env, image, devicePath, (err) => {
          if (err) return done(err);
          ctx.out.on && ctx.out.log(c, "I", "attacher.go:265", `rbd: successfully detach device ${devicePath}`);
          finish();
        });
      }
      // before #79940
      ctx.out.on && ctx.out.log(c, "I", "attacher.go:234", `rbd: unmouting device mountpoint ${deviceMountPath}`);
      const uerr = host.unmount(deviceMountPath);
      if (uerr) return done(uerr);
      ctx.out.on && ctx.out.log(c, "I", "attacher.go:238", `rbd: successfully umount device mountpath ${deviceMountPath}`);
      ctx.out.on && ctx.out.log(c, "I", "attacher.go:240", `rbd: detaching device ${devicePath}`);
      detachDisk(env, image, devicePath, (err) => {
        if (err) return done(err);
        ctx.out.on && ctx.out.log(c, "I", "attacher.go:245", `rbd: successfully detach device ${devicePath}`);
        host.rmdir(deviceMountPath);
        ctx.out.on && ctx.out.log(c, "I", "attacher.go:250", `rbd: successfully remove device mount point ${deviceMountPath}`);
        done(null);
      });
    },
    podVolumeDir(env, podUID, specName) {
      return podVolumePaths(env.host!, podUID, plugin.dirName, specName).dir;
    },
    setUp(env, spec, podUID, deviceMountPath, done) {
      const s = src(spec)!;
      const dir = plugin.podVolumeDir(env, podUID, spec.name);
      const host = env.host!;
      const id = joinInterned("rbd", ":", joinInterned(s.pool, "/", s.image));
      perform(env.ctx, "setUp", env.ctx.backend.call("setUp", id, env.nodeName!, RBD_PLUGIN_NAME), false, id, () => {
        host.mkdir(dir, { plugin: RBD_PLUGIN_NAME, podUID, specName: spec.name, data: { pool: s.pool, image: s.image, pv: spec.pv?.metadata.name ?? "" } });
        return host.bind(deviceMountPath, dir);
      }, (err) => done(err === null ? null : err.text));
    },
    tearDown(env, specName, podUID, done) {
      const dir = plugin.podVolumeDir(env, podUID, specName);
      const host = env.host!;
      const info = host.dirs.get(dir);
      const id = info !== undefined ? joinInterned("rbd", ":", joinInterned(info.data.pool!, "/", info.data.image!)) : specName;
      perform(env.ctx, "tearDown", env.ctx.backend.call("tearDown", id, env.nodeName!, RBD_PLUGIN_NAME), false, id, () => {
        if (host.isMountPoint(dir)) {
          const err = host.unmount(dir);
          if (err) return err;
        }
        host.rmdir(dir);
        return null;
      }, (err) => done(err === null ? null : err.text));
    },
    constructVolumeSpec(env, specName, podUID) {
      const info = env.host!.dirs.get(plugin.podVolumeDir(env, podUID, specName));
      if (!info) throw new PluginError(`rbd: cannot find volume data for ${specName}`);
      const rbd = { monitors: [], pool: info.data.pool, image: info.data.image! };
      if (info.data.pv)
        return { name: info.data.pv, pv: { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: info.data.pv, uid: "", resourceVersion: "" }, spec: { rbd } }, readOnly: false };
      return { name: specName, inline: { name: specName, rbd }, readOnly: false };
    },
  };
  return plugin;
}
