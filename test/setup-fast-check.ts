// Property tests explore new random cases on every local run; under CI (and
// whenever FC_SEED is set) they use a fixed seed so a run is reproducible.
// A failure prints its seed and counterexample: rerun with FC_SEED=<seed>.
import fc from "fast-check";

const seed = process.env.FC_SEED ?? (process.env.CI ? "20261122" : undefined);
if (seed !== undefined) fc.configureGlobal({ seed: Number(seed) });
