// Properties of the iocost model over generated trees, weights and workloads.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobDefaults } from "../../bindings/scenario/defaults.js";
import { Simulation } from "../../bindings/engine/simulation.js";
import { iocostCore } from "../../bindings/engine/modules/iocost.js";
import { DEVNO, device, run, scenario } from "./helpers.js";

const RUNS = 12;

describe("iocost properties", () => {
  it("work conservation: a lone active cgroup gets the whole (model x vrate) device whatever its weight and depth", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 10000 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 300 }),
      (w, depth, siblingW) => {
        const path = Array.from({ length: depth }, (_, i) => `l${i}`).join("/");
        // an idle sibling with its own weight must not take anything
        const r = run(scenario([{ path, weight: w }, { path: "idle", weight: siblingW, qd: 0 }], { iops: 2000, durationNs: 1e9 }));
        const n = r.iosIn(path, 3e8, 1e9);
        expect(n).toBeGreaterThan(0.97 * 1400);
        expect(n).toBeLessThan(1.03 * 1400);
      }), { numRuns: RUNS });
  });

  it("long-run shares of saturating siblings follow their hweights within 2%", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 10, max: 1000 }), { minLength: 2, maxLength: 4 }), (ws) => {
      const groups = ws.map((w, i) => ({ path: `g${i}`, weight: w, qd: 32 }));
      const r = run(scenario(groups, { iops: 20000, durationNs: 2e9, dev: device(1e6, 50_000, { channels: 256 }) }));
      const n = groups.map((g) => r.iosIn(g.path, 5e8, 2e9));
      const tot = n.reduce((a, b) => a + b, 0);
      const wsum = ws.reduce((a, b) => a + b, 0);
      ws.forEach((w, i) => {
        const want = w / wsum;
        expect(Math.abs(n[i]! / tot - want) / want).toBeLessThan(0.02);
      });
    }), { numRuns: RUNS });
  });

  it("no starvation: every saturating cgroup, however light, gets at least half its weighted share in every 500 ms window", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 10000 }), { minLength: 2, maxLength: 5 }), (ws) => {
      const groups = ws.map((w, i) => ({ path: `g${i}`, weight: w, qd: 8 }));
      const r = run(scenario(groups, { iops: 20000, durationNs: 3e9 }));
      const wsum = ws.reduce((a, b) => a + b, 0);
      groups.forEach((g, i) => {
        expect(r.iosIn(g.path, 0, 3e9)).toBeGreaterThan(0);
        for (let t = 5e8; t < 3e9; t += 5e8) {
          const fair = (20000 * 0.5 * ws[i]!) / wsum; // IOs in 500 ms at its hweight
          expect(r.iosIn(g.path, t, t + 5e8)).toBeGreaterThanOrEqual(Math.floor(0.5 * fair) - 1);
        }
      });
    }), { numRuns: RUNS });
  });

  it("vtime and done_vtime never go backwards, and done_vtime never passes vtime", () => {
    fc.assert(fc.property(fc.array(fc.record({ w: fc.integer({ min: 1, max: 1000 }), start: fc.integer({ min: 0, max: 5e8 }),
      run: fc.integer({ min: 1e7, max: 6e8 }) }), { minLength: 1, maxLength: 4 }), (gs) => {
      const groups = gs.map((g, i) => ({ path: `g${i}`, weight: g.w, qd: 8, startNs: g.start, runtimeNs: g.run }));
      const sim = new Simulation(scenario(groups, { durationNs: 1.2e9, qos: `${DEVNO} enable=1 ctrl=user rpct=90 rlat=5000 wpct=90 wlat=5000 min=50 max=200` }));
      const core = iocostCore(sim.core);
      const ids = groups.map((g) => sim.context().cgroupId(g.path)!);
      const last = ids.map(() => [0n, 0n]);
      while (!sim.step(300)) {
        ids.forEach((cg, k) => {
          const v = BigInt.asUintN(64, core.iocostIocgStat(cg, 0, 4));
          const d = BigInt.asUintN(64, core.iocostIocgStat(cg, 0, 5));
          if (v === 0n) return; // not created yet
          // u64 vtime compared as the kernel does (time_after64: signed
          // difference), since simulated time starts at 0 and a margin below
          // vnow can wrap below zero
          const after = (a: bigint, b: bigint) => BigInt.asIntN(64, a - b) >= 0n;
          if (last[k]![0]! !== 0n) {
            expect(after(v, last[k]![0]!)).toBe(true);
            expect(after(d, last[k]![1]!)).toBe(true);
          }
          expect(after(v, d)).toBe(true);
          last[k] = [v, d];
        });
      }
    }), { numRuns: RUNS });
  });

  it("debt is bounded by what was issued and repaid once the debtor stops", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1e7, max: 1e8 }), fc.integer({ min: 10, max: 500 }),
      (qd, burst, w) => {
        // B competes for the first second, then the device goes quiet and the debtor pays off (or is forgiven)
        const sc = scenario([{ path: "D", weight: w, qd: 0 }, { path: "B", weight: 100, runtimeNs: 1e9 }], { durationNs: 4e9 });
        sc.jobs.push(jobDefaults({ name: "swap", device: "nvme0n1", cgroup: "D", random: true, iodepth: qd, startNs: 1e8,
          runtimeNs: burst, timeBased: true }));
        const sim = new Simulation(sc);
        const core = iocostCore(sim.core);
        core.iocostJobUseDebt(sc.jobs.length - 1, 1);
        const d = sim.context().cgroupId("D")!;
        let maxDebt = 0n;
        let last = 0n;
        let done = false;
        while (!done) {
          done = sim.step(500);
          last = core.iocostIocgStat(d, 0, 6);
          if (last > maxDebt) maxDebt = last;
        }
        const dIos = BigInt(sim.result().cgroups.find((c) => c.path === "D")!.own[DEVNO]!.rios);
        // every debt came from an issued bio: at most (ios x 1 ms of vtime at the model's 1000 IOPS)
        expect(maxDebt <= dIos * 137438954n).toBe(true);
        expect(last).toBe(0n);
      }), { numRuns: RUNS });
  });
});
