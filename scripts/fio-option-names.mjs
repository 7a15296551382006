// Generates bindings/workload/fio-option-names.ts: every option name a fio job file may use,
// read off a real fio binary, so that iosim refuses what fio refuses ("Bad option <...>").
//
// Usage:
//   node scripts/fio-option-names.mjs [--fio CMD] [--binary PATH] [--out FILE]
//     --fio CMD      the fio to ask (default: "fio" on PATH); a wrapper script is fine
//     --binary PATH  the fio executable whose strings are the candidate names (default: CMD
//                    resolved on PATH; give it when CMD is a wrapper)
//     --out FILE     default bindings/workload/fio-option-names.ts
// The committed table was made from fio-3.39 as Debian 13 packages it (fio 3.39-1, 36 engines
// built in); on Debian 13, `apt-get install fio` and run this script as it is (about 2 minutes).
// It was made on Debian 12, whose fio is 3.33: the 3.39 package's usr/bin/fio (dpkg-deb -x) was
// run as `ld-linux-x86-64.so.2 --library-path LIBS fio` with Debian 13's libc6 unpacked the same
// way, and its storage libraries (libaio, librbd, libgfapi, libnfs, ...) replaced by one stub
// library under each soname (those functions run only when IO is done, never under --parse-only
// or --cmdhelp): --fio names that wrapper, --binary the unpacked executable. Run against fio 3.33,
// the table has no name 3.39's lacks: 3.39 adds 19 job option names (fdp, thinkcycles,
// verify_write_sequence, ...) and engine options (io_uring's pi_act, libaio's libaio_vectored).
//
// How fio decides (read in fio's source, 3.39: options.c fio_options_parse() and
// show_closest_option(), parse.c find_option()/o_match()/get_option()): a job section's
// "name=value" lines are looked up by the text before '=' (blanks after it stripped), compared
// with strcmp against each fio_options[] entry's .name and .alias (exact, case-sensitive, no
// prefix matching). What is not found there is looked up in the options of the job's ioengine
// (after the whole section is read, so the engine may be named later in it or in [global]); what
// is in neither is "Bad option <line>" and the job is dropped. The profiles (profiles/act.c,
// profiles/tiobench.c) add their options to fio_options[] at start-up, so a job file may name
// them too. A FIO_OPT_DEPRECATED option is found but refused ("Option X is deprecated", then
// "fio: failed parsing"); a FIO_OPT_SOFT_DEPRECATED one is accepted with that message.
//
// How this script asks: the candidates are every identifier-like run in the fio executable and
// every suffix of one (the linker shares string tails, so "bs" may live inside "...bs"). One job
// section per ioengine names them all ("cand=" each) and fio --parse-only says "Bad option" for
// each one it does not know; the rest are known. The names no engine adds are fio_options[];
// the rest of an engine's are its options. --cmdhelp=NAME (and --enghelp=ENGINE,NAME) tell each
// option's own name, alias and help; --profile=P --cmdhelp=all the profiles' options; probing a
// deprecated option alone with a value tells refused from accepted. Engines that are not built
// into the probed fio (xnvme, http, libblkio, dfs, libhdfs, libcufile, windowsaio, external
// plugins) cannot be asked: the parser does not check options against them (it warns instead).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, delimiter } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const arg = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const fio = arg("--fio", "fio");
const out = arg("--out", join(root, "bindings", "workload", "fio-option-names.ts"));
const which = (cmd) => {
  if (cmd.includes("/")) return cmd;
  for (const d of (process.env.PATH ?? "").split(delimiter)) {
    try {
      return realpathSync(join(d, cmd));
    } catch { /* next */ }
  }
  throw new Error(`${cmd} is not on PATH`);
};
const binary = arg("--binary", which(fio));
/** The profiles of fio's source tree (profiles/act.c, profiles/tiobench.c). */
const PROFILES = ["act", "tiobench"];

const tmp = mkdtempSync(join(tmpdir(), "fio-names-"));
function run(argv) {
  const r = spawnSync(fio, argv, { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return { status: r.status, signal: r.signal, text: `${r.stdout}\n${r.stderr}` };
}

const version = run(["--version"]).text.trim().split("\n")[0];
if (!/^fio-\d/.test(version)) throw new Error(`unexpected fio --version: ${version}`);

// ---- candidates ---------------------------------------------------------------------------
const bytes = readFileSync(binary);
const runs = new Set();
let cur = "";
for (const b of bytes) {
  const c = String.fromCharCode(b);
  if (/[A-Za-z0-9_-]/.test(c)) cur += c;
  else {
    if (cur.length >= 2 && cur.length <= 64) runs.add(cur);
    cur = "";
  }
}
const cands = new Set();
for (const r of runs) {
  for (let i = 0; i < r.length - 1; i++) {
    const s = r.slice(i);
    // fio's ini reader takes any line starting with "include" as an include directive, and
    // "ioengine=" would change the engine being probed
    if (/^[A-Za-z]/.test(s) && !s.startsWith("include") && s !== "ioengine") cands.add(s);
  }
}
const candList = [...cands].sort();
console.error(`${version}: ${candList.length} candidate names from ${binary}`);

// ---- probing --------------------------------------------------------------------------------
/** The candidates fio knows in a job section with this ioengine (each given "=" and no value). */
function probe(engine, list) {
  const file = join(tmp, "probe.fio");
  writeFileSync(file, `[probe]\nioengine=${engine}\n${list.map((c) => `${c}=`).join("\n")}\n`);
  const r = run(["--parse-only", file]);
  if (r.signal || r.status === null) {
    // an option's handler crashed on an empty value: split until the one is found (it is known)
    if (list.length === 1) return { known: new Set(list), deprecated: new Set() };
    const h = list.length >> 1;
    const a = probe(engine, list.slice(0, h));
    const b = probe(engine, list.slice(h));
    return { known: new Set([...a.known, ...b.known]), deprecated: new Set([...a.deprecated, ...b.deprecated]) };
  }
  const bad = new Set();
  const deprecated = new Set();
  for (const line of r.text.split("\n")) {
    let m = /^Bad option <(.*)=>$/.exec(line);
    if (m) bad.add(m[1]);
    m = /^Option (\S+) is deprecated$/.exec(line);
    if (m) deprecated.add(m[1]);
  }
  if (/fio: engine \S+ not loadable|failed to load engine/.test(r.text)) throw new Error(`ioengine=${engine} did not load:\n${r.text.slice(0, 2000)}`);
  const known = new Set(list.filter((c) => !bad.has(c)));
  if (known.size > 2000) throw new Error(`ioengine=${engine}: ${known.size} names known, the probe did not work:\n${r.text.slice(0, 2000)}`);
  return { known, deprecated };
}

function help(argv, asked) {
  const r = run(argv);
  const lines = r.text.split("\n").filter((l) => l.trim() !== "");
  const first = /^\s*(\S+): (.*)$/.exec(lines[0] ?? "");
  if (!first || first[1] === "alias") return undefined;
  const alias = lines.map((l) => /^\s*alias: (\S+)$/.exec(l)).find(Boolean)?.[1];
  if (first[1] !== asked && alias !== asked) return undefined;
  return { name: first[1], alias, help: first[2].trim() };
}

const engines = run(["--enghelp"]).text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("Available"));
console.error(`engines built in: ${engines.join(" ")}`);
const knownBy = new Map();
const deprecatedNames = new Set();
for (const e of engines) {
  const p = probe(e, candList);
  knownBy.set(e, p.known);
  p.deprecated.forEach((d) => deprecatedNames.add(d));
  console.error(`ioengine=${e}: ${p.known.size} names`);
}
// fio_options[] (with the profiles' options): what every engine knows
const base = [...knownBy.get(engines[0])].filter((n) => engines.every((e) => knownBy.get(e).has(n)));
base.push("ioengine");

// ---- fio_options[] ---------------------------------------------------------------------------
const profileOf = new Map();
for (const p of PROFILES) {
  const r = run([`--profile=${p}`, "--cmdhelp=all"]);
  for (const l of r.text.split("\n")) {
    const m = /^(\S+)\s*: /.exec(l);
    if (m) profileOf.set(m[1], p);
  }
}
const options = new Map(); // canonical name -> { alias?, help, deprecated?, profile? }
const aliasOf = new Map();
for (const n of base.sort()) {
  const h = help([`--cmdhelp=${n}`], n);
  if (h) {
    const o = options.get(h.name) ?? { help: h.help };
    if (h.alias) {
      o.alias = h.alias;
      aliasOf.set(h.alias, h.name);
    }
    options.set(h.name, o);
    continue;
  }
  if (deprecatedNames.has(n)) {
    const file = join(tmp, "dep.fio");
    writeFileSync(file, `[dep]\n${n}=1\n`);
    const r = run(["--parse-only", file]);
    options.set(n, { help: "", deprecated: /fio: failed parsing/.test(r.text) ? "refused" : "accepted" });
    continue;
  }
  if (profileOf.has(n)) {
    const p = profileOf.get(n);
    const ph = help([`--profile=${p}`, `--cmdhelp=${n}`], n);
    options.set(n, { help: ph?.help ?? "", profile: p });
    continue;
  }
  throw new Error(`fio knows "${n}" but neither --cmdhelp nor the deprecation probe says what it is`);
}
for (const a of aliasOf.keys()) options.delete(a); // a name met first as an alias

// ---- engine options ----------------------------------------------------------------------------
const baseSet = new Set(base);
const engineOptions = new Map();
for (const e of engines) {
  const own = [...knownBy.get(e)].filter((n) => !baseSet.has(n)).sort();
  const m = new Map();
  const aliases = new Set();
  for (const n of own) {
    const h = help([`--enghelp=${e},${n}`], n);
    if (!h) throw new Error(`ioengine=${e} knows "${n}" but --enghelp=${e},${n} does not say what it is`);
    const o = m.get(h.name) ?? { help: h.help };
    if (h.alias) {
      o.alias = h.alias;
      aliases.add(h.alias);
    }
    m.set(h.name, o);
  }
  for (const a of aliases) m.delete(a);
  engineOptions.set(e, m);
}
rmSync(tmp, { recursive: true, force: true });

// ---- the module ----------------------------------------------------------------------------------
const q = (s) => JSON.stringify(s);
const entry = (o) => {
  const parts = [];
  if (o.alias) parts.push(`alias: ${q(o.alias)}`);
  if (o.deprecated) parts.push(`deprecated: ${q(o.deprecated)}`);
  if (o.profile) parts.push(`profile: ${q(o.profile)}`);
  parts.push(`help: ${q(o.help)}`);
  return `{ ${parts.join(", ")} }`;
};
const lines = [];
lines.push(`// GENERATED by scripts/fio-option-names.mjs from ${version} (Debian's fio ${version.slice(4)} package). Do not edit.`);
lines.push("// Every option name a fio job file may use: fio_options[] of options.c (each .name, with its .alias),");
lines.push("// the profiles' options fio adds to it at start-up, and the options of each ioengine built into that");
lines.push("// fio (engines/*.c options[]). Read off the fio binary: each name is one fio --parse-only did not");
lines.push(`// call a "Bad option"; --cmdhelp / --enghelp told its own name, alias and help. To regenerate, install`);
lines.push("// the fio to follow and run `node scripts/fio-option-names.mjs` (see that script for the flags).");
lines.push("");
lines.push("export interface FioOptionName {");
lines.push("  /** the option's other name (fio_option.alias); the key is its .name */");
lines.push("  alias?: string;");
lines.push('  /** FIO_OPT_DEPRECATED: fio refuses it; FIO_OPT_SOFT_DEPRECATED: fio accepts it with "Option X is deprecated" */');
lines.push('  deprecated?: "refused" | "accepted";');
lines.push("  /** an option of this fio profile (fio --profile=...); fio accepts it in any job, where it does nothing */");
lines.push("  profile?: string;");
lines.push("  /** fio's one-line help (fio_option.help) */");
lines.push("  help: string;");
lines.push("}");
lines.push("");
lines.push(`/** The fio these names were read from. */`);
lines.push(`export const FIO_OPTION_NAMES_VERSION = ${q(version)};`);
lines.push("");
lines.push("/** fio_options[]: name -> entry. */");
lines.push("export const FIO_JOB_OPTIONS: Readonly<Record<string, FioOptionName>> = {");
for (const [n, o] of [...options].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(`  ${q(n)}: ${entry(o)},`);
lines.push("};");
lines.push("");
lines.push("/** Each ioengine built into that fio: its own options (name -> entry); found only when the job uses that engine. */");
lines.push("export const FIO_ENGINE_OPTIONS: Readonly<Record<string, Readonly<Record<string, FioOptionName>>>> = {");
for (const e of [...engines].sort()) {
  const m = engineOptions.get(e);
  if (m.size === 0) {
    lines.push(`  ${q(e)}: {},`);
    continue;
  }
  lines.push(`  ${q(e)}: {`);
  for (const [n, o] of [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1))) lines.push(`    ${q(n)}: ${entry(o)},`);
  lines.push("  },");
}
lines.push("};");
writeFileSync(out, `${lines.join("\n")}\n`);
console.error(`wrote ${out}: ${options.size} fio_options[] entries, ${aliasOf.size} aliases, ${engines.length} engines`);
