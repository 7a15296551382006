// A fio job file through the simulator and back out as fio JSON and io.stat.
import { expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { toFioJson, toIoStat } from "../bindings/report/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import type { DeviceSpec } from "../bindings/scenario/types.js";

const dev: DeviceSpec = {
  name: "nvme0n1", devno: "259:0", kind: "ideal", channels: 4, nrRequests: 64, latencyNs: 0, jitterSigma: 0,
  maxSectorsKb: 1280, rotational: false,
  curve: { read: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] }, write: { seq: [[4096, 100_000]], rand: [[4096, 100_000]] } },
};

it("two tenants from a fio job file run; fio JSON (one group) and each tenant's io.stat count the same IOs", async () => {
  const text = readFileSync(new URL("./fixtures/fio/cgroups-two-tenants.fio", import.meta.url), "utf8")
    .replace("runtime=20", "runtime=50ms");
  const parsed = parseFioJobFile(text, "cgroups-two-tenants.fio", { deviceSizes: { nvme0n1: 2 ** 30 } });
  const result = await simulate(scenarioDefaults({ name: "fio", devices: [dev], jobs: parsed.jobs }));
  const json = toFioJson(result, { jobs: parsed.meta, globalOptions: parsed.globalOptions });
  // fio's group_reporting merges every job of a reporting group (no stonewall here: all three), named after the first
  expect(json.jobs.map((j) => j.jobname)).toEqual(["tenant-a"]);
  const reads = json.jobs[0]!.read.total_ios;
  const writes = json.jobs[0]!.write.total_ios;
  expect(reads).toBeGreaterThan(0);
  expect(writes).toBeGreaterThan(0);
  const stat = toIoStat(result);
  const num = (s: string, k: string) => Number(new RegExp(`${k}=(\\d+)`).exec(s)![1]);
  expect(num(stat["tenants/a"]!, "rios")).toBe(reads);
  expect(num(stat["tenants/b"]!, "wios")).toBe(writes);
});

it("fio rw=rw keeps a position per direction (f->last_pos[ddir]): reads and writes each run 0, 4k, 8k, ... and wrap on their own", async () => {
  const text = [
    "[mixed]", "filename=/dev/nvme0n1", "ioengine=libaio", "direct=1", "rw=rw", "rwmixread=50", "bs=4k,16k",
    "size=64k", "io_size=512k", "iodepth=1", "",
  ].join("\n");
  const parsed = parseFioJobFile(text, "mixed.fio", { deviceSizes: { nvme0n1: 2 ** 30 } });
  const result = await simulate(scenarioDefaults({ name: "fio", devices: [dev], jobs: parsed.jobs, record: true }));
  const recs = [...result.records!].sort((a, b) => a.submitNs - b.submitNs);
  const offs = (dir: "R" | "W") => recs.filter((b) => b.dir === dir).map((b) => b.off);
  const reads = offs("R"), writes = offs("W");
  expect(reads.length).toBeGreaterThan(20);
  expect(writes.length).toBeGreaterThan(10);
  // each direction from the region's start by its own block size; size=64k < io_size wraps each
  // cursor at 64 KiB (get_next_seq_offset(): td_rw && io_size > size), independently of the other
  expect(reads).toEqual(reads.map((_, i) => (i * 4096) % 65536));
  expect(writes).toEqual(writes.map((_, i) => (i * 16384) % 65536));
});
