// Block-layer tracepoints of a recording: when each request went to the
// driver (block_rq_issue) and when it came back (block_rq_complete), read from
// a tracefs instance of the recorder's own, so nothing of the machine's
// global tracing is touched and removing the instance removes all of it.
//
// The instance uses trace_clock "mono" (CLOCK_MONOTONIC, the clock of the
// per-IO records) and a filter on the device (dev == MKDEV(major, minor),
// MINORBITS 20). A line of the `trace` file reads (Linux 6.1-6.18):
//   iosim_rec-812 [001] ..... 1234.567890: block_rq_issue: 7,3 R 4096 () 8 + 8 none,0,0 [iosim_rec]
//   <idle>-0      [000] d.h1. 1234.567990: block_rq_complete: 7,3 R () 8 + 8 none,0,0 [0]
// -> {type: "block", ev: "issue", t_ns, rwbs: "R", sector: 8, nr_sector: 8}
// with t_ns relative to the trace's t0 (microsecond resolution, as printed).

export interface BlockEvent {
  type: "block";
  ev: "issue" | "complete";
  t_ns: number;
  rwbs: string;
  sector: number;
  nr_sector: number;
}

export const BLOCK_EVENTS = ["block_rq_issue", "block_rq_complete"] as const;

const LINE = /\s(\d+)\.(\d{6}):\s+block_rq_(issue|complete):\s+(\d+),(\d+)\s+(\S+)\s.*?\s(\d+) \+ (\d+)\s/;

export function parseBlockTrace(text: string, t0MonoNs: bigint): BlockEvent[] {
  const out: BlockEvent[] = [];
  for (const l of text.split("\n")) {
    if (l.startsWith("#")) continue;
    const m = LINE.exec(l + " ");
    if (!m) continue;
    const ns = BigInt(m[1]!) * 1_000_000_000n + BigInt(m[2]!) * 1000n;
    out.push({ type: "block", ev: m[3] as "issue" | "complete", t_ns: Number(ns - t0MonoNs), rwbs: m[6]!, sector: Number(m[7]), nr_sector: Number(m[8]) });
  }
  return out;
}

/** tracefs' dev_t in a filter: MKDEV(major, minor) with MINORBITS 20 */
export function traceDev(devno: string): number {
  const [maj, min] = devno.split(":").map(Number);
  return (maj! << 20) | min!;
}
