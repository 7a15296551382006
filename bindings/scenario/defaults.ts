// Defaults for scenario parts, so callers can write only what they mean.
import type { ClockSpec, JobSpec, Scenario } from "./types.js";
import { DEFAULT_KERNEL } from "./types.js";

/** Linux's INITIAL_JIFFIES on a 64-bit kernel: five minutes before the 32-bit wrap. */
export function initialJiffies(hz: number): bigint {
  return 0x100000000n - BigInt(300 * hz);
}

/** Default clock: HZ=250, t = 0 on a tick, 10 s after boot. */
export function defaultClock(hz = 250): ClockSpec {
  return { hz, jiffiesAtZero: initialJiffies(hz) + BigInt(10 * hz), zeroAfterTickNs: 0 };
}

export function jobDefaults(over: Partial<JobSpec> & { name: string; device: string }): JobSpec {
  return {
    cgroup: "",
    rw: "read",
    random: false,
    mixReadPct: 50,
    bs: [{ size: 4096, weight: 1 }],
    offset: 0,
    regionLen: 1 << 30,
    align: 4096,
    iodepth: 1,
    pattern: { kind: "closed" },
    thinktimeNs: 0,
    thinktimeBlocks: 1,
    startNs: 0,
    timeBased: false,
    direct: true,
    ...over,
  };
}

export function scenarioDefaults(over: Partial<Scenario> & { name: string }): Scenario {
  return {
    kernel: DEFAULT_KERNEL,
    cgroupVersion: 2,
    seed: 1,
    clock: defaultClock(),
    devices: [],
    cgroups: [],
    jobs: [],
    writes: [],
    seriesBinNs: 0,
    record: false,
    ...over,
  };
}
