// The --report page says what the text summary says: a p99 past fio's
// histogram as ">17.11 s", and the notes under the table (why a mean sits
// above its p99), not a plain 17.11 s under a mean of minutes.
import { describe, expect, it } from "vitest";
import { Simulation } from "../../bindings/engine/simulation.js";
import { jobDefaults, scenarioDefaults } from "../../bindings/scenario/defaults.js";
import type { DeviceSpec } from "../../bindings/scenario/types.js";
import { toIoStat } from "../../bindings/report/io-stat.js";
import { runReportHtml } from "../../bindings/cli/commands/run.js";
import { summaryText } from "../../bindings/cli/summary.js";

const flat = (iops: number): Array<[number, number]> => [
  [512, iops],
  [1 << 20, iops],
];
const dev: DeviceSpec = {
  name: "d",
  devno: "8:0",
  kind: "custom",
  channels: 1,
  nrRequests: 64,
  latencyNs: 0,
  jitterSigma: 0,
  maxSectorsKb: 1280,
  rotational: false,
  curve: { read: { seq: flat(1e4), rand: flat(1e4) }, write: { seq: flat(1e4), rand: flat(1e4) } },
};

describe("the --report page's summary", () => {
  it("marks a p99 past fio's histogram and carries the notes the text prints", () => {
    // riops=1 at depth 32: each IO waits ~32 s, past fio's last bucket (17.11 s)
    const sc = scenarioDefaults({
      name: "t",
      devices: [dev],
      cgroups: [{ path: "a", files: { "io.max": "8:0 riops=1" } }],
      jobs: [jobDefaults({ name: "r", cgroup: "a", device: "d", count: 64, iodepth: 32 })],
    });
    const sim = new Simulation(sc);
    const r = sim.runToEnd();
    const page = runReportHtml(sim, r, toIoStat(r), sc);
    const row = /<tr><td>a<\/td><td>read<\/td>.*?<\/tr>/.exec(page)![0];
    expect(row).toContain("<td>&gt;17.11 s</td>");
    const notes = summaryText(r, { scenario: sc })
      .split("\n")
      .filter((l) => l.startsWith("note: "));
    expect(notes.length).toBeGreaterThan(0);
    const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    for (const n of notes) expect(page).toContain(`<li>${esc(n.replace(/^note: /, ""))}</li>`);
  });
});
