// The playground's fio text of a scenario's jobs (web/src/lib/fiofmt.ts)
// parses back to the same jobs' sizes, also when reads and writes have their
// own (fio bs=R,W / bssplit=R,W).
import { describe, expect, it } from "vitest";
import { formatFioJobs } from "../../web/src/lib/fiofmt.js";
import { parseFioJobFile } from "../../bindings/workload/index.js";

const parse = (text: string) => parseFioJobFile(text, "t.fio", { defaultDevice: "vda", deviceSizes: { vda: 2 ** 33 } }).jobs;

describe("the playground's fio text", () => {
  it("keeps the read and the write sizes of a mixed job", () => {
    for (const sizes of ["bs=4k", "bs=4k,64k", "bssplit=4k/75:8k/25", "bssplit=4k/75:8k/25,64k/100", "bssplit=4k,8k/50:16k/50"]) {
      const jobs = parse(`[a]\nfilename=/dev/vda\nrw=randrw\n${sizes}\nsize=1g\n`);
      const again = parse(formatFioJobs(jobs).text);
      expect([again[0]!.bs, again[0]!.bsWrite]).toEqual([jobs[0]!.bs, jobs[0]!.bsWrite]);
    }
  });

  it("keeps a mixed job's rate caps per direction, and a one-direction job's cap", () => {
    for (const [rw, caps] of [["randrw", "rate=1m,2m"], ["randrw", "rate=1m,"], ["randrw", "rate_iops=,50"], ["randread", "rate_iops=200"],
      ["randread", "bssplit=4k/50:64k/50\nrate_iops=100"], ["randrw", "bssplit=4k/50:64k/50,8k\nrate_iops=100,50"]]) {
      const jobs = parse(`[a]\nfilename=/dev/vda\nrw=${rw}\n${caps}\nsize=1g\n`);
      expect(parse(formatFioJobs(jobs).text)[0]!.pattern).toEqual(jobs[0]!.pattern);
    }
  });

  it("an IO cap that fio cannot say (with a byte cap, or over several sizes) is a comment, and the text still parses", () => {
    const [job] = parse("[a]\nfilename=/dev/vda\nrw=randread\nbssplit=4k/50:64k/50\nsize=1g\n");
    for (const pattern of [{ kind: "rate" as const, iops: 100, bps: 1 << 20 }, { kind: "rate" as const, iops: 100 },
      { kind: "rate" as const, read: { iops: 100 }, write: { bps: 1 << 20 } }]) {
      const f = formatFioJobs([{ ...job!, pattern }]);
      expect(f.expressible).toBe(false);
      expect(f.text).toMatch(/^# an IO cap \(100(,)? IOPS\)/m);
      expect(() => parse(f.text)).not.toThrow();
    }
  });
});

describe("the playground's fio sizes", () => {
  it("are written with fio's suffixes where one divides them, and parse back to the same bytes", async () => {
    const { fioSize } = await import("../../web/src/lib/fiofmt.js");
    expect([2 ** 33, 4096, 65536, 1536, 3 * 2 ** 40, 1].map(fioSize)).toEqual(["8g", "4k", "64k", "1536", "3t", "1"]);
    const jobs = parse("[a]\nfilename=/dev/vda\nrw=randrw\nbs=4k,1536\noffset=1m\nsize=8g\nio_size=96k\nrate=1m,3000\nblockalign=512\n");
    const text = formatFioJobs(jobs).text;
    expect(text).toMatch(/^size=8g$/m);
    expect(text).toMatch(/^bs=4k,1536$/m);
    expect(text).toMatch(/^rate=1m,3000$/m);
    const again = parse(text)[0]!;
    const j = jobs[0]!;
    expect([again.regionLen, again.offset, again.bytes, again.align, again.bs, again.bsWrite, again.pattern])
      .toEqual([j.regionLen, j.offset, j.bytes, j.align, j.bs, j.bsWrite, j.pattern]);
  });
});
