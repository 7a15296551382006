// `iosim k8s ...`: the command-line face of the Kubernetes replay. The only
// file of bindings/k8s that touches the file system (reading a scenario file).
//
//   iosim k8s run SCENARIO [--version 1.22] [--fix 104526=on] [--json]
//   iosim k8s list [--json]
//   iosim k8s diff SCENARIO --version A --version B [--json]   (exit 1 when they diverge)
//   iosim k8s versions [--json]                                 (releases and their switches)
//
// The commands' options are declared in commands.ts, which loads this module
// only when one of them runs.

import { resultHash } from "../report/result-hash.js";
import { existsSync } from "node:fs";
import { readInputFile } from "../cli/read-input.js";
import { seedOption } from "../cli/options.js";
import { builtinK8sScenario, builtinK8sScenarios, diffK8sRuns, formatK8sDiff, formatEvents, relTime, loadK8sScenario, parseFixOverrides, parseVersion, runK8sScenario, type FixOverrides } from "./index.js";
import { InputError } from "../scenario/errors.js";
import { kubernetesEventJson, kubernetesObjectJson } from "./output/objects.js";
import type { K8sScenario } from "./scenario/schema.js";
import { formatPodWaits, formatVersions, versionsTable } from "./versions/table.js";


function resolveScenario(arg: string): K8sScenario {
  const b = builtinK8sScenario(arg);
  if (b) return b;
  if (!existsSync(arg)) throw new InputError(`no such scenario file or built-in (built-ins: ${builtinK8sScenarios().map((s) => s.name).join(", ")})`, arg);
  return loadK8sScenario(readInputFile(arg, "scenario"), arg);
}

// Bad input is an InputError (exit 2, naming the option or the file's line);
// anything else reaches main.ts as an internal error (exit 3, with its stack).

/** --version: 1.MINOR or 1.MINOR.PATCH in the modelled range */
function versionOption(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  try {
    parseVersion(v);
  } catch (e) {
    throw new InputError((e as Error).message, "command line", undefined, "--version");
  }
  return v;
}

/** --fix ID=on|off, repeatable */
function fixOption(items: readonly string[]): FixOverrides {
  try {
    return parseFixOverrides(items);
  } catch (e) {
    throw new InputError((e as Error).message, "command line", undefined, "--fix");
  }
}

export interface K8sRunOptions { version?: string; fix: string[]; seed?: string; json?: boolean; logs?: boolean; events: boolean }
export interface K8sDiffOptions { version: string[]; fix: string[]; fixA: string[]; fixB: string[]; seed?: string; json?: boolean }

/** `iosim k8s run` */
export function k8sRunAction(arg: string, o: K8sRunOptions): void {
  const opts = { version: versionOption(o.version), fixes: fixOption(o.fix), seed: seedOption(o.seed) };
  const sc = resolveScenario(arg);
  const r = runK8sScenario(sc, opts);
  if (o.json) {
    process.stdout.write(
      JSON.stringify(
        {
          scenario: r.scenario,
          version: r.version,
          fixes: r.fixes,
          violations: r.violations,
          expectations: r.expectations,
          symptoms: r.symptoms,
          timeline: r.timeline.map((e) => kubernetesEventJson(e, sc.clock)),
          logs: r.logs.map((l) => `${l.component}: ${l.text}`),
          objects: r.objects.map((x) => kubernetesObjectJson(x, sc.clock)),
          stats: r.stats,
          podWaits: r.podWaits,
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    const w = (s: string): boolean => process.stdout.write(s + "\n");
    w(`scenario ${r.scenario} on Kubernetes ${r.version}  (fixes on: ${Object.entries(r.fixes).filter(([, v]) => v).map(([k]) => k).join(", ") || "none"})`);
    if (o.events) w(`\nevents as \`kubectl events\` lists them at the end of the run (+${relTime(r.stats.endMs)}):\n` + formatEvents(r.timeline, r.stats.endMs));
    if (o.logs) {
      w("");
      for (const l of r.logs) w(`${l.component}: ${l.text}`);
    }
    if (r.symptoms.length > 0) {
      // the incident the scenario describes: shown, but not a violation (an affected version is meant to show it)
      const held = r.symptoms.filter((x) => x.held).length;
      w(`\nsymptom${sc.incident ? ` of incident ${sc.incident.seed}` : "s"}: ${held === r.symptoms.length ? "reproduced" : "not reproduced"} (${held} of ${r.symptoms.length} checks hold)`);
      for (const x of r.symptoms) w(`  ${x.held ? "holds " : "absent"}  ${x.name}${x.line ? ` (line ${x.line})` : ""}: ${x.detail}`);
    }
    if (r.podWaits.length > 0) w(`\npods (time to Running; ContainerCreating from the kubelet's first sync):\n${formatPodWaits(r.podWaits)}`);
    w("");
    if (r.violations.length === 0) w("all invariants and expectations hold");
    for (const v of r.violations) w(`VIOLATION ${v.name} at ${v.time}: ${v.explanation}`);
    w(`result sha256 ${resultHash(r)} (the playground shows a run's first 16 digits)`);
  }
  process.exitCode = r.violations.length === 0 ? 0 : 1;
}

/** `iosim k8s list` */
export function k8sListAction(o: { json?: boolean }): void {
  const rows = builtinK8sScenarios().map((s) => ({
    name: s.name,
    incident: s.incident ? `${s.incident.seed}: ${s.incident.title}` : s.description ?? "",
    affected: s.incident?.affected ?? s.version,
    fixed: s.incident?.fixed ?? s.version,
    fix: s.incident?.fix ?? "",
  }));
  if (o.json) {
    process.stdout.write(JSON.stringify(rows.map(({ name, incident, affected, fixed }) => ({ name, incident, affected, fixed })), null, 2) + "\n");
    return;
  }
  for (const r of rows) process.stdout.write(`${r.name.padEnd(28)} affected ${r.affected.padEnd(6)} fixed ${r.fixed.padEnd(6)} #${r.fix.padEnd(7)} ${r.incident}\n`);
}

/** `iosim k8s diff` */
export function k8sDiffAction(arg: string, o: K8sDiffOptions): void {
  const oneVersion = o.version.length === 1 && (o.fixA.length > 0 || o.fixB.length > 0);
  if (o.version.length !== 2 && !oneVersion) throw new InputError("diff needs exactly two --version options (or one with --fix-a/--fix-b)", "command line", undefined, "--version");
  o.version.forEach(versionOption);
  const versions = oneVersion ? [o.version[0], o.version[0]] : o.version;
  const fixes = fixOption(o.fix);
  const fixesA = { ...fixes, ...fixOption(o.fixA) };
  const fixesB = { ...fixes, ...fixOption(o.fixB) };
  const seed = seedOption(o.seed);
  const sc = resolveScenario(arg);
  const a = runK8sScenario(sc, { version: versions[0], fixes: fixesA, seed });
  const b = runK8sScenario(sc, { version: versions[1], fixes: fixesB, seed });
  const d = diffK8sRuns(a, b);
  if (o.json) process.stdout.write(JSON.stringify({ scenario: sc.name, ...d }, null, 2) + "\n");
  else process.stdout.write(formatK8sDiff(d, sc.name) + "\n");
  // as diff(1): 0 the runs agree, 1 they diverge (2 bad input, 3 internal error)
  process.exitCode = d.events || d.logs ? 1 : 0;
}

/** `iosim k8s versions` */
export function k8sVersionsAction(o: { json?: boolean }): void {
  const t = versionsTable();
  if (o.json) process.stdout.write(JSON.stringify(t, null, 2) + "\n");
  else process.stdout.write(formatVersions(t) + "\n");
}
