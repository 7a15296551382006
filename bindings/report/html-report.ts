// A run as one self-contained web page (`iosim run --report FILE.html`, and
// report.html in --out): the playground's picture of a run without the
// playground. Everything is inside the file, so it opens from disk, offline,
// attached to a ticket:
//
//  * charts drawn by uPlot (the playground's chart library), whose script
//    and style are inlined: IOPS, bandwidth and p99 latency per cgroup and
//    direction over time, and blk-iocost's vrate when the run had it;
//  * the summary table (the rows `iosim run` prints), the warnings first,
//    io.stat per cgroup, and the result hash that identifies the run;
//  * the data itself (the dense series) in a <script type="application/json">,
//    which a reader can lift out.
//
// No request leaves the page: no fonts, no CDN, no images.
//
// Worked example: the io.max demo -> charts "IOPS", "MiB/s", "p99 latency"
// with one line per cgroup and direction ("a read", "b write", ...), the
// table of the CLI's summary, and io.stat of every cgroup.

import type { RunResult } from "../scenario/types.js";
import { denseSeries } from "./series.js";

export interface VrateSeries {
  dev: string;
  /** seconds */
  x: number[];
  /** percent */
  y: number[];
}

export interface ReportRow {
  cgroup: string;
  dir: string;
  ios: number;
  mibPerS: number;
  iops: number;
  meanLatNs: number;
  p99LatNs: number;
  throttleWaitNs: number;
  /** the p99 is in fio's last histogram bucket: shown as ">17.11 s" */
  p99PastHistogram?: boolean;
}

export interface HtmlReportInput {
  result: RunResult;
  rows: ReportRow[];
  ioStat: Record<string, string>;
  hash: string;
  /** the notes `iosim run` prints under its summary table (why a mean is above a p99, a rate above a cap) */
  notes?: string[];
  vrate?: VrateSeries[];
  /** uPlot's iife script and its CSS, inlined */
  uplot: { js: string; css: string };
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
/** JSON inside <script>: no "</script>" can close it early */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");

function fmtNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(1)} µs`;
  return `${Math.round(ns)} ns`;
}

export function htmlReport(x: HtmlReportInput): string {
  const r = x.result;
  const dense = r.seriesBinNs > 0 && r.series.length ? denseSeries(r) : undefined;
  const data = {
    binS: dense ? dense.binNs / 1e9 : 0,
    t: dense ? dense.t0Ns.map((t) => t / 1e9) : [],
    series: (dense?.series ?? []).map((s) => ({
      label: `${s.cgroup || "/"} ${s.dir}`,
      iops: s.ios.map((n) => (n * 1e9) / dense!.binNs),
      mibs: s.bytes.map((b) => (b * 1e9) / dense!.binNs / 1048576),
      p99ms: s.p99LatNs.map((v) => (v === null ? null : v / 1e6)),
    })),
    vrate: x.vrate ?? [],
  };
  const rows = x.rows
    .map((w) => `<tr><td>${esc(w.cgroup || "/")}</td><td>${w.dir}</td><td>${w.ios}</td><td>${w.mibPerS.toFixed(2)}</td><td>${Math.round(w.iops)}</td><td>${fmtNs(w.meanLatNs)}</td><td>${w.p99PastHistogram ? "&gt;" : ""}${fmtNs(w.p99LatNs)}</td><td>${w.throttleWaitNs > 0 ? fmtNs(w.throttleWaitNs) : "–"}</td></tr>`)
    .join("\n");
  const warnings = r.warnings.length
    ? `<section class="warn"><h2>${r.warnings.length} warning${r.warnings.length === 1 ? "" : "s"}</h2><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul></section>`
    : "";
  const iostat = Object.entries(x.ioStat).map(([cg, t]) => `<h3>${esc(cg || "/")}</h3><pre>${esc(t)}</pre>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>iosim: ${esc(r.scenario)}</title>
<style>${x.uplot.css}</style>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1100px; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; } .meta { color: #555; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 2px 10px; text-align: right; border-bottom: 1px solid #ddd; }
td:first-child, th:first-child, td:nth-child(2), th:nth-child(2) { text-align: left; }
.warn { background: #fff4e5; border-left: 4px solid #e69500; padding: 0.3em 1em; }
.chart { margin: 1em 0; } pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
code { font-size: 0.95em; }
</style>
</head>
<body>
<h1>${esc(r.scenario)}</h1>
<p class="meta">${(r.simulatedNs / 1e9).toFixed(3)} s simulated · kernel ${esc(r.kernel)} · seed ${r.seed} · result sha256 <code>${esc(x.hash)}</code></p>
${warnings}
<h2>Summary</h2>
<table id="summary"><thead><tr><th>cgroup</th><th>dir</th><th>IOs</th><th>MiB/s</th><th>IOPS</th><th>mean lat</th><th>p99 lat</th><th>throttled (avg)</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${x.notes?.length ? `<ul class="notes">${x.notes.map((n) => `<li>${esc(n.replace(/^note: /, ""))}</li>`).join("")}</ul>` : ""}
<h2>Over time</h2>
<div id="charts">${data.t.length ? "" : "<p>This run kept no time series (series: 0).</p>"}</div>
<h2>io.stat</h2>
${iostat}
<script type="application/json" id="iosim-data">${scriptJson(data)}</script>
<script>${x.uplot.js}</script>
<script>
(function () {
  var d = JSON.parse(document.getElementById("iosim-data").textContent);
  var host = document.getElementById("charts");
  var colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var width = Math.min(1000, host.clientWidth || 1000);
  function chart(title, unit, x, series, stepped) {
    var el = document.createElement("div");
    el.className = "chart";
    host.appendChild(el);
    var opts = {
      title: title, width: width, height: 260,
      scales: { x: { time: false }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } } },
      axes: [{ label: "s" }, { label: unit }],
      series: [{ label: "t (s)" }].concat(series.map(function (s, i) {
        return { label: s.label, stroke: colors[i % colors.length], width: 1.5, spanGaps: false, paths: stepped ? uPlot.paths.stepped({ align: 1 }) : undefined };
      })),
    };
    new uPlot(opts, [x].concat(series.map(function (s) { return s.values; })), el);
  }
  if (d.t.length) {
    chart("IOPS", "IO/s", d.t, d.series.map(function (s) { return { label: s.label, values: s.iops }; }), true);
    chart("Bandwidth", "MiB/s", d.t, d.series.map(function (s) { return { label: s.label, values: s.mibs }; }), true);
    chart("p99 latency per bin", "ms", d.t, d.series.map(function (s) { return { label: s.label, values: s.p99ms }; }), true);
  }
  d.vrate.forEach(function (v) { chart("blk-iocost vrate (" + v.dev + ")", "%", v.x, [{ label: "vrate", values: v.y }], true); });
  document.body.setAttribute("data-charts", String(document.querySelectorAll(".chart canvas").length));
})();
</script>
</body>
</html>
`;
}
