// The guest io.latency / wbt replay (rqos.ts): the recorded guest stalls and
// what the device model does with them (assembly/device/device.ts setDevicePauses).
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { Simulation } from "../engine/simulation.js";
import { defaultClock, jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import type { DeviceSpec, Scenario } from "../scenario/types.js";
import "../engine/modules/index.js";
import { guestStalls, scoreIolat } from "./rqos.js";

const DIR = path.resolve(__dirname, "../../test/fixtures/oracle/guest");
const MS = 1_000_000;

/** a null_blk-like device of `tags` tags, 10 ms a request, replaying `ios` from one job in cgroup A */
function replayScenario(
  name: string,
  tags: number,
  iodepth: number,
  ios: Array<{ tNs: number; off: number; size: number; dir: "R"; serviceNs: number; cpuNs?: number }>,
  dev: Partial<DeviceSpec> = {},
): Scenario {
  const pts: Array<[number, number]> = [
    [512, 1e10],
    [1 << 20, 1e10],
  ];
  const device: DeviceSpec = {
    name: "nullb0",
    devno: "253:0",
    kind: "custom",
    channels: tags,
    nrRequests: tags,
    latencyNs: 10 * MS,
    jitterSigma: 0,
    maxSectorsKb: 124,
    rotational: false,
    curve: { read: { seq: pts, rand: pts }, write: { seq: pts, rand: pts } },
    ...dev,
  };
  return scenarioDefaults({
    name,
    kernel: "6.1",
    seed: 1,
    clock: defaultClock(250),
    record: true,
    devices: [device],
    cgroups: [{ path: "A" }],
    jobs: [jobDefaults({ name: "r", device: "nullb0", cgroup: "A", iodepth, direct: true, pattern: { kind: "replay", ios } })],
  });
}

function scenario(stallsNs?: Array<[number, number]>): Scenario {
  const ios = [0, 5, 25].map((t, i) => ({ tNs: t * MS, off: (i * 1) << 20, size: 4096, dir: "R" as const, serviceNs: 10 * MS }));
  return replayScenario("stalls", 4, 3, ios, stallsNs ? { stallsNs } : {});
}

const completions = (s: Scenario) =>
  new Simulation(s)
    .runToEnd()
    .records!.map((r) => r.completeNs / MS)
    .sort((a, b) => a - b);

describe("recorded guest stalls in the device model", () => {
  it("without stalls each IO completes its recorded driver time after its submit", () => {
    expect(completions(scenario())).toEqual([10, 15, 35]);
  });

  it("a request due in a stall completes at its end; one reaching the driver in it is issued at its end", () => {
    // [3, 20) ms: the first is due at 10 (-> 20), the second arrives at 5 (issued at 20 -> 30);
    // the third arrives after the stall and is not moved
    expect(completions(scenario([[3 * MS, 20 * MS]]))).toEqual([20, 30, 35]);
  });
});

describe("recorded CPU time before the tag", () => {
  it("a request with recorded CPU time asks for its tag that much later (behind an rq-qos policy: wbt here; reads pass it)", () => {
    const run = (cpuNs?: number) => {
      const ios = [
        { tNs: 0, off: 0, size: 4096, dir: "R" as const, serviceNs: 10 * MS, ...(cpuNs ? { cpuNs } : {}) },
        { tNs: 1 * MS, off: 1 << 20, size: 4096, dir: "R" as const, serviceNs: 10 * MS },
      ];
      const s = replayScenario("cpu", 1, 2, ios, { wbtLatUsec: "100000" });
      return new Simulation(s)
        .runToEnd()
        .records!.map((r) => [r.seq, r.completeNs / MS])
        .sort((a, b) => a[0]! - b[0]!);
    };
    // one tag: the first takes it at 0, the second waits for it
    expect(run()).toEqual([
      [0, 10],
      [1, 20],
    ]);
    // the first asks for it 5 ms late: the second, there at 1 ms, takes it first
    expect(run(5 * MS)).toEqual([
      [0, 21],
      [1, 11],
    ]);
  });
});

describe("guestStalls: windows from late null_blk timers", () => {
  it("a stall runs from the late request's due time to the next recorded stamp", () => {
    // stamps at 0, 2 and 30 ms; a request due at 12 ms (late): stalled 12-30
    expect(guestStalls([0, 2 * MS, 30 * MS], [12 * MS])).toEqual([[12 * MS, 30 * MS]]);
    // starts no earlier than 1 ms after the stamp before the due time (its unstamped CPU work)
    expect(guestStalls([0, 10 * MS, 30 * MS], [10.5 * MS])).toEqual([[11 * MS, 30 * MS]]);
    // shorter than 4 ms (one jiffy): not a stall
    expect(guestStalls([0, 10 * MS, 13 * MS], [10.5 * MS])).toEqual([]);
  });

  it("on the recorded io.latency runs: disjoint windows with no recorded stamp inside any", () => {
    for (const f of ["iolat.jsonl", "iolat.r2.jsonl", "iolat.r3.jsonl"]) {
      const text = fs.readFileSync(path.join(DIR, f), "utf8");
      const stamps: number[] = [];
      const dues: number[] = [];
      for (const l of text.split("\n")) {
        if (!l.trim()) continue;
        const r = JSON.parse(l);
        if (r.type === "iostat") stamps.push(r.t_ns);
        if (r.type !== "io") continue;
        stamps.push(r.submit_ns, r.complete_ns);
        if (r.svc_ns - 20 * MS >= 4 * MS) dues.push(r.complete_ns - (r.svc_ns - 20 * MS));
      }
      const w = guestStalls(stamps, dues);
      expect(w.length).toBeGreaterThan(10);
      for (let k = 0; k < w.length; k++) {
        const [a, b] = w[k]!;
        expect(b - a).toBeGreaterThanOrEqual(4 * MS);
        if (k > 0) expect(a).toBeGreaterThan(w[k - 1]![1]);
        expect(stamps.some((t) => t > a && t < b)).toBe(false);
      }
      // the replay still scores every recorded IO
      expect(scoreIolat(text, f).total.ios).toBe(text.split("\n").filter((l) => l.includes('"type":"io"') && !l.includes('"ret":-')).length);
    }
  });
});
