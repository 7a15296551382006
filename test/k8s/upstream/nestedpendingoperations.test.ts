// Ported: pkg/volume/util/nestedpendingoperations/nestedpendingoperations_test.go
// (kubernetes/kubernetes at 04791b49). Upstream runs each operation in a
// goroutine and waits on channels and wall-clock retries; here the model's
// NestedPendingOperations runs on simulated time: an operation starts in the
// event after Run (as its goroutine would), `waitFunc` holds it until the
// test releases it, and retryWithExponentialBackOff retries at simulated
// instants 20/60/180 ms (or 500/1500/4500 ms) apart, as wait.Backoff{Factor:
// 3, Steps: 4} does. Releases: the file's first tests predate 1.10; keys with
// a node name (#88678) and everything that uses them from 1.19; different
// operation names reset a backoff since #75213 (1.15).
import { expect } from "vitest";
import { Sim } from "../../../bindings/k8s/engine/sim.js";
import { type Done, NestedPendingOperations } from "../../../bindings/k8s/util/nestedpendingoperations.js";
import { resolveProfile } from "../../../bindings/k8s/versions/profile.js";
import { ALL, releases, upstream } from "./harness.js";

const FILE = "pkg/volume/util/nestedpendingoperations/nestedpendingoperations_test.go";

function newNPO(version: string, exponentialBackOffOnError: boolean) {
  const sim = new Sim({ seed: 1 });
  sim.run(1000);
  const grm = new NestedPendingOperations(sim, resolveProfile(version), 500, 122_000, () => {});
  grm.exponentialBackOffOnError = exponentialBackOffOnError;
  /** let started operations run (their goroutines) */
  const settle = (ms = 0) => sim.run(sim.now + ms);
  return { sim, grm, settle };
}

const noopFunc = (op: Done): void => op.done(null);
const errorFunc = (op: Done): void => op.done("placeholder1");

/** generateWaitFunc / generateWaitWithErrorFunc: completes when released */
function waitFunc(err: string | null = null) {
  let held: Done | undefined;
  let released = false;
  return {
    fn: (op: Done): void => {
      held = op;
      if (released) op.done(err);
    },
    release(): void {
      released = true;
      held?.done(err);
    },
  };
}

/** retryWithExponentialBackOff: up to 4 tries, sleeping d, 3d, 9d of simulated time between them */
function retryWithExponentialBackOff(settle: (ms?: number) => void, initialMs: number, fn: () => boolean): boolean {
  let d = initialMs;
  for (let step = 0; step < 4; step++) {
    if (fn()) return true;
    if (step === 3) break;
    settle(d);
    d *= 3;
  }
  return false;
}

const V = "volume-name";
const R = ALL;
const R_NODE = releases(19);

for (const [suffix, backoff] of [["", false], ["WithExpBackoff", true]] as const) {
  upstream(FILE, `Test_NestedPendingOperations_Positive_SingleOp${suffix}`, R, (v) => {
    const { grm } = newNPO(v, backoff);
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", noopFunc)).toBeNull();
  });

  upstream(FILE, `Test_NestedPendingOperations_Positive_SecondOpAfterFirstCompletes${suffix}`, R, (v) => {
    const { grm, settle } = newNPO(v, backoff);
    let called = false;
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", (op) => ((called = true), op.done(null)))).toBeNull();
    settle(); // <-operation1DoneCh
    expect(called).toBe(true);
    expect(retryWithExponentialBackOff(settle, 20, () => grm.run({ volumeName: V, podName: "", nodeName: "" }, "", noopFunc) === null)).toBe(true);
  });

  upstream(FILE, `Test_NestedPendingOperations_Negative_SecondOpBeforeFirstCompletes${suffix}`, R, (v) => {
    const { grm, settle } = newNPO(v, backoff);
    const w = waitFunc();
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", w.fn)).toBeNull();
    settle();
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", noopFunc)).toBe("AlreadyExists");
  });

  upstream(FILE, `Test_NestedPendingOperations_Positive_ThirdOpAfterFirstCompletes${suffix}`, R, (v) => {
    const { grm, settle } = newNPO(v, backoff);
    const w = waitFunc();
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", w.fn)).toBeNull();
    settle();
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", noopFunc)).toBe("AlreadyExists");
    w.release();
    expect(retryWithExponentialBackOff(settle, 20, () => grm.run({ volumeName: V, podName: "", nodeName: "" }, "", noopFunc) === null)).toBe(true);
  });

  // Wait() blocks while any operation is kept (len(grm.operations) > 0); the model's `size` is that length
  upstream(FILE, `Test_NestedPendingOperations_Positive_WaitEmpty${suffix}`, R, (v) => {
    expect(newNPO(v, backoff).grm.size).toBe(0);
  });

  upstream(FILE, `Test_NestedPendingOperations_Positive_Wait${suffix}`, R, (v) => {
    const { grm, settle } = newNPO(v, backoff);
    const w = waitFunc();
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "", w.fn)).toBeNull();
    settle();
    expect(grm.size).toBe(1); // Wait() would block
    w.release();
    settle();
    expect(grm.size).toBe(0); // and now returns
  });
}

upstream(FILE, "Test_NestedPendingOperations_Positive_TwoOps", R, (v) => {
  const { grm } = newNPO(v, false);
  expect(grm.run({ volumeName: "volume1-name", podName: "", nodeName: "" }, "", noopFunc)).toBeNull();
  expect(grm.run({ volumeName: "volume2-name", podName: "", nodeName: "" }, "", noopFunc)).toBeNull();
});

upstream(FILE, "Test_NestedPendingOperations_Positive_TwoSubOps", R, (v) => {
  const { grm } = newNPO(v, false);
  expect(grm.run({ volumeName: V, podName: "operation1-podname", nodeName: "" }, "", noopFunc)).toBeNull();
  expect(grm.run({ volumeName: V, podName: "operation2-podname", nodeName: "" }, "", noopFunc)).toBeNull();
});

for (const name of ["Test_NestedPendingOperations_Negative_SecondSubOpBeforeFirstCompletes", "Test_NestedPendingOperations_Negative_SecondSubOpBeforeFirstCompletes2"]) {
  upstream(FILE, name, R, (v) => {
    const { grm, settle } = newNPO(v, false);
    const w = waitFunc();
    expect(grm.run({ volumeName: V, podName: "operation-podname", nodeName: "" }, "", w.fn)).toBeNull();
    settle();
    expect(grm.run({ volumeName: V, podName: "operation-podname", nodeName: "" }, "", noopFunc)).toBe("AlreadyExists");
  });
}

upstream(
  FILE,
  "Test_NestedPendingOperations_Negative_SecondThirdOpWithDifferentNames",
  releases(15),
  (v) => {
    const { grm, settle } = newNPO(v, true);
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "mount_volume", errorFunc)).toBeNull();
    // shorter than the backoff, so the second run meets it
    expect(retryWithExponentialBackOff(settle, 20, () => grm.run({ volumeName: V, podName: "", nodeName: "" }, "mount_volume", errorFunc) === "ExponentialBackoff")).toBe(true);
    expect(grm.run({ volumeName: V, podName: "", nodeName: "" }, "unmount_volume", noopFunc)).toBeNull();
  },
);

// FIRST OP | SECOND OP | RESULT, upstream's table (None = no names, Volume, Volume Pod, Volume Node)
const KEYS = {
  None: { volumeName: "", podName: "", nodeName: "" },
  Volume: { volumeName: V, podName: "", nodeName: "" },
  VolumePod: { volumeName: V, podName: "operation-podname", nodeName: "" },
  VolumeNode: { volumeName: V, podName: "", nodeName: "operation-nodename" },
} as const;
const CASES: Array<[keyof typeof KEYS, keyof typeof KEYS, boolean]> = [
  ["None", "None", true],
  ["None", "Volume", true],
  ["None", "VolumePod", true],
  ["None", "VolumeNode", true],
  ["Volume", "None", true],
  ["Volume", "VolumePod", false],
  ["Volume", "VolumeNode", false],
  ["VolumePod", "None", true],
  ["VolumePod", "Volume", false],
  ["VolumeNode", "None", true],
  ["VolumeNode", "Volume", false],
  ["VolumeNode", "VolumeNode", false],
];
upstream(FILE, "Test_NestedPendingOperations_SecondOpBeforeFirstCompletes", R_NODE, (v) => {
  for (const [first, second, expectPass] of CASES) {
    // testConcurrentOperationsPositive / Negative
    const { grm, settle } = newNPO(v, false);
    const w = waitFunc();
    expect(grm.run(KEYS[first], "", w.fn), `${first} first`).toBeNull();
    settle();
    expect(grm.run(KEYS[second], "", noopFunc), `${first} then ${second}`).toBe(expectPass ? null : "AlreadyExists");
  }
});

upstream(FILE, "Test_NestedPendingOperations_Positive_Issue_88355", R_NODE, (v) => {
  const { grm, settle } = newNPO(v, true);
  const delay = 50;
  const reconcilerPeriod = 100;
  const opZ = waitFunc();
  const op1 = waitFunc();
  const op2 = waitFunc("placeholder1");
  expect(grm.run({ volumeName: "other-volume", podName: "", nodeName: "" }, "", opZ.fn)).toBeNull();
  expect(grm.run({ volumeName: "main-volume", podName: "", nodeName: "node1" }, "", op1.fn)).toBeNull();
  expect(grm.run({ volumeName: "main-volume", podName: "", nodeName: "node2" }, "", op2.fn)).toBeNull();
  settle();
  opZ.release();
  settle(delay);
  op2.release();
  settle(delay);
  op1.release();
  settle(delay);
  for (let i = 0; ; i++) {
    expect(i).toBeLessThan(1000);
    const r = grm.run({ volumeName: "main-volume", podName: "", nodeName: "node2" }, "", noopFunc);
    if (r === null) break;
    expect(r).toBe("ExponentialBackoff");
    settle(reconcilerPeriod);
  }
  settle(delay);
  expect(grm.run({ volumeName: "main-volume", podName: "", nodeName: "node2" }, "", noopFunc)).toBeNull();
});
