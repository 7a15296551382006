// The page's side of the worker: start it, ask for the catalog, run
// requests one after another, cancel by terminating it.
import type { ErrorInfo, FamilyInfo, FromWorker, RunRequest, RunView } from "./families/types.js";

export class RunError extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
  }
}

export class SimClient {
  private worker!: Worker;
  private nextId = 1;
  private pending = new Map<number, { resolve(v: RunView): void; reject(e: unknown): void; progress?(f: number | undefined, ns: number): void }>();
  private catalogWaiters: Array<(f: FamilyInfo[]) => void> = [];

  constructor() {
    this.start();
  }

  private start(): void {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "iosim" });
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => {
      const m = ev.data;
      if (m.type === "catalog") {
        this.catalogWaiters.splice(0).forEach((w) => w(m.families));
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === "progress") p.progress?.(m.fraction, m.simulatedNs);
      else if (m.type === "done") { this.pending.delete(m.id); p.resolve(m.view); }
      else if (m.type === "error") { this.pending.delete(m.id); p.reject(new RunError(m.error)); }
    };
    this.worker.onerror = (ev) => {
      const err = new RunError({ message: `worker error: ${ev.message}` });
      this.pending.forEach((p) => p.reject(err));
      this.pending.clear();
    };
  }

  catalog(): Promise<FamilyInfo[]> {
    return new Promise((resolve) => {
      this.catalogWaiters.push(resolve);
      this.worker.postMessage({ type: "catalog" });
    });
  }

  run(req: RunRequest, progress?: (fraction: number | undefined, simulatedNs: number) => void): Promise<RunView> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      this.worker.postMessage({ type: "run", id, req });
    });
  }

  /** Stop whatever runs now; pending runs fail with "cancelled". */
  cancel(): void {
    this.worker.terminate();
    const err = new RunError({ message: "cancelled" });
    this.pending.forEach((p) => p.reject(err));
    this.pending.clear();
    this.start();
  }
}
