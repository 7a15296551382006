// The election of assembly/writeback/owner.ts, driven through the WASM
// exports: worked examples from the guest traces and property tests.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { instantiateCore } from "../../bindings/core/core.js";
import type { WbCore } from "../../bindings/engine/modules/writeback.js";

const core = instantiateCore() as unknown as WbCore;
const INIT_BW = 25600n; // 100 MB/s in 4 KiB pages/s

/** One pass: `votes` = [memcg id, bytes] in page order. */
function vote(votes: Array<[number, number]>, wbId: number, lastWinner = 0): void {
  const n = votes.length;
  const p = core.wbStagingAlloc(n * 8 + 8) >>> 0;
  const ids = new Int32Array(core.memory.buffer, p, n);
  const bytes = new Uint32Array(core.memory.buffer, p + n * 4, n);
  votes.forEach(([id, b], i) => { ids[i] = id; bytes[i] = b; });
  core.wbVoteStaged(n, wbId, lastWinner);
}
const pages = (id: number, n: number): Array<[number, number]> => Array.from({ length: n }, () => [id, 4096]);

describe("wbc_account_cgroup_owner: Boyer-Moore over the pages of one pass", () => {
  it("B owns the file, A dirtied the first 70 %: A is the candidate with all its bytes", () => {
    vote([...pages(3, 11469), ...pages(2, 4915)], 2);
    expect(core.wbVoteTcand()).toBe(3);
    expect(core.wbVoteTcandBytes()).toBe(11469n * 4096n);
    expect(core.wbVoteWbBytes()).toBe(4915n * 4096n);
  });

  it("interleaved foreign writers: the candidate keeps only the margin", () => {
    // C D C D C: C wins with one page of margin
    vote([[4, 4096], [5, 4096], [4, 4096], [5, 4096], [4, 4096]], 2);
    expect(core.wbVoteTcand()).toBe(4);
    expect(core.wbVoteTcandBytes()).toBe(4096n);
  });

  it("with unequal vote sizes the weighted vote can miss the majority (kernel behaviour)", () => {
    // X 1 page, Y a 5-page folio, X 1 page: Y has 5/7 of the bytes, yet the
    // candidate ends as X, because Y's excess is dropped when tcand_bytes hits 0
    vote([[4, 4096], [5, 5 * 4096], [4, 4096]], 2);
    expect(core.wbVoteTcand()).toBe(4);
  });

  it("property: with page-sized votes the candidate is the strict byte majority of the foreign pages", () => {
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 400 }),
      fc.integer({ min: 2, max: 6 }),
      (ids, owner) => {
        const votes = ids.map((id) => [id, 4096] as [number, number]);
        vote(votes, owner);
        const foreign = ids.filter((id) => id !== owner);
        const count = new Map<number, number>();
        foreign.forEach((id) => count.set(id, (count.get(id) ?? 0) + 1));
        for (const [id, c] of count) {
          if (2 * c > foreign.length) expect(core.wbVoteTcand()).toBe(id);
        }
        expect(core.wbVoteWbBytes()).toBe(BigInt(ids.length - foreign.length) * 4096n);
      }), { numRuns: 300 });
  });
});

describe("wbc_detach_inode: slots, history and the switch verdict", () => {
  it("a 70 % foreign sync pass adds 4 slots at INIT_BW (11469 pages = 3671 units)", () => {
    vote([...pages(3, 11469), ...pages(2, 4915)], 2);
    core.wbDetach(0, 0n, INIT_BW);
    expect(core.wbDetMaxId()).toBe(3);
    expect(core.wbDetSlots()).toBe(4);
    expect(core.wbDetHistory()).toBe(0xf);
    expect(core.wbDetAvgTime()).toBe(3671);
    expect(core.wbDetSwitch()).toBe(0);
  });

  it("a whole 64 MiB foreign pass is capped at WB_FRN_HIST_MAX_SLOTS = 5", () => {
    vote(pages(3, 16384), 2);
    core.wbDetach(0x1f, 5243n, INIT_BW);
    expect(core.wbDetSlots()).toBe(5);
    expect(core.wbDetHistory()).toBe(0x3ff); // wb_foreign round 2
    expect(core.wbDetSwitch()).toBe(1); // 10 bits > 8
  });

  it("eight foreign bits are not enough: the threshold is strictly more than half", () => {
    vote(pages(3, 11469), 2);
    core.wbDetach(0xf, 3671n, INIT_BW);
    expect(core.wbDetHistory()).toBe(0xff);
    expect(core.wbDetSwitch()).toBe(0);
  });

  it("a pass shorter than avg/8 is ignored: history unchanged", () => {
    vote(pages(3, 100), 2); // 32 units, avg 5000 -> cut at 625
    core.wbDetach(0xfe, 5000n, INIT_BW);
    expect(core.wbDetSlots()).toBe(0);
    expect(core.wbDetHistory()).toBe(0xfe);
    expect(core.wbDetSwitch()).toBe(0);
  });

  it("ties go to the owner, then to the last winner", () => {
    vote([...pages(2, 10), ...pages(3, 10)], 2, 3);
    core.wbDetach(0, 0n, INIT_BW);
    expect(core.wbDetMaxId()).toBe(2);
    vote([...pages(3, 10), ...pages(4, 10)], 2, 3);
    core.wbDetach(0, 0n, INIT_BW);
    expect(core.wbDetMaxId()).toBe(3);
  });

  it("property: a switch happens exactly when more than 8 of the 16 history bits are foreign", () => {
    fc.assert(fc.property(
      fc.array(fc.record({ own: fc.integer({ min: 0, max: 3000 }), foreign: fc.integer({ min: 0, max: 3000 }) }), { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 1000, max: 200000 }),
      (passes, bw) => {
        let history = 0;
        let avg = 0n;
        for (const p of passes) {
          vote([...pages(2, p.own), ...pages(3, p.foreign)], 2);
          core.wbDetach(history, avg, BigInt(bw));
          const h = core.wbDetHistory();
          const bits = h.toString(2).split("").filter((x) => x === "1").length;
          const sw = core.wbDetSwitch() === 1;
          if (sw) expect(bits).toBeGreaterThan(8);
          if (core.wbDetSlots() > 0) expect(sw).toBe(bits > 8);
          else expect(sw).toBe(false);
          expect(h).toBeLessThan(1 << 16);
          history = h;
          avg = BigInt(core.wbDetAvgTime());
          if (sw) { history = 0; avg = 0n; }
        }
      }), { numRuns: 200 });
  });
});
