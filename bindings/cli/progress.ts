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
      }
      bar.update(Math.round((fraction ?? 0) * 1000), { detail });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
