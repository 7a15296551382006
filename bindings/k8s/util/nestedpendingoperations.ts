// pkg/volume/util/nestedpendingoperations: at most one operation per key at a
// time, and exponential backoff after a failure.
//
// Keys and matching depend on the era:
//   <= 1.18: key (volumeName, podName); two keys match when the volume names
//            are equal and either pod name is empty or both are equal. Up to
//            1.14 the backoff belongs to the key, whatever the operation; from
//            1.15 (#75213) as below, but the controller's attach and detach
//            have no operation name until 1.19, so they share one timer
//            (#41307).
//   >= 1.19: key (volumeName, podName, nodeName) plus the operationName. An
//            empty pod or node name matches any; an empty volume name never
//            matches. When the matching operation failed and is backing off, a
//            new operation with a different operationName resets the backoff
//            and runs; the same operationName gets the backoff error.
// IsOperationSafeToRetry (added by #104526) answers "would Run start now?"
// without starting anything. Which entry a key finds when several match: the
// first before #110951, a pending one, then an exact one, since (see find).
// An operation's end (operationComplete) acts on the first entry whose key
// equals the operation's exactly (getOperation, deleteOperation, every
// release), not necessarily the entry it ran under, and a success deletes
// that entry by moving the last entry into its place. Two entries share a key
// only when a run took over a non-exact idle match beside a pending exact one
// (before #110951); then the first to end completes the other's entry, and an
// entry can stay pending with nothing running (issue #109047; complete).
//
// Worked example (>= 1.19, ADC, RWO volume V): a detach runs with key
// (V, "", ""). It fails at t = 5,000: the entry stays with pending = false and
// durationBeforeRetry 500 ms. Run(V,"","", "volume_detach") at 5,300 returns an
// ExponentialBackoff error; at 5,501 it starts. Run(V,"","node-2",
// "volume_attach") at 5,300 matches the entry (empty node matches any), has a
// different operationName, so it resets the backoff and starts.
//
// Worked example of the leak (kubelet, 1.24, volume V shared by pods a, b, c):
// [a's unmount (V,a) idle after an error, b's unmount (V,b) pending]. c's
// mount (V,"") takes the first match, a's idle entry, and fails: [(V,"")
// idle, (V,b) pending]. The reconciler runs b's unmount again: (V,b) takes
// the first match, the idle (V,""): [(V,b) pending, (V,b) pending], two
// TearDowns of b. The older fails: getOperation((V,b)) finds index 0, the
// younger's entry, and marks it idle; the younger succeeds:
// deleteOperation((V,b)) deletes index 0 again. The older entry is pending
// for ever, and every later Run on V is AlreadyExists. From 1.24.5 b's second
// unmount meets its pending entry first and is refused.

import { formatGoDuration, type Sim, type WakeGroup } from "../engine/sim.js";
import type { Profile } from "../versions/profile.js";
import { backoffUpdate, ErrorText, errorText, ExponentialBackoff, inBackoff, newBackoff, retryAllowedAt } from "./exponentialbackoff.js";

export type { ErrorText };

export interface OpKey {
  volumeName: string;
  podName: string;
  nodeName: string;
}

/** What a started operation is handed: done() reports its end, once (later calls are ignored). */
export interface Done {
  done(err: ErrorText | null): void;
}

/**
 * An operation under its key. Each run is a record of its own (a retry takes
 * over its predecessor's backoff and place), so a run's record is also the
 * handle its owner completes it through, and holds what starts it: an owner
 * can start its operations with a method of its own and an argument, no
 * closure per run (a closure made per run, or per owner, is also compiled
 * lazily at its first call, ~50 ns each).
 */
class Operation implements Done {
  pending = true;
  /**
   * While pending, a query was answered by it that its failure would answer
   * otherwise (see complete): its owner's next pass must then see the failure.
   */
  observed = false;
  private finished = false;
  constructor(
    private readonly npo: NestedPendingOperations,
    readonly key: OpKey,
    readonly operationName: string,
    readonly backoff: ExponentialBackoff,
    readonly start: (op: Done, arg: any) => void,
    readonly arg: unknown,
    /** `this` of start (its owner) */
    readonly self: unknown,
  ) {}
  done(err: ErrorText | null): void {
    if (this.finished) return;
    this.finished = true;
    this.npo.complete(this, err);
  }
}

export type RunResult = null | "AlreadyExists" | "ExponentialBackoff";

/** (the event that starts a run) */
function startOperation(op: Operation): void {
  op.start.call(op.self, op, op.arg);
}

export interface FailureInfo {
  key: OpKey;
  operationName: string;
  error: string;
  retryAt: number;
  durationBeforeRetry: number;
}

const ALWAYS = { on: true } as const;

export class NestedPendingOperations {
  private ops: Operation[] = [];
  constructor(
    private readonly sim: Sim,
    private readonly profile: Profile,
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly onFailure: (f: FailureInfo) => void,
    /** the owner's wake group (engine/sim.ts section 3) */
    private readonly group?: WakeGroup,
    /**
     * whether onFailure is told of a failure, with its error text formatted
     * (the owners only log it, so they pass their recorder, whose `on` says
     * whether lines are built at the time of the failure: logging can turn
     * off during a run; off, the failure's text is left unbuilt and no
     * report made)
     */
    private readonly reportFailures: { readonly on: boolean } = ALWAYS,
    /**
     * told when a completion acted on another entry than the operation's own,
     * which stays pending for ever (see complete): the owner says so in its
     * causal notes. (Given here, never stored later: a store into the field
     * after construction cost the seed replays ~2x, measured.)
     */
    private readonly strayCompletion: ((own: OpKey, operationName: string, other: OpKey) => void) | null = null,
  ) {
    this.namesMatter = profile.version.minor >= 15;
  }

  /**
   * exponentialBackOffOnError (NewNestedPendingOperations' argument): false
   * forgets a failed operation at once, so a retry may start straight away
   * (upstream's tests; every owner in the replay backs off)
   */
  exponentialBackOffOnError = true;

  /**
   * A backing-off operation refuses only a retry under its own operation
   * name (#75213, 1.15); before, any operation on the key. The attach/detach
   * controller's attach and detach carry no name until 1.19
   * (util/operationexecutor.ts adcOperationName), so theirs share one backoff
   * up to 1.18 (#41307).
   */
  private readonly namesMatter: boolean;

  private matches(a: OpKey, volumeName: string, podName: string, nodeName: string): boolean {
    // (an empty volume name never reaches here: see find)
    if (a.volumeName !== volumeName) return false;
    const podOk = a.podName === "" || podName === "" || a.podName === podName;
    if (!this.profile.npoKeyStruct) return podOk;
    const nodeOk = a.nodeName === "" || nodeName === "" || a.nodeName === nodeName;
    return podOk && nodeOk;
  }

  /**
   * isOperationExists. Before #110951 the first match in the list; since
   * (1.26.0, 1.25.1, 1.24.5, 1.23.11) a pending match wins, then an exact
   * one (pod and node names equal), then the first (nestedpendingoperations.go,
   * isOperationExists, v1.26.0). With the first match, a mount keyed (v, no
   * pod) met pod A's failed unmount before pod B's running one, reset A's
   * backoff and ran beside B's unmount (issue #109047).
   */
  private find(volumeName: string, podName: string, nodeName: string): Operation | undefined {
    // "If volumeName is empty, operation can be executed concurrently"
    // (isOperationExists): such a key conflicts with nothing, and an entry
    // under it matches no named volume
    if (volumeName === "") return undefined;
    const ops = this.ops;
    if (!this.profile.npoPendingFirst) {
      for (let i = 0; i < ops.length; i++) if (this.matches(ops[i]!.key, volumeName, podName, nodeName)) return ops[i];
      return undefined;
    }
    let found: Operation | undefined;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (!this.matches(op.key, volumeName, podName, nodeName)) continue;
      if (op.pending) {
        // once it fails another match may answer instead (see complete)
        if (found === undefined) for (let j = i + 1; j < ops.length && found === undefined; j++) if (this.matches(ops[j]!.key, volumeName, podName, nodeName)) found = ops[j];
        if (found !== undefined) op.observed = true;
        return op;
      }
      if (found === undefined || (op.key.podName === podName && op.key.nodeName === nodeName)) found = op;
    }
    return found;
  }

  /** Start `start(op, arg)` (with `self` as this) under `key` unless an operation is pending or backing off. */
  run<A, S>(key: OpKey, operationName: string, start: (this: S, op: Done, arg: A) => void, arg?: A, self?: S): RunResult {
    const now = this.sim.now;
    const prev = this.find(key.volumeName, key.podName, key.nodeName);
    let op: Operation;
    if (prev) {
      if (prev.pending) {
        if (this.namesMatter && prev.operationName !== operationName) prev.observed = true;
        return "AlreadyExists";
      }
      const sameName = !this.namesMatter || prev.operationName === operationName;
      if (sameName && inBackoff(prev.backoff, now)) {
        this.sim.wakeAt(retryAllowedAt(prev.backoff));
        return "ExponentialBackoff";
      }
      // the retry takes the failed run's place (and, under the same name, its backoff)
      op = new Operation(this, key, operationName, sameName ? prev.backoff : newBackoff(), start, arg, self);
      // a run of the entry's own operation name was refused by its backoff (and its
      // owner woken for the backoff's end) and would now find this one: once this
      // fails, that run may start at once (names differ), so the failure must wake
      // the owner's next pass, not defer it (see complete). (A backoff already over
      // refused nothing: such a run started at its end, or met this one pending.)
      if (!sameName && inBackoff(prev.backoff, now)) op.observed = true;
      this.ops[this.ops.indexOf(prev)] = op;
    } else {
      op = new Operation(this, key, operationName, newBackoff(), start, arg, self);
      this.ops.push(op);
    }
    // a pending operation only makes its owner's loop skip the volume: the
    // start does not by itself call for another pass (engine/sim.ts section 3)
    this.sim.bump(this.group, true);
    // the operation runs "in its goroutine": after the caller's current step,
    // so the caller's "... started" log line comes first, as upstream
    this.sim.call(now, startOperation, op);
    return null;
  }


  /**
   * getOperation / deleteOperation: the first entry whose key equals `key`
   * exactly (volume, pod and, from 1.19, node name; before, a key has no node).
   * Upstream's operationComplete finds the entry it completes by its key,
   * not by the goroutine that ran it, in every release.
   */
  private indexOfKey(key: OpKey): number {
    const ops = this.ops;
    const byNode = this.profile.npoKeyStruct;
    for (let i = 0; i < ops.length; i++) {
      const k = ops[i]!.key;
      if (k.volumeName === key.volumeName && k.podName === key.podName && (!byNode || k.nodeName === key.nodeName)) return i;
    }
    return -1;
  }

  /**
   * An operation finished: operationComplete(key, err), which acts on the
   * first entry under the operation's key (indexOfKey), in every release
   * (nestedpendingoperations.go getOperation and deleteOperation, from the
   * glog era of 1.10 to the operationKey struct of 1.19 and later). That is
   * normally the operation's own entry; but before #110951 a run may take
   * over an idle entry that only matches its key (isOperationExists' first
   * match) and so run beside a pending operation under the same key: then
   * the first of the two to finish completes the other's entry (issue
   * #109047: when the older one fails first, the younger one's success
   * deletes the entry the failure left idle, and the older one's entry stays
   * pending for ever; every later operation on the volume is refused as
   * AlreadyExists). Success deletes the entry as upstream does, "without
   * preserving order" (the last entry takes its place); a failure leaves it
   * backing off.
   *
   * Success wakes the owner's loop (its next pass takes the next step). After
   * a failure, if no query was answered by the entry while it was pending
   * except ones a backoff answers the same way (the same operation name, or
   * any name before 1.19), the owner's next pass would do exactly what its
   * last one did minus the start, i.e. nothing, until the backoff ends: so
   * the owner is woken at the first instant a retry may start instead of
   * next period (engine/sim.ts section 3: deferGroup). A pending entry that
   * answered an isOperationPending, a query of another operation name, or a
   * find whose answer would be another entry once this one is not pending,
   * is `observed`: its failure wakes the owner at once, as success does.
   * (Called by the operation's done.)
   */
  complete(op: Operation, err: ErrorText | null): void {
    const ops = this.ops;
    // (normally op itself, often the only entry: then no key comparison)
    const i = ops[0] === op ? 0 : this.indexOfKey(op.key);
    if (i >= 0 && ops[i] !== op && this.strayCompletion !== null && ops.indexOf(op) >= 0) this.strayCompletion(op.key, op.operationName, ops[i]!.key);
    if (err === null || !this.exponentialBackOffOnError) {
      // deleteOperation (also for a failure when exponentialBackOffOnError is off)
      this.sim.bump(this.group);
      if (i >= 0) {
        const last = ops.pop()!;
        if (i < ops.length) ops[i] = last;
      }
      return;
    }
    if (i < 0) return; // "failed to get operation to update"
    const entry = ops[i]!;
    entry.pending = false;
    backoffUpdate(entry.backoff, err, this.sim.now, this.initialMs, this.maxMs);
    if (entry.observed || this.group === undefined) this.sim.bump(this.group);
    else this.sim.deferGroup(this.group, retryAllowedAt(entry.backoff));
    if (!this.reportFailures.on) return;
    this.onFailure({
      key: op.key,
      operationName: op.operationName,
      error: errorText(err),
      retryAt: entry.backoff.lastErrorTime + entry.backoff.durationBeforeRetry,
      durationBeforeRetry: entry.backoff.durationBeforeRetry,
    });
  }

  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean {
    const op = this.find(volumeName, podName, nodeName);
    if (op === undefined || !op.pending) return false;
    op.observed = true;
    return true;
  }

  /** False while a matching operation is pending or (same name) backing off. */
  isOperationSafeToRetry(volumeName: string, podName: string, nodeName: string, operationName: string): boolean {
    const op = this.find(volumeName, podName, nodeName);
    if (!op) return true;
    if (op.pending) {
      if (this.namesMatter && op.operationName !== operationName) op.observed = true;
      return false;
    }
    if (this.namesMatter && op.operationName !== operationName) return true;
    if (inBackoff(op.backoff, this.sim.now)) {
      this.sim.wakeAt(retryAllowedAt(op.backoff));
      return false;
    }
    return true;
  }

  get size(): number {
    return this.ops.length;
  }
}

/** The key as the "Operation for %q failed" log prints it. */
export function formatOpKey(key: OpKey, profile: Profile): string {
  if (profile.npoKeyStruct) return goQuote(`{volumeName:${key.volumeName} podName:${key.podName} nodeName:${key.nodeName}}`);
  const inner = key.podName ? `${goQuote(key.volumeName)} (${goQuote(key.podName)})` : goQuote(key.volumeName);
  return goQuote(inner);
}

/**
 * The message an owner (the kubelet's volume manager, the attach/detach
 * controller) logs for a failed operation, nestedpendingoperations.go's
 * `Operation for %q failed. No retries permitted until %v (durationBeforeRetry
 * %v). Error: %v` (the error %q'd where Profile.npoErrorQuoted says so). An
 * owner's failures mostly repeat the key and the error of its last one (a
 * kubelet waiting for node status fails the same way every backoff), so the
 * quoted key and error of the last failure are kept and reused when the next
 * has the same (one JSON quoting each of a ~100 character text per line
 * otherwise).
 */
export class FailureMessages {
  private volumeName = "";
  private podName = "";
  private nodeName = "";
  private keyText = "";
  private error = "";
  private errorText = "";
  constructor(private readonly profile: Profile) {}

  message(f: FailureInfo, retryTime: string): string {
    const k = f.key;
    if (this.keyText === "" || k.volumeName !== this.volumeName || k.podName !== this.podName || k.nodeName !== this.nodeName) {
      this.volumeName = k.volumeName;
      this.podName = k.podName;
      this.nodeName = k.nodeName;
      this.keyText = formatOpKey(k, this.profile);
    }
    let err = f.error;
    if (this.profile.npoErrorQuoted) {
      if (this.errorText === "" || err !== this.error) {
        this.error = err;
        this.errorText = goQuote(err);
      }
      err = this.errorText;
    }
    return `Operation for ${this.keyText} failed. No retries permitted until ${retryTime} (durationBeforeRetry ${formatGoDuration(f.durationBeforeRetry)}). Error: ${err}`;
  }
}

/** Go's %q for the strings we print (JSON escaping matches for ASCII). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
