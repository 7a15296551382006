// fio's thinktime options through the simulator, as fio 3.39's
// handle_thinktime() (backend.c) runs them: thinktime_iotime stalls a job
// after that much IO time (quiesce, then think), thinktime_blocks given beside
// it stalls by count too, and thinktime_spin spins before sleeping, so the
// next IO waits max(thinktime, thinktime_spin).
import { describe, expect, it } from "vitest";
import { parseFioJobFile } from "../bindings/workload/index.js";
import { simulate } from "../bindings/engine/simulation.js";
import { scenarioDefaults } from "../bindings/scenario/defaults.js";
import { fixedDevice } from "./engine/helpers.js";

// 4 channels of 100 us: 40,000 IOPS
const dev = fixedDevice(100_000, 4, 64, { name: "vda" });

function submits(opts: string): number[] {
  const text = `[a]\nfilename=/dev/vda\nrw=randread\nioengine=libaio\ndirect=1\niodepth=4\nsize=1g\nruntime=2\ntime_based\n${opts}\n`;
  const parsed = parseFioJobFile(text, "think.fio", { deviceSizes: { vda: 2 ** 33 } });
  expect(parsed.warnings.filter((w) => /thinktime/.test(w))).toEqual([]);
  const r = simulate(scenarioDefaults({ name: "think", devices: [dev], jobs: parsed.jobs, record: true }));
  return r.records!.map((x) => x.submitNs).sort((a, b) => a - b);
}

/** [start, end] of each run of IO separated by gaps over 10 ms */
function bursts(t: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [[t[0]!, t[0]!]];
  for (const x of t) {
    const b = out[out.length - 1]!;
    if (x - b[1] > 10e6) out.push([x, x]);
    else b[1] = x;
  }
  return out;
}

describe("fio thinktime", () => {
  it("thinktime_iotime=150ms with thinktime=350ms: 150 ms of IO, a quiesce, 350 ms of thinking, again", () => {
    const b = bursts(submits("thinktime=350ms\nthinktime_iotime=150ms"));
    expect(b.length).toBe(4); // 0, ~500, ~1000, ~1500 ms within 2 s
    for (const [s, e] of b) {
      // the stall comes after the first IO issued 150 ms after the last one ended
      expect(e - s).toBeGreaterThanOrEqual(150e6);
      expect(e - s).toBeLessThan(150.2e6);
    }
    for (let k = 1; k < b.length; k++) {
      // think 350 ms after the last of the 4 in flight completed (100 us later)
      const gap = b[k]![0] - b[k - 1]![1];
      expect(gap).toBeGreaterThanOrEqual(350e6);
      expect(gap).toBeLessThan(350.3e6);
    }
  });

  it("a bare thinktime_iotime is in seconds (fio's is_seconds), and without thinktime_blocks the count never stalls", () => {
    const b = bursts(submits("thinktime=200ms\nthinktime_iotime=1"));
    expect(b.length).toBe(2);
    expect(b[0]![1] - b[0]![0]).toBeGreaterThanOrEqual(1e9);
  });

  it("thinktime_blocks beside thinktime_iotime also stalls by count: every 1000 IOs here, well before 150 ms", () => {
    const b = bursts(submits("thinktime=20ms\nthinktime_iotime=150ms\nthinktime_blocks=1000"));
    // 1000 IOs at 40,000 IOPS take 25 ms: a stall every ~25 ms of IO, not every 150 ms
    expect(b[0]![1] - b[0]![0]).toBeLessThan(30e6);
    expect(b.length).toBeGreaterThan(30);
  });

  it("thinktime_spin longer than thinktime delays the next IO by the spin (fio spins, then sleeps what is left)", () => {
    const plain = bursts(submits("thinktime=10ms\nthinktime_blocks=4000"));
    const spun = bursts(submits("thinktime=10ms\nthinktime_spin=30ms\nthinktime_blocks=4000"));
    const gap = (b: Array<[number, number]>) => b[1]![0] - b[0]![1];
    expect(gap(plain)).toBeGreaterThanOrEqual(10e6);
    expect(gap(plain)).toBeLessThan(10.3e6);
    expect(gap(spun)).toBeGreaterThanOrEqual(30e6);
    expect(gap(spun)).toBeLessThan(30.3e6);
  });

  it("thinktime_iotime without thinktime is warned as having no effect", () => {
    const p = parseFioJobFile(`[a]\nfilename=/dev/vda\nthinktime_iotime=1\n`, "x.fio", { deviceSizes: { vda: 2 ** 30 } });
    expect(p.warnings.some((w) => /thinktime_iotime without thinktime has no effect/.test(w))).toBe(true);
  });
});
