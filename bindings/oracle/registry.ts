// Trace kinds `iosim replay` / `iosim compare` understand.
//
// A real-kernel trace (the oracle's throtl/*.jsonl, guest iomax/iocost/wb
// traces, or a user's own recording in the same format) is recognised by its
// header; the matching handler rebuilds the scenario, replays it and scores
// the simulated outcome against the recorded one.

export interface TraceHandler {
  /** short name, e.g. "throtl", "guest-iomax", "guest-iocost", "guest-wb" */
  kind: string;
  /** does this parsed trace (header line + records) belong to this handler? */
  detect(header: Record<string, unknown>, file: string): boolean;
  /** replay: JSON Lines to write (header first) */
  replay(text: string, file: string, opts: ReplayOptions): string[];
  /** compare: a per-trace score object and a human-readable block */
  compare(text: string, file: string, opts: ReplayOptions): { score: Record<string, unknown>; text: string };
}

export interface ReplayOptions {
  kernel?: string;
  seed?: number;
  /** iocost traces: fire the period timer at its recorded deliveries ("recorded", default) or at the kernel's own expiry ("kernel") */
  periodTimer?: "recorded" | "kernel";
  /** io.cost buffered-read traces: each read at its recorded time ("recorded", default) or the readers as closed loops ("closed": read latencies scored) */
  bufreadReplay?: "closed" | "recorded";
  /** buffered-read traces: each readahead bio's driver time as recorded ("recorded", default) or the device fitted to them ("fitted") */
  bufreadDevice?: "recorded" | "fitted";
}

const handlers: TraceHandler[] = [];

export function registerTraceHandler(h: TraceHandler): void {
  if (!handlers.some((x) => x.kind === h.kind)) handlers.push(h);
}

export function traceHandlers(): readonly TraceHandler[] {
  return handlers;
}

/** Find the handler for a trace's text (first line is the header). */
export function handlerFor(text: string, file: string): TraceHandler | undefined {
  const nl = text.indexOf("\n");
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(nl >= 0 ? text.slice(0, nl) : text);
  } catch {
    return undefined;
  }
  return handlers.find((h) => h.detect(header, file));
}
