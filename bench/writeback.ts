// Owner-election speed: writeback passes (wbc_attach + one
// wbc_account_cgroup_owner per 4 KiB page + wbc_detach_inode) per second in
// the WASM core, beside the same loop in plain TypeScript, in one run.
// Target: >= 50 M pages accounted per second in WASM.
//
//   node dist/bench/writeback.js [--passes N] [--pages P]
import { instantiateCore } from "../bindings/core/core.js";
import type { WbCore } from "../bindings/engine/modules/writeback.js";

const args = process.argv.slice(2);
const arg = (k: string, d: number) => {
  const i = args.indexOf(k);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const PASSES = arg("--passes", 20_000);
const PAGES = arg("--pages", 2048); // one WB_SYNC_NONE chunk
const WRITERS = 3;

/** The same election in TypeScript (numbers, not u64: exact below 2^53). */
function plain(passes: number, pagesPerPass: number, writers: number, seed: number): number {
  let x = (seed | 1) >>> 0;
  let history = 0, avg = 0, owner = 1, winner = 0, switches = 0;
  for (let k = 0; k < passes; k++) {
    let wbB = 0, lId = winner, lB = 0, tId = 0, tB = 0;
    for (let i = 0; i < pagesPerPass; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      const r = (x >>> 8) % 10;
      const id = r < 7 ? 2 : 3 + ((x >>> 20) % writers);
      if (id === owner) { wbB += 4096; continue; }
      if (id === lId) lB += 4096;
      if (!tB) tId = id;
      if (id === tId) tB += 4096;
      else tB -= Math.min(4096, tB);
    }
    let maxId: number, maxB: number;
    if (wbB >= lB && wbB >= tB) { maxId = owner; maxB = wbB; } else if (lB >= tB) { maxId = lId; maxB = lB; } else { maxId = tId; maxB = tB; }
    const maxT = Math.ceil(((maxB / 4096) * 8192) / 25600);
    avg = avg ? avg - Math.floor(avg / 8) + Math.floor(maxT / 8) : maxT;
    if (maxT >= Math.floor(avg / 8)) {
      const slots = Math.min(Math.ceil(maxT / 1024), 5);
      history = (history << slots) & 0xffff;
      if (maxId !== owner) history |= (1 << slots) - 1;
      let bits = 0;
      for (let h = history; h; h &= h - 1) bits++;
      if (bits > 8) { owner = maxId; history = 0; avg = 0; maxId = 0; switches++; }
    }
    winner = maxId;
    avg = Math.min(avg, 65535);
  }
  return switches;
}

const core = instantiateCore() as unknown as WbCore;
const rounds = 3;
let bestW = Infinity, bestP = Infinity, sw = 0, sp = 0;
for (let r = 0; r < rounds; r++) {
  let t = performance.now();
  sw = core.wbBenchElection(PASSES, PAGES, WRITERS, 12345);
  bestW = Math.min(bestW, performance.now() - t);
  t = performance.now();
  sp = plain(PASSES, PAGES, WRITERS, 12345);
  bestP = Math.min(bestP, performance.now() - t);
}
const pages = PASSES * PAGES;
const fmt = (ms: number) => `${(pages / ms / 1e3).toFixed(1)} M pages/s, ${((PASSES / ms) * 1e3 / 1e6).toFixed(3)} M passes/s`;
console.log(`owner election, ${PASSES} passes x ${PAGES} pages (70/30 mix, ${WRITERS} minority writers), best of ${rounds}`);
console.log(`  wasm : ${bestW.toFixed(1)} ms  ${fmt(bestW)}  (switches ${sw})`);
console.log(`  plain: ${bestP.toFixed(1)} ms  ${fmt(bestP)}  (switches ${sp})`);
console.log(`  wasm/plain speed ratio: ${(bestP / bestW).toFixed(2)}  target >= 50 M pages/s in wasm: ${pages / bestW / 1e3 >= 50 ? "met" : "NOT met"}`);
