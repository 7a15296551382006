// Loads scenarios/iocost-bursty.json (the README's iocost example) into a Scenario.
import { readFileSync } from "node:fs";
import { devicePreset, type PresetName } from "../../bindings/device/presets.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import type { JobSpec, KernelVersion, Scenario } from "../../bindings/scenario/types.js";

interface DemoJob { name: string; cgroup: string; rw: "read" | "write"; random: boolean; bs: number; iodepth: number; windowsMs: Array<[number, number]> }

export function loadBurstyScenario(file: string): Scenario {
  const j = JSON.parse(readFileSync(file, "utf8"));
  const dev = devicePreset(j.device.preset as PresetName);
  const jobs: JobSpec[] = [];
  for (const d of j.jobs as DemoJob[]) {
    d.windowsMs.forEach(([a, b], k) => jobs.push(jobDefaults({
      name: `${d.name}.${k}`, device: dev.name, cgroup: d.cgroup, rw: d.rw, random: d.random, bs: [{ size: d.bs, weight: 1 }],
      iodepth: d.iodepth, startNs: a * 1e6, runtimeNs: (b - a) * 1e6, timeBased: true,
    })));
  }
  return scenarioDefaults({
    name: j.name, description: j.description, kernel: j.kernel as KernelVersion, devices: [dev], cgroups: j.cgroups, jobs,
    durationNs: j.durationMs * 1e6, seriesBinNs: j.seriesBinMs * 1e6, source: { file },
  });
}
