// The playground page: pick a scenario (or edit its files), run it in the
// worker, draw what came back; optionally run a second version/fix set with
// the same seed and show both side by side with their differences. The
// whole state lives in the URL hash (lib/urlstate.ts).

import "./styles.css";
import { RunError, SimClient } from "./client.js";
import type { FamilyInfo, RunRequest, RunView, ScenarioInfo } from "./families/types.js";
import { decodeState, encodeState, type PageState } from "./lib/urlstate.js";
import { diffTable } from "./lib/diff.js";
import { FileEditor } from "./ui/editor.js";
import { destroyCharts, renderRun, renderTable, resizeCharts } from "./ui/panels.js";
import { download } from "./lib/export.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const form = $<HTMLFormElement>("controls");
const scenarioSel = $<HTMLSelectElement>("scenario");
const desc = $<HTMLParagraphElement>("scenario-desc");
const seedIn = $<HTMLInputElement>("seed");
const versionSel = $<HTMLSelectElement>("version");
const versionLabel = $<HTMLLabelElement>("version-label");
const versionNote = $<HTMLSpanElement>("version-note");
const fixesA = $<HTMLFieldSetElement>("fixes-a");
const deviceSel = $<HTMLSelectElement>("device");
const deviceBox = $<HTMLDivElement>("device-box");
const compareBox = $<HTMLInputElement>("compare");
const vsVersionSel = $<HTMLSelectElement>("vs-version");
const fixesB = $<HTMLDivElement>("fixes-b");
const compareSet = $<HTMLFieldSetElement>("compare-set");
const runBtn = $<HTMLButtonElement>("run");
const cancelBtn = $<HTMLButtonElement>("cancel");
const resetBtn = $<HTMLButtonElement>("reset");
const linkBtn = $<HTMLButtonElement>("copy-link");
const progress = $<HTMLProgressElement>("progress");
const statusLine = $<HTMLParagraphElement>("status");
const linkNote = $<HTMLParagraphElement>("link-note");
const results = $<HTMLElement>("results");
const editor = new FileEditor($("editor"));

const client = new SimClient();
let families: FamilyInfo[] = [];
let runCount = 0;
/** the newest run request; an older run that ends after it is dropped */
let runSeq = 0;
let running = false;
/** the URL hash of the results on screen, and of the run under way */
let shownLink = "";
let runningLink = "";

function current(): { fam: FamilyInfo; sc: ScenarioInfo } | undefined {
  const [f, s] = scenarioSel.value.split("/");
  const fam = families.find((x) => x.id === f);
  const sc = fam?.scenarios.find((x) => x.id === s);
  return fam && sc ? { fam, sc } : undefined;
}

function fillScenarios(): void {
  scenarioSel.innerHTML = "";
  for (const f of families) {
    const g = document.createElement("optgroup");
    g.label = f.available ? f.title : `${f.title} — ${f.reason ?? "not in this build"}`;
    if (!f.available || f.scenarios.length === 0) {
      const o = new Option(f.reason ?? "no built-in scenarios yet", "");
      o.disabled = true;
      g.append(o);
    }
    for (const s of f.scenarios) g.append(new Option(s.title + (s.size ? ` (${s.size})` : ""), `${f.id}/${s.id}`));
    scenarioSel.append(g);
  }
}

function fixBoxes(box: HTMLElement, fam: FamilyInfo, checked: string[], prefix: string): void {
  box.innerHTML = "";
  for (const fx of fam.fixes) {
    const id = `${prefix}-${fx.id}`;
    const lab = document.createElement("label");
    lab.className = "check";
    lab.htmlFor = id;
    const cb = document.createElement("input");
    cb.type = "checkbox";
    cb.id = id;
    cb.value = fx.id;
    cb.checked = checked.includes(fx.id);
    lab.append(cb, ` ${fx.label}`);
    // on the checkbox too: its title is its accessible description ("#104526" alone says little)
    if (fx.detail) lab.title = cb.title = fx.detail;
    box.append(lab);
  }
}

function checkedFixes(box: HTMLElement): string[] {
  return [...box.querySelectorAll<HTMLInputElement>("input[type=checkbox]")].filter((c) => c.checked).map((c) => c.value);
}

/**
 * Fill a version selector; `named`, the version the scenario names, is
 * offered too when the family's list lacks it (a patch release such as
 * 1.22.3, placed after its minor).
 */
function fillVersions(sel: HTMLSelectElement, fam: FamilyInfo, value: string, fallback = fam.defaultVersion, named?: string): void {
  sel.innerHTML = "";
  const list = [...fam.versions];
  if (named !== undefined && !list.includes(named)) {
    const minor = named.split(".").slice(0, 2).join(".");
    const at = list.indexOf(minor);
    list.splice(at < 0 ? list.length : at + 1, 0, named);
  }
  for (const v of list) sel.append(new Option(v, v));
  sel.value = list.includes(value) ? value : list.includes(fallback) ? fallback : fam.defaultVersion;
}

/** the version a scenario's files name (a Kubernetes timeline's top-level `version:`), if its family reads one */
function versionNamedIn(fam: FamilyInfo, texts: Record<string, string>): string | undefined {
  const vi = fam.versionIn;
  if (!vi) return undefined;
  const m = new RegExp(`^${vi.key}:[ \\t]*["']?v?(1\\.\\d+(?:\\.\\d+)?)["']?[ \\t]*(?:#.*)?$`, "m").exec(texts[vi.file] ?? "");
  return m?.[1];
}
/** the version the scenario in the editor names, as last followed */
let lastNamed: string | undefined;

/** Say which version the scenario names and whether the selector runs another. */
function updateVersionNote(): void {
  versionNote.hidden = lastNamed === undefined;
  if (lastNamed === undefined) return;
  versionNote.textContent = versionSel.value === lastNamed ? `as the timeline names` : `the timeline names ${lastNamed}`;
}

/**
 * The user edited the scenario: when the version it names changed, the
 * selector follows it (the scenario runs at the version it names); a version
 * picked in the selector stays until the text names another.
 */
function followNamedVersion(): void {
  const cur = current();
  if (!cur) return;
  const named = versionNamedIn(cur.fam, editor.texts());
  if (named !== undefined && named !== lastNamed) {
    const picked = versionSel.value;
    fillVersions(versionSel, cur.fam, named, picked, named);
  }
  lastNamed = named;
  updateVersionNote();
}

/** Put a scenario (and optionally a saved state) into the form. */
function applyScenario(st: Partial<PageState>): void {
  const cur = current();
  if (!cur) return;
  const { fam, sc } = cur;
  desc.textContent = sc.description;
  versionLabel.textContent = fam.versionLabel === "kernel" ? "Kernel" : `${fam.versionLabel} version`;
  const texts = { ...sc.files, ...(st.files ?? {}) };
  // the version the scenario names runs unless the link picks another; a version
  // this page does not offer falls back to the scenario's own (the incident's), not the family's
  const named = versionNamedIn(fam, texts);
  lastNamed = named;
  fillVersions(versionSel, fam, st.version ?? named ?? sc.version ?? fam.defaultVersion, named ?? sc.version ?? fam.defaultVersion, named);
  deviceBox.hidden = !fam.devices?.length;
  deviceSel.innerHTML = "";
  deviceSel.append(new Option("as built in", ""));
  for (const d of fam.devices ?? []) deviceSel.append(new Option(`${d} preset`, d));
  deviceSel.value = st.device && fam.devices?.includes(st.device) ? st.device : "";
  const fixes = st.fixes ?? sc.fixes ?? [];
  fixesA.hidden = fam.fixes.length === 0;
  fixBoxes(fixesA.querySelector(".boxes")!, fam, fixes, "fa");
  compareBox.checked = !!st.vs || (!!sc.compareVersion && st.vs === undefined && !st.family);
  const otherVersion = sc.compareVersion ?? fam.versions.find((v) => v !== versionSel.value) ?? versionSel.value;
  fillVersions(vsVersionSel, fam, st.vs?.version ?? otherVersion);
  // by default the comparison flips the fixes (all on vs as-is)
  fixBoxes(fixesB, fam, st.vs?.fixes ?? (fixes.length || sc.compareVersion ? [] : fam.fixes.map((f) => f.id)), "fb");
  syncCompare();
  if (st.seed !== undefined) seedIn.value = String(st.seed);
  editor.setFiles(fam.files.map((f) => ({ name: f.name, syntax: f.syntax, text: texts[f.name] ?? "", readOnly: /read-only/.test(f.syntax) })));
  updateResetButton();
  updateVersionNote();
}

function syncCompare(): void {
  compareSet.classList.toggle("off", !compareBox.checked);
  vsVersionSel.disabled = !compareBox.checked;
  fixesB.querySelectorAll<HTMLInputElement>("input").forEach((i) => (i.disabled = !compareBox.checked));
}

function editedFiles(): Record<string, string> | undefined {
  const cur = current();
  if (!cur) return undefined;
  const t = editor.texts();
  const changed = Object.entries(t).some(([k, v]) => (cur.sc.files[k] ?? "") !== v);
  return changed ? t : undefined;
}

function updateResetButton(): void {
  resetBtn.disabled = !editedFiles();
}

/** The seed field as the CLI's --seed takes it: a whole number, 0 .. 2^53 − 1; undefined otherwise. */
function seedValue(): number | undefined {
  const v = seedIn.value.trim();
  const n = Number(v);
  return /^\d+$/.test(v) && Number.isSafeInteger(n) ? n : undefined;
}

/** Say what is wrong with the seed (not silently run seed 0 for "1.5" or "-3"); true when it is fine. */
function checkSeed(): boolean {
  const ok = seedValue() !== undefined;
  seedIn.setAttribute("aria-invalid", String(!ok));
  if (!ok) {
    statusLine.textContent = `Error: Seed must be a whole number from 0 to 9007199254740991, got "${seedIn.value}".` +
      (results.querySelector(".run") ? " The results shown are from the previous run." : "");
    seedIn.focus();
  }
  return ok;
}

function pageState(): PageState | undefined {
  const cur = current();
  if (!cur) return undefined;
  const seed = seedValue() ?? 0;
  return {
    family: cur.fam.id,
    scenario: cur.sc.id,
    seed,
    version: versionSel.value,
    fixes: checkedFixes(fixesA),
    device: deviceSel.value || undefined,
    vs: compareBox.checked ? { version: vsVersionSel.value, fixes: checkedFixes(fixesB) } : undefined,
    files: editedFiles(),
  };
}

function setBusy(busy: boolean): void {
  // a disabled button loses focus to <body>: keep a keyboard user on Run/Cancel
  const focusRun = document.activeElement === runBtn, focusCancel = document.activeElement === cancelBtn;
  running = busy;
  runBtn.disabled = busy;
  cancelBtn.disabled = !busy;
  if (busy && focusRun) cancelBtn.focus();
  if (!busy && focusCancel) runBtn.focus();
  progress.hidden = !busy;
  results.setAttribute("aria-busy", String(busy));
  if (busy) results.dataset.state = "running";
}

/**
 * Run what the form says. A run asked for while another is under way (Enter
 * after an edit, a new scenario picked, a link pasted) replaces it: the worker
 * is restarted and the older run's outcome is dropped, so the results never
 * belong to another URL. Asking again for the run under way changes nothing.
 */
async function run(fromLink = false): Promise<void> {
  const st = pageState();
  if (!fromLink) setLinkNote([]);
  if (!st || !checkSeed()) return;
  const link = await encodeState(st);
  if (running && link === runningLink) return;
  const token = ++runSeq;
  if (running) client.cancel();
  runningLink = link;
  history.replaceState(null, "", link);
  editor.clearError();
  setBusy(true);
  progress.removeAttribute("value");
  const t0 = performance.now();
  const reqs: RunRequest[] = [{ family: st.family, scenario: st.scenario, seed: st.seed, version: st.version, fixes: st.fixes, device: st.device, files: st.files }];
  if (st.vs) reqs.push({ ...reqs[0]!, version: st.vs.version, fixes: st.vs.fixes });
  statusLine.textContent = `Running ${reqs.length === 2 ? "two runs" : "…"}`;
  try {
    const views: RunView[] = [];
    for (const [i, r] of reqs.entries()) {
      const view = await client.run(r, (fraction, simNs) => {
        if (token !== runSeq) return;
        if (fraction !== undefined) progress.value = (i + fraction) / reqs.length;
        statusLine.textContent = `Run ${i + 1}/${reqs.length}: ${(simNs / 1e9).toFixed(2)} s simulated`;
      });
      if (token !== runSeq) return;
      views.push(view);
    }
    const ms = performance.now() - t0;
    show(views, ms);
    shownLink = link;
    editor.setWarnings(placedWarnings(views));
  } catch (e) {
    if (token !== runSeq) return; // replaced by a newer run
    const info = e instanceof RunError ? e.info : { message: String((e as Error)?.message ?? e) };
    const cancelled = info.message === "cancelled";
    results.dataset.state = cancelled ? "cancelled" : "error";
    // the results stay on screen; say whose they are
    const stale = results.querySelector(".run") ? " The results shown are from the previous run." : "";
    statusLine.textContent = (cancelled ? "Cancelled." : `Error: ${info.message}`) + stale;
    if (!cancelled) editor.showError(info.message, info.file, info.line);
  } finally {
    if (token === runSeq) setBusy(false);
  }
}

/** Warnings that name a place ("jobs.fio:8: ...") for the editor's gutter. */
function placedWarnings(views: RunView[]): Array<{ file: string; line: number; message: string }> {
  return [...new Set(views.flatMap((v) => v.warnings))].flatMap((w) => {
    const m = /^([\w.-]+):(\d+):/.exec(w);
    return m ? [{ file: m[1]!, line: Number(m[2]), message: w }] : [];
  });
}

function show(views: RunView[], ms: number): void {
  destroyCharts();
  results.innerHTML = "";
  const grid = document.createElement("div");
  grid.className = views.length > 1 ? "runs two" : "runs";
  views.forEach((v, i) => grid.append(renderRun(v, i ? "b" : "a")));
  if (views.length === 2) {
    const d = diffTable(views[0]!.summary, views[1]!.summary, views[0]!.label, views[1]!.label);
    if (d) results.append(renderTable(d, "diff"));
  }
  results.append(grid);
  runCount++;
  results.dataset.state = "done";
  results.dataset.run = String(runCount);
  results.dataset.clientMs = ms.toFixed(1);
  const diffCells = results.querySelectorAll("#diff tbody td");
  const same = views.length === 2 && [...diffCells].every((td) => td.textContent === "=");
  statusLine.textContent = `Done in ${ms.toFixed(0)} ms (simulation ${views.map((v) => v.wallMs.toFixed(0) + " ms").join(" + ")})` +
    (views.length === 2 ? (same ? " — the same numbers in both runs." : " — the runs differ: see the difference table.") : ".");
}

// ---- wiring ----------------------------------------------------------------

form.addEventListener("submit", (e) => {
  e.preventDefault();
  void run();
});
form.addEventListener("keydown", (e) => {
  const t = e.target as HTMLElement;
  if (e.key !== "Enter") return;
  if (t instanceof HTMLTextAreaElement) {
    if (e.ctrlKey || e.metaKey) { e.preventDefault(); form.requestSubmit(); }
    return;
  }
  if (t instanceof HTMLButtonElement) return;
  if (t instanceof HTMLSelectElement || t instanceof HTMLInputElement) { e.preventDefault(); form.requestSubmit(); }
});
scenarioSel.addEventListener("change", () => {
  // the seed field stays as it is (seed 0 included)
  applyScenario({});
  void run();
});
compareBox.addEventListener("change", syncCompare);
cancelBtn.addEventListener("click", () => client.cancel());
resetBtn.addEventListener("click", () => {
  const cur = current();
  if (!cur) return;
  applyScenario({ version: versionSel.value, fixes: checkedFixes(fixesA), seed: Number(seedIn.value), device: deviceSel.value || undefined });
  editor.focus();
});
editor.onChange = () => {
  updateResetButton();
  followNamedVersion();
};
// another release: run at once (the selector is how a scenario is rerun at another release)
versionSel.addEventListener("change", () => {
  updateVersionNote();
  void run();
});
linkBtn.addEventListener("click", async () => {
  const st = pageState();
  if (!st || !checkSeed()) return;
  const link = await encodeState(st);
  history.replaceState(null, "", link);
  // the link holds the form; say so when the form is not what the results on screen ran
  const note = link === shownLink ? "." : ": it holds the settings in the form, which have not been run yet (the results shown are for other settings; press Run).";
  try {
    await navigator.clipboard.writeText(location.href);
    statusLine.textContent = "Link copied" + note;
  } catch {
    statusLine.textContent = "Link is in the address bar" + note;
  }
});
// ---- files on disk: open (button or drop) and save ---------------------------
//
// A fio job file (.fio, .ini, .job, ...) replaces jobs.fio of the block-IO
// scenario shown (or of the io.max demo when the one shown has none); a
// Kubernetes timeline (a YAML with objects:/timeline:) replaces timeline.yaml;
// any other YAML is a whole iosim scenario, opened as "Scenario file (YAML)"
// with its kernel: line as the kernel. Then it runs. Save downloads the file
// in the tab shown, as edited.

const fileInput = $<HTMLInputElement>("file-input");

function selectFamily(familyId: string, prefer?: string): boolean {
  const fam = families.find((f) => f.id === familyId && f.available && f.scenarios.length);
  if (!fam) return false;
  const sc = fam.scenarios.find((x) => x.id === prefer) ?? fam.scenarios[0]!;
  scenarioSel.value = `${fam.id}/${sc.id}`;
  applyScenario({});
  return true;
}

async function openText(name: string, text: string): Promise<void> {
  const isYaml = /\.ya?ml$/i.test(name);
  const k8sLike = isYaml && /^(objects|timeline|incident|apiVersion|steps)\s*:/m.test(text) && !/^jobs\s*:/m.test(text);
  let target: string;
  if (!isYaml) {
    target = "jobs.fio";
    if (!current()?.fam.files.some((f) => f.name === target)) selectFamily("throttle", "iomax-demo") || selectFamily("block");
  } else if (k8sLike) {
    target = "timeline.yaml";
    if (!current()?.fam.files.some((f) => f.name === target)) selectFamily("k8s");
  } else {
    target = "scenario.yaml";
    if (current()?.fam.id !== "file") selectFamily("file");
    const kernel = /^kernel:\s*["']?([\d.]+)/m.exec(text)?.[1];
    if (kernel && [...versionSel.options].some((o) => o.value === kernel)) versionSel.value = kernel;
  }
  if (!editor.setText(target, text)) {
    statusLine.textContent = `Error: ${name}: this page has no scenario that takes a ${target}.`;
    return;
  }
  statusLine.textContent = `Opened ${name} as ${target}.`;
  updateResetButton();
  await run();
}

async function openFiles(list: FileList | null | undefined): Promise<void> {
  const f = list?.[0];
  if (!f) return;
  await openText(f.name, await f.text());
}

$("open-file").addEventListener("click", () => fileInput.click());
fileInput.addEventListener("change", () => {
  void openFiles(fileInput.files).finally(() => (fileInput.value = ""));
});
$("save-file").addEventListener("click", () => {
  const f = editor.currentFile();
  if (f) download(f.name, f.text, /\.ya?ml$/.test(f.name) ? "application/yaml" : "text/plain");
});
document.addEventListener("dragover", (e) => {
  if (!e.dataTransfer?.types.includes("Files")) return;
  e.preventDefault();
  form.classList.add("drop-target");
});
document.addEventListener("dragleave", (e) => {
  if (!e.relatedTarget) form.classList.remove("drop-target");
});
document.addEventListener("drop", (e) => {
  form.classList.remove("drop-target");
  if (!e.dataTransfer?.files.length) return;
  e.preventDefault();
  void openFiles(e.dataTransfer.files);
});

let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = window.setTimeout(resizeCharts, 100);
});

/** What a link asked for that this page cannot run, shown until the next run the user asks for. */
function setLinkNote(notes: string[]): void {
  linkNote.textContent = notes.length ? `This link asked for what this page cannot run: ${notes.join("; ")}.` : "";
  linkNote.hidden = notes.length === 0;
}

/**
 * Select and fill in what a URL hash says (a pasted link, back/forward). What
 * cannot be honoured (a version, device, fix or scenario this build lacks, a
 * damaged edit) is listed in the link note: a reproducible link that quietly
 * ran something else (v=1.99 ran 1.22) would pass for a reproduction.
 */
async function applyHash(): Promise<void> {
  const st = await decodeState(location.hash);
  const notes = [...st.problems];
  const wanted = st.family && st.scenario ? `${st.family}/${st.scenario}` : undefined;
  const firstAvailable = [...scenarioSel.options].find((o) => !o.disabled && o.value)?.value ?? "";
  scenarioSel.value = wanted && [...scenarioSel.options].some((o) => o.value === wanted && !o.disabled) ? wanted : firstAvailable;
  if (wanted && scenarioSel.value !== wanted) notes.push(`scenario "${wanted}" is not in this build (ran ${scenarioSel.value})`);
  applyScenario({ ...st, seed: st.seed ?? 1 });
  const cur = current();
  if (cur && scenarioSel.value === wanted) {
    if (st.version && versionSel.value !== st.version) notes.push(`version ${st.version} is not offered (ran ${versionSel.value})`);
    if (st.vs && vsVersionSel.value !== st.vs.version) notes.push(`comparison version ${st.vs.version} is not offered (ran ${vsVersionSel.value})`);
    if (st.device && deviceSel.value !== st.device) notes.push(`device preset "${st.device}" is unknown (ran the scenario's own device)`);
    const known = new Set(cur.fam.fixes.map((f) => f.id));
    const unknown = [...(st.fixes ?? []), ...(st.vs?.fixes ?? [])].filter((f) => !known.has(f));
    if (unknown.length) notes.push(`fix ${[...new Set(unknown)].join(", ")} is unknown (left out)`);
  }
  setLinkNote(notes);
}

async function init(): Promise<void> {
  statusLine.textContent = "Loading the simulator…";
  families = await client.catalog();
  fillScenarios();
  await applyHash();
  document.body.dataset.ready = "1";
  // our own updates use history.replaceState, which fires no hashchange
  // a pasted link replaces a run under way (run() restarts the worker)
  window.addEventListener("hashchange", async () => {
    await applyHash();
    await run(true);
  });
  await run(true);
}

void init();
