// iosim: the public TypeScript API.
export * from "./scenario/types.js";
export * from "./scenario/errors.js";
export * from "./scenario/defaults.js";
export { Simulation, simulate, type Progress } from "./engine/simulation.js";
export { registerControlModule, controlModules, type ControlModule, type ControlContext } from "./engine/control.js";
export { coreModule, coreModuleSync, instantiateCore, instantiateCoreAsync, coreWasmSize, type CoreExports } from "./core/core.js";
export { percentilesFromHist, platIdxToVal, FIO_DEFAULT_PERCENTILES } from "./engine/latency.js";
import "./engine/modules/index.js";
export * from "./oracle/index.js";
