import { describe, expect, it } from "vitest";
import { formatGoDuration, Sim } from "../engine/sim.js";
import { resolveProfile } from "../versions/profile.js";
import { backoffUpdate, inBackoff, newBackoff } from "./exponentialbackoff.js";
import { Done, FailureInfo, FailureMessages, formatOpKey, NestedPendingOperations } from "./nestedpendingoperations.js";
import { adcOperationName } from "./operationexecutor.js";

function setup(version = "1.22") {
  const sim = new Sim({ seed: 1 });
  const failures: FailureInfo[] = [];
  const npo = new NestedPendingOperations(sim, resolveProfile(version), 500, 122_000, (f) => failures.push(f));
  return { sim, npo, failures };
}
const key = (volumeName: string, podName = "", nodeName = "") => ({ volumeName, podName, nodeName });

describe("exponentialbackoff", () => {
  it("waits 0.5, 1, 2 ... 64 s, then 122 s for ever; the 9th failure is the first at the cap", () => {
    const b = newBackoff();
    const waits: number[] = [];
    for (let i = 0; i < 11; i++) {
      backoffUpdate(b, "e", 0, 500, 122_000);
      waits.push(b.durationBeforeRetry);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 122000, 122000, 122000]);
  });
  it("still backs off at exactly lastErrorTime + durationBeforeRetry", () => {
    const b = newBackoff();
    backoffUpdate(b, "e", 1000, 500, 122_000);
    expect(inBackoff(b, 1500)).toBe(true);
    expect(inBackoff(b, 1501)).toBe(false);
  });
});

describe("nestedpendingoperations", () => {
  it("NestedPendingOperations_Positive_SingleOp: one operation runs", () => {
    const { sim, npo } = setup();
    let ran = false;
    expect(npo.run(key("v"), "volume_attach", (op) => ((ran = true), op.done(null)))).toBeNull();
    sim.run(10);
    expect(ran).toBe(true);
  });
  it("NestedPendingOperations_Negative_SecondOpBeforeFirstCompletes: AlreadyExists", () => {
    const { npo } = setup();
    npo.run(key("v"), "volume_attach", () => {});
    expect(npo.run(key("v"), "volume_attach", () => {})).toBe("AlreadyExists");
  });
  it("NestedPendingOperations_Positive_SecondOpAfterFirstCompletes", () => {
    const { sim, npo } = setup();
    npo.run(key("v"), "volume_attach", (op) => op.done(null));
    sim.run(1);
    expect(npo.run(key("v"), "volume_attach", () => {})).toBeNull();
  });
  it("NestedPendingOperations_Positive_TwoOps: different volumes run in parallel", () => {
    const { npo } = setup();
    npo.run(key("v1"), "volume_attach", () => {});
    expect(npo.run(key("v2"), "volume_attach", () => {})).toBeNull();
  });
  it("NestedPendingOperations_Positive_TwoSubOps: different pods of one volume run in parallel", () => {
    const { npo } = setup();
    npo.run(key("v", "p1"), "volume_mount", () => {});
    expect(npo.run(key("v", "p2"), "volume_mount", () => {})).toBeNull();
  });
  it("an empty pod name matches every pod of the volume", () => {
    const { npo } = setup();
    npo.run(key("v", "p1"), "volume_mount", () => {});
    expect(npo.run(key("v"), "unmount_device", () => {})).toBe("AlreadyExists");
  });
  it("a failed operation backs off, and is logged with the retry time", () => {
    const { sim, npo, failures } = setup();
    let run: Done | undefined;
    npo.run(key("v"), "volume_detach", (op) => (run = op));
    sim.run(0);
    sim.at(1000, () => run!.done("boom"));
    sim.run(1000);
    expect(failures).toEqual([{ key: key("v"), operationName: "volume_detach", error: "boom", retryAt: 1500, durationBeforeRetry: 500 }]);
    sim.at(1500, () => expect(npo.run(key("v"), "volume_detach", () => {})).toBe("ExponentialBackoff"));
    sim.run(1500);
    sim.at(1501, () => expect(npo.run(key("v"), "volume_detach", () => {})).toBeNull());
    sim.run(1501);
  });
  it(">= 1.19: a different operationName resets the backoff; <= 1.18 the controller's attach and detach share it (#41307)", () => {
    for (const [version, expected] of [["1.22", null], ["1.18", "ExponentialBackoff"], ["1.14", "ExponentialBackoff"]] as const) {
      const { sim, npo } = setup(version);
      const p = resolveProfile(version);
      npo.run(key("v"), adcOperationName(p, "volume_detach"), (op) => op.done("fail"));
      sim.run(10);
      expect(npo.run(key("v"), adcOperationName(p, "volume_attach"), () => {})).toBe(expected);
    }
  });
  it("from 1.15 (#75213) a differently named operation resets the backoff; up to 1.14 the key's backoff holds any operation", () => {
    for (const [version, expected] of [["1.15", null], ["1.14", "ExponentialBackoff"]] as const) {
      const { sim, npo } = setup(version);
      npo.run(key("v"), "unmount_device", (op) => op.done("fail"));
      sim.run(10);
      expect(npo.run(key("v"), "volume_mount", () => {})).toBe(expected);
    }
  });
  it("IsOperationSafeToRetry (#104526) is false while pending and while backing off", () => {
    const { sim, npo } = setup();
    let run: Done | undefined;
    npo.run(key("v"), "volume_detach", (op) => (run = op));
    sim.run(0);
    expect(npo.isOperationSafeToRetry("v", "", "", "volume_detach")).toBe(false);
    run!.done("x");
    expect(npo.isOperationSafeToRetry("v", "", "", "volume_detach")).toBe(false);
    sim.at(600, () => expect(npo.isOperationSafeToRetry("v", "", "", "volume_detach")).toBe(true));
    sim.run(600);
  });
  it("issue #109047: a mount of a volume whose unmount for another pod is pending waits from #110951 on (1.26, 1.25.1, 1.24.5, 1.23.11), ran beside it before", () => {
    // two pods share attachable volume v: pod A's unmount failed and backs off,
    // pod B's unmount is still running; the kubelet then mounts v for a new pod
    // (key v, no pod). Before #110951 isOperationExists took the first match
    // (A's, not pending), reset its backoff and started the mount beside B's
    // unmount; since, a pending match wins and the mount gets AlreadyExists.
    for (const [version, pending, mount] of [
      ["1.25.0", false, null],
      ["1.25.1", true, "AlreadyExists"],
      ["1.23.10", false, null],
      ["1.23.11", true, "AlreadyExists"],
      ["1.26", true, "AlreadyExists"],
    ] as const) {
      const { sim, npo } = setup(version);
      npo.run(key("v", "pod-a"), "volume_unmount", (op) => op.done("busy"));
      npo.run(key("v", "pod-b"), "volume_unmount", () => {});
      sim.run(10);
      expect(npo.isOperationPending("v", "", ""), version).toBe(pending);
      expect(npo.isOperationSafeToRetry("v", "", "", "volume_mount"), version).toBe(!pending);
      expect(npo.run(key("v"), "volume_mount", () => {}), version).toBe(mount);
    }
  });
  it("issue #109047: a completion acts on the first entry under its key (getOperation, deleteOperation), so before #110951 a second unmount beside a pending one leaks an entry", () => {
    // pod-a's unmount failed (idle); pod-b's is running; a mount (v, no pod)
    // takes pod-a's entry and fails; pod-b's unmount is run again. Before
    // #110951 it takes the mount's idle entry (the first match): two entries
    // under (v, pod-b). The older one fails: its completion marks the first
    // entry under the key, the younger's; the younger one succeeds: its
    // completion deletes that same first entry. The older entry stays
    // pending with nothing running, and every operation on v is refused.
    for (const [version, second, after] of [
      ["1.24.4", null, "AlreadyExists"],
      ["1.24.5", "AlreadyExists", null],
    ] as const) {
      const sim = new Sim({ seed: 1 });
      const stray: string[] = [];
      const npo = new NestedPendingOperations(sim, resolveProfile(version), 500, 122_000, () => {}, undefined, undefined, (own, name, other) => stray.push(`${name} ${own.podName} -> ${other.podName}`));
      let older: Done | undefined;
      npo.run(key("v", "pod-a"), "volume_unmount", (op) => op.done("busy"));
      npo.run(key("v", "pod-b"), "volume_unmount", (op) => (older = op));
      sim.run(10);
      // (from #110951 pod-b's pending unmount refuses the mount, and all that follows)
      expect(npo.run(key("v"), "volume_mount", (op) => op.done("mount failed")), version).toBe(second);
      sim.run(20);
      let younger: Done | undefined;
      expect(npo.run(key("v", "pod-b"), "volume_unmount", (op) => (younger = op)), version).toBe(second);
      sim.run(30);
      older!.done("rpc error: code = Internal desc = umount failed");
      younger?.done(null);
      sim.run(10_000);
      expect(npo.run(key("v"), "volume_mount", () => {}), version).toBe(after);
      expect(stray, version).toEqual(second === null ? ["volume_unmount pod-b -> pod-b"] : []);
    }
  });
  it("a successful completion removes its entry as upstream does, the last entry taking its place", () => {
    const { sim, npo } = setup("1.22");
    const done: Record<string, Done> = {};
    for (const p of ["p1", "p2", "p3"]) npo.run(key("v", p), "volume_unmount", (op) => (done[p] = op));
    sim.run(0);
    done.p1!.done("e1");
    done.p2!.done("e2");
    sim.run(10);
    // [p1 idle, p2 idle, p3 pending]: p1 succeeds on retry and is removed; p3 takes its place
    sim.at(600, () => expect(npo.run(key("v", "p1"), "volume_unmount", (op) => op.done(null))).toBeNull());
    sim.run(1000);
    // a mount (v, no pod) meets the first entry: p3's, pending
    expect(npo.run(key("v"), "volume_mount", () => {})).toBe("AlreadyExists");
  });
});

describe("a failed operation wakes its owner's loop (engine/sim.ts section 3)", () => {
  /**
   * An owner loop (period 100 ms) that starts operation "attach" of volume v,
   * which fails 250 ms later. `sideEffect`: the loop also acts whenever it
   * finds v's operation not pending (as the ADC's pre-#104526 detach path
   * does), so a pass that saw it pending must see its failure. Returns the
   * times of the loop's state changes, skipping idle ticks or not.
   */
  function ownerTrace(tickEveryPeriod: boolean, sideEffect: boolean): { changes: string[]; passes: number } {
    const sim = new Sim({ seed: 1, tickEveryPeriod });
    const g = sim.group("owner");
    const npo = new NestedPendingOperations(sim, resolveProfile("1.22"), 500, 122_000, () => {}, g);
    const changes: string[] = [];
    let passes = 0;
    let acted = 0;
    sim.ticker(
      "owner",
      100,
      0,
      () => {
        passes++;
        if (sideEffect) {
          if (npo.isOperationPending("v", "", "")) return;
          if (acted < 3) {
            acted++;
            changes.push(`${sim.now} acted`);
            sim.bump(g);
          }
        }
        if (npo.run(key("v"), "attach", (op) => sim.after(250, () => op.done("boom"))) === null) changes.push(`${sim.now} started`);
      },
      g,
    );
    sim.run(5_000);
    return { changes, passes };
  }

  it("unobserved: the loop sleeps through the backoff and retries at its end, as ticking every period does", () => {
    const skip = ownerTrace(false, false);
    expect(skip.changes).toEqual(ownerTrace(true, false).changes);
    // failures at 250 (retry from 751: pass at 800) and 1_050 (backoff 1 s, retry from 2_051: 2_100); no pass in between
    expect(skip.changes.slice(0, 3)).toEqual(["0 started", "800 started", "2100 started"]);
    expect(skip.passes).toBe(skip.changes.length);
  });

  it("observed pending (isOperationPending answered true): the failure wakes the loop next period", () => {
    const skip = ownerTrace(false, true);
    const tick = ownerTrace(true, true);
    expect(skip.changes).toEqual(tick.changes);
    expect(skip.changes.slice(0, 3)).toEqual(["0 acted", "0 started", "300 acted"]);
  });
});

describe("FailureMessages (the failure line's message, the key and error of the last failure reused)", () => {
  it("gives the text built from scratch for every failure, when keys and errors change, alternate and repeat", () => {
    const keys = [
      { volumeName: "kubernetes.io/csi/d^v1", podName: "", nodeName: "" },
      { volumeName: "kubernetes.io/csi/d^v1", podName: "uid-1", nodeName: "" },
      { volumeName: "kubernetes.io/csi/d^v1", podName: "", nodeName: "node-2" },
      { volumeName: "kubernetes.io/csi/d^v2", podName: "", nodeName: "" },
    ];
    const errors = ['Volume not attached according to node status for volume "v1"', "busy", 'busy "x"\n\\', ""];
    for (const version of ["1.14", "1.21", "1.22", "1.31"]) {
      const profile = resolveProfile(version);
      const m = new FailureMessages(profile);
      for (let i = 0; i < 40; i++) {
        // the key object is built anew each time, as the owners do
        const key = { ...keys[(i * 7) % 5 === 4 ? 0 : ((i * 7) % 5) % keys.length]! };
        const error = `${errors[Math.floor(i / 3) % errors.length]!}`;
        const f: FailureInfo = { key, operationName: "op", error, retryAt: 1000 * i, durationBeforeRetry: 500 * 2 ** (i % 9) };
        const want = `Operation for ${formatOpKey(key, profile)} failed. No retries permitted until T${i} (durationBeforeRetry ${formatGoDuration(f.durationBeforeRetry)}). Error: ${profile.npoErrorQuoted ? JSON.stringify(error) : error}`;
        expect(m.message(f, `T${i}`), `${version} #${i}`).toBe(want);
      }
    }
  });
});
