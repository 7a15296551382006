// blk-iocost (io.weight, io.cost.qos, io.cost.model): proportional shares by
// weight. Needs the blk-iocost control module.
//
// Built-in "io.cost weights": two cgroups read 4 KiB at random at depth 32
// on the NVMe preset for 5 s, with io.weight 300 and 100 and iocost enabled
// with a linear model matching the device (150 k IOPS up to 16 KiB). Both
// are always busy, so iocost should split the device 3 : 1 (hweight 75 %
// and 25 %): about 440 MiB/s and 146 MiB/s of the ~586 MiB/s it can do.
import { jobDefaults, scenarioDefaults, type Scenario } from "../iosim.js";
import { blockFamily, hasControlFile, type BlockBuiltin } from "./blockio.js";
import { preset } from "./devices.js";

export function iocostWeights(): Scenario {
  const dev = preset("nvme");
  const common = { device: dev.name, rw: "read" as const, random: true, iodepth: 32, runtimeNs: 5e9, timeBased: true, regionLen: 64 << 30 };
  return scenarioDefaults({
    name: "iocost-weights",
    description: "io.weight 300 vs 100 on one NVMe drive under blk-iocost: both busy, split 3 : 1",
    devices: [dev],
    cgroups: [
      { path: "high", files: { "io.weight": "default 300" } },
      { path: "low", files: { "io.weight": "default 100" } },
    ],
    writes: [
      { atNs: 0, cgroup: "", file: "io.cost.model", value: `${dev.devno} ctrl=user model=linear rbps=2457600000 rseqiops=150000 rrandiops=150000 wbps=2457600000 wseqiops=150000 wrandiops=150000` },
      { atNs: 0, cgroup: "", file: "io.cost.qos", value: `${dev.devno} enable=1 ctrl=user rpct=95.00 rlat=1000 wpct=95.00 wlat=2000 min=50.00 max=150.00` },
    ],
    jobs: [jobDefaults({ ...common, name: "high", cgroup: "high" }), jobDefaults({ ...common, name: "low", cgroup: "low" })],
    durationNs: 5e9,
    seriesBinNs: 100e6,
  });
}

const builtins: BlockBuiltin[] = [
  { id: "iocost-weights", title: "io.cost weights 300 : 100", description: iocostWeights().description!, build: iocostWeights },
];

export const iocostFamily = blockFamily({
  id: "iocost",
  title: "blk-iocost (io.weight)",
  missing: async () => (hasControlFile("io.weight") && hasControlFile("io.cost.qos") ? undefined : "blk-iocost (io.weight, io.cost.*) is not in this build yet"),
  builtins: async () => builtins,
});
