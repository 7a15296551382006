// The final API objects as Kubernetes prints them (`kubectl get -o json`),
// for `iosim k8s run --json`.
//
// Inside a run every time is simulated ms (api/types.ts: the components
// compare and subtract them). On the wire a metav1.Time is an RFC 3339
// string in UTC with whole seconds (k8s.io/apimachinery/pkg/apis/meta/v1/
// time.go, Time.MarshalJSON: `t.UTC().Format(time.RFC3339)`), so
// `creationTimestamp: 72420` becomes "2020-02-26T10:01:12Z" on a run whose
// clock starts at 2020-02-26T10:00:00Z. The fields converted are the
// metav1.Time fields the replay writes: metadata.creationTimestamp and
// deletionTimestamp, a Pod's status.startTime, conditions[].lastTransitionTime
// and its containers' state.running.startedAt, state.terminated.startedAt and
// finishedAt, and a VolumeAttachment's status.attachError.time and
// detachError.time. The run's own result (`runK8sScenario(...).objects`)
// keeps the numbers; this copies.

import { wireMeta, type KObj } from "../api/types.js";
import type { K8sEvent, WallClock } from "./recorder.js";

/** metav1.Time as JSON: "2006-01-02T15:04:05Z" (UTC, the second truncated) */
export function rfc3339(clock: WallClock, t: number): string {
  const ms = clock.startUtcMs + t;
  return new Date(ms - (((ms % 1000) + 1000) % 1000)).toISOString().replace(/\.000Z$/, "Z");
}

/** a copy of `o` with its metav1.Time fields as RFC 3339 strings (same keys, same order) */
export function kubernetesObjectJson(o: KObj, clock: WallClock): Record<string, unknown> {
  const time = (v: unknown): unknown => (typeof v === "number" ? rfc3339(clock, v) : v);
  const meta: Record<string, unknown> = { ...wireMeta(o.metadata) };
  if ("creationTimestamp" in meta) meta.creationTimestamp = time(meta.creationTimestamp);
  if ("deletionTimestamp" in meta) meta.deletionTimestamp = time(meta.deletionTimestamp);
  const out: Record<string, unknown> = { ...(o as unknown as Record<string, unknown>), metadata: meta };
  const status = (o as { status?: Record<string, unknown> }).status;
  if (o.kind === "Pod" && status) {
    const s: Record<string, unknown> = { ...status };
    if ("startTime" in s) s.startTime = time(s.startTime);
    if (Array.isArray(s.conditions)) s.conditions = (s.conditions as Array<Record<string, unknown>>).map((c) => ("lastTransitionTime" in c ? { ...c, lastTransitionTime: time(c.lastTransitionTime) } : c));
    if (Array.isArray(s.containerStatuses))
      s.containerStatuses = (s.containerStatuses as Array<{ state: Record<string, Record<string, unknown>> }>).map((c) => {
        const state: Record<string, Record<string, unknown>> = {};
        for (const [k, v] of Object.entries(c.state)) {
          const x = { ...v };
          for (const f of ["startedAt", "finishedAt"]) if (f in x) x[f] = time(x[f]);
          state[k] = x;
        }
        return { ...c, state };
      });
    out.status = s;
  }
  if (o.kind === "Node" && status && Array.isArray(status.conditions)) {
    // (k8s-releases) a kubelet's report sets the Ready condition's lastHeartbeatTime
    const s: Record<string, unknown> = { ...status };
    s.conditions = (status.conditions as Array<Record<string, unknown>>).map((c) => ("lastHeartbeatTime" in c ? { ...c, lastHeartbeatTime: time(c.lastHeartbeatTime) } : c));
    out.status = s;
  }
  if (status && (status.attachError || status.detachError)) {
    const s: Record<string, unknown> = { ...status };
    for (const k of ["attachError", "detachError"] as const) {
      const e = s[k] as { time?: unknown } | undefined;
      if (e) s[k] = { ...e, time: time(e.time) };
    }
    out.status = s;
  }
  return out;
}

/** an event with its firstTimestamp / lastTimestamp (metav1.Time) beside the simulated ms */
export function kubernetesEventJson(e: K8sEvent, clock: WallClock): K8sEvent & { firstTimestamp: string; lastTimestamp: string } {
  return { ...e, firstTimestamp: rfc3339(clock, e.firstT), lastTimestamp: rfc3339(clock, e.t) };
}
