// A progress bar with rate and ETA on a terminal; nothing otherwise.
// Uses cli-progress (a maintained, dependency-light progress bar) on stderr,
// only when stderr is a TTY and CI is not set; honours NO_COLOR.
import cliProgress from "cli-progress";

export interface ProgressSink {
  update(fraction: number | undefined, detail: string): void;
  stop(): void;
}

/** seconds as the bar shows them: "--" while unknown (no progress yet) */
export function etaText(eta: number, progress: number): string {
  if (!Number.isFinite(eta) || eta < 0 || progress <= 0) return "--";
  if (eta < 60) return `${Math.round(eta)}s`;
  if (eta < 3600) return `${Math.floor(eta / 60)}m${String(Math.round(eta % 60)).padStart(2, "0")}s`;
  return `${Math.floor(eta / 3600)}h${String(Math.floor((eta % 3600) / 60)).padStart(2, "0")}m`;
}

/** One line of the bar: with a known fraction, bar, percent and ETA; without one, only what is done so far. */
export function progressLine(label: string, progress: number, eta: number, known: boolean, detail: string, bar: string): string {
  if (!known) return `${label} | ${detail}`;
  return `${label} [${bar}] ${Math.floor(progress * 100)}% | ETA ${etaText(eta, progress)} | ${detail}`;
}

export function progressBar(label: string): ProgressSink {
  const tty = Boolean(process.stderr.isTTY) && !process.env.CI;
  if (!tty) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: (options, params, payload: { detail: string; known: boolean }) =>
        progressLine(label, params.progress, params.eta, payload.known, payload.detail, cliProgress.Format.BarFormat(params.progress, options)),
      barCompleteChar: "#",
      barIncompleteChar: "-",
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 20,
      noTTYOutput: false,
      forceRedraw: false,
      fps: 10,
    },
    cliProgress.Presets.legacy,
  );
  let started = false;
  return {
    update(fraction, detail) {
      const known = fraction !== undefined;
      if (!started) {
        bar.start(1000, 0, { detail, known });
        started = true;
        cursorHidden();
      }
      bar.update(Math.round((fraction ?? 0) * 1000), { detail, known });
    },
    stop() {
      if (started) {
        bar.stop();
        started = false;
        cursorShown();
      }
    },
  };
}

// The bar hides the terminal's cursor (hideCursor) and shows it again at
// stop(). A run ended by Ctrl-C, SIGTERM or an error never reached stop():
// the shell was left without a cursor. While a bar is shown, an exit or a
// signal shows the cursor first; a signal then ends the process as it would
// have (the handler is removed and the signal raised again), unless another
// part of iosim (mc's journal) handles it.
const SHOW_CURSOR = "\x1b[?25h";
let hidden = 0;
const restore = () => {
  if (hidden > 0) {
    hidden = 0;
    try {
      process.stderr.write(SHOW_CURSOR);
    } catch {
      // stderr gone: nothing to restore
    }
  }
};
const onSignal = (sig: NodeJS.Signals) => {
  restore();
  process.removeListener("SIGINT", onSignal);
  process.removeListener("SIGTERM", onSignal);
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
};
function cursorHidden(): void {
  if (hidden++ === 0) {
    process.on("exit", restore);
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
}
function cursorShown(): void {
  if (hidden > 0 && --hidden === 0) {
    process.removeListener("exit", restore);
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}
