// The summary table's rates: a cgroup's IOs over the time its jobs ran, from
// the first one's start to the last completion (with jobs one after another,
// the longest job's runtime counted all of them in its time: twice the IOPS
// the device can serve).
import { describe, expect, it } from "vitest";
import { simulate } from "../engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import type { DeviceSpec } from "../scenario/types.js";
import { summaryText } from "./summary.js";

const flat = (iops: number): Array<[number, number]> => [[512, iops], [1 << 20, iops]];
// one bio at a time, 100 us each: 10,000 IOPS at most
const dev: DeviceSpec = {
  name: "d", devno: "8:0", kind: "custom", channels: 1, nrRequests: 64, latencyNs: 0, jitterSigma: 0, maxSectorsKb: 1280,
  rotational: false, curve: { read: { seq: flat(1e4), rand: flat(1e4) }, write: { seq: flat(1e4), rand: flat(1e4) } },
};

describe("summary table", () => {
  it("two jobs of one cgroup, one after the other, run at the device's 10,000 IOPS, not 20,000", () => {
    const r = simulate(scenarioDefaults({
      name: "t", devices: [dev], cgroups: [{ path: "a" }],
      jobs: [jobDefaults({ name: "first", cgroup: "a", device: "d", count: 100 }),
        jobDefaults({ name: "second", cgroup: "a", device: "d", count: 100, startNs: 10e6 })],
    }));
    const row = summaryText(r).split("\n").find((l) => l.startsWith("a "))!.trim().split(/\s+/);
    // cgroup, dir, IOs, MiB/s, IOPS
    expect(row.slice(0, 3)).toEqual(["a", "read", "200"]);
    expect(Number(row[4])).toBe(10000);
    expect(Number(row[3])).toBeCloseTo((10000 * 4096) / (1 << 20), 2);
  });
});
