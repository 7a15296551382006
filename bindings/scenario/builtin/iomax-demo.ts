// The built-in demo: two cgroups sharing one SSD, one capped by io.max.
//
// "capped" reads 4 KiB at random with 16 IOs in flight, limited to 20 MiB/s
// by `io.max rbps=20971520`; "free" reads the same way with no limit. Over
// 10 simulated seconds "capped" gets its 20 MiB/s (a little over, because a
// fresh slice lets bps x 100 ms through at once) and "free" uses the rest of
// the device.
import type { Scenario } from "../types.js";
import { jobDefaults, scenarioDefaults } from "../defaults.js";
import type { DeviceSpec } from "../types.js";

export const DEMO_RBPS = 20 * 1024 * 1024;
export const DEMO_DURATION_NS = 10e9;

export function iomaxDemo(device: DeviceSpec): Scenario {
  const common = {
    device: device.name,
    rw: "read" as const,
    random: true,
    bs: [{ size: 4096, weight: 1 }],
    iodepth: 16,
    runtimeNs: DEMO_DURATION_NS,
    timeBased: true,
    regionLen: 8 * 2 ** 30, // not 8 << 30: JavaScript shifts are 32-bit, that is 0
  };
  return scenarioDefaults({
    name: "iomax-demo",
    description: `two cgroups on ${device.name}: "capped" limited to 20 MiB/s reads by io.max, "free" unlimited`,
    devices: [device],
    cgroups: [
      { path: "capped", files: { "io.max": `${device.devno} rbps=${DEMO_RBPS}` } },
      { path: "free" },
    ],
    jobs: [
      jobDefaults({ ...common, name: "capped", cgroup: "capped" }),
      jobDefaults({ ...common, name: "free", cgroup: "free" }),
    ],
    durationNs: DEMO_DURATION_NS + 1e9,
    seriesBinNs: 100e6,
  });
}
