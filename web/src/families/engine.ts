// Plain block IO: jobs in cgroups sharing a device, no controller. Always in
// the build (it is the core engine). Two built-ins:
//   - two-tenants: a 4 KiB random reader at depth 16 next to a 128 KiB
//     sequential reader at depth 4 on a SATA SSD for 5 s: with nothing
//     between them, the big reads take most of the bandwidth and the small
//     ones queue behind them.
//   - million-bios: 1 000 000 4 KiB random reads (two cgroups x 500 000,
//     depth 32 each) on the NVMe preset (150 k IOPS: ~6.7 s simulated), to
//     show how long a big run takes.
import { jobDefaults, scenarioDefaults, type Scenario } from "../iosim.js";
import { blockFamily, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";

export const MILLION = 1_000_000;
// not 1 << 30 multiples: JavaScript shifts are 32-bit, so 16 << 30 is 0
const GiB = 2 ** 30;

export function twoTenants(): Scenario {
  const dev = preset("ssd");
  const common = { device: dev.name, runtimeNs: 5e9, timeBased: true, regionLen: 16 * GiB };
  return scenarioDefaults({
    name: "two-tenants",
    description: "a small random reader and a big sequential reader share a SATA SSD with no controller",
    devices: [dev],
    cgroups: [{ path: "small" }, { path: "big" }],
    jobs: [
      jobDefaults({ ...common, name: "small", cgroup: "small", rw: "read", random: true, iodepth: 16 }),
      jobDefaults({ ...common, name: "big", cgroup: "big", rw: "read", bs: [{ size: 128 << 10, weight: 1 }], iodepth: 4 }),
    ],
    seriesBinNs: 100e6,
  });
}

export function millionBios(): Scenario {
  const dev = preset("nvme");
  const common = { device: dev.name, rw: "read" as const, random: true, iodepth: 32, count: MILLION / 2, regionLen: 64 * GiB };
  return scenarioDefaults({
    name: "million-bios",
    description: "1 000 000 random 4 KiB reads from two cgroups on an NVMe drive",
    devices: [dev],
    cgroups: [{ path: "a" }, { path: "b" }],
    jobs: [jobDefaults({ ...common, name: "a", cgroup: "a" }), jobDefaults({ ...common, name: "b", cgroup: "b" })],
    seriesBinNs: 100e6,
  });
}

const builtins: BlockBuiltin[] = [
  { id: "two-tenants", title: "Two tenants, no controller", description: twoTenants().description!, build: twoTenants },
  { id: "million-bios", title: "One million bios", description: millionBios().description!, size: "1 M bios", build: millionBios },
];

export const engineFamily = blockFamily({
  id: "block",
  title: "Block IO",
  missing: async () => undefined,
  builtins: async () => builtins,
});
