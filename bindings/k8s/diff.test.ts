// `k8s diff`: where two runs part, found by aligning their lines (a longest
// common subsequence of normalised lines), not by comparing the n-th line of
// one run with the n-th of the other.
import { describe, expect, it } from "vitest";
import { builtinK8sScenario, diffK8sRuns, runK8sScenario } from "./index.js";
import { alignKeys } from "./diff.js";
import type { K8sRunResult } from "./scenario/run.js";
import type { LogLine } from "./output/recorder.js";

const sc = builtinK8sScenario("detach-backoff-node-status")!;

/** a run result with just these log lines (and no events or violations) */
function logsOnly(version: string, lines: Array<[number, string, string]>): K8sRunResult {
  const logs: LogLine[] = lines.map(([t, component, text]) => ({ t, component, severity: text[0] as "I", text }));
  return { version, logs, occurrences: [], violations: [] } as unknown as K8sRunResult;
}

describe("k8s diff", () => {
  it("detach-backoff-node-status 1.22 vs 1.23: the logs part at the node-status update only 1.23 logs (+1m12.120s), not at the SyncLoop ADD both runs have", () => {
    const d = diffK8sRuns(runK8sScenario(sc, { version: "1.22" }), runK8sScenario(sc, { version: "1.23" }));
    const l = d.logs!;
    expect(l.kind).toBe("onlyB");
    expect(l.t).toBe(72_120);
    expect(l.aLines).toBe(0);
    expect(l.bLines).toBe(1);
    expect(l.b[0]!.text).toMatch(/^\+1m12\.120s kube-controller-manager I node_status_updater\.go:146\] Updating status .*volumesAttached\\":\[\{/);
    // the line after the gap is common to both: the kubelet's SyncLoop ADD at the same time in both runs
    expect(l.after[0]!.text).toMatch(/^\+1m12\.440s kubelet\/10\.0\.0\.12 I kubelet\.go:2096\] "SyncLoop ADD"/);
    expect(l.before.at(-1)!.text).toMatch(/^\+1m12\.120s kube-controller-manager E nestedpendingoperations\.go:335\] .*DetachVolume\.Detach failed/);
    // the pod never starts on 1.22: its later FailedMount events against 1.23's Started
    const e = d.events!;
    expect(e.kind).toBe("differs");
    // (1.23 is before #106853: the new pod's VerifyControllerAttachedVolume at +1m12.520s fails
    // "Volume has not been added to the list of VolumesInUse" and backs off, so it starts 300 ms later than it would on 1.24)
    expect(e.t).toBe(81_720);
    expect(e.b.map((x) => x.text)).toEqual(["+1m21.720s Normal Started pod/web-0: Started container nginx"]);
    expect(e.a[0]!.text).toMatch(/^\+3m15\.620s Warning FailedMount pod\/web-0: /);
    expect(d.violationsB).toEqual([]);
  });

  it("one version against itself: no divergence", () => {
    const r = runK8sScenario(sc, { version: "1.23" });
    const d = diffK8sRuns(r, runK8sScenario(sc, { version: "1.23" }));
    expect(d.events).toBeNull();
    expect(d.logs).toBeNull();
  });

  it("lines that differ only by the klog header, the line number, a retry's absolute time, a UID or the release number are the same line", () => {
    const a = logsOnly("1.15.0", [
      [1000, "kubelet/n1", 'I0226 18:00:01.000000    2012 server.go:446] "Kubelet version" kubeletVersion="v1.15.0"'],
      [2000, "kubelet/n1", 'E0226 18:00:02.000000    2012 nestedpendingoperations.go:267] Operation for "x" failed. No retries permitted until 2020-02-26 18:00:02.5 +0800 CST m=+2.500000000 (durationBeforeRetry 500ms). Error: pod "web-0" (UID: "0532c43a-a76e-469b-a1d6-44ede0000005")'],
    ]);
    const b = logsOnly("1.16.0", [
      [1000, "kubelet/n1", 'I0226 18:00:01.000000    3999 server.go:446] "Kubelet version" kubeletVersion="v1.16.0"'],
      [2000, "kubelet/n1", 'E0226 18:00:02.000000    3999 nestedpendingoperations.go:270] Operation for "x" failed. No retries permitted until 2020-02-26 18:00:09.5 +0800 CST m=+9.500000000 (durationBeforeRetry 500ms). Error: pod "web-0" (UID: "9c5c790d-7421-41f6-a447-b38390000005")'],
    ]);
    expect(diffK8sRuns(a, b).logs).toBeNull();
    // but another backoff is another behaviour
    b.logs[1]!.text = b.logs[1]!.text.replace("500ms", "1s");
    expect(diffK8sRuns(a, b).logs).toMatchObject({ kind: "differs", sameText: false, t: 2000, aLines: 1, bLines: 1 });
  });

  it("a line both runs print at different times is a divergence of its own, reported with both times", () => {
    const a = logsOnly("A", [[1000, "c", "I x"], [2000, "c", "I y"], [3000, "c", "I z"]]);
    const b = logsOnly("B", [[1000, "c", "I x"], [2500, "c", "I y"], [3000, "c", "I z"]]);
    const l = diffK8sRuns(a, b).logs!;
    expect(l).toMatchObject({ kind: "differs", sameText: true, t: 2000, shifted: 1, gaps: 0 });
    expect(l.a[0]!.text).toBe("+2.000s c I y");
    expect(l.b[0]!.text).toBe("+2.500s c I y");
    expect(l.before.map((x) => x.text)).toEqual(["+1.000s c I x"]);
    expect(l.after.map((x) => x.text)).toEqual(["+3.000s c I z"]);
  });

  it("only in A, only in B, and differs: the first gap of the alignment, with the totals over the whole run", () => {
    const mk = (v: string, xs: string[]) => logsOnly(v, xs.map((x, i) => [i * 1000, "c", `I ${x}`]));
    // B lacks c; then B has an extra line and a changed one later
    const onlyA = diffK8sRuns(mk("A", ["a", "b", "c", "d", "e"]), mk("B", ["a", "b", "d", "e"])).logs!;
    expect(onlyA).toMatchObject({ kind: "onlyA", aLines: 1, bLines: 0, gaps: 1, onlyInA: 1, onlyInB: 0 });
    expect(onlyA.a.map((x) => x.index)).toEqual([2]);
    const later = diffK8sRuns(mk("A", ["a", "b", "c", "d", "e", "f"]), mk("B", ["a", "X", "b", "c", "d", "E", "f"])).logs!;
    expect(later).toMatchObject({ kind: "onlyB", bLines: 1, gaps: 2, onlyInA: 1, onlyInB: 2 });
    expect(later.b[0]).toMatchObject({ index: 1, text: "+1.000s c I X" });
  });

  it("the alignment is a longest common subsequence, also past its table's window", () => {
    const check = (a: string[], b: string[], cells?: number) => {
      const ops = alignKeys(a, b, cells);
      // every line of each run exactly once, in order; pairs equal
      expect(ops.filter((o) => o.i >= 0).map((o) => o.i)).toEqual(a.map((_, i) => i));
      expect(ops.filter((o) => o.j >= 0).map((o) => o.j)).toEqual(b.map((_, j) => j));
      for (const o of ops) if (o.i >= 0 && o.j >= 0) expect(a[o.i]).toBe(b[o.j]);
      return ops.filter((o) => o.i >= 0 && o.j >= 0).length;
    };
    expect(check("abcbdab".split(""), "bdcaba".split(""))).toBe(4);
    expect(check([], ["x"])).toBe(0);
    const a = Array.from({ length: 300 }, (_, i) => `l${i}`);
    const b = a.filter((_, i) => i % 7 !== 3);
    expect(check(a, b)).toBe(b.length);
    // a 100-cell table: aligned window by window at the start, the rest one gap, but still a valid alignment
    expect(check(a, b, 100)).toBeLessThan(b.length);
  });
});
