// The device presets and curves run through the engine: what a user of
// `--device` gets, end to end.
import { describe, expect, it } from "vitest";
import { simulate } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import type { DeviceSpec, JobSpec } from "../../bindings/scenario/types.js";
import { devicePreset, linearServiceNs, loadDeviceFile, modelRow, seedIops } from "../../bindings/device/index.js";

function run(dev: DeviceSpec, job: Partial<JobSpec>) {
  return simulate(
    scenarioDefaults({ name: "t", devices: [dev], jobs: [jobDefaults({ name: "j", device: dev.name, ...job })] }),
  );
}

describe("device presets in the engine", () => {
  it("the ideal device serves 500 x 4 KiB QD1 reads in 2.7-4.3 ms, as the oracle's loop on tmpfs did", () => {
    const r = run(devicePreset("ideal"), { count: 500, random: true });
    expect(r.jobs[0]!.read.ios).toBe(500);
    expect(r.simulatedNs).toBeGreaterThan(2.7e6);
    expect(r.simulatedNs).toBeLessThan(4.3e6);
  });

  it("NVMe at QD16 runs at the seed's 150k IOPS for 4 KiB; at QD1 a sixteenth of it", () => {
    // without the latency spread, exactly; with it (the preset), within 0.5 % (sigma 0.25 over 16,000 bios)
    const flat = devicePreset("nvme", { shape: undefined });
    const qd16 = run(flat, { count: 16000, iodepth: 16, random: true });
    expect(16000 / (qd16.simulatedNs / 1e9)).toBeCloseTo(150000, -2);
    const qd1 = run(flat, { count: 1000, random: true });
    expect(1000 / (qd1.simulatedNs / 1e9)).toBeCloseTo(150000 / 16, -1);
    const shaped = run(devicePreset("nvme"), { count: 16000, iodepth: 16, random: true });
    expect(Math.abs(16000 / (shaped.simulatedNs / 1e9) / 150000 - 1)).toBeLessThan(0.005);
  });

  it("the SSD at QD8 delivers the seed's 8 KiB bandwidth", () => {
    const flat = run(devicePreset("ssd", { shape: undefined }), { count: 8000, iodepth: 8, random: true, bs: [{ size: 8192, weight: 1 }] });
    expect((8000 * 8192) / (flat.simulatedNs / 1e9) / (seedIops("ssd", 8192) * 8192)).toBeCloseTo(1, 3);
    const r = run(devicePreset("ssd"), { count: 8000, iodepth: 8, random: true, bs: [{ size: 8192, weight: 1 }] });
    expect(Math.abs((8000 * 8192) / (r.simulatedNs / 1e9) / (seedIops("ssd", 8192) * 8192) - 1)).toBeLessThan(0.01);
  });

  it("null_blk: 64 requests complete every 2 ms", () => {
    const r = run(devicePreset("nullb"), { count: 640, iodepth: 64 });
    expect(r.simulatedNs).toBeGreaterThanOrEqual(10 * 2_000_000);
    expect(r.simulatedNs).toBeLessThan(10 * 2_000_000 + 100_000);
  });

  it("a linear-model device file gives the model's random-read time at QD1", () => {
    const dev = loadDeviceFile("preset: nvme\nchannels: 1\nmodel: wdc-sn730-256g\n", "sn730.yaml");
    const r = run(dev, { count: 200, random: true, bs: [{ size: 65536, weight: 1 }], align: 1 << 24 });
    const want = linearServiceNs(modelRow("wdc-sn730-256g")!.params, "read", false, 65536);
    expect(r.jobs[0]!.read.lat.mean / want).toBeCloseTo(1, 2);
  });
});
