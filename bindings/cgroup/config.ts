// The block cgroup files of a whole hierarchy as one state: apply writes in
// order with the kernel's acceptance rules, read files back as `cat` would.
//
// What it tracks, and why:
//   - per (cgroup, device) throttle limits (io.max and the v1 files share
//     them, as they share struct throtl_grp);
//   - per cgroup the default io.weight and per-device overrides;
//   - per device whether iocost is initialised (first io.cost.qos or
//     io.cost.model write; a per-device io.weight before that is
//     EOPNOTSUPP), and its qos / model state;
//   - per cgroup the order its blkgs were created in: blkcg_print_blkgs()
//     walks blkcg->blkg_list, where blkg_create() adds at the head, so
//     read-back lists the most recently configured device first. Only
//     config writes create blkgs here (in the kernel IO does too).
//   - which files exist: io.max and io.weight not on the root cgroup,
//     io.cost.* only on the root; v2 files only with cgroupVersion 2, the
//     v1 blkio.throttle.* files only with 1. A missing file is ENOENT.
//
// Worked example (6.12, one NVMe 259:0):
//   write("web", "io.max", "259:0 wbps=1048576")   -> ok
//   write("web", "io.max", "259:0 riops=1")        -> EINVAL (6.18: ok)
//   read("web", "io.max") = "259:0 rbps=max wbps=1048576 riops=max wiops=max\n"

import type { KernelVersion, SourceRef } from "../scenario/types.js";
import {
  autopClassFor,
  CGROUP_WEIGHT_DFL,
  formatIoCostModelLine,
  formatIoCostQosLine,
  formatIoWeight,
  initialModelState,
  initialQosState,
  parseIoCostModel,
  parseIoCostQos,
  parseIoWeight,
  type AutopClass,
  type IocModelState,
  type IocQosState,
} from "./iocost.js";
import {
  formatBlkioThrottle,
  formatIoMax,
  parseBlkioThrottle,
  parseIoMax,
  THROTTLE_UNLIMITED,
  V1_THROTTLE_FILES,
  type ThrottleLimits,
  type V1ThrottleFile,
} from "./throttle.js";
import {
  devName,
  devnoToDev,
  kernelBuffer,
  openBdev,
  rejectionError,
  reject,
  type WriteContext,
  type WriteRejection,
} from "./write.js";

export interface BlkcgDevice {
  /** "MAJ:MIN" of the whole disk */
  devno: string;
  rotational?: boolean;
  /** blk_queue_depth(): 1 selects iocost's SSD_QD1 class */
  queueDepth?: number;
  /** partitions of this disk, "MAJ:MIN" */
  partitions?: string[];
}

export type V2File = "io.max" | "io.weight" | "io.cost.qos" | "io.cost.model";
export type CgroupFile = V2File | V1ThrottleFile;
export const V2_FILES: readonly V2File[] = ["io.max", "io.weight", "io.cost.qos", "io.cost.model"];

export type WriteOutcome = { ok: true; warning?: string } | WriteRejection;

function canon(devno: string): string {
  return devName(devnoToDev(devno));
}

function ancestors(path: string): string[] {
  if (path === "") return [];
  const parts = path.split("/");
  const out = [""];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join("/"));
  return out;
}

export class BlkcgConfig {
  readonly version: KernelVersion;
  readonly cgroupVersion: 1 | 2;
  private readonly devices: BlkcgDevice[];
  private readonly limitsByKey = new Map<string, ThrottleLimits>();
  private readonly blkgs = new Map<string, string[]>(); // cgroup -> devnos, newest first
  private readonly dflWeight = new Map<string, number>();
  private readonly weightOverride = new Map<string, number>(); // cgroup\0devno
  private readonly qosState = new Map<string, IocQosState>();
  private readonly modelState = new Map<string, IocModelState>();

  constructor(opts: { version: KernelVersion; cgroupVersion?: 1 | 2; devices: BlkcgDevice[] }) {
    this.version = opts.version;
    this.cgroupVersion = opts.cgroupVersion ?? 2;
    this.devices = opts.devices.map((d) => ({ ...d, devno: canon(d.devno) }));
  }

  private ctx(src?: SourceRef, echo?: boolean): WriteContext {
    return {
      version: this.version,
      devices: this.devices.map((d) => d.devno),
      partitions: this.devices.flatMap((d) => d.partitions ?? []),
      file: src?.file,
      line: src?.line,
      echo,
    };
  }

  /** The iocost class a device starts in when ctrl=auto. */
  deviceClass(devno: string): AutopClass {
    const d = this.devices.find((x) => x.devno === canon(devno));
    return autopClassFor({ rotational: d?.rotational ?? false, queueDepth: d?.queueDepth ?? 64 });
  }

  /** Does `file` exist in `cgroup`? */
  exists(cgroup: string, file: string): boolean {
    if (file in V1_THROTTLE_FILES) return this.cgroupVersion === 1;
    if (this.cgroupVersion !== 2) return false;
    if (file === "io.max" || file === "io.weight") return cgroup !== "";
    if (file === "io.cost.qos" || file === "io.cost.model") return cgroup === "";
    return false;
  }

  private touchBlkg(cgroup: string, devno: string): void {
    for (const c of [...ancestors(cgroup), cgroup]) {
      const list = this.blkgs.get(c) ?? [];
      if (!list.includes(devno)) list.unshift(devno);
      this.blkgs.set(c, list);
    }
  }

  /**
   * Apply one write (one write(2) of `value`, `echo` semantics unless
   * echo=false). Returns ok or the kernel's errno; a rejected write changes
   * nothing (except creating blkgs, as the kernel does before parsing).
   */
  write(cgroup: string, file: string, value: string, src?: SourceRef, echo?: boolean): WriteOutcome {
    const ctx = this.ctx(src, echo);
    if (!this.exists(cgroup, file)) {
      const where = cgroup === "" ? "the root cgroup" : `cgroup ${JSON.stringify(cgroup)}`;
      return reject(ctx, "ENOENT", file, `${file} does not exist in ${where} (cgroup v${this.cgroupVersion})`);
    }
    if (file === "io.max") {
      const open = openBdev(kernelBuffer(value, ctx), ctx);
      if (!open.ok) return open;
      this.touchBlkg(cgroup, open.device); // blkg_conf_prep() runs before the tokens are parsed
      const r = parseIoMax(value, { ...ctx, previous: this.limits(cgroup, open.device) });
      if (!r.ok) return r;
      this.limitsByKey.set(`${cgroup}\0${r.device}`, r.limits);
      const notes = [...r.warnings, ...(r.ignored.length ? [`ignored io.low keys ${r.ignored.join(" ")}`] : [])];
      return { ok: true, warning: notes.length ? notes.join("; ") : undefined };
    }
    if (file in V1_THROTTLE_FILES) {
      const dev = this.deviceOf(value, ctx);
      if (dev) this.touchBlkg(cgroup, dev);
      const r = parseBlkioThrottle(file as V1ThrottleFile, value, ctx);
      if (!r.ok) return r;
      const cur = this.limits(cgroup, r.device);
      this.limitsByKey.set(`${cgroup}\0${r.device}`, { ...cur, [r.key]: r.value });
      return { ok: true, warning: r.warning };
    }
    if (file === "io.weight") {
      const r = parseIoWeight(value, { ...ctx, iocostDevices: [...this.qosState.keys()] });
      if (!r.ok) return r;
      if (r.kind === "default") this.dflWeight.set(cgroup, r.weight);
      else {
        this.touchBlkg(cgroup, r.device);
        const k = `${cgroup}\0${r.device}`;
        if (r.weight === null) this.weightOverride.delete(k);
        else this.weightOverride.set(k, r.weight);
      }
      return { ok: true, warning: r.warning };
    }
    if (file === "io.cost.qos" || file === "io.cost.model") {
      const dev = this.deviceOf(value, ctx);
      const cls = dev ? this.deviceClass(dev) : "ssd_dfl";
      if (file === "io.cost.qos") {
        const r = parseIoCostQos(value, { ...ctx, deviceClass: cls, current: dev ? this.qosState.get(dev) : undefined });
        if (dev && (r.ok || r.errno === "EINVAL")) this.initIocost(dev);
        if (!r.ok) return r;
        this.qosState.set(r.device, r.state);
        return { ok: true, warning: r.warning };
      }
      const r = parseIoCostModel(value, { ...ctx, deviceClass: cls, current: dev ? this.modelState.get(dev) : undefined });
      if (dev && (r.ok || r.errno === "EINVAL")) this.initIocost(dev);
      if (!r.ok) return r;
      this.modelState.set(r.device, r.state);
      return { ok: true };
    }
    return reject(ctx, "ENOENT", file, `unknown file ${file}`);
  }

  /** write(), throwing an InputError naming file, line and token on rejection. */
  writeOrThrow(cgroup: string, file: string, value: string, src?: SourceRef): { warning?: string } {
    const r = this.write(cgroup, file, value, src);
    if (!r.ok) throw rejectionError(r, src?.file ?? file, src?.line);
    return r;
  }

  /** blk_iocost_init() runs (and stays) once the device part of a qos/model write is valid. */
  private initIocost(devno: string): void {
    const cls = this.deviceClass(devno);
    if (!this.qosState.has(devno)) this.qosState.set(devno, initialQosState(cls));
    if (!this.modelState.has(devno)) this.modelState.set(devno, initialModelState(cls));
  }

  /** The device a write names, if blkg_conf_open_bdev() would accept it. */
  private deviceOf(value: string, ctx: WriteContext): string | undefined {
    const open = openBdev(kernelBuffer(value, ctx), ctx);
    return open.ok ? open.device : undefined;
  }

  limits(cgroup: string, devno: string): ThrottleLimits {
    return this.limitsByKey.get(`${cgroup}\0${canon(devno)}`) ?? { ...THROTTLE_UNLIMITED };
  }

  defaultWeight(cgroup: string): number {
    return this.dflWeight.get(cgroup) ?? CGROUP_WEIGHT_DFL;
  }

  /** The weight iocost uses for `cgroup` on `devno`: the override, else the default. */
  weight(cgroup: string, devno: string): number {
    return this.weightOverride.get(`${cgroup}\0${canon(devno)}`) ?? this.defaultWeight(cgroup);
  }

  iocostInitialized(devno: string): boolean {
    return this.qosState.has(canon(devno));
  }

  qos(devno: string): IocQosState | undefined {
    return this.qosState.get(canon(devno));
  }

  model(devno: string): IocModelState | undefined {
    return this.modelState.get(canon(devno));
  }

  /** What `cat cgroup/file` shows (ENOENT as a rejection). */
  read(cgroup: string, file: string): string {
    if (!this.exists(cgroup, file)) throw new Error(`${file} does not exist in cgroup ${JSON.stringify(cgroup)}`);
    const order = this.blkgs.get(cgroup) ?? [];
    if (file === "io.max") return formatIoMax(order.map((d) => [d, this.limits(cgroup, d)]));
    if (file in V1_THROTTLE_FILES) {
      return formatBlkioThrottle(file as V1ThrottleFile, order.map((d) => [d, this.limits(cgroup, d)]));
    }
    if (file === "io.weight") {
      const ov: Array<[string, number]> = [];
      for (const d of order) {
        const w = this.weightOverride.get(`${cgroup}\0${d}`);
        if (w !== undefined) ov.push([d, w]);
      }
      return formatIoWeight(this.defaultWeight(cgroup), ov);
    }
    // root blkgs: one per disk, newest disk first
    const disks = [...this.devices].reverse().map((d) => d.devno);
    let out = "";
    for (const d of disks) {
      if (file === "io.cost.qos" && this.qosState.has(d)) out += formatIoCostQosLine(d, this.qosState.get(d)!);
      if (file === "io.cost.model" && this.modelState.has(d)) out += formatIoCostModelLine(d, this.modelState.get(d)!);
    }
    return out;
  }
}

