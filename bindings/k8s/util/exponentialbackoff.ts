// pkg/util/goroutinemap/exponentialbackoff, as used by nestedpendingoperations.
//
// After a failure an operation may not be retried for durationBeforeRetry:
// 500 ms after the first failure, doubling after each further one, capped at
// 2 min 2 s ("2m2s" was picked to be recognisable in logs). A retry attempt is
// refused while now - lastErrorTime <= durationBeforeRetry (the boundary still
// backs off). Waits: 0.5, 1, 2, 4, 8, 16, 32, 64, 122, 122, ... s; the 9th
// consecutive failure is the first to wait 122 s, after 127.5 s of waits.

/** An error message, or how to build it: formatted only if someone reads it (a log line). */
export type ErrorText = string | (() => string);

export function errorText(e: ErrorText): string {
  return typeof e === "string" ? e : e();
}

export interface ExponentialBackoff {
  lastError: ErrorText;
  lastErrorTime: number;
  /** 0 = never failed */
  durationBeforeRetry: number;
}

export function newBackoff(): ExponentialBackoff {
  return { lastError: "", lastErrorTime: 0, durationBeforeRetry: 0 };
}

/** Record a failure at `now`. */
export function backoffUpdate(b: ExponentialBackoff, err: ErrorText, now: number, initialMs: number, maxMs: number): void {
  if (b.durationBeforeRetry === 0) b.durationBeforeRetry = initialMs;
  else b.durationBeforeRetry = Math.min(2 * b.durationBeforeRetry, maxMs);
  b.lastError = err;
  b.lastErrorTime = now;
}

/** True while a retry must still wait. */
export function inBackoff(b: ExponentialBackoff, now: number): boolean {
  return b.durationBeforeRetry !== 0 && now - b.lastErrorTime <= b.durationBeforeRetry;
}

/** First instant a retry is allowed. */
export function retryAllowedAt(b: ExponentialBackoff): number {
  return b.lastErrorTime + b.durationBeforeRetry + 1;
}
