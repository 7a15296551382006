// `iosim k8s` as a user types it: the subcommands' own --version (the
// Kubernetes version) must reach them, not the program's --version (which
// printed "0.1.0" and exited 0 for `iosim k8s run X --version 1.22`).
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUILTIN_YAML } from "./index.js";

const ROOT = resolve(__dirname, "..", "..");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const PKG_VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

const iosim = (...args: string[]) => {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe("iosim k8s on the command line", () => {
  it("k8s run SCENARIO --version picks the Kubernetes version: the seed incident on 1.22 (exit 1), none on 1.23 (exit 0)", () => {
    const affected = iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.22", "--json");
    expect(affected.code).toBe(1);
    const a = JSON.parse(affected.out) as { version: string; violations: Array<{ name: string }>; objects: Array<{ kind: string; metadata: { creationTimestamp: unknown } }>; timeline: Array<{ reason: string; firstTimestamp: string; lastTimestamp: string }> };
    expect(a.version).toBe("1.22.0");
    // metav1.Time on the wire: RFC 3339, UTC, whole seconds (the run's clock starts at 2020-02-26T10:00:00Z)
    expect(a.objects.find((o) => o.kind === "Pod")!.metadata.creationTimestamp).toBe("2020-02-26T10:01:12Z");
    expect(a.timeline.find((e) => e.reason === "FailedMount")).toMatchObject({ firstTimestamp: "2020-02-26T10:03:15Z", lastTimestamp: "2020-02-26T10:23:33Z" });
    expect(a.violations.map((v) => v.name)).toContain('podRunning "web-0"');
    const fixed = iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.23", "--json");
    expect(fixed.code).toBe(0);
    const f = JSON.parse(fixed.out) as { version: string; violations: unknown[] };
    expect(f.version).toBe("1.23.0");
    expect(f.violations).toEqual([]);
  });

  it("k8s run --fix 104526=on on the affected version holds the invariants", () => {
    const r = iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.22", "--fix", "104526=on", "--json");
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { violations: unknown[] }).violations).toEqual([]);
  });

  it("k8s diff SCENARIO --version A --version B names where the two versions diverge (exit 1), and says when they agree (exit 0)", () => {
    const r = iosim("k8s", "diff", "detach-backoff-node-status", "--version", "1.22", "--version", "1.23");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^detach-backoff-node-status: 1\.22\.0 \(A\) vs 1\.23\.0 \(B\)/);
    // (1.23 is before #106853: the new pod's verification fails once before its volume is reported in use)
    expect(r.out).toMatch(/^events: first divergence at \+1m21\.720s: /m);
    expect(r.out).toMatch(/^logs: first divergence at \+1m12\.120s: 1 line only in B \(1\.23\.0\)$/m);
    expect(r.out).toMatch(/^ {2}B \+1m12\.120s kube-controller-manager I node_status_updater\.go:146\] Updating status/m);
    expect(r.out).toMatch(/^violations B \(1\.23\.0\): none$/m);
    const same = iosim("k8s", "diff", "detach-backoff-node-status", "--version", "1.23", "--version", "1.23.0");
    expect(same.code).toBe(0);
    expect(same.out).toMatch(/^events: identical$/m);
    expect(same.out).toMatch(/^logs: identical$/m);
  });

  it("k8s run's text output says whether the incident's symptoms reproduced: all on 1.22, not on 1.23", () => {
    const affected = iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.22", "--no-events").out;
    expect(affected).toMatch(/^symptom of incident 002: reproduced \(5 of 5 checks hold\)$/m);
    expect(affected).toMatch(/^ {2}holds {3}nodeVolumesAttached .* \(line 89\): node 10\.0\.0\.12 volumesAttached=\[\]$/m);
    const fixed = iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.23", "--no-events").out;
    expect(fixed).toMatch(/^symptom of incident 002: not reproduced \([0-4] of 5 checks hold\)$/m);
    expect(fixed).toMatch(/^ {2}absent {2}podNotRunning "web-0" \(line 85\): pod default\/web-0 phase Running$/m);
  });

  it("k8s diff --seed runs both versions with that seed: the seed picks a between: instant, and with it where the versions part", () => {
    // seed 002 with the new pod landing at a seed-chosen instant between the failed detach and the one that succeeds
    const dir = mkdtempSync(join(tmpdir(), "k8s-diff-seed-"));
    try {
      const file = join(dir, "between.yaml");
      writeFileSync(file, BUILTIN_YAML["detach-backoff-node-status"]!.replace("after: adc.DetachFailed\n    delay: 300ms\n", "between: [adc.DetachFailed, adc.DetachSucceeded]\n"));
      type Div = { kind: string; t: number; bLines: number; b: Array<{ text: string }>; after: Array<{ text: string }> };
      const logs = (seed: string) => (JSON.parse(iosim("k8s", "diff", file, "--version", "1.22", "--version", "1.23", "--seed", seed, "--json").out) as { logs: Div }).logs;
      // both part at 1.23's node-status update after the failed detach (+1m12.120s); with seed 1 the new
      // pod's SyncLoop ADD at +1m12.314s follows in both runs, with seed 2 1.23 also reports the volume
      // detached again at the retry, +1m12.720s, before the pod comes (+1m13.628s)
      const one = logs("1");
      expect(one).toMatchObject({ kind: "onlyB", t: 72_120, bLines: 1 });
      expect(one.after[0]!.text).toMatch(/^\+1m12\.314s kubelet\/10\.0\.0\.12 I kubelet\.go:2096\] "SyncLoop ADD"/);
      const two = logs("2");
      expect(two).toMatchObject({ kind: "onlyB", t: 72_120, bLines: 2 });
      expect(two.b[1]!.text).toMatch(/^\+1m12\.720s kube-controller-manager I node_status_updater\.go:146\] Updating status "\{\\"status\\":\{\\"volumesAttached\\":\[\]\}\}"/);
      expect(iosim("k8s", "diff", file, "--version", "1.22", "--version", "1.23", "--seed", "x").code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("k8s run --seed takes an integer >= 0: abc, -1 and 1.5 are usage errors naming --seed", () => {
    for (const bad of ["abc", "-1", "1.5"]) {
      const r = iosim("k8s", "run", "detach-backoff-node-status", "--seed", bad);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`command line (--seed): --seed must be a non-negative integer, got "${bad}"`);
    }
    expect(iosim("k8s", "run", "detach-backoff-node-status", "--version", "1.23", "--seed", "5").code).toBe(0);
  });

  it("a bad --version, --fix or scenario name is bad input naming it (exit 2), as every other command reports it", () => {
    const cases: Array<[string[], string]> = [
      [["run", "detach-backoff-node-status", "--version", "1.99"], "iosim: command line (--version): Kubernetes version 1.99 is outside the modelled range"],
      [["diff", "detach-backoff-node-status", "--version", "1.22", "--version", "two"], 'iosim: command line (--version): bad Kubernetes version "two"'],
      [["diff", "detach-backoff-node-status", "--version", "1.22"], "iosim: command line (--version): diff needs exactly two --version options"],
      [["run", "detach-backoff-node-status", "--fix", "99999=on"], 'iosim: command line (--fix): bad --fix "99999=on"'],
      [["run", "no-such.yaml"], "iosim: no-such.yaml: no such scenario file or built-in (built-ins: "],
    ];
    for (const [args, msg] of cases) {
      const r = iosim("k8s", ...args);
      expect(r.code).toBe(2);
      expect(r.out).toBe("");
      expect(r.err.startsWith(msg)).toBe(true);
    }
  });

  it("the program's own --version still prints the package version before a subcommand", () => {
    const r = iosim("--version");
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(PKG_VERSION);
  });
});
