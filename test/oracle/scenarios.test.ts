// Scenario mode: the oracle's scenario files run as iosim scenarios (closed,
// open-loop and burst jobs through the engine's job patterns, not replays of
// recorded arrivals) and predict each job's total time. Run with the jiffies
// phase and job start each recording had (from its header), the prediction
// must land within 20 ms of the kernel's total (host noise: a release a tick
// late, an occasional stall: bps1m_read_4k run3 has a 12.7 ms one), for every
// job of every run.
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scenarioFromThrotlJson, simulate } from "../../bindings/index.js";

const FIX = join(__dirname, "../fixtures/oracle/throtl");

function headerClock(h: any): { clock: { hz: number; jiffiesAtZero: bigint; zeroAfterTickNs: number }; t0Ns: number } {
  const jm = h.jiffies;
  const lastWrite = Math.max(...h.limits_written.map((w: any) => w.t_ns), -200e6);
  const at = BigInt(h.t0_mono_ns) + BigInt(lastWrite) - BigInt(jm.grid_offset_ns);
  const tick = BigInt(jm.tick_ns);
  return { clock: { hz: h.hz, jiffiesAtZero: at / tick + BigInt(jm.offset), zeroAfterTickNs: Number(at % tick) }, t0Ns: -lastWrite };
}

describe("oracle scenarios as iosim scenarios", () => {
  for (const f of readdirSync(join(FIX, "scenarios")).sort()) {
    const name = f.replace(/\.json$/, "");
    it(`${name}: per-job totals match the three recorded runs`, () => {
      const text = readFileSync(join(FIX, "scenarios", f), "utf8");
      const off: string[] = [];
      for (let k = 1; k <= 3; k++) {
        const lines = readFileSync(join(FIX, "traces", name, `run${k}.jsonl`), "utf8").trim().split("\n");
        const h = JSON.parse(lines[0]!);
        const { clock, t0Ns } = headerClock(h);
        const s = scenarioFromThrotlJson(text, f, { clock, t0Ns });
        const r = simulate(s);
        const real = new Map<string, number>();
        for (const l of lines.slice(1)) {
          const io = JSON.parse(l);
          real.set(io.job, Math.max(real.get(io.job) ?? 0, io.complete_ns));
        }
        for (const j of r.jobs) {
          const sim = j.lastDoneNs - t0Ns;
          const rec = real.get(j.name)!;
          if (Math.abs(sim - rec) > 20e6) off.push(`run${k} ${j.name}: sim ${(sim / 1e6).toFixed(1)} ms, real ${(rec / 1e6).toFixed(1)} ms`);
        }
      }
      expect(off).toEqual([]);
    });
  }
});
