import { describe, expect, it } from "vitest";
import { ioStatLine, parseIoStat, registerIoStatExtra, toIoStat } from "./io-stat.js";
import { runResult } from "../../test/helpers/run-result.js";
import type { CgroupResult, IoStatCounts } from "../scenario/types.js";

const c = (rbytes: number, wbytes: number, rios: number, wios: number): IoStatCounts =>
  ({ rbytes, wbytes, rios, wios, dbytes: 0, dios: 0 });
const cg = (path: string, total: Record<string, IoStatCounts>): CgroupResult =>
  ({ path, own: total, total, throttleWaitNs: { read: 0, write: 0 } });

describe("io.stat", () => {
  it("prints blkcg_print_one_stat's line: MAJ:MIN then the six counters", () => {
    expect(ioStatLine("259:0", c(1048576, 8192, 256, 2)))
      .toBe("259:0 rbytes=1048576 wbytes=8192 rios=256 wios=2 dbytes=0 dios=0\n");
  });

  it("a device with no reads or writes prints only 'MAJ:MIN ' (the kernel skips the counters)", () => {
    expect(ioStatLine("8:16", c(0, 0, 0, 0))).toBe("8:16 \n");
  });

  it("shows each cgroup's subtree totals, one line per device, and hooks append fields like iocost's pd_stat_fn", () => {
    const r = runResult([], { cgroups: [
      cg("", { "259:0": c(2097152, 8192, 512, 2) }),
      cg("web", { "259:0": c(1048576, 8192, 256, 2), "8:0": c(0, 4096, 0, 1) }),
    ] });
    const undo = registerIoStatExtra(({ devno, cgroup }) => (devno === "259:0" ? ` cost.vrate=100.00 cost.usage=${cgroup ? 512 : 0}` : ""));
    try {
      const out = toIoStat(r, { extras: [({ counts }) => (counts.wios > 1 ? "x.test=1" : undefined)] });
      expect(out).toEqual({
        "": "259:0 rbytes=2097152 wbytes=8192 rios=512 wios=2 dbytes=0 dios=0 cost.vrate=100.00 cost.usage=0 x.test=1\n",
        web: "259:0 rbytes=1048576 wbytes=8192 rios=256 wios=2 dbytes=0 dios=0 cost.vrate=100.00 cost.usage=512 x.test=1\n" +
          "8:0 rbytes=0 wbytes=4096 rios=0 wios=1 dbytes=0 dios=0\n",
      });
    } finally {
      undo();
    }
    expect(toIoStat(r, { cgroups: ["web"], deviceOrder: ["8:0"] }).web!.startsWith("8:0 ")).toBe(true);
    expect(toIoStat(r).web).not.toContain("cost.");
  });

  it("parses back what it prints", () => {
    const text = ioStatLine("259:0", c(10, 20, 1, 2), " cost.usage=7") + ioStatLine("8:0", c(0, 0, 0, 0));
    expect(parseIoStat(text)).toEqual({
      "259:0": { ...c(10, 20, 1, 2), extra: { "cost.usage": "7" } },
      "8:0": { ...c(0, 0, 0, 0), extra: {} },
    });
  });
});
