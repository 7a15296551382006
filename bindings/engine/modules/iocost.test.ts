// The iocost control module inside a Simulation: files, errors, io.stat fields.
import { describe, expect, it } from "vitest";
import { InputError } from "../../scenario/errors.js";
import { Simulation } from "../simulation.js";
import { iocostModule, vratePct } from "./iocost.js";
import { DEVNO, scenario } from "../../../test/iocost/helpers.js";

describe("iocost control module", () => {
  it("io.cost.qos on a child cgroup is rejected naming the file and field", () => {
    const sc = scenario([{ path: "A" }], { durationNs: 1e6 });
    sc.cgroups.push({ path: "A", files: { "io.cost.qos": `${DEVNO} enable=1` }, source: { file: "s.yaml", line: 7 } });
    expect(() => new Simulation(sc)).toThrow(InputError);
    expect(() => new Simulation(sc)).toThrow(/s\.yaml:7 \(io\.cost\.qos\).*root/);
  });

  it('io.weight "MAJ:MIN N" before iocost exists on the device is -EOPNOTSUPP, after it is fine', () => {
    const sc = scenario([{ path: "A" }], { durationNs: 1e6 });
    sc.cgroups[0]!.files = {};
    sc.cgroups.push({ path: "A", files: { "io.weight": `${DEVNO} 50` } });
    expect(() => new Simulation(sc)).toThrow(/EOPNOTSUPP/);
    const ok = scenario([{ path: "A" }], { durationNs: 1e6 });
    ok.writes.push({ atNs: 1e5, cgroup: "A", file: "io.weight", value: `${DEVNO} 50` });
    expect(() => new Simulation(ok)).not.toThrow();
  });

  it("min above max is rejected against the values in effect", () => {
    const sc = scenario([{ path: "A" }], { durationNs: 1e6 });
    sc.writes.push({ atNs: 1e6, cgroup: "", file: "io.cost.qos", value: `${DEVNO} min=200` });
    expect(() => new Simulation(sc)).toThrow(/min 200.00 is above max 100.00.*EINVAL/);
  });

  it("io.stat gains cost.vrate at the root and cost.usage per cgroup; cost.wait/indebt/indelay only with blkcg_debug_stats (they were always there)", () => {
    const plain = new Simulation(scenario([{ path: "A", weight: 100 }, { path: "B", weight: 300 }], { durationNs: 1e9 }));
    plain.runToEnd();
    // ioc_pd_stat() prints the last three only `if (blkcg_debug_stats)`, a module parameter off by default
    expect(Object.keys(iocostModule.ioStatExtra!(plain.context(), "B", DEVNO))).toEqual(["cost.usage"]);
    expect(Object.keys(iocostModule.ioStatExtra!(plain.context(), "", DEVNO))).toEqual(["cost.vrate", "cost.usage"]);
    const sim = new Simulation({ ...scenario([{ path: "A", weight: 100 }, { path: "B", weight: 300 }], { durationNs: 1e9 }), blkcgDebugStats: true });
    sim.runToEnd();
    const ctx = sim.context();
    const root = iocostModule.ioStatExtra!(ctx, "", DEVNO);
    expect(root["cost.vrate"]).toBe("100.00");
    const b = iocostModule.ioStatExtra!(ctx, "B", DEVNO);
    const a = iocostModule.ioStatExtra!(ctx, "A", DEVNO);
    expect(Object.keys(b)).toEqual(["cost.usage", "cost.wait", "cost.indebt", "cost.indelay"]);
    // usage is device time in µs: B used about three times what A used, both waited
    expect((b["cost.usage"] as number) / (a["cost.usage"] as number)).toBeGreaterThan(2.5);
    expect((b["cost.usage"] as number) / (a["cost.usage"] as number)).toBeLessThan(3.2);
    expect(b["cost.wait"]).toBeGreaterThan(0);
    expect(root["cost.usage"]).toBe((a["cost.usage"] as number) + (b["cost.usage"] as number));
  });

  it("cost.vrate prints like ioc_pd_stat: 150% of 137438 is 150.00, 137438*1.0616 rounds to 106.16", () => {
    expect(vratePct(206157)).toBe("150.00");
    expect(vratePct(145898)).toBe("106.16");
  });
});
