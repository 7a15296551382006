// Control modules: the kernel features configured through cgroup files.
//
// blk-throttle (io.max, blkio.throttle.*), blk-iocost (io.weight, io.cost.*)
// and writeback each live in the WASM core; on this side each has a
// ControlModule that parses its files with the kernel's rules and passes the
// parsed values to the core, either at setup (t = 0) or as a timed change the
// core applies at the write's simulated time. A Simulation routes every
// config write to the module that claims the file name.

import type { CoreExports } from "../core/core.js";
import type { ConfigWrite, DeviceSpec, KernelVersion, Scenario } from "../scenario/types.js";

export interface ControlContext {
  core: CoreExports;
  scenario: Scenario;
  kernel: KernelVersion;
  /** core id of a cgroup path ("" = root) */
  cgroupId(path: string): number | undefined;
  /** parent path of a cgroup path, undefined for the root */
  cgroupPaths(): string[];
  device(devno: string): { id: number; spec: DeviceSpec } | undefined;
  devices(): Array<{ id: number; spec: DeviceSpec }>;
  warn(message: string): void;
  /** per-module state kept across calls */
  state: Map<string, unknown>;
}

export interface ControlModule {
  name: string;
  /** Does this module own the interface file `file` (e.g. "io.max")? */
  handles(file: string): boolean;
  /** Called once after cgroups, devices and jobs exist, before any write. */
  setup?(ctx: ControlContext): void;
  /** Apply a write (atNs 0 = initial configuration). Throws InputError on a rejected write. */
  write(ctx: ControlContext, w: ConfigWrite): void;
  /** Called after all writes, before the run starts. */
  finish?(ctx: ControlContext): void;
  /** Extra `key=value` fields this module adds to a cgroup's io.stat line for a device. */
  ioStatExtra?(ctx: ControlContext, cgroup: string, devno: string): Record<string, string | number>;
}

const registry: ControlModule[] = [];

export function registerControlModule(m: ControlModule): void {
  if (!registry.some((r) => r.name === m.name)) registry.push(m);
}

export function controlModules(): readonly ControlModule[] {
  return registry;
}
