// What a user waits for: whole `iosim` processes, timed from spawn to exit,
// each beside what it is compared with, alternated in one run.
//
//   npm run build && node dist/bench/process.js [--rounds N] [--base DIR] [--only ROW,...]
//
// Rows (each command is a fresh `node` process; the order of a row's
// commands rotates every round, so both sides of a ratio see the same phases
// of a shared machine):
//   help     `iosim --help` beside `node -e 0` (node's own start-up) [and the base build's --help]
//   run20m   `iosim run bench/engine-20m.fio --device ideal -q` (the engine bench's workload, 20 M bios,
//            QD 32) beside `node ../shared/bench/naive-des.mjs 20000000` (a naive discrete-event
//            simulator: per-bio objects and a binary heap, no statistics)
//   mc2k, mc20k  `iosim mc bindings/mc/examples/k8s-detach-backoff.yaml --runs N --no-shrink`
//            on --workers 1, --workers 2 and the default [and the base build's default]
//   k8s      `iosim k8s run NAME` for each of the four seed incidents [beside the base build]
// --base DIR: another build to put beside this one (a checkout with package.json and dist/, e.g. a
// copy of main's, with node_modules reachable from it); its "bin" is what runs.
// Printed per command: the median wall time and its quartiles (and the median CPU, user + sys, when
// /usr/bin/time is there); per ratio: the median of the per-round ratios and their quartiles, of the
// wall times and (with /usr/bin/time) of the CPU times. On two cores a second worker shows as more
// CPU for less wall: the wall ratio is the user's, the CPU ratio the one a busy machine keeps.
// The load average is printed before and after: on a busy machine the ratios hold, seconds do not.
// On a busy machine, bench/warmup.ts gives the sweep rows' parts in CPU time instead (a worker's
// start-up, warm-up and steady time per run) and the 1- and 2-worker walls they imply.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
const opt = (k: string): string | undefined => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};
const ROUNDS = Number(opt("--rounds") ?? 5);
const base = opt("--base") ? resolve(opt("--base")!) : undefined;
const only = opt("--only")?.split(",");
// ../shared/bench/naive-des.mjs beside the checkout (or beside the worktrees' folder)
const naive = opt("--naive") ?? [resolve(root, "..", "shared", "bench", "naive-des.mjs"), resolve(root, "..", "..", "shared", "bench", "naive-des.mjs")].find((p) => existsSync(p));
const binOf = (dir: string): string => {
  const b = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: string | Record<string, string> }).bin;
  return join(dir, typeof b === "string" ? b : b.iosim!);
};
const iosim = binOf(root);
const baseBin = base ? binOf(base) : undefined;
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const out = mkdtempSync(join(tmpdir(), "iosim-bench-process-"));

/** `ok`: the exit codes that mean it ran (default 0; `k8s run` exits 1 when the run shows the incident it replays) */
interface Cmd { name: string; argv: string[]; ok?: number[] }
interface Sample { wall: number; cpu?: number }

function once(c: Cmd): Sample {
  const argv = TIME ? [TIME, "-f", "@@cpu %U %S", ...c.argv] : c.argv;
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: root, encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "ignore", "pipe"] });
  const wall = (performance.now() - t0) / 1000;
  if (!(c.ok ?? [0]).includes(r.status ?? -1)) throw new Error(`bench: ${c.argv.join(" ")} exited ${r.status}: ${r.stderr}`);
  const m = /@@cpu ([\d.]+) ([\d.]+)/.exec(r.stderr ?? "");
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : undefined };
}

const q = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const k = (s.length - 1) * p;
  const lo = Math.floor(k);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (k - lo);
};
const fmt = (xs: number[], d = 2): string => `${q(xs, 0.5).toFixed(d)} [${q(xs, 0.25).toFixed(d)}, ${q(xs, 0.75).toFixed(d)}]`;

/** Run a row: `rounds` rounds of its commands in rotating order; ratios name [numerator, denominator] (wall times). */
function row(title: string, cmds: Cmd[], ratios: Array<[string, string, string]>): void {
  const s = new Map<string, Sample[]>(cmds.map((c) => [c.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < cmds.length; k++) {
      const c = cmds[(k + r) % cmds.length]!;
      s.get(c.name)!.push(once(c));
    }
  }
  console.log(`\n${title}  (${ROUNDS} rounds, load ${loadavg()[0]!.toFixed(1)})`);
  const w = Math.max(...cmds.map((c) => c.name.length));
  for (const c of cmds) {
    const xs = s.get(c.name)!;
    const cpu = xs.every((x) => x.cpu !== undefined) ? `   cpu ${q(xs.map((x) => x.cpu!), 0.5).toFixed(2)} s` : "";
    console.log(`  ${c.name.padEnd(w)}  wall ${fmt(xs.map((x) => x.wall))} s${cpu}`);
  }
  for (const [label, a, b] of ratios) {
    const xa = s.get(a)!;
    const xb = s.get(b)!;
    // and of the CPU times (user + sys of every thread), which a busy machine stretches far less than wall times
    const cpu = [...xa, ...xb].every((x) => x.cpu !== undefined) ? `; cpu ${fmt(xa.map((x, i) => x.cpu! / xb[i]!.cpu!))}x` : "";
    console.log(`  ${label}: ${fmt(xa.map((x, i) => x.wall / xb[i]!.wall))}x${cpu}`);
  }
}

const want = (r: string) => !only || only.includes(r);
console.log(`bench/process: whole processes, node ${process.version}, load ${loadavg().map((x) => x.toFixed(1)).join(" ")}${base ? `, base ${base}` : ""}`);
try {
  if (want("help")) {
    const cmds: Cmd[] = [{ name: "node -e 0", argv: [process.execPath, "-e", "0"] }, { name: "iosim --help", argv: [process.execPath, iosim, "--help"] }];
    const ratios: Array<[string, string, string]> = [["iosim --help / node -e 0", "iosim --help", "node -e 0"]];
    if (baseBin) {
      cmds.push({ name: "base --help", argv: [process.execPath, baseBin, "--help"] });
      ratios.push(["base / this --help", "base --help", "iosim --help"]);
    }
    row("help: start-up", cmds, ratios);
  }
  if (want("run20m")) {
    if (!naive) throw new Error("bench: ../shared/bench/naive-des.mjs not found: give --naive FILE");
    row("run20m: 20 M bios, ideal device, QD 32", [
      { name: "iosim run", argv: [process.execPath, iosim, "run", join(root, "bench", "engine-20m.fio"), "--device", "ideal", "-q"] },
      { name: "naive DES", argv: [process.execPath, naive!, "20000000"] },
    ], [["naive / iosim", "naive DES", "iosim run"]]);
  }
  for (const [name, runs] of [["mc2k", 2000], ["mc20k", 20000]] as const) {
    if (!want(name)) continue;
    const mc = (bin: string, tag: string, w?: number): Cmd => ({
      name: `${tag}${w === undefined ? " default" : ` -w ${w}`}`,
      argv: [process.execPath, bin, "mc", join(root, "bindings", "mc", "examples", "k8s-detach-backoff.yaml"), "--runs", String(runs), "--no-shrink",
        "--no-progress", "--force", "--out", join(out, `${name}-${tag}-${w ?? "d"}`), ...(w === undefined ? [] : ["--workers", String(w)])],
    });
    const cmds = [mc(iosim, "iosim", 1), mc(iosim, "iosim", 2), mc(iosim, "iosim")];
    const ratios: Array<[string, string, string]> = [["-w 1 / -w 2", "iosim -w 1", "iosim -w 2"], ["-w 1 / default", "iosim -w 1", "iosim default"]];
    if (baseBin) {
      cmds.push(mc(baseBin, "base"), mc(baseBin, "base", 1));
      ratios.push(["base default / this default", "base default", "iosim default"], ["base -w 1 / this default", "base -w 1", "iosim default"]);
    }
    row(`${name}: iosim mc k8s-detach-backoff.yaml --runs ${runs} --no-shrink`, cmds, ratios);
  }
  if (want("k8s")) {
    // the seed incidents (their `incident` starts with the seed's number, "002: ..."), which every build has
    const list = (JSON.parse(spawnSync(process.execPath, [iosim, "k8s", "list", "--json"], { encoding: "utf8" }).stdout) as Array<{ name: string; incident: string }>)
      .filter((x) => /^\d{3}(\/\d{3})?: /.test(x.incident));
    for (const { name } of list) {
      const cmds: Cmd[] = [{ name: "iosim", argv: [process.execPath, iosim, "k8s", "run", name], ok: [0, 1] }, { name: "node -e 0", argv: [process.execPath, "-e", "0"] }];
      const ratios: Array<[string, string, string]> = [["iosim / node -e 0", "iosim", "node -e 0"]];
      if (baseBin) {
        cmds.push({ name: "base", argv: [process.execPath, baseBin, "k8s", "run", name], ok: [0, 1] });
        ratios.push(["base / this", "base", "iosim"]);
      }
      row(`k8s run ${name}`, cmds, ratios);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.log(`\nload after: ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
