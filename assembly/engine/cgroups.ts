// The cgroup tree as the core sees it: an id per cgroup, its parent, and
// whether the hierarchy is cgroup v2 (unified: limits nest) or v1 (blkio
// throttling is flat: every group hangs off the device's top-level queue).
// Cgroup 0 is the root. Names and config files live on the TypeScript side.

import { Vec } from "./vec";

export const cgParent = new Vec<i32>(16);
export let cgroupV2: bool = true;

export function resetCgroups(v2: bool): void {
  cgParent.length = 0;
  cgParent.push(-1); // root
  cgroupV2 = v2;
}

export function addCgroup(parent: i32): i32 {
  return cgParent.push(parent);
}

@inline export function cgroupCount(): i32 {
  return cgParent.length;
}
