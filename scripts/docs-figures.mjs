// Every figure in README.md and docs/*.md that a command can make, made by it.
//
//   npm run docs:figures          regenerate every figure block in place
//   npm run docs:figures -- --check   exit 1 and name the stale blocks instead
//
// A figure is a block in the Markdown between two comments:
//
//   <!-- figure:demo-summary -->
//   ```console
//   $ npx iosim run
//   cgroup   dir ...
//   ```
//   <!-- /figure -->
//
// Each block shows the command it ran and the part of its output the text
// talks about, so a reader can run the same command and see the same lines
// (iosim is deterministic). `figures` below lists them; test/docs/figures.test.ts
// recomputes every cheap one (all but `package-size`, which packs the package)
// and compares it with the block, and checks the others against
// docs/figures.json, which this script writes.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin", "iosim.js");

const runs = new Map();
/** `iosim ARGS` run as a user runs it from the repository's root (its output whatever the exit status); once per process */
function iosim(args, cwd = ROOT) {
  const key = JSON.stringify([args, cwd]);
  if (!runs.has(key)) runs.set(key, iosimOnce(args, cwd));
  return runs.get(key);
}

function iosimOnce(args, cwd) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    env: { ...process.env, CI: "true", NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  if (r.status !== 0 && r.status !== 1) throw new Error(`iosim ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return r.stdout;
}

/** the lines from the first matching `start` up to (not including) the next blank line */
function section(text, start) {
  const lines = text.split("\n");
  const i = lines.findIndex((l) => start.test(l));
  if (i < 0) throw new Error(`no line matching ${start}`);
  const out = [];
  for (let k = i; k < lines.length && lines[k].trim() !== ""; k++) out.push(lines[k]);
  return out;
}

const console_ = (cmd, lines) => ["```console", `$ ${cmd}`, ...lines, "```"].join("\n");

/** the README's library example, run against the built library: its code block and what it prints */
export function libraryExample(readme) {
  const m = /<!-- library-example -->\n```js\n([\s\S]*?)```/.exec(readme);
  if (!m) throw new Error("README.md: no ```js block after <!-- library-example -->");
  const dir = mkdtempSync(join(tmpdir(), "iosim-docs-"));
  try {
    const file = join(dir, "example.mjs");
    writeFileSync(file, m[1].replace(/from "iosim"/g, `from ${JSON.stringify(pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href)}`));
    return execFileSync(process.execPath, [file], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `iosim mc` as from the repository's root (its output directory under a temporary one) */
function mc(args) {
  const dir = mkdtempSync(join(tmpdir(), "iosim-docs-"));
  try {
    // the scenario by its path from the root, as the command line shows it
    const abs = args.map((a) => (a.endsWith(".yaml") ? join(ROOT, a) : a));
    return iosim(["mc", ...abs, "--no-progress"], dir).replaceAll(dir + "/", "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const compareLine = (args, last) => {
  const out = iosim(["compare", ...expand(args)]);
  const lines = out.trimEnd().split("\n");
  return console_(`npx iosim compare ${args.join(" ")}`, [`...`, ...lines.slice(-last)]);
};

/** a shell glob of the fixtures, as the shell expands it (segment by segment, sorted) */
function expand(globs) {
  const seg = (g) =>
    new RegExp(
      "^" +
        g
          .split("*")
          .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join("[^/]*") +
        "$",
    );
  return globs.flatMap((g) => {
    let paths = [""];
    for (const part of g.split("/")) {
      paths = part.includes("*")
        ? paths.flatMap((d) =>
            readdirSync(join(ROOT, d))
              .filter((f) => seg(part).test(f))
              .sort()
              .map((f) => (d ? `${d}/${f}` : f)),
          )
        : paths.map((d) => (d ? `${d}/${part}` : part));
    }
    return paths;
  });
}

const kib = (n) => (n / 1024).toFixed(1);

/** every command of the CLI, as argument lists (["run"], ["k8s", "run"], ...), walked from `--help` */
export function cliCommands(prefix = []) {
  const help = iosim([...prefix, "--help"]);
  const at = help.indexOf("\nCommands:\n");
  if (at < 0) return prefix.length ? [prefix] : [];
  const names = [...help.slice(at).matchAll(/^ {2}([a-z][a-z0-9-]*)\b/gm)].map((m) => m[1]).filter((n) => n !== "help");
  // a command with subcommands and options of its own (mc) is listed as well as its subcommands
  const own = prefix.length && /\nOptions:\n[\s\S]*--(?!help)[a-z]/.test(help.slice(0, at)) ? [prefix] : [];
  return [...own, ...names.flatMap((n) => cliCommands([...prefix, n]))];
}

/** the long options a command's --help lists (but --help) */
export function cliOptions(cmd) {
  const help = iosim([...cmd, "--help"]);
  const opts = help.slice(help.indexOf("\nOptions:\n"), help.indexOf("\nCommands:\n") < 0 ? undefined : help.indexOf("\nCommands:\n"));
  return [...opts.matchAll(/^ {2}(?:-[a-zA-Z], )?(--[a-z0-9-]+)/gm)].map((m) => m[1]).filter((o) => o !== "--help");
}

/** `iosim compare GLOBS` output lines (the shell's expansion of the globs) */
const compareOut = (globs, extra = []) => iosim(["compare", ...expand(globs), ...extra]).split("\n");

/** per-trace lines of `iosim compare`: "NAME: M/N matched (P%) ..." -> { name, m, n, pct } */
function traceLines(lines) {
  const out = [];
  for (const l of lines) {
    const m = /^(\S+): (\d+)\/(\d+) matched \(([\d.]+)%\)/.exec(l);
    if (m) out.push({ name: m[1], m: Number(m[2]), n: Number(m[3]), pct: Number(m[4]) });
  }
  return out;
}

/** "a-b" of numbers as printed (the same text when they are equal) */
const range = (xs, digits = 1) => {
  const lo = Math.min(...xs).toFixed(digits);
  const hi = Math.max(...xs).toFixed(digits);
  return lo === hi ? lo : `${lo}-${hi}`;
};

const THROTL = ["test/fixtures/oracle/throtl/traces/*/run*.jsonl", "test/fixtures/oracle/guest/iomax.jsonl"];
// the io.latency/wbt guest traces recorded under plain TCG, and those recorded under QEMU's icount
const RQOS = ["test/fixtures/oracle/guest/iolat.jsonl", "test/fixtures/oracle/guest/iolat.r*.jsonl", "test/fixtures/oracle/guest/wbt.jsonl", "test/fixtures/oracle/guest/wbt.r*.jsonl"];
const RQOS_ICOUNT = ["test/fixtures/oracle/guest/*icount*.jsonl"];
// the same two tests with null_blk's tag set deeper than the tests can fill (icount too): no tag races
const RQOS_DEEP = ["test/fixtures/oracle/guest/iolat_deep*.jsonl", "test/fixtures/oracle/guest/wbt_deep*.jsonl"];

/** per-trace detail of the io.latency/wbt traces `globs` (figures fidelity-rqos-detail and -icount-detail) */
function rqosDetail(globs) {
  const lines = compareOut(globs);
  const iolat = traceLines(lines).filter((x) => /^iolat/.test(x.name));
  const prot = lines
    .map((l) => /^ {2}protected \S+: p50 real [\d.]+ ms sim [\d.]+ ms \(([\d.]+)%\), p99 real ([\d.]+) ms sim ([\d.]+) ms \(([\d.]+)%\)/.exec(l))
    .filter(Boolean);
  const sib = lines.map((l) => /^ {2}sibling \S+: (\d+)\/(\d+) 100 ms bins/.exec(l)).filter(Boolean);
  const wbt = lines.map((l) => /^test\/fixtures\/oracle\/guest\/wbt\S*: (\d+)\/(\d+) matched \(([\d.]+)%\)/.exec(l)).filter(Boolean);
  // each wbt case's line, then its reads line: the mode (off, lat100ms, default) and what it says
  const cases = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = /^wbt\S*#(\S+): \d+\/\d+ matched/.exec(lines[i]);
    const m = head && /matched reads (\d+)\/(\d+), write requests (\d+)\/(\d+); median wait outside the driver: .*writes ([\d.]+) vs/.exec(lines[i + 1]);
    if (m) cases.push({ mode: head[1], reads: (100 * Number(m[1])) / Number(m[2]), writes: (100 * Number(m[3])) / Number(m[4]), wait: Number(m[5]) });
  }
  const pctOf = (m, k) => (100 * Number(m[k])) / Number(m[k + 1]);
  const p99low = prot.every((m) => Number(m[3]) < Number(m[2]));
  return [
    `io.latency (${iolat.length} runs): ${range(iolat.map((x) => x.pct))} % of IOs matched; the protected cgroup's p50 within ${range(prot.map((m) => Number(m[1])))} %, ` +
      `its p99 ${range(prot.map((m) => Number(m[4])), 0)} % ${p99low ? "low" : "off"}; the sibling's 100 ms bins within 10 % in ${range(sib.map((m) => pctOf(m, 1)), 0)} % of bins.`,
    `wbt (${wbt.length} runs of off / 100 ms / default): ${range(wbt.map((m) => Number(m[3])))} % of IOs; reads ${range(cases.map((c) => c.reads), 0)} % matched, ` +
      `write requests ${range(cases.map((c) => c.writes), 0)} %; with wbt on, the recorded write requests wait ${range(cases.filter((c) => c.mode !== "off").map((c) => c.wait), 0)} ms (median) outside the driver.`,
  ].join("\n");
}

const BUFREAD = ["test/fixtures/oracle/bufread/bufread.jsonl", "test/fixtures/oracle/bufread/bufread.r*.jsonl"];
const BUFREAD_IOCOST = ["test/fixtures/oracle/bufread/bufread_iocost*.jsonl"];
const IOCOST = ["test/fixtures/oracle/guest/iocost_donate.jsonl", "test/fixtures/oracle/guest/iocost_fixed.jsonl", "test/fixtures/oracle/guest/iocost_met.jsonl"];

/** name -> { cheap, make(): string } (the block's text, without the markers) */
export const figures = {
  "demo-summary": {
    cheap: true,
    make: () => console_("npx iosim run", ["...", ...section(iosim(["run"]), /^cgroup\s+dir/)]),
  },
  "demo-report": {
    cheap: true,
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), "iosim-docs-"));
      try {
        iosim(["run", "-q", "--out", join(dir, "out")]);
        const files = readdirSync(join(dir, "out")).sort();
        return console_("npx iosim run --out out -q && ls out", [files.join("  ")]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  "bursty-summary": {
    cheap: true,
    make: () => {
      const out = iosim(["run", "scenarios/iocost-bursty.yaml"]);
      return console_("npx iosim run scenarios/iocost-bursty.yaml", ["...", ...section(out, /^cgroup\s+dir/), "", ...section(out, /^# io\.stat/)]);
    },
  },
  "k8s-stuck": {
    cheap: true,
    make: () => {
      const out = iosim(["k8s", "run", "detach-backoff-node-status", "--version", "1.22"]);
      return console_("npx iosim k8s run detach-backoff-node-status --version 1.22", [
        ...section(out, /^scenario /),
        "...",
        section(out, /^symptom of incident/)[0],
        "...",
        ...section(out, /^pods \(time to Running/),
      ]);
    },
  },
  "k8s-fixed": {
    cheap: true,
    make: () => {
      const out = iosim(["k8s", "run", "detach-backoff-node-status", "--version", "1.22", "--fix", "104526=on"]);
      return console_("npx iosim k8s run detach-backoff-node-status --version 1.22 --fix 104526=on", [
        "...",
        section(out, /^symptom of incident/)[0],
        "...",
        ...section(out, /^pods \(time to Running/),
      ]);
    },
  },
  "mc-detach": {
    cheap: true,
    make: () => {
      const args = ["bindings/mc/examples/k8s-detach-backoff.yaml", "--runs", "2000", "--seed", "1"];
      return console_(`npx iosim mc ${args.join(" ")}`, mc(args).trimEnd().split("\n"));
    },
  },
  library: {
    cheap: true,
    make: () =>
      console_(
        "node example.mjs",
        libraryExample(readFileSync(join(ROOT, "README.md"), "utf8"))
          .trimEnd()
          .split("\n"),
      ),
  },
  "scenario-example": {
    cheap: true,
    make: () => {
      const md = readFileSync(join(ROOT, "docs", "scenario-format.md"), "utf8");
      const m = /<!-- scenario-example -->\n```yaml\n([\s\S]*?)```/.exec(md);
      if (!m) throw new Error("docs/scenario-format.md: no ```yaml block after <!-- scenario-example -->");
      const dir = mkdtempSync(join(tmpdir(), "iosim-docs-"));
      try {
        writeFileSync(join(dir, "my.yaml"), m[1]);
        const out = iosim(["run", "my.yaml"], dir);
        // the table and the notes under it (why a mean sits above a p99, a rate above a cap)
        const notes = /^note: /m.test(out) ? ["", ...section(out, /^note: /)] : [];
        return console_("npx iosim run my.yaml", ["...", ...section(out, /^cgroup\s+dir/), ...notes]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  "wasm-size": {
    cheap: true,
    make: () => {
      const wasm = readFileSync(join(ROOT, "build", "iosim.wasm"));
      return `the core is ${kib(wasm.length)} KiB of WebAssembly, ${kib(gzipSync(wasm, { level: 9 }).length)} KiB gzipped (\`build/iosim.wasm\`)`;
    },
  },
  presets: {
    cheap: true,
    make: async () => {
      const { devicePreset } = await import(pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href);
      const rows = [
        "| preset | device | MAJ:MIN | channels | nr_requests | latency | max_sectors_kb | rotational | capacity |",
        "|---|---|---|---:|---:|---:|---:|---|---:|",
      ];
      for (const n of ["ssd", "nvme", "hdd", "ideal", "nullb"]) {
        const d = devicePreset(n);
        const cap =
          d.sizeBytes >= 1e12
            ? `${d.sizeBytes / 1e12} TB`
            : d.sizeBytes % 2 ** 30 === 0
              ? `${d.sizeBytes / 2 ** 30} GiB`
              : d.sizeBytes % 2 ** 20 === 0
                ? `${d.sizeBytes / 2 ** 20} MiB`
                : `${d.sizeBytes / 1e9} GB`;
        rows.push(
          `| \`${n}\` | \`${d.name}\` | \`${d.devno}\` | ${d.channels} | ${d.nrRequests} | ${d.latencyNs ? `${d.latencyNs / 1e6} ms` : "0"} | ${d.maxSectorsKb} | ${d.rotational ? "yes" : "no"} | ${cap} |`,
        );
      }
      return rows.join("\n");
    },
  },
  "fidelity-throtl": {
    cheap: true,
    make: () => compareLine(["test/fixtures/oracle/throtl/traces/*/run*.jsonl", "test/fixtures/oracle/guest/iomax.jsonl"], 1),
  },
  "fidelity-rqos": {
    cheap: true,
    make: () => compareLine(RQOS, 1),
  },
  "fidelity-rqos-icount": {
    cheap: true,
    make: () => compareLine(RQOS_ICOUNT, 1),
  },
  "fidelity-rqos-deep": {
    cheap: true,
    make: () => compareLine(RQOS_DEEP, 1),
  },
  "fidelity-bufread": {
    cheap: true,
    make: () => compareLine(["test/fixtures/oracle/bufread/bufread.jsonl", "test/fixtures/oracle/bufread/bufread.r*.jsonl"], 1),
  },
  "fidelity-bufread-iocost": {
    cheap: true,
    make: () => compareLine(["test/fixtures/oracle/bufread/bufread_iocost*.jsonl"], 1),
  },
  "fidelity-bufread-all": {
    cheap: true,
    make: () => compareLine(["test/fixtures/oracle/bufread/*.jsonl"], 1),
  },
  "fidelity-throtl-lowest": {
    cheap: true,
    make: () => {
      const t = traceLines(compareOut(THROTL)).filter((x) => x.n >= 20);
      t.sort((a, b) => a.pct - b.pct || a.name.localeCompare(b.name));
      const low = t.slice(0, 3).map((x) => `\`${x.name}\` ${x.pct.toFixed(2)} %`);
      return `Every one of the ${t.length} traces with ≥ 20 IOs is ≥ ${Math.floor(t[0].pct)} % matched (lowest: ${low.join(", ")}).`;
    },
  },
  "fidelity-iocost": {
    cheap: true,
    make: () => {
      const lines = compareOut(IOCOST).filter((l) => /^== |B\/A share|reaches bound|idle after burst|A while B idles: \d/.test(l));
      return console_("npx iosim compare test/fixtures/oracle/guest/iocost_{donate,fixed,met}.jsonl", lines.map((l) => l.replace(/ \(guest-iocost\)$/, "")));
    },
  },
  "fidelity-iocost-kernel-timer": {
    cheap: true,
    make: () => {
      const lines = compareOut(["test/fixtures/oracle/guest/iocost_donate.jsonl"], ["--period-timer", "kernel"]).filter((l) => /reaches bound|idle after burst/.test(l));
      return console_("npx iosim compare test/fixtures/oracle/guest/iocost_donate.jsonl --period-timer kernel", ["...", ...lines]);
    },
  },
  "fidelity-rqos-detail": {
    cheap: true,
    make: () => rqosDetail(RQOS),
  },
  "fidelity-rqos-icount-detail": {
    cheap: true,
    make: () => rqosDetail(RQOS_ICOUNT),
  },
  "fidelity-rqos-deep-detail": {
    cheap: true,
    make: () => rqosDetail(RQOS_DEEP),
  },  "fidelity-bufread-detail": {
    cheap: true,
    make: () => {
      const boots = (globs) =>
        compareOut(globs)
          .map((l) => /^test\/fixtures\/oracle\/bufread\/\S+: reads (\d+)\/(\d+) matched \(([\d.]+)%\); bios (\d+)\/(\d+)/.exec(l))
          .filter(Boolean);
      const plain = boots(BUFREAD);
      const worst = traceLines(compareOut(BUFREAD)).filter((x) => /#rand_fadv_riops100$/.test(x.name));
      const ioc = boots(BUFREAD_IOCOST);
      return [
        `Per boot under io.max: ${plain.map((m) => `${m[3]} %`).join(" / ")} of reads within 4 ms; simulated / recorded readahead bios ${plain.map((m) => `${m[4]}/${m[5]}`).join(", ")}.`,
        `Weakest case, four threads of random reads with fio's fadvise hint under \`riops=100\`: ${range(worst.map((x) => x.pct))} %.`,
        `Under io.cost, per boot: bios ${ioc.map((m) => `${m[4]}/${m[5]}`).join(", ")}; reads within 4 ms ${ioc.map((m) => `${m[3]} %`).join(" / ")}.`,
      ].join("\n");
    },
  },
  "fidelity-writeback": {
    cheap: true,
    make: async () => {
      // each guest writeback recording replayed with 16 seeds (oracle/writeback.ts, as its tests do)
      const { parseWbTrace, replayWb, recordedSwitches, simulatedSwitches } = await import(pathToFileURL(join(ROOT, "dist", "bindings", "oracle", "writeback.js")).href);
      const dir = join(ROOT, "test", "fixtures", "oracle", "guest");
      const SEEDS = 16;
      const load = (prefix) =>
        readdirSync(dir)
          .filter((f) => f.startsWith(prefix) && f.endsWith(".jsonl"))
          .sort()
          .map((f) => parseWbTrace(readFileSync(join(dir, f), "utf8"), f));
      const sims = (trs) => trs.flatMap((tr) => Array.from({ length: SEEDS }, (_, i) => ({ tr, sw: (({ sim, t0 }) => simulatedSwitches(tr, sim, t0))(replayWb(tr, { seed: 1 + i })) })));
      const foreign = load("wb_foreign");
      const fSims = sims(foreign);
      const same = fSims.filter(({ tr, sw }) => JSON.stringify(sw.map((x) => [x.round, x.to])) === JSON.stringify(recordedSwitches(tr).map((x) => [x.round, x.to]))).length;
      const fRounds = [...new Set(foreign.map((tr) => recordedSwitches(tr)[0]?.ordinal))].join(", ");
      const share = load("wb_share");
      const rec = share.map((tr) => recordedSwitches(tr));
      const sSims = sims(share).map((x) => x.sw);
      const pct = (k) => ((100 * k) / sSims.length).toFixed(1);
      const simFirst = (k) => sSims.filter((sw) => sw[0]?.ordinal === k).length;
      const recFirst = (k) => rec.filter((sw) => sw[0]?.ordinal === k).length;
      const flips = (xs) => xs.filter((sw) => sw.some((x) => !x.toMajority)).length;
      return (
        `\`wb_foreign\` (${foreign.length} recordings, ${SEEDS} seeds each): the inode switches to the overwriting cgroup after ${fRounds} rounds as recorded in ${same} of ${fSims.length} replays. ` +
        `\`wb_share\` (not deterministic on the real kernel; ${share.length} recordings, ${SEEDS} seeds each, ${sSims.length} replays): the owner switches to the 70 % writer after 2 rounds in ${pct(simFirst(2))} % ` +
        `(recorded: ${recFirst(2)} of ${rec.length}), after 3 rounds in ${pct(simFirst(3))} % (${recFirst(3)} of ${rec.length}), and flips back later in ${pct(flips(sSims))} % (${flips(rec)} of ${rec.length}).`
      );
    },
  },
  "mc-grid": {
    cheap: true,
    make: () => {
      const args = ["bindings/mc/examples/k8s-detach-backoff.yaml", "--runs", "2000", "--grid", "fix104526=false,true", "--grid", "busyDetaches=1,4", "--by", "busyDetaches", "--by", "fix104526"];
      return console_(`npx iosim mc ${args.join(" ")}`, ["...", ...section(mc(args), /^\| busyDetaches/)]);
    },
  },
  "mc-detach-windows": {
    cheap: false,
    make: () => {
      const args = ["bindings/mc/examples/k8s-detach-backoff.yaml", "--runs", "20000", "--seed", "1", "--by", "landDelay:0,500,750,2500,3000,4000,5000,6000", "--by", "fix104526"];
      return console_(`npx iosim mc ${args.join(" ")}`, ["...", ...section(mc(args), /^\| landDelay/)]);
    },
  },
  "cli-options": {
    cheap: true,
    make: () =>
      cliCommands()
        .map((cmd) => {
          const help = iosim([...cmd, "--help"]);
          const end = help.indexOf("\nCommands:\n");
          return console_(`npx iosim ${cmd.join(" ")} --help`, (end < 0 ? help : help.slice(0, end)).trimEnd().split("\n"));
        })
        .join("\n\n"),
  },
  "package-size": {
    cheap: false,
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), "iosim-docs-"));
      try {
        const t0 = process.hrtime.bigint();
        const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
        const s = Number(process.hrtime.bigint() - t0) / 1e9;
        const info = JSON.parse(out)[0];
        return `\`npm pack\`: ${info.entryCount} files, ${kib(info.size)} KiB packed, ${kib(info.unpackedSize)} KiB unpacked (${s < 10 ? "under 10 s" : `${s.toFixed(0)} s`})`;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
};

/** the Markdown files figures may sit in */
export function figureFiles() {
  return [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
}

const BLOCK = /<!-- figure:([a-z0-9-]+) -->\n([\s\S]*?)\n?<!-- \/figure -->/g;

/** the figure blocks of a Markdown text: [name, content] */
export function blocksOf(md) {
  return [...md.matchAll(BLOCK)].map((m) => [m[1], m[2]]);
}

export function replaceBlocks(md, values) {
  return md.replace(BLOCK, (all, name) => (name in values ? `<!-- figure:${name} -->\n${values[name]}\n<!-- /figure -->` : all));
}

export const FIGURES_JSON = join(ROOT, "docs", "figures.json");

async function main() {
  const check = process.argv.includes("--check");
  const only = process.argv.filter((a) => !a.startsWith("-")).slice(2);
  const values = {};
  for (const [name, f] of Object.entries(figures)) {
    if (only.length && !only.includes(name)) continue;
    values[name] = await f.make();
  }
  let stale = 0;
  for (const file of figureFiles()) {
    const p = join(ROOT, file);
    const md = readFileSync(p, "utf8");
    for (const [name] of blocksOf(md)) if (!(name in figures)) throw new Error(`${file}: unknown figure "${name}" (scripts/docs-figures.mjs)`);
    const next = replaceBlocks(md, values);
    if (next !== md) {
      stale++;
      if (check)
        process.stderr.write(
          `${relative(ROOT, p)}: stale figure(s): ${blocksOf(md)
            .filter(([n, v]) => n in values && values[n] !== v)
            .map(([n]) => n)
            .join(", ")}\n`,
        );
      else writeFileSync(p, next);
    }
  }
  if (!check) {
    let prev = {};
    try {
      prev = JSON.parse(readFileSync(FIGURES_JSON, "utf8"));
    } catch {
      /* first run */
    }
    writeFileSync(FIGURES_JSON, JSON.stringify({ ...prev, ...values }, null, 2) + "\n");
  }
  if (check && stale) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
