// An oracle throtl scenario (oracle/throtl/scenarios/*.json) as an iosim
// Scenario, so `iosim run` can take one and predict what the kernel will do
// before anyone records it.
//
// Mapping: cgroups -> cgroup v1 groups (blkio.throttle.* files, flat, as the
// recorder used); limits written `t0_after_limits_ms` (default 200) before the
// jobs start, so the jobs start at that offset; jobs: qd workers doing
// synchronous IO -> iodepth; "closed" -> closed loop, "open" (rate_iops or
// times_ms) -> rate / times, "bursts" -> bursts with gaps; events -> timed
// writes (value 0 removes a limit, as in v1). The device is the ideal loop
// device of the recordings (bindings/oracle/device.ts).
//
// Example: iops100_qd1_read.json -> limit "7:1 100" on
// blkio.throttle.read_iops_device of "a" at t = 0, job "r" (300 x 4 KiB
// sequential reads, iodepth 1, closed) from t = 200 ms: 10 IOs in the first
// slice, then 10 per 100 ms -> the last completes ~2.9 s after the job starts.

import { InputError } from "../scenario/errors.js";
import type { ClockSpec, JobSpec, KernelVersion, Pattern, Scenario } from "../scenario/types.js";
import { defaultClock, jobDefaults, scenarioDefaults } from "../scenario/defaults.js";
import { idealDevice, WORK_LATENCY_NS } from "./device.js";
import type { ScenarioWithThrottle } from "../engine/modules/throttle.js";

const LIMIT_FILE: Record<string, string> = {
  read_bps: "blkio.throttle.read_bps_device",
  write_bps: "blkio.throttle.write_bps_device",
  read_iops: "blkio.throttle.read_iops_device",
  write_iops: "blkio.throttle.write_iops_device",
};

const DEVNO = "7:1";

function lineOf(text: string, needle: string): number | undefined {
  const i = text.indexOf(needle);
  if (i < 0) return undefined;
  return text.slice(0, i).split("\n").length;
}

/** The recorder starts its jobs at max(all ready + 50 ms, last limit write +
 *  t0_after_limits_ms); "ready" came ~30 ms after the limit writes on the
 *  oracle host (t0_0 runs: t0 was 78.7-79.8 ms after the write). */
export const RECORDER_MIN_T0_AFTER_LIMITS_NS = 80_000_000;

export interface ThrotlScenarioOpts {
  kernel?: KernelVersion;
  seed?: number;
  /** jiffies phase at the limit write (t = 0); default: defaultClock(250) */
  clock?: ClockSpec;
  /** when the jobs start after the limit writes (ns); default from t0_after_limits_ms */
  t0Ns?: number;
}

export function scenarioFromThrotlJson(text: string, file: string, opts: ThrotlScenarioOpts = {}): Scenario {
  let spec: Record<string, unknown>;
  try {
    spec = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not JSON (${(e as Error).message})`, file, 1);
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) throw new InputError("not a JSON object", file, 1);
  const name = typeof spec.name === "string" ? spec.name : file;
  const cgs = (spec.cgroups ?? []) as Array<Record<string, unknown>>;
  if (!Array.isArray(cgs)) throw new InputError("cgroups must be a list", file, lineOf(text, '"cgroups"'), "cgroups");
  const parentOf = new Map<string, string | null>();
  for (const c of cgs) {
    if (typeof c.name !== "string") throw new InputError("every cgroup needs a name", file, lineOf(text, '"cgroups"'), "cgroups[].name");
    parentOf.set(c.name, typeof c.parent === "string" ? c.parent : null);
  }
  const pathOf = (n: string, field: string): string => {
    if (!parentOf.has(n)) throw new InputError(`unknown cgroup "${n}"`, file, lineOf(text, `"${n}"`), field);
    const chain: string[] = [];
    let x: string | null | undefined = n;
    while (x != null && !chain.includes(x)) {
      chain.unshift(x);
      x = parentOf.get(x);
    }
    return chain.join("/");
  };
  const t0Ns = opts.t0Ns ?? Math.max((typeof spec.t0_after_limits_ms === "number" ? spec.t0_after_limits_ms : 200) * 1e6, RECORDER_MIN_T0_AFTER_LIMITS_NS);
  const dev = idealDevice(String(spec.loop_device ?? "/dev/loop1").replace(/^\/dev\//, ""), DEVNO, {
    rotational: spec.rotational === 1 || spec.rotational === "1",
  });
  const writes: Scenario["writes"] = [];
  for (const c of cgs) {
    const limits = (c.limits ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(limits)) {
      const f = LIMIT_FILE[k];
      if (!f || typeof v !== "number") throw new InputError(`bad limit ${k}=${String(v)}`, file, lineOf(text, `"${k}"`), `cgroups.${c.name}.limits.${k}`);
      writes.push({ atNs: 0, cgroup: pathOf(String(c.name), "cgroups"), file: f, value: `${DEVNO} ${v}`, source: { file, line: lineOf(text, `"${k}"`), field: k } });
    }
  }
  for (const e of (spec.events ?? []) as Array<Record<string, unknown>>) {
    const f = LIMIT_FILE[String(e.limit)];
    if (!f || typeof e.at_ms !== "number" || typeof e.value !== "number") throw new InputError("an event needs at_ms, cgroup, limit and value", file, lineOf(text, '"events"'), "events");
    writes.push({ atNs: t0Ns + e.at_ms * 1e6, cgroup: pathOf(String(e.cgroup), "events[].cgroup"), file: f, value: `${DEVNO} ${e.value}`, source: { file, line: lineOf(text, '"at_ms"'), field: "events" } });
  }
  const jobs: JobSpec[] = [];
  for (const j of (spec.jobs ?? []) as Array<Record<string, unknown>>) {
    const jn = String(j.name);
    const where = { file, line: lineOf(text, `"${jn}"`) };
    const bs = Number(j.bs ?? 4096);
    const count = Number(j.count ?? 1);
    const p = (j.pattern ?? { type: "closed" }) as Record<string, unknown>;
    let pattern: Pattern;
    if (p.type === "closed") pattern = { kind: "closed" };
    else if (p.type === "open" && typeof p.rate_iops === "number") pattern = { kind: "rate", iops: p.rate_iops };
    else if (p.type === "open" && Array.isArray(p.times_ms)) pattern = { kind: "times", timesNs: (p.times_ms as number[]).map((x) => x * 1e6) };
    else if (p.type === "bursts") {
      const gaps = Array.isArray(p.gap_ms) ? (p.gap_ms as number[]) : [Number(p.gap_ms ?? 0)];
      pattern = { kind: "bursts", burst: Number(p.burst ?? 1), gapsNs: gaps.map((g) => g * 1e6) };
    } else throw new InputError(`unknown pattern ${JSON.stringify(p)}`, where.file, where.line, `jobs.${jn}.pattern`);
    const rw = j.rw === "write" ? "write" : j.rw === "alt" ? "alt" : "read";
    jobs.push(jobDefaults({
      name: jn, device: dev.name, cgroup: j.cgroup == null ? "" : pathOf(String(j.cgroup), `jobs.${jn}.cgroup`), rw,
      random: j.offsets === "random", bs: [{ size: bs, weight: 1 }], offset: Number(j.region_offset ?? 0),
      regionLen: Number(j.region_len ?? (spec.backing_mb ? Number(spec.backing_mb) * 1048576 : 64 * 1048576)), align: bs,
      iodepth: Number(j.qd ?? 1), pattern, count, startNs: t0Ns + Number(j.start_ms ?? 0) * 1e6, source: where,
    }));
  }
  const s: ScenarioWithThrottle = scenarioDefaults({
    name, description: typeof spec.description === "string" ? spec.description : undefined,
    kernel: opts.kernel ?? "6.18", cgroupVersion: 1, seed: opts.seed ?? Number(spec.seed ?? 1), clock: opts.clock ?? defaultClock(250),
    devices: [dev], cgroups: [...parentOf.keys()].map((n) => ({ path: pathOf(n, "cgroups") })), jobs, writes,
    source: { file },
  });
  s.throttle = { workLatencyNs: WORK_LATENCY_NS };
  return s;
}
