// Progress of a sweep on stderr: a bar with rate and ETA on a terminal, plain
// lines otherwise (not a TTY, or CI=true), no colour with NO_COLOR
// (https://no-color.org: any non-empty value).

import type { SweepProgress } from "./runner.js";

export const BAR_REDRAW_MS = 100;
export const PLAIN_LINE_EVERY_MS = 2000;
const BAR_WIDTH = 30;

export interface ProgressSink {
  update(p: SweepProgress): void;
  done(p: SweepProgress | undefined): void;
}

export interface ProgressEnv {
  isTTY: boolean;
  env: Record<string, string | undefined>;
  write(s: string): void;
  columns?: number;
}

export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "--:--";
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export function fmtRate(r: number): string {
  return r >= 1e6 ? `${(r / 1e6).toFixed(2)}M` : r >= 1e4 ? `${(r / 1e3).toFixed(1)}k` : r.toFixed(r >= 100 ? 0 : 1);
}

/** rate (runs/s of this invocation) and ETA of a progress report */
export function rateEta(p: SweepProgress): { rate: number; etaMs: number } {
  const rate = p.elapsedMs > 0 ? (p.doneNow * 1000) / p.elapsedMs : 0;
  const left = p.total - p.done;
  return { rate, etaMs: left === 0 ? 0 : rate > 0 ? (left / rate) * 1000 : Infinity };
}

export function progressSink(out: ProgressEnv, label: string): ProgressSink {
  const ci = out.env.CI === "true" || out.env.CI === "1";
  const fancy = out.isTTY && !ci;
  const colour = fancy && !out.env.NO_COLOR;
  let last = -Infinity;
  let lastP: SweepProgress | undefined;
  const line = (p: SweepProgress) => {
    const { rate, etaMs } = rateEta(p);
    const pct = p.total ? (100 * p.done) / p.total : 100;
    return { rate, etaMs, pct };
  };
  const draw = (p: SweepProgress, final: boolean) => {
    const { rate, etaMs, pct } = line(p);
    if (fancy) {
      const fill = Math.round((BAR_WIDTH * pct) / 100);
      const bar = colour ? `\x1b[32m${"█".repeat(fill)}\x1b[2m${"░".repeat(BAR_WIDTH - fill)}\x1b[0m`
        : `${"#".repeat(fill)}${"-".repeat(BAR_WIDTH - fill)}`;
      out.write(`\r${label} ${bar} ${pct.toFixed(0).padStart(3)}% ${p.done}/${p.total}  ${fmtRate(rate)} runs/s  ETA ${fmtDuration(etaMs)}\x1b[K${final ? "\n" : ""}`);
    } else {
      out.write(`${label}: ${p.done}/${p.total} runs (${pct.toFixed(1)}%), ${fmtRate(rate)} runs/s, ETA ${fmtDuration(etaMs)}\n`);
    }
  };
  return {
    update(p) {
      lastP = p;
      const now = performance.now();
      if (now - last < (fancy ? BAR_REDRAW_MS : PLAIN_LINE_EVERY_MS)) return;
      last = now;
      draw(p, false);
    },
    done(p) {
      const q = p ?? lastP;
      if (q) draw(q, true);
    },
  };
}
