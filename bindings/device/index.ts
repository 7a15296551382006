// Device models: the seed's curves, iocost's linear model as a device,
// presets (ssd, nvme, hdd, ideal, nullb) and the --device file format.
export * from "./seed.js";
export * from "./linear.js";
export * from "./presets.js";
export * from "./file.js";
export * from "./fit.js";
export * from "./lognormal.js";
export * from "./hwdb.js";
