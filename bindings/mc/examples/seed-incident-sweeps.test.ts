// The seed incidents 001, 004 and 000/003 as sweeps (002's is told in
// domains/k8s.test.ts): each sweep finds its incident exactly where the
// upstream story says it lives, never with the upstream fix, and the shrunk
// repro of each is a plain scenario that `iosim k8s run` replays to the same
// failure.
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadK8sScenario } from "../../k8s/scenario/loader.js";
import { INCIDENT_CLASS, k8sOutcome } from "../domains/k8s.js";
import { modelFromText, runOne } from "../run-one.js";
import { summarise } from "../summary.js";
import type { JournalHeader, RunRecord } from "../journal.js";

const RUNS = 240;

function sweep(name: string): { file: string; text: string; records: RunRecord[]; header: JournalHeader; model: ReturnType<typeof modelFromText> } {
  const file = resolve(__dirname, `${name}.yaml`);
  const text = readFileSync(file, "utf8");
  const model = modelFromText(text, file);
  const records = Array.from({ length: RUNS }, (_, i) => runOne(model, 11n, i));
  const header: JournalHeader = { mc: 1, scenario: { file, digest: "x", text }, seed: "11", runs: RUNS, shard: { index: 0, count: 1 } };
  return { file, text, records, header, model };
}

/** ms of a drawn duration ("1234ms") */
const ms = (v: unknown): number => {
  const m = /^(\d+)ms$/.exec(String(v));
  if (!m) throw new Error(`not a duration in ms: ${String(v)}`);
  return Number(m[1]);
};

/** the shrunk repro of `cls` replays, as `iosim k8s run` loads it, to that class */
function reproReplays(s: ReturnType<typeof sweep>, cls: string): void {
  const dir = mkdtempSync(join(tmpdir(), "mc-seed-"));
  try {
    const c = summarise(s.header, s.records, s.model, { outDir: dir }).classes[cls]!;
    expect(c.repro, cls).toBeDefined();
    const text = readFileSync(join(dir, c.repro!.file), "utf8");
    expect(text).not.toMatch(/param:|uniform|randint|bernoulli|concat:/);
    const sc = loadK8sScenario(text, c.repro!.file);
    expect(k8sOutcome(sc, sc.seed).classes).toContain(cls);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("seed incident 004 as a sweep (k8s-csi-attachment-name): a VolumeAttachment left behind", () => {
  const s = sweep("k8s-csi-attachment-name");

  it("the pod is stuck exactly when the driver starts with csi-, driver^handle is 68 characters (a two-digit LUN) and #107025 is off", () => {
    let stuck = 0;
    for (const r of s.records) {
      const lun = Number(r.params.lun);
      const driver = String(r.params.driver);
      const want = driver.startsWith("csi-") && `${driver}^${String(r.params.handle)}`.length === 68 && r.params.fix107025 === false;
      expect(`${driver}^${String(r.params.handle)}`.length).toBe(22 + 44 + String(lun).length);
      expect(r.classes.includes(INCIDENT_CLASS), `run ${r.i}: lun ${lun}, ${driver}, fix ${String(r.params.fix107025)}`).toBe(want);
      expect(r.classes.includes('expect:podRunning "db-0"')).toBe(want);
      if (want) stuck++;
    }
    // both outcomes were seen
    expect(stuck).toBeGreaterThan(5);
    expect(stuck).toBeLessThan(RUNS / 2);
  });

  it("the incident's shrunk repro replays to the same failure", () => reproReplays(s, INCIDENT_CLASS));
});

describe("seed incident 001 as a sweep (k8s-rbd-unmap-busy): /dev/rbd0 stays mapped", () => {
  const s = sweep("k8s-rbd-unmap-busy");
  const mapped = "expect:device-unmapped";

  it("with HostToContainer the device stays mapped only when the unmount reaches node_exporter late and #79940 is off; with None it always does", () => {
    let late = 0;
    let none = 0;
    for (const r of s.records) {
      const delay = ms(r.params.propagationDelay);
      const fix = r.params.fix79940 === true;
      if (r.params.propagation === "None") {
        // node_exporter never lets go of the mount: no retry can unmap, fix or not
        expect(r.classes, `run ${r.i}`).toContain(mapped);
        expect(r.classes.includes(INCIDENT_CLASS)).toBe(!fix);
        none++;
        continue;
      }
      expect(r.params.propagation).toBe("HostToContainer");
      if (fix || delay < 100) expect(r.classes, `run ${r.i}: ${delay} ms, fix ${String(fix)}`).toEqual([]);
      if (!fix && delay >= 125) {
        expect(r.classes, `run ${r.i}: ${delay} ms`).toContain(INCIDENT_CLASS);
        expect(r.classes).toContain(mapped);
        late++;
      }
    }
    expect(late).toBeGreaterThan(5);
    expect(none).toBeGreaterThan(5);
  });

  it("the incident's and the stuck device's shrunk repros replay to the same failure", () => {
    reproReplays(s, INCIDENT_CLASS);
    reproReplays(s, mapped);
  });
});

describe("seeds 000/003 as a sweep (k8s-csi-inline-orphan): the inline volume orphaned by a kubelet restart", () => {
  const s = sweep("k8s-csi-inline-orphan");

  it("never with #108997; always when the kubelet restarts after the deletion while a 60 s exit is still going; never when it restarts after the container exited", () => {
    let during = 0;
    for (const r of s.records) {
      const at = ms(r.params.restartAt);
      const exitS = Number(String(r.params.exitAfter).replace(/s$/, ""));
      const cls = r.classes.includes(INCIDENT_CLASS);
      if (r.params.fix108997 === true) {
        expect(r.classes, `run ${r.i}`).toEqual([]);
        continue;
      }
      // the pod is deleted at 60 s and its container exits exitS later
      if (exitS === 60 && at >= 62_000) (expect(cls, `run ${r.i}: restart at ${at} ms`).toBe(true), during++);
      if (at >= 60_000 + exitS * 1000 + 1000) expect(cls, `run ${r.i}: restart at ${at} ms, exit after ${exitS} s`).toBe(false);
    }
    expect(during).toBeGreaterThan(5);
    expect(s.records.filter((r) => r.classes.includes(INCIDENT_CLASS)).length).toBeGreaterThan(10);
  });

  it("the incident's shrunk repro replays to the same failure", () => reproReplays(s, INCIDENT_CLASS));
});
