import { describe, expect, it } from "vitest";
import { fmtDuration, progressSink, rateEta } from "./progress.js";

const p = (done: number, total: number, doneNow: number, elapsedMs: number) => ({ done, total, doneNow, elapsedMs });

describe("sweep progress on stderr", () => {
  it("4,000 of 10,000 runs after 2 s at 2,000 runs/s: 3 s to go", () => {
    expect(rateEta(p(4000, 10000, 4000, 2000))).toEqual({ rate: 2000, etaMs: 3000 });
    expect(fmtDuration(3000)).toBe("0:03");
    expect(fmtDuration(3_723_000)).toBe("1:02:03");
  });

  it("a terminal gets a redrawn bar with colour, NO_COLOR drops the colour, CI=true or a pipe gets plain lines", () => {
    const run = (isTTY: boolean, env: Record<string, string>) => {
      let out = "";
      const s = progressSink({ isTTY, env, write: (x) => (out += x) }, "mc");
      s.update(p(500, 1000, 500, 1000));
      s.done(p(1000, 1000, 1000, 2000));
      return out;
    };
    const tty = run(true, {});
    expect(tty).toMatch(/^\r/);
    expect(tty).toContain("\x1b[");
    expect(tty).toMatch(/500\/1000 {2}500 runs\/s {2}ETA 0:01/);
    const plainTty = run(true, { NO_COLOR: "1" });
    expect(plainTty).toMatch(/^\rmc #{15}-{15}/);
    expect(plainTty).not.toContain("\x1b[3");
    for (const out of [run(true, { CI: "true" }), run(false, {})]) {
      expect(out).not.toContain("\r");
      expect(out).not.toContain("\x1b");
      expect(out.trim().split("\n")).toEqual([
        "mc: 500/1000 runs (50.0%), 500 runs/s, ETA 0:01",
        "mc: 1000/1000 runs (100.0%), 500 runs/s, ETA 0:00",
      ]);
    }
  });
});
