// The iosim package for the playground: its TypeScript sources, bundled by
// Vite into the worker (WASM embedded as base64, no second fetch). Importing
// the entry point registers every control module the build has.
export * from "../../bindings/index.js";
