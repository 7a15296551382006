// A progress bar with rate and ETA on a terminal; nothing otherwise.
// Uses cli-progress (a maintained, dependency-light progress bar) on stderr,
// only when stderr is a TTY and CI is not set; honours NO_COLOR.
import cliProgress from "cli-progress";

export interface ProgressSink {
  update(fraction: number | undefined, detail: string): void;
  stop(): void;
}

export function progressBar(label: string): ProgressSink {
  const tty = Boolean(process.stderr.isTTY) && !process.env.CI;
  if (!tty) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | ETA {eta_formatted} | {detail}`,
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
      if (!started) {
        bar.start(1000, 0, { detail });
        started = true;
        cursorHidden();
      }
      bar.update(Math.round((fraction ?? 0) * 1000), { detail });
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
