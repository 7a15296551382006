// Properties of the iocost model over generated trees, weights and workloads.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jobDefaults } from "../../bindings/scenario/defaults.js";
import { Simulation } from "../../bindings/engine/simulation.js";
import { iocostCore } from "../../bindings/engine/modules/iocost.js";
import { DEVNO, device, run, scenario } from "./helpers.js";

const RUNS = 12;

// blk-iocost arithmetic (Linux 6.1 block/blk-iocost.c) for the scenarios below:
// model rrandiops = rseqiops = 20000, rbps 100 MiB/s; QoS rpct=90 rlat=20000.
const WEIGHT_ONE = 1n << 16n;
const VTIME_PER_USEC = 137438n; // VTIME_PER_SEC (2^37) / USEC_PER_SEC
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
/** calc_lcoefs(): page + (ceil(VTIME_PER_SEC / iops) - page), one 4 KiB read */
const ABS_COST = ceilDiv(1n << 37n, 20000n);
/** ioc_refresh_period_us(): max((1e6 - 900000) / 50000, 2) x 20000 us */
const PERIOD_US = 40000n;
/** ioc_refresh_margins(): margins.target = period x 50% of vtime */
const MARGIN_TARGET = ((PERIOD_US * 50n) / 100n) * VTIME_PER_USEC;
/** ioc_refresh_period_us(): timer_slack_ns = period x 1% */
const TIMER_SLACK_NS = (PERIOD_US * 1000n * 1n) / 100n;
/** current_hweight() of a level-1 cgroup of weight w among active siblings summing to wsum */
const hweightInuse = (w: number, wsum: number) => {
  const hwi = (WEIGHT_ONE * (BigInt(w) * WEIGHT_ONE)) / (BigInt(wsum) * WEIGHT_ONE);
  return hwi > 1n ? hwi : 1n;
};
/** abs_cost_to_cost() of one IO */
const ioCost = (hwi: bigint) => ceilDiv(ABS_COST * WEIGHT_ONE, hwi);
/** latest first issue (ns) of a cgroup activated at t = 0: iocg_activate() + iocg_kick_waitq() */
const firstIssueNs = (w: number, wsum: number) => {
  const shortage = ioCost(hweightInuse(w, wsum)) - MARGIN_TARGET;
  return shortage <= 0n ? 0 : Number(ceilDiv(shortage, VTIME_PER_USEC) * 1000n + TIMER_SLACK_NS);
};

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

  // What blk-iocost's integer arithmetic (Linux 6.1, block/blk-iocost.c)
  // guarantees N saturating siblings of weights w (qd 8, model 20000 IOPS,
  // vrate pinned at 100%, period 40 ms):
  // - current_hweight(): hweight_inuse = max(div64_u64(WEIGHT_ONE * active,
  //   child_active_sum), 1), with active = w * WEIGHT_ONE (ioc_weight_write()).
  //   A group with waiters keeps inuse = active (ioc_rqos_throttle()) and is
  //   never a donor (ioc_timer_fn()), and donations only raise the others, so
  //   this floor (all siblings active) is the least it can have.
  // - abs_cost_to_cost(): an IO costs ceil(abs_cost * WEIGHT_ONE / hwi) of the
  //   group's vtime. iocg_activate() starts it margins.target (half a period)
  //   behind vnow; a waiter is woken by iocg_kick_waitq() when vnow - vtime
  //   covers its cost, at now + ceil(shortage / vtime_base_rate) us +
  //   timer_slack_ns; vtime_err only goes negative, so ioc_refresh_vrate()
  //   never runs vtime slower than vtime_base_rate. Its first IO is therefore
  //   issued by firstIssueNs() after t = 0, when all start.
  // - Rate: hwi / WEIGHT_ONE >= w / sum(w) / 2 for every w (floor(y) >= y / 2
  //   for y >= 1; the clamp to 1 covers y < 1), so in a window it gets at least
  //   half its weighted share, less one IO at the window's edges.
  // - Granularity: with hwi clamped to 1 (sum(w) > 32768 w) one IO costs
  //   2^16 x 50 us = 3.28 s of vtime: the kernel issues nothing for it in a 3 s
  //   run once its siblings are active (the first-IO bound is past the run;
  //   its siblings, each at most 30.5% of 20000 IOPS, always have waiters, so
  //   none donates). Asking such a group for an IO within 3 s asks more than
  //   the kernel gives.
  it("no starvation: a saturating cgroup gets its first IO once its budget covers one IO at its clamped hweight, then at least half its weighted share per 500 ms", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 10000 }), { minLength: 2, maxLength: 5 }), (ws) => {
      const T = 3e9;
      const groups = ws.map((w, i) => ({ path: `g${i}`, weight: w, qd: 8 }));
      const r = run(scenario(groups, { iops: 20000, durationNs: T }));
      const wsum = ws.reduce((a, b) => a + b, 0);
      groups.forEach((g, i) => {
        const first = firstIssueNs(ws[i]!, wsum);
        if (first + 1e6 <= T) {
          // issued by `first`, completed 100 us later: counted in the 100 ms bin holding it
          expect(r.iosIn(g.path, 0, Math.ceil((first + 1e6) / 1e8) * 1e8)).toBeGreaterThan(0);
        } else {
          // nothing past its start-up IOs (issued at t = 0, before its siblings were active)
          expect(r.iosIn(g.path, 5e8, T)).toBe(0);
        }
        for (let t = 5e8; t < T; t += 5e8) {
          const fair = (20000 * 0.5 * ws[i]!) / wsum; // IOs in 500 ms at its weighted share
          expect(r.iosIn(g.path, t, t + 5e8)).toBeGreaterThanOrEqual(Math.floor(0.5 * fair) - 1);
        }
      });
    }), { numRuns: RUNS });
  });

  it("the weight-1 sibling of [9173, 1, 8473, 9987, 5135] (hweight clamped to 1/65536) first issues at 3.257 s, as the kernel's arithmetic says", () => {
    const ws = [9173, 1, 8473, 9987, 5135];
    const wsum = ws.reduce((a, b) => a + b, 0);
    expect(hweightInuse(1, wsum)).toBe(1n); // 65536 x 65536 / (32769 x 65536) = 1.99997 -> 1
    const want = firstIssueNs(1, wsum); // ceil((6871948 x 65536 - 20000 x 137438) / 137438) us + 400 us
    expect(want).toBe(3_257_223_000);
    // in the 3 s run of the property: no IO at all before the siblings stop
    const short = run(scenario(ws.map((w, i) => ({ path: `g${i}`, weight: w, qd: 8 })), { iops: 20000, durationNs: 3e9 }));
    expect(short.iosIn("g1", 0, 3e9)).toBe(0);
    // with the siblings saturating for 4 s: its first commit, to the nanosecond
    const sim = new Simulation(scenario(ws.map((w, i) => ({ path: `g${i}`, weight: w, qd: 8 })), { iops: 20000, durationNs: 4e9 }));
    const core = iocostCore(sim.core);
    const now = () => Number(sim.core.simNow());
    let cg: number | undefined;
    let v0: bigint | undefined;
    let firstAt = -1;
    while (firstAt < 0 && !sim.step(1)) {
      cg ??= sim.context().cgroupId("g1");
      if (cg === undefined || core.iocostIocgStat(cg, 0, 13) !== 1n) continue; // not active yet
      const v = core.iocostIocgStat(cg, 0, 4);
      if (v0 === undefined) {
        expect(now()).toBe(0); // activated at t = 0 with vtime = vnow - margins.target
        v0 = v;
      } else if (v !== v0) {
        firstAt = now();
        expect(BigInt.asUintN(64, v - v0)).toBe(ioCost(1n)); // one IO at hwi 1: 6871948 x 65536
        expect(core.iocostIocgStat(cg, 0, 10)).toBe(1n);
      }
    }
    expect(firstAt).toBe(want);
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
