// iosim: the public TypeScript API.
export * from "./scenario/types.js";
export * from "./scenario/errors.js";
export * from "./scenario/defaults.js";
export { Simulation, simulate, type Progress } from "./engine/simulation.js";
export { registerControlModule, controlModules, type ControlModule, type ControlContext } from "./engine/control.js";
export { coreModule, coreModuleSync, instantiateCore, instantiateCoreAsync, coreWasmSize, type CoreExports } from "./core/core.js";
export * from "./workload/index.js";
export * from "./report/index.js";
export * from "./device/index.js";
export * from "./cgroup/index.js";
export { loadScenario, type LoadOptions, type LoadedScenario } from "./scenario/load.js";
export { iomaxDemo } from "./scenario/builtin/iomax-demo.js";
import "./engine/modules/index.js";
export * from "./oracle/index.js";
export * as k8s from "./k8s/index.js";
