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
