// The workers' young generation (runner.ts, workerSemiSpaceMb): 32 MB
// semi-spaces unless the pool's young generations would take more than an
// eighth of the memory.
import { describe, expect, it } from "vitest";
import { totalmem } from "node:os";
import { WORKER_SEMI_SPACE_MB, workerSemiSpaceMb } from "./runner.js";

describe("workerSemiSpaceMb", () => {
  it("32 MB while the pool's semi-spaces fit in an eighth of the memory, halved beyond, V8's default below 16 MB", () => {
    const fits = (w: number, mb: number) => w * 2 * mb * 2 ** 20 <= totalmem() / 8;
    for (const w of [1, 2, 4, 16, 64, 1024, 1 << 20]) {
      const mb = workerSemiSpaceMb(w);
      if (fits(w, WORKER_SEMI_SPACE_MB)) expect(mb).toBe(WORKER_SEMI_SPACE_MB);
      else if (mb > 0) {
        expect(fits(w, mb)).toBe(true);
        expect(fits(w, mb * 2)).toBe(false);
        expect(mb).toBeGreaterThanOrEqual(16);
      } else expect(fits(w, 16)).toBe(false);
    }
    expect(workerSemiSpaceMb(1 << 20)).toBe(0);
  });
});
