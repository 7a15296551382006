// Physics every device preset must obey, run through the engine:
//  - Little's law: in a closed loop of depth QD, QD = IOPS x mean latency (within 1 %);
//  - bandwidth never above the device's curve (within the sampling error of the
//    latency spread: the spread has mean 1, so a run's mean service time is the
//    curve's within a few standard errors);
//  - latency monotone in queue depth (within that error);
//  - p50 differs from p99 where real devices' do (ssd, nvme, hdd), not on the
//    oracle's fixed devices (ideal, nullb).
import { describe, expect, it } from "vitest";
import { simulate } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import type { DeviceSpec, JobSpec, RunResult } from "../../bindings/scenario/types.js";
import { devicePreset, PRESET_NAMES, tableIops, HDD_MECHANICS } from "../../bindings/device/index.js";

function run(dev: DeviceSpec, job: Partial<JobSpec>, seed = 7): RunResult {
  return simulate(scenarioDefaults({ name: "t", seed, devices: [dev], jobs: [jobDefaults({ name: "j", device: dev.name, regionLen: dev.sizeBytes ?? 1 << 30, ...job })] }));
}
const dirOf = (r: RunResult, write: boolean) => (write ? r.jobs[0]!.write : r.jobs[0]!.read);
const iopsOf = (r: RunResult, write = false) => dirOf(r, write).ios / ((r.jobs[0]!.lastDoneNs - r.jobs[0]!.firstSubmitNs) / 1e9);
/** IOs for about `secs` of device time at `iops` (at least 400) */
const countFor = (iops: number, secs: number) => Math.max(400, Math.min(40_000, Math.round(iops * secs)));

describe("device physics on every preset", () => {
  for (const name of PRESET_NAMES) {
    const dev = devicePreset(name);
    const fullIops = tableIops(dev.curve.read.rand, 4096);
    it(`${name}: Little's law, QD = IOPS x mean latency within 1 %, at QD 1 to 4 x channels`, () => {
      for (const qd of [1, Math.max(2, dev.channels), Math.min(dev.nrRequests, 4 * dev.channels)]) {
        const r = run(dev, { random: true, iodepth: qd, count: countFor(fullIops, name === "hdd" ? 20 : 0.2) });
        const l = iopsOf(r) * (dirOf(r, false).lat.mean / 1e9);
        expect(Math.abs(l / qd - 1), `${name} QD ${qd}: IOPS x latency = ${l}`).toBeLessThan(0.01);
      }
    });

    it(`${name}: bandwidth never above the device curve (4k, 64k, 1m; read/write; rand/seq)`, () => {
      for (const write of [false, true]) {
        for (const random of [true, false]) {
          for (const size of [4096, 65536, 1 << 20]) {
            const table = dev.curve[write ? "write" : "read"][random ? "rand" : "seq"];
            let cap = tableIops(table, size);
            // the hdd's random bios take the arm's time (mechanics), not the table's:
            // the bound is the mean seek over the whole disk + half a turn + transfer
            if (name === "hdd" && random) {
              const m = HDD_MECHANICS;
              cap = 1e9 / (m.settleNs + ((m.fullStrokeNs - m.settleNs) * 8) / 15 + 30e9 / m.rpm + (size * 1e9) / m.mediaBytesPerSec);
            }
            const qd = Math.min(dev.nrRequests, 2 * dev.channels);
            const n = countFor(cap, name === "hdd" && random ? 30 : 0.3);
            const r = run(dev, { rw: write ? "write" : "read", random, iodepth: qd, count: n, bs: [{ size, weight: 1 }] });
            const got = iopsOf(r, write);
            // sampling error of a mean of n service times with the table's spread
            // (log-normal sigma s: relative sd sqrt(exp(s^2) - 1); the hdd's random
            // arm time: about 0.35 relative sd), three standard errors
            const s = dev.shape?.sigma?.[write ? "write" : "read"][random ? "rand" : "seq"] ?? 0;
            const rel = name === "hdd" && random ? 0.35 : Math.sqrt(Math.exp(s * s) - 1);
            const tol = (3 * rel) / Math.sqrt(n / Math.max(1, dev.channels)) + 1e-9;
            expect(got / cap, `${name} ${write ? "write" : "read"} ${random ? "rand" : "seq"} ${size}: ${got} IOPS vs curve ${cap}`).toBeLessThan(1 + tol);
            // and it gets near: a device whose time is all service runs close to its curve
            // (nullb's 2 ms completion holds no channel: its depth, not its curve, bounds it)
            if (dev.latencyNs === 0) expect(got / cap).toBeGreaterThan(1 - tol - 0.05);
          }
        }
      }
    });

    it(`${name}: mean latency does not fall as queue depth rises`, () => {
      let last = 0;
      let lastTol = 0;
      for (const qd of [1, 2, 4, 8, 16, 32, 64].filter((q) => q <= dev.nrRequests)) {
        const n = countFor(fullIops, name === "hdd" ? 10 : 0.1);
        const r = run(dev, { random: true, iodepth: qd, count: n });
        const lat = dirOf(r, false).lat.mean;
        const s = dev.shape?.sigma?.read.rand ?? 0;
        const rel = name === "hdd" ? 0.35 : Math.sqrt(Math.exp(s * s) - 1);
        const tol = (3 * rel) / Math.sqrt(n);
        expect(lat, `${name} QD ${qd}: ${lat} ns after ${last} ns`).toBeGreaterThanOrEqual(last * (1 - tol - lastTol));
        last = lat;
        lastTol = tol;
      }
    });

    const shaped = name === "ssd" || name === "nvme" || name === "hdd";
    it(`${name}: p99 ${shaped ? "differs from" : "equals"} p50 at QD1 (4 KiB random reads)`, () => {
      const r = run(dev, { random: true, iodepth: 1, count: 2000 });
      const p = dirOf(r, false).lat.percentiles;
      const ratio = p["99.000000"]! / p["50.000000"]!;
      if (shaped) expect(ratio, `${name}: p99/p50`).toBeGreaterThan(1.3);
      else expect(ratio).toBeLessThan(1.02);
    });
  }

  it("hdd: seeks cost by distance: a random job over 1 GiB runs faster than over the whole disk; sequential faster still", () => {
    const dev = devicePreset("hdd");
    const whole = iopsOf(run(dev, { random: true, count: 1000 }));
    const short = iopsOf(run(dev, { random: true, count: 1000, regionLen: 1 << 30 }));
    const seq = iopsOf(run(dev, { random: false, count: 1000, regionLen: 1 << 30 }));
    expect(whole).toBeGreaterThan(95);
    expect(whole).toBeLessThan(105); // the seed's 100 IOPS
    expect(short).toBeGreaterThan(whole * 1.05);
    expect(seq).toBeGreaterThan(short * 50);
  });

  it("the latency draws follow the run's seed: same seed, same result; another seed, other latencies", () => {
    const dev = devicePreset("ssd");
    const a = run(dev, { random: true, count: 2000 }, 1);
    const b = run(dev, { random: true, count: 2000 }, 1);
    const c = run(dev, { random: true, count: 2000 }, 2);
    expect(a.jobs[0]!.read.lat.mean).toBe(b.jobs[0]!.read.lat.mean);
    expect(a.jobs[0]!.read.lat.mean).not.toBe(c.jobs[0]!.read.lat.mean);
  });
});
