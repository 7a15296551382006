// The Web Worker that runs iosim: the WASM core (embedded in this bundle,
// compiled synchronously, which workers allow) and every family adapter live
// here, so a long run never blocks the page. One run at a time; the page
// cancels by terminating the worker and starting a new one.
import "./iosim.js";
import { InputError } from "./iosim.js";
import { FAMILIES, family } from "./families/index.js";
import type { ErrorInfo, FromWorker, ToWorker } from "./families/types.js";

const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);

function errorInfo(e: unknown): ErrorInfo {
  if (e instanceof InputError) return { message: e.message, file: e.file, line: e.line, field: e.field };
  const err = e as { message?: string; file?: unknown; line?: unknown; field?: unknown };
  // duck-typed: errors from other modules that carry a place
  return {
    message: String(err?.message ?? e),
    file: typeof err?.file === "string" ? err.file : undefined,
    line: typeof err?.line === "number" ? err.line : undefined,
    field: typeof err?.field === "string" ? err.field : undefined,
  };
}

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === "catalog") {
    const families = await Promise.all(FAMILIES.map(async (f) => {
      try {
        return await f.load();
      } catch (e) {
        return { id: f.id, title: f.title, available: false, reason: `failed to load: ${errorInfo(e).message}`,
          versions: [], defaultVersion: "", versionLabel: "", fixes: [], files: [], scenarios: [] };
      }
    }));
    post({ type: "catalog", families });
    return;
  }
  if (m.type === "run") {
    try {
      const f = family(m.req.family);
      if (!f) throw new InputError(`no scenario family "${m.req.family}"`, "url", undefined, "family");
      let last = 0;
      const view = await f.run(m.req, (fraction, simulatedNs) => {
        const t = performance.now();
        if (t - last < 50) return;
        last = t;
        post({ type: "progress", id: m.id, fraction, simulatedNs });
      });
      post({ type: "done", id: m.id, view });
    } catch (e) {
      post({ type: "error", id: m.id, error: errorInfo(e) });
    }
  }
};
