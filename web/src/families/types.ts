// What the page and the worker exchange, and what a scenario family is.
//
// A *family* is one capability of iosim seen from the playground: plain
// block IO, blk-throttle (io.max), blk-iocost (io.weight), writeback
// ownership, Kubernetes incident replay. Each lives in one adapter module
// (web/src/families/<name>.ts) that runs in the Web Worker:
//
//   load()  -> FamilyInfo: is the capability in this build (its modules
//              exist and registered themselves)? which built-in scenarios,
//              versions, fixes and editable files does it offer?
//   run()   -> RunView: run one scenario and turn its result into plain
//              panels (tables, time-series charts, swimlanes, callouts)
//              that the page draws without knowing the family.
//
// A family whose capability has not landed reports `available: false` with
// a reason; the page lists it greyed out instead of failing to build.
// Everything here is structured-clone friendly (crosses postMessage).

/** One run the page asks for. */
export interface RunRequest {
  family: string;
  scenario: string;
  seed: number;
  /** kernel version for block-IO families, Kubernetes version for k8s */
  version: string;
  /** fix switches (Kubernetes: upstream fix PRs applied) */
  fixes: string[];
  /** device preset replacing the scenario's first device (block IO); undefined = as built in */
  device?: string;
  /** edited files (name -> text); undefined = the built-in scenario as is */
  files?: Record<string, string>;
}

export interface ScenarioInfo {
  id: string;
  title: string;
  description: string;
  /** the scenario as editable text, one entry per file the family reads */
  files: Record<string, string>;
  /** default version for this scenario (e.g. the version an incident happened on) */
  version?: string;
  /** default version of the comparison run (e.g. the version with the fix) */
  compareVersion?: string;
  /** default fixes */
  fixes?: string[];
  /** a hint shown next to the run button (e.g. "1 M bios") */
  size?: string;
}

export interface FixInfo {
  id: string;
  label: string;
  /** e.g. the upstream PR */
  detail?: string;
}

export interface FamilyInfo {
  id: string;
  title: string;
  available: boolean;
  /** why not, when not available */
  reason?: string;
  versions: string[];
  defaultVersion: string;
  /** what "version" means here, e.g. "kernel" or "Kubernetes" */
  versionLabel: string;
  fixes: FixInfo[];
  /** device presets the scenario's device can be swapped for (block IO) */
  devices?: string[];
  /**
   * The scenario names the version it runs at in one of its files (a
   * Kubernetes timeline's top-level `version:`): the page runs at that
   * version unless the user picks another, and says which it ran.
   */
  versionIn?: { file: string; key: string };
  /** editable file names, in tab order, with the syntax each uses */
  files: Array<{ name: string; syntax: string }>;
  scenarios: ScenarioInfo[];
}

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
}

export interface ChartPanel {
  kind: "chart";
  id: string;
  title: string;
  /** y-axis unit, e.g. "MiB/s", "ms" */
  unit: string;
  /** x values in seconds of simulated time */
  x: number[];
  series: ChartSeries[];
  /** draw as steps (values hold until the next point) */
  stepped?: boolean;
  note?: string;
}

export interface TablePanel {
  kind: "table";
  id: string;
  title: string;
  columns: string[];
  /** cells as displayed; `key` per row lets tests and diffs find rows */
  rows: Array<{ key: string; cells: string[] }>;
  note?: string;
}

export interface LaneEvent {
  tNs: number;
  label: string;
  detail?: string;
  level?: "info" | "warn" | "error";
  /** events with a duration (e.g. an operation in flight) */
  endNs?: number;
}

export interface SwimlanePanel {
  kind: "swimlane";
  id: string;
  title: string;
  endNs: number;
  lanes: Array<{ name: string; events: LaneEvent[] }>;
  /** a vertical marker, e.g. where the invariant broke */
  marker?: { tNs: number; label: string };
}

export interface CalloutPanel {
  kind: "callout";
  id: string;
  title: string;
  level: "ok" | "fail" | "info";
  text: string;
}

export type Panel = ChartPanel | TablePanel | SwimlanePanel | CalloutPanel;

export interface RunView {
  family: string;
  scenario: string;
  /** "6.18", "1.27 + fixes", ... */
  label: string;
  seed: number;
  /** SHA-256 of the canonical JSON of the family's raw result (see bindings/report/result-hash.ts) */
  hash: string;
  /** wall time of the simulation itself in the worker */
  wallMs: number;
  simulatedNs: number;
  events: number;
  /** the headline table (per cgroup, per component, ...) */
  summary: TablePanel;
  panels: Panel[];
  warnings: string[];
}

/** Where an input error points, for the editor. */
export interface ErrorInfo {
  message: string;
  file?: string;
  line?: number;
  field?: string;
}

export interface Family {
  id: string;
  title: string;
  load(): Promise<FamilyInfo>;
  run(req: RunRequest, onProgress: (fraction: number | undefined, simulatedNs: number) => void): Promise<RunView>;
}

// ---- worker protocol -------------------------------------------------------

export type ToWorker =
  | { type: "catalog" }
  | { type: "run"; id: number; req: RunRequest };

export type FromWorker =
  | { type: "catalog"; families: FamilyInfo[] }
  | { type: "progress"; id: number; fraction?: number; simulatedNs: number }
  | { type: "done"; id: number; view: RunView }
  | { type: "error"; id: number; error: ErrorInfo };
