// Draws a RunView (see families/types.ts) without knowing its family: the
// headline table, then each panel — uPlot charts, tables, swimlanes (SVG,
// with the same events as a table for screen readers), callouts.

import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { CalloutPanel, ChartPanel, Panel, RunView, SwimlanePanel, TablePanel } from "../families/types.js";
import { niceTicks } from "../lib/ticks.js";
import { tickLabels, zeroBased } from "../lib/axis.js";
import { chartCsv, chartSvg, download } from "../lib/export.js";

export const PALETTE = ["#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#be185d", "#4b5563"];

const charts = new Set<{ plot: uPlot; box: HTMLElement }>();

export function destroyCharts(): void {
  charts.forEach((c) => c.plot.destroy());
  charts.clear();
}

export function resizeCharts(): void {
  charts.forEach((c) => {
    if (!c.box.isConnected) return;
    c.plot.setSize({ width: chartWidth(c.box), height: c.plot.height });
  });
}

function chartWidth(box: HTMLElement): number {
  // the box's own width (a 390 px phone leaves ~300 px), never wider than it
  return Math.max(120, Math.floor(box.clientWidth));
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function fmtNs(ns: number): string {
  if (ns === 0) return "0";
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(ns % 1e9 === 0 ? 0 : 2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(1)} ms`;
  return `${(ns / 1e3).toFixed(0)} µs`;
}

/** One run's column: header line, summary, panels. */
export function renderRun(view: RunView, idPrefix: string): HTMLElement {
  const col = el("section", { class: "run", "aria-label": `Run ${view.label}`, "data-hash": view.hash, "data-wall-ms": String(view.wallMs), "data-events": String(view.events) });
  const head = el("div", { class: "run-head" });
  head.append(
    el("h2", {}, view.label),
    el("span", { class: "meta" }, `seed ${view.seed} · ${fmtNs(view.simulatedNs)} simulated · ${view.events.toLocaleString("en-US")} events · ${view.wallMs.toFixed(0)} ms wall`),
  );
  const hash = el("code", { class: "hash", title: "SHA-256 of the canonical result JSON: the same in Node for the same scenario and seed" }, view.hash.slice(0, 16));
  head.append(hash);
  col.append(head);
  col.append(renderTable(view.summary, `${idPrefix}-summary`));
  for (const w of view.warnings) col.append(el("p", { class: "warning" }, w));
  // charts flow in a grid (two or more per row when there is room); other panels take the full width
  let grid: HTMLElement | undefined;
  for (const p of view.panels) {
    const node = renderPanel(p, `${idPrefix}-${p.id}`);
    if (p.kind === "chart") {
      if (!grid) { grid = el("div", { class: "charts" }); col.append(grid); }
      grid.append(node);
    } else {
      grid = undefined;
      col.append(node);
    }
  }
  return col;
}

export function renderPanel(p: Panel, id: string): HTMLElement {
  switch (p.kind) {
    case "chart": return renderChart(p, id);
    case "table": return renderTable(p, id);
    case "swimlane": return renderSwimlane(p, id);
    case "callout": return renderCallout(p, id);
  }
}

export function renderTable(t: TablePanel, id: string): HTMLElement {
  const fig = el("figure", { class: "panel table-panel", id });
  const cap = el("figcaption", {}, t.title);
  fig.append(cap);
  const table = el("table", { "data-table": t.id });
  const thead = el("thead");
  const hr = el("tr");
  t.columns.forEach((c, i) => hr.append(el("th", { scope: "col", class: i ? "num" : "" }, c)));
  thead.append(hr);
  const tbody = el("tbody");
  for (const r of t.rows) {
    const tr = el("tr", { "data-key": r.key });
    r.cells.forEach((c, i) => {
      const td = i === 0 ? el("th", { scope: "row" }, c) : el("td", { class: c === "=" || /^[-+−–0-9.,\s]+[a-zµ/%]*\s*[a-zA-Z/%]*$/.test(c) ? "num" : "" }, c);
      td.setAttribute("data-col", t.columns[i] ?? String(i));
      if (c.length > 90) {
        td.textContent = c.slice(0, 88) + "…";
        td.title = c;
        td.classList.add("long");
      }
      tr.append(td);
    });
    tbody.append(tr);
  }
  table.append(thead, tbody);
  fig.append(table);
  if (t.note) fig.append(el("p", { class: "note" }, t.note));
  return fig;
}

function renderChart(c: ChartPanel, id: string): HTMLElement {
  const fig = el("figure", { class: "panel chart-panel", id });
  fig.append(el("figcaption", {}, `${c.title} (${c.unit})`));
  const box = el("div", { class: "chart", role: "img", "aria-label": `${c.title}: ${c.series.map((s) => s.label).join(", ")} over time` });
  fig.append(box);
  if (c.note) fig.append(el("p", { class: "note" }, c.note));
  // exports: the picture (PNG from uPlot's canvas, SVG drawn from the data) and the data (CSV)
  let plot: uPlot | undefined;
  const tools = el("div", { class: "export", role: "group", "aria-label": `Export ${c.title}` });
  const btn = (label: string, title: string, act: () => void) => {
    const b = el("button", { type: "button", class: "small", title, "data-export": label.toLowerCase() }, label);
    b.addEventListener("click", act);
    tools.append(b);
  };
  btn("PNG", "Download the chart as a PNG picture", () => {
    plot?.ctx.canvas.toBlob((b) => { if (b) download(`${id}.png`, b); }, "image/png");
  });
  btn("SVG", "Download the chart as an SVG picture", () => download(`${id}.svg`, chartSvg(c, PALETTE), "image/svg+xml"));
  btn("CSV", "Download the chart's data as CSV", () => download(`${id}.csv`, chartCsv(c), "text/csv"));
  fig.insertBefore(tools, box);
  // uPlot needs the box in the document to measure it
  requestAnimationFrame(() => {
    const opts: uPlot.Options = {
      width: chartWidth(box),
      height: 200,
      // y from 0, labels with the step's decimals (lib/axis.ts: a flat 0.2428 ms line was zoomed into its noise, ticks all "0.243")
      scales: { x: { time: false }, y: { range: (_u, min, max) => { const [lo, hi] = zeroBased(min, max); return uPlot.rangeNum(lo, hi, 0.1, true); } } },
      axes: [
        { label: "simulated time (s)", size: 36, labelSize: 18, stroke: "#475569", grid: { stroke: "#e2e8f0" } },
        { label: c.unit, size: 56, labelSize: 18, stroke: "#475569", grid: { stroke: "#e2e8f0" },
          values: (_u, splits, _axis, _space, incr) => {
            const labels = tickLabels(splits, incr);
            box.dataset.yTicks = labels.join("|"); // drawn on a canvas: kept here for the browser test
            return labels;
          } },
      ],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: "t (s)", value: (_u, v) => (v == null ? "–" : v.toFixed(2)) },
        ...c.series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          spanGaps: false,
          paths: c.stepped ? uPlot.paths.stepped!({ align: 1 }) : undefined,
          value: (_u: uPlot, v: number | null) => (v == null ? "–" : v.toFixed(2)),
        })),
      ],
    };
    const data = [c.x, ...c.series.map((s) => s.values)] as uPlot.AlignedData;
    plot = new uPlot(opts, data, box);
    charts.add({ plot, box });
  });
  return fig;
}

function renderCallout(c: CalloutPanel, id: string): HTMLElement {
  const box = el("div", { class: `panel callout ${c.level}`, id, role: c.level === "fail" ? "alert" : "note" });
  box.append(el("strong", {}, c.title), el("p", {}, c.text));
  return box;
}

const SVG = "http://www.w3.org/2000/svg";
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function renderSwimlane(s: SwimlanePanel, id: string): HTMLElement {
  const fig = el("figure", { class: "panel swimlane-panel", id });
  fig.append(el("figcaption", {}, s.title));
  const laneH = 34, labelW = 170, pad = 12, axisH = 24;
  const W = 900;
  const H = axisH + s.lanes.length * laneH + pad;
  const end = Math.max(1, s.endNs);
  const xOf = (t: number) => labelW + ((W - labelW - pad) * Math.min(t, end)) / end;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "swimlane", role: "img", "aria-label": `${s.title}: ${s.lanes.length} lanes` });
  // axis: round steps; a label near the right edge ends at its tick instead of running off the picture
  for (const t of niceTicks(end)) {
    const x = xOf(t);
    root.append(svg("line", { x1: x, x2: x, y1: axisH - 4, y2: H - pad, stroke: "#e2e8f0" }));
    const label = svg("text", { x, y: axisH - 8, "text-anchor": x > W - pad - 30 ? "end" : "middle", class: "axis" });
    label.textContent = fmtNs(t);
    root.append(label);
  }
  s.lanes.forEach((lane, li) => {
    const y = axisH + li * laneH;
    root.append(svg("rect", { x: 0, y, width: W, height: laneH, fill: li % 2 ? "#f8fafc" : "#ffffff" }));
    const name = svg("text", { x: 6, y: y + laneH / 2 + 4, class: "lane-name" });
    name.textContent = lane.name;
    root.append(name);
    let lastLabelX = -Infinity;
    for (const ev of lane.events) {
      const x = xOf(ev.tNs);
      const color = ev.level === "error" ? "#dc2626" : ev.level === "warn" ? "#d97706" : "#2563eb";
      const g = svg("g", { class: "ev" });
      if (ev.endNs !== undefined && ev.endNs > ev.tNs) {
        g.append(svg("rect", { x, y: y + 8, width: Math.max(2, xOf(ev.endNs) - x), height: laneH - 16, rx: 3, fill: color, "fill-opacity": 0.25, stroke: color }));
      } else {
        g.append(svg("circle", { cx: x, cy: y + laneH / 2, r: 4.5, fill: color }));
      }
      const title = svg("title");
      title.textContent = `${fmtNs(ev.tNs)} ${ev.label}${ev.detail ? "\n" + ev.detail : ""}`;
      g.append(title);
      if (x - lastLabelX > 90) {
        const text = ev.label.length > 18 ? ev.label.slice(0, 17) + "…" : ev.label;
        // ~6.5 px a character at 11 px: a label that would cross the right edge goes left of its dot
        const left = x + 7 + text.length * 6.5 > W;
        const t = svg("text", { x: left ? x - 7 : x + 7, y: y + laneH / 2 - 5, class: "ev-label", "text-anchor": left ? "end" : "start" });
        t.textContent = text;
        g.append(t);
        lastLabelX = x;
      }
      root.append(g);
    }
  });
  if (s.marker) {
    const x = xOf(s.marker.tNs);
    root.append(svg("line", { x1: x, x2: x, y1: axisH - 4, y2: H - pad, stroke: "#dc2626", "stroke-width": 2, "stroke-dasharray": "4 3" }));
    const t = svg("text", { x: Math.min(x + 4, W - 150), y: H - 2, class: "marker-label" });
    t.textContent = s.marker.label;
    root.append(t);
  }
  fig.append(root);
  // the same events as a table (keyboard and screen-reader friendly)
  const det = el("details");
  det.append(el("summary", {}, "Events as a table"));
  const rows = s.lanes.flatMap((l) => l.events.map((e) => ({ lane: l.name, e }))).sort((a, b) => a.e.tNs - b.e.tNs);
  det.append(renderTable({
    kind: "table", id: `${s.id}-events`, title: "Events", columns: ["time", "component", "event", "detail"],
    rows: rows.map((r, i) => ({ key: String(i), cells: [fmtNs(r.e.tNs), r.lane, r.e.label, r.e.detail ?? ""] })),
  }, `${id}-events`));
  fig.append(det);
  return fig;
}
