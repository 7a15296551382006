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

// blk-iocost's tracepoints (events/iocost/, Linux 5.x-6.18), when the trace's
// cgroups use io.cost: the period timer's runs (iocg_idle, inuse_shortage,
// inuse_transfer, iocg_forgive_debt carry the timer's `now`; ioc_vrate_adj
// ends each run), activations and weight changes. iosim compare takes the
// period timer's firings from them (bindings/oracle/iocost.ts
// recordedTimerFirings). A line:
//   iosim_rec-148 [001] ..... 9091.321000: iocost_iocg_activate: [nullb0:/A] now=9090807:241030930434 vrate=137438 period=0->0 ...
// -> {type: "trace", event, t_ns (relative to t0), dev, cgroup, now: "9090807:241030930434", vrate: 137438, period: [0, 0], ..., raw}
// (the shape of the oracle's guest traces, recorder/convert.py parse_trace; `now` keeps the
// kernel's absolute µs, as there).
export const IOCOST_EVENTS = ["iocost_iocg_activate", "iocost_iocg_idle", "iocost_inuse_shortage", "iocost_inuse_transfer",
  "iocost_inuse_adjust", "iocost_ioc_vrate_adj", "iocost_iocg_forgive_debt"] as const;

export interface TraceEvent {
  type: "trace";
  event: string;
  t_ns: number;
  [k: string]: unknown;
}

const TLINE = /^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+(\S+\s+)?(\d+)\.(\d{6}):\s+(iocost_\w+):\s+(.*)$/;

function kvValue(v: string): unknown {
  if (v.includes("->")) return v.split("->", 2).map((x) => (/^-?\d+$/.test(x) ? Number(x) : x));
  if (/^\d+(\/\d+)+$/.test(v)) return v.split("/").map(Number);
  if (/^-?\d+$/.test(v)) return Number(v);
  return v;
}

export function parseIocostTrace(text: string, t0MonoNs: bigint): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const l of text.split("\n")) {
    if (l.startsWith("#")) continue;
    const m = TLINE.exec(l);
    if (!m) continue;
    const ns = BigInt(m[5]!) * 1_000_000_000n + BigInt(m[6]!) * 1000n;
    const body = m[8]!;
    const r: TraceEvent = { type: "trace", event: m[7]!, t_ns: Number(ns - t0MonoNs), task: m[1]!.trim(), pid: Number(m[2]) };
    const d = /^\[([^:\]]+):?([^\]]*)\]\s*/.exec(body);
    if (d) {
      r.dev = d[1];
      if (d[2]) r.cgroup = d[2];
    }
    for (const [, k, v] of body.matchAll(/(\w+)=(\S+)/g)) r[k!] = kvValue(v!);
    r.raw = body;
    out.push(r);
  }
  return out;
}
