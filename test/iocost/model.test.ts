// blk-iocost behaviours, each told as a small scenario run through the engine.
import { describe, expect, it } from "vitest";
import { jobDefaults } from "../../bindings/scenario/defaults.js";
import { formatTracePipe, iocostCore } from "../../bindings/engine/modules/iocost.js";
import { Simulation } from "../../bindings/engine/simulation.js";
import { DEVNO, device, run, scenario } from "./helpers.js";

const VTIME_PER_SEC = 1n << 37n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

describe("iocost cost model and vtime", () => {
  it("io.cost.model rbps=100MiB/s rrandiops=1000 gives the kernel's calc_lcoefs coefficients", () => {
    const r = run(scenario([{ path: "A", qd: 0 }], { durationNs: 1e6 }));
    const page = ceilDiv(VTIME_PER_SEC, ceilDiv(104857600n, 4096n));
    const randio = ceilDiv(VTIME_PER_SEC, 1000n) - page;
    expect(r.core.iocostIocStat(0, 11)).toBe(page); // LCOEF_RPAGE
    expect(r.core.iocostIocStat(0, 13)).toBe(randio); // LCOEF_RRANDIO
    expect(page + randio).toBe(137438954n); // one 4 KiB random read = 1 ms of device time
  });

  it("without io.cost.model an SSD gets the SSD_DFL built-in model and a 50 ms period (rpct=0 -> 2 x 25 ms)", () => {
    const sc = scenario([{ path: "A", qd: 0 }], { durationNs: 1e6 });
    sc.cgroups[0]!.files = { "io.cost.qos": `${DEVNO} enable=1` };
    const r = run(sc);
    const page = ceilDiv(VTIME_PER_SEC, ceilDiv(488636629n, 4096n));
    expect(r.core.iocostIocStat(0, 11)).toBe(page);
    expect(r.core.iocostIocStat(0, 12)).toBe(ceilDiv(VTIME_PER_SEC, 8932n) - page);
    expect(r.core.iocostIocStat(0, 3)).toBe(50000n);
    expect(r.core.iocostIocStat(0, 23)).toBe(3n); // AUTOP_SSD_DFL
  });

  it("a rotational device gets the HDD class: 250 ms latency target, 500 ms period", () => {
    const sc = scenario([{ path: "A", qd: 0 }], { durationNs: 1e6, dev: device(200, 5e6, { rotational: true }) });
    sc.cgroups[0]!.files = { "io.cost.qos": `${DEVNO} enable=1` };
    const r = run(sc);
    expect(r.core.iocostIocStat(0, 23)).toBe(1n);
    expect(r.core.iocostIocStat(0, 3)).toBe(500000n);
  });

  it("a lone cgroup with vrate pinned at 100% issues exactly what the model allows: 1000 random 4 KiB reads a second", () => {
    const r = run(scenario([{ path: "A", weight: 50 }], { durationNs: 2e9 }));
    const steady = r.iosIn("A", 5e8, 2e9);
    expect(steady).toBeGreaterThan(1470);
    expect(steady).toBeLessThan(1530);
  });

  it("sequential IO is charged seqio, random IO randio: with seqiops=4000 sequential reads run 4x faster", () => {
    const seq = run(scenario([{ path: "A", random: false }], { seqiops: 4000, durationNs: 1e9 }));
    const rnd = run(scenario([{ path: "A", random: true }], { seqiops: 4000, durationNs: 1e9 }));
    const ratio = seq.iosIn("A", 3e8, 1e9) / rnd.iosIn("A", 3e8, 1e9);
    expect(ratio).toBeGreaterThan(3.8);
    expect(ratio).toBeLessThan(4.2);
  });

  it("a bio larger than max_sectors is throttled piece by piece: blk_mq_submit_bio splits before rq_qos_throttle", () => {
    // 1 MiB random reads at QD 1 on a device with max_sectors_kb 256: four pieces, the first
    // random (randio + 64 pages), the rest sequential to it (seqio + 64 pages): 14 ms of vtime
    const dev = device(200_000, 100_000, { maxSectorsKb: 256 });
    const sc = scenario([{ path: "A", qd: 0 }], { durationNs: 1e9, dev });
    sc.jobs.push(jobDefaults({ name: "big", device: dev.name, cgroup: "A", rw: "read", random: true, iodepth: 1,
      bs: [{ size: 1 << 20, weight: 1 }], regionLen: 1 << 30, startNs: 0, runtimeNs: 1e9, timeBased: true }));
    const r = run(sc);
    const page = Number(ceilDiv(VTIME_PER_SEC, ceilDiv(104857600n, 4096n)));
    const io = Number(ceilDiv(VTIME_PER_SEC, 1000n)) - page;
    const bioNs = ((4 * io + 256 * page) / Number(VTIME_PER_SEC)) * 1e9;
    const steady = r.iosIn("A", 2e8, 1e9);
    expect(Math.abs(steady - 8e8 / bioNs)).toBeLessThanOrEqual(2);
    // each piece waits for its own budget on the waitq (ioc->biosWaited counts waits), its
    // issuer resubmitting the rest after its wake-up: about four waits a bio, not one
    expect(Number(r.core.iocostIocStat(0, 32))).toBeGreaterThan(3 * r.ios("A"));
  });

  it("the period timer (40 ms period, HZ 250) fires every 44 ms: armed 10 jiffies ahead, run one tick later", () => {
    const r = run(scenario([{ path: "A" }], { durationNs: 5e8 }));
    const t = r.trace.filter((e) => e.event === "iocost_ioc_vrate_adj").map((e) => e.tNs);
    // with vrate pinned and shortages, busy goes negative every period and each period is traced
    expect(t.length).toBeGreaterThan(5);
    for (let i = 1; i < t.length; i++) expect(t[i]! - t[i - 1]!).toBe(44e6);
  });
});

describe("iocost weights and hierarchy", () => {
  it("A(100){A0(100), A1(100)} and B(300) flatten to hweights 12.5% / 12.5% / 75%", () => {
    const r = run(scenario([
      { path: "A", weight: 100, qd: 0 }, { path: "A/A0", weight: 100 }, { path: "A/A1", weight: 100 }, { path: "B", weight: 300 },
    ], { durationNs: 3e9 }));
    const a0 = r.iosIn("A/A0", 5e8, 3e9), a1 = r.iosIn("A/A1", 5e8, 3e9), b = r.iosIn("B", 5e8, 3e9);
    const tot = a0 + a1 + b;
    expect(a0 / tot).toBeCloseTo(0.125, 2);
    expect(a1 / tot).toBeCloseTo(0.125, 2);
    expect(b / tot).toBeCloseTo(0.75, 2);
    expect(Number(r.core.iocostIocgStat(r.cg("B"), 0, 9))).toBe(49152); // hweight_active 75%
  });

  it("an IO from an inner cgroup with active children is not throttled (leaf-only activation)", () => {
    const sc = scenario([{ path: "P", weight: 100, qd: 0 }, { path: "P/C", weight: 100 }], { durationNs: 1e9 });
    sc.jobs.push(jobDefaults({ name: "inner", device: "nvme0n1", cgroup: "P", random: true, iodepth: 4, startNs: 2e8,
      runtimeNs: 5e8, timeBased: true }));
    const r = run(sc);
    // P's own IOs bypass iocost: 4 workers run at device speed, far beyond the model's 1000/s
    expect(r.iosIn("P", 3e8, 6e8)).toBeGreaterThan(2000);
    expect(r.iosIn("P/C", 3e8, 6e8)).toBeLessThan(400);
  });

  it("a timed io.weight write at 1 s moves the split from 50:50 to 20:80", () => {
    const r = run(scenario([{ path: "A", weight: 100 }, { path: "B", weight: 100 }], {
      durationNs: 3e9, writes: [{ atNs: 1e9, cgroup: "B", file: "io.weight", value: "400" }],
    }));
    const before = r.iosIn("B", 3e8, 1e9) / (r.iosIn("A", 3e8, 1e9) + r.iosIn("B", 3e8, 1e9));
    const after = r.iosIn("B", 1.5e9, 3e9) / (r.iosIn("A", 1.5e9, 3e9) + r.iosIn("B", 1.5e9, 3e9));
    expect(before).toBeCloseTo(0.5, 1);
    expect(after).toBeCloseTo(0.8, 1);
  });
});

describe("iocost vrate control", () => {
  it("rq wait above 5% of the period makes the device busy and vrate falls (QoS min 50%)", () => {
    // a device that cannot keep up with what the model promises: bios queue for requests
    const dev = device(400, 100_000, { channels: 1, nrRequests: 4 });
    const r = run(scenario([{ path: "A" }, { path: "B" }], {
      dev, durationNs: 3e9, qos: `${DEVNO} enable=1 ctrl=user rpct=0 rlat=20000 wpct=0 wlat=20000 min=50 max=150`,
    }));
    const adj = r.trace.filter((e) => e.event === "iocost_ioc_vrate_adj");
    expect(adj.some((e) => (e["busy"] as number) > 0)).toBe(true);
    expect(Math.min(...adj.map((e) => (e["vrate"] as number[])[1]!))).toBeLessThan(137438);
  });

  it("latency above rlat for more than (100 - rpct)% of IOs lowers vrate to its minimum", () => {
    const dev = device(1e6, 2_000_000);
    const r = run(scenario([{ path: "A", weight: 100 }, { path: "B", weight: 300 }], {
      dev, durationNs: 5e9, qos: `${DEVNO} enable=1 ctrl=user rpct=50 rlat=1500 wpct=50 wlat=1500 min=25 max=150`,
    }));
    const last = r.trace.filter((e) => e.event === "iocost_ioc_vrate_adj").at(-1)!;
    expect((last["vrate"] as number[])[1]).toBe(Math.ceil((250000 * 137438) / 1e6));
  });

  it("6.12 rounds vrate_max up and reports vtime_base_rate as the old vrate; 6.1 truncates", () => {
    const q = `${DEVNO} enable=1 ctrl=user rpct=90 rlat=20000 wpct=90 wlat=20000 min=50 max=150.01`;
    const r61 = run(scenario([{ path: "A", qd: 0 }], { qos: q, durationNs: 1e6, kernel: "6.1" }));
    const r612 = run(scenario([{ path: "A", qd: 0 }], { qos: q, durationNs: 1e6, kernel: "6.12" }));
    expect(r61.core.iocostIocStat(0, 10)).toBe(206170n);
    expect(r612.core.iocostIocStat(0, 10)).toBe(206171n);
  });
});

describe("iocost debt", () => {
  it("bios that must not wait (swap-like) are issued at once as debt, which is repaid after they stop", () => {
    const sc = scenario([{ path: "D", weight: 100, qd: 0 }, { path: "B", weight: 100 }], { durationNs: 3e9 });
    sc.jobs.push(jobDefaults({ name: "swap", device: "nvme0n1", cgroup: "D", random: true, iodepth: 8, startNs: 1e8,
      runtimeNs: 5e7, timeBased: true }));
    const r0 = run(sc); // without debt marking: D waits like everyone else
    const sim = new Simulation(sc);
    const core = iocostCore(sim.core);
    core.iocostJobUseDebt(sc.jobs.length - 1, 1);
    const d = sim.context().cgroupId("D")!;
    const debts: number[] = [];
    while (!sim.step(500)) debts.push(Number(core.iocostIocgStat(d, 0, 6)));
    const res = sim.result();
    const dIos = res.cgroups.find((c) => c.path === "D")!.own[DEVNO]!.rios;
    expect(dIos).toBeGreaterThan(3 * r0.ios("D")); // far beyond its 50% share: it never waited
    expect(Math.max(...debts)).toBeGreaterThan(0);
    expect(debts.at(-1)).toBe(0); // repaid
    expect(Number(core.iocostIocgStat(d, 0, 2))).toBeGreaterThan(0); // cost.indebt accounted
  });

  it("trace_pipe lines look like the kernel's", () => {
    const r = run(scenario([{ path: "A" }], { durationNs: 2e8 }));
    const lines = formatTracePipe(r.trace);
    expect(lines[0]).toMatch(/^\s+iosim-0\s+\[000\] \.+\s+\d+\.\d{6}: iocost_iocg_activate: \[nvme0n1:\/A\] now=\d+:\d+ vrate=137438 period=0->0 vtime=\d+ weight=6553600\/6553600 hweight=65536\/65536$/);
    expect(lines.some((l) => /iocost_ioc_vrate_adj: \[nvme0n1\] vrate=\d+->\d+ busy=-?\d+ missed_ppm=\d+:\d+ rq_wait_pct=\d+ lagging=\d+ shortages=\d+$/.test(l))).toBe(true);
  });
});
