// Kernel cgroup interface files for block IO, parsed with the kernel's own
// acceptance rules per version (6.1, 6.12, 6.18).
export * from "./kstr.js";
export * from "./write.js";
export * from "./throttle.js";
export * from "./iocost.js";
export * from "./config.js";
