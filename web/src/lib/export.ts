// Exports of what the page shows, as files the browser downloads: a chart's
// data as CSV (one row per x, one column per series, empty where a series
// has no value), the chart as SVG (drawn here from the same data: axes with
// their ends labelled, one polyline per series, a legend) or PNG (uPlot's
// own canvas), and a scenario file's text as it stands in the editor.
//
// Worked example: the "IOPS" chart of the io.max demo (x = 0, 0.1, ... s;
// series "capped read", "free read") -> iops.csv:
//   t_s,capped read,free read
//   0,5120,60720
//   0.1,5120,60800 ...
import type { ChartPanel } from "../families/types.js";

/** CSV of a chart's data (RFC 4180 quoting of labels). */
export function chartCsv(c: ChartPanel): string {
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = [["t_s", ...c.series.map((s) => s.label)].map(q).join(",")];
  c.x.forEach((x, i) => rows.push([String(x), ...c.series.map((s) => (s.values[i] == null ? "" : String(s.values[i])))].join(",")));
  return rows.join("\n") + "\n";
}

const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]!);

/** A self-contained SVG of a chart (no fonts or scripts it would fetch). */
export function chartSvg(c: ChartPanel, palette: readonly string[], width = 720, height = 360): string {
  const m = { l: 64, r: 16, t: 32, b: 44 };
  const w = width - m.l - m.r,
    h = height - m.t - m.b - 18 * Math.ceil(c.series.length / 3);
  const xs = c.x;
  const x0 = Math.min(...xs),
    x1 = Math.max(...xs);
  const vals = c.series.flatMap((s) => s.values.filter((v): v is number => v != null && Number.isFinite(v)));
  const y0 = Math.min(0, ...vals),
    y1 = Math.max(1e-12, ...vals);
  const px = (x: number) => m.l + (x1 > x0 ? ((x - x0) / (x1 - x0)) * w : 0);
  const py = (y: number) => m.t + h - ((y - y0) / (y1 - y0)) * h;
  const fmt = (v: number) => (Math.abs(v) >= 1000 ? v.toFixed(0) : Number(v.toPrecision(4)).toString());
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="100%" height="100%" fill="#fff"/>`);
  parts.push(`<text x="${m.l}" y="20" font-size="14" font-weight="bold">${esc(`${c.title} (${c.unit})`)}</text>`);
  parts.push(`<g stroke="#475569" fill="none"><path d="M${m.l},${m.t}V${m.t + h}H${m.l + w}"/></g>`);
  parts.push(
    `<g fill="#475569"><text x="${m.l - 6}" y="${py(y1) + 4}" text-anchor="end">${fmt(y1)}</text><text x="${m.l - 6}" y="${py(y0) + 4}" text-anchor="end">${fmt(y0)}</text>`,
  );
  parts.push(
    `<text x="${m.l}" y="${m.t + h + 16}" text-anchor="middle">${fmt(x0)}</text><text x="${m.l + w}" y="${m.t + h + 16}" text-anchor="middle">${fmt(x1)}</text>`,
  );
  parts.push(`<text x="${m.l + w / 2}" y="${m.t + h + 32}" text-anchor="middle">simulated time (s)</text></g>`);
  c.series.forEach((s, i) => {
    const color = palette[i % palette.length]!;
    // a gap (null) ends a line; a stepped series holds each value until the next x
    const runs: string[] = [];
    let cur: string[] = [];
    s.values.forEach((v, k) => {
      if (v == null || !Number.isFinite(v)) {
        if (cur.length) runs.push(cur.join(" "));
        cur = [];
        return;
      }
      if (c.stepped && cur.length) cur.push(`${px(xs[k]!).toFixed(1)},${py(s.values[k - 1] ?? v).toFixed(1)}`);
      cur.push(`${px(xs[k]!).toFixed(1)},${py(v).toFixed(1)}`);
    });
    if (cur.length) runs.push(cur.join(" "));
    for (const pts of runs) parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts}" data-series="${esc(s.label)}"/>`);
    const lx = m.l + (i % 3) * 220,
      ly = height - 8 - 18 * (Math.ceil(c.series.length / 3) - 1 - Math.floor(i / 3));
    parts.push(`<rect x="${lx}" y="${ly - 9}" width="12" height="3" fill="${color}"/><text x="${lx + 16}" y="${ly - 4}">${esc(s.label)}</text>`);
  });
  parts.push(`</svg>`);
  return parts.join("\n") + "\n";
}

/** Make the browser download `data` as `name`. */
export function download(name: string, data: Blob | string, type = "text/plain"): void {
  const blob = typeof data === "string" ? new Blob([data], { type }) : data;
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
