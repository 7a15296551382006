// Which lines each cgroup's io.stat has, and in what order: one per blkg, newest
// first (block/blk-cgroup.c blkcg_print_stat() walks blkcg->blkg_list, where
// blkg_create() adds at the head). A cgroup gets a blkg on a disk at its
// subtree's first bio there or at a config write naming the disk
// (blkg_conf_prep); the root has one per disk.
import { describe, expect, it } from "vitest";
import { loadScenario } from "../scenario/load.js";
import { simulate } from "./simulation.js";
import { toIoStat } from "../report/io-stat.js";

const yaml = `name: blkgs
duration: 50ms
devices:
  - preset: nvme
  - preset: ssd
cgroups:
  idle: {}
  tenants/capped:
    io.max: "8:0 rbps=1048576"
  tenants/web: {}
jobs:
  - {name: n, cgroup: tenants/web, filename: /dev/nvme0n1, rw: randread, bs: 4k, direct: 1, number_ios: 4}
  - {name: s, cgroup: tenants/web, filename: /dev/sda, rw: randread, bs: 4k, direct: 1, number_ios: 2, startdelay: 1ms}
`;

describe("io.stat lines per blkg", () => {
  const out = toIoStat(simulate(loadScenario(yaml, "blkgs.yaml").scenario));
  const nvme = "259:0 rbytes=16384 wbytes=0 rios=4 wios=0 dbytes=0 dios=0\n";
  const sda = "8:0 rbytes=8192 wbytes=0 rios=2 wios=0 dbytes=0 dios=0\n";

  it("a cgroup that never did IO nor had a file name a disk prints nothing (it printed '259:0 ' and '8:0 ')", () => {
    expect(out["idle"]).toBe("");
  });

  it("a cgroup with only an io.max on a disk prints that disk's bare 'MAJ:MIN ' line, and no other disk", () => {
    expect(out["tenants/capped"]).toBe("8:0 \n");
  });

  it("a cgroup lists its newest blkg first: web read sda 1 ms after nvme0n1, so 8:0 comes first", () => {
    expect(out["tenants/web"]).toBe(sda + nvme);
  });

  it("a parent's blkgs come from its subtree: tenants got 8:0 from capped's io.max at 0, then 259:0 from web's first read", () => {
    expect(out["tenants"]).toBe(nvme + sda);
  });

  it("the root lists every disk, the later-created (listed) one first", () => {
    expect(out[""]).toBe(sda + nvme);
  });
});
