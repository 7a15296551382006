// Buffered reads through the page cache (assembly/pagecache): application
// reads simulated per second, beside the same job read with O_DIRECT, in
// alternating rounds of one process (the ratio is what to read: the host's
// speed drifts between minutes).
//   seq   4 KiB sequential reads of 256 MiB on the nvme preset, fio's
//         fadvise_hint=1 (256 KiB readahead windows): 65,536 reads, 1,024 bios
//   rand  4 KiB random reads over 64 MiB (POSIX_FADV_RANDOM: a miss reads one
//         page), io_size 800 MiB: 204,800 reads, misses early, mostly hits later
//
//   node dist/bench/pagecache.js [--rounds N]
import { simulate } from "../bindings/engine/simulation.js";
import { loadScenario } from "../bindings/scenario/load.js";
import type { Scenario } from "../bindings/scenario/types.js";

const args = process.argv.slice(2);
const ri = args.indexOf("--rounds");
const ROUNDS = ri >= 0 ? Number(args[ri + 1]) : 7;

function sc(rw: string, size: string, extra: string, direct: number): Scenario {
  return loadScenario(`
name: bench-pagecache
kernel: "6.12"
devices:
  - preset: nvme
jobs:
  - name: r
    rw: ${rw}
    bs: 4k
    ioengine: psync
    direct: ${direct}
    size: ${size}
${extra}`, "bench-pagecache.yaml").scenario;
}

const kinds = [
  { name: "seq", buffered: sc("read", "256m", "", 0), direct: sc("read", "256m", "", 1) },
  { name: "rand", buffered: sc("randread", "64m", "    io_size: 800m", 0), direct: sc("randread", "64m", "    io_size: 800m", 1) },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const k of kinds) {
  const b: number[] = [];
  const d: number[] = [];
  let bios = 0;
  let reads = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [false, true] : [true, false];
    for (const buffered of order) {
      const t = performance.now();
      const res = simulate(buffered ? k.buffered : k.direct);
      const ms = performance.now() - t;
      (buffered ? b : d).push(ms);
      reads = res.jobs[0]!.read.ios;
      if (buffered) bios = res.cgroups.filter((c) => c.path === "").reduce((a, c) => a + Object.values(c.own).reduce((x, o) => x + o.rios, 0), 0);
    }
  }
  const mb = median(b);
  const md = median(d);
  console.log(`${k.name}: ${reads} reads, buffered ${(reads / mb / 1e3).toFixed(2)} M reads/s (${bios} bios) vs O_DIRECT ${(reads / md / 1e3).toFixed(2)} M reads/s: ` +
    `buffered/direct time ${(mb / md).toFixed(2)}x (median of ${ROUNDS} alternated rounds, whole simulate() calls)`);
}
