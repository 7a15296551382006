// The API server: one store of objects with optimistic concurrency, and watch
// delivery to informers with a latency.
//
// 1. Concurrency. Every write bumps a cluster-wide resourceVersion counter and
//    stamps the object with it. `update` carries the resourceVersion the caller
//    read and fails with a Conflict when the stored object moved on (the
//    external-attacher updating a VolumeAttachment from a stale cache gets
//    exactly this). `patch` has no precondition, like a strategic merge patch
//    of node status; a patch that changes nothing writes nothing and bumps no
//    resourceVersion (the real server skips no-op updates too).
//
// 2. Watches. An informer registers for kinds with a delivery latency. Each
//    write schedules one delivery per informer at max(now + latency + extra,
//    last delivery) so a watch stream stays in order; `extra` comes from the
//    scenario's watch-delay faults. The deliveries of one write that fall on
//    the same instant share one queue event (they would run back to back). An informer cache therefore lags the store
//    by the latency and can be arbitrarily stale during a watch delay.
//    A field selector (`Informer.selects`: the kubelet's spec.nodeName and
//    metadata.name) drops the objects a watch does not carry at the server;
//    such an event still holds its place in the stream (the delivery time
//    of what follows it is what it was). A delivery carries the key the
//    store holds the object under.
//    A write wakes the loops that read its kind from the store directly
//    (`storeReaders`), a delivery the owner's loops that read its kind from
//    the cache (engine/sim.ts section 3).
//
// 3. Faults. A scenario can make a verb on a kind fail (Conflict, an internal
//    error, NotFound) a number of times, to replay e.g. a failing node status
//    PATCH (#111000).
//
// 4. The process. The API server can be down (`goDown`/`comeUp`: a timeline
//    outage, or the static pod of a control plane whose node reboots): every
//    request fails with "connect: connection refused" (an ApiError with
//    reason InternalError, code 503, so every caller's error path runs), no
//    write happens so no watch event is sent, and an informer started during
//    the outage (a kubelet restarting) LISTs when the server is back. Reads
//    the model makes on the store itself (tryGet, list: the replay's own
//    checks, and caches the components would hold) are not requests.
//
// Worked example: the kubelet PATCHes node-1 volumesInUse at t = 10,000 ms
// with resourceVersion 41 -> 42. The ADC's node informer (latency 20 ms) sees
// it at 10,020; a watch-delay fault of +5 s on the controller-manager from 9 s
// to 30 s moves that to 15,020, and every later node event queues behind it.

import type { Sim, WakeGroup } from "../engine/sim.js";
import { cloneMeta, cloneObj, KINDS, KObj, Kind, keyOf, kindSlot, plainKeyOf } from "./types.js";

/**
 * An API error (the status of a failed request). These are expected answers
 * that callers branch on (AlreadyExists, NotFound, Conflict), so they carry no
 * stack trace: capturing one costs more than the rest of the request. Not
 * made by Error's constructor at all: even without frames (a zero
 * `Error.stackTraceLimit`) it cost ~3 us a construction inside a replay
 * (the CSI detacher's expected 404 in csi-attachment-name, ~2 % of that
 * case's CPU). It is an Error all the same (instanceof, name, toString, a
 * non-enumerable message, `stack` as its first line would read).
 */
export class ApiError {
  readonly reason: "NotFound" | "AlreadyExists" | "Conflict" | "InternalError";
  readonly code: number;
  readonly #message: string;
  constructor(reason: ApiError["reason"], code: number, message: string) {
    this.reason = reason;
    this.code = code;
    this.#message = message;
  }
  get message(): string {
    return this.#message;
  }
  get stack(): string {
    return `${this.name}: ${this.#message}`;
  }
}
// (the class's own declarations above win over Error's; this adds name and the rest)
export interface ApiError extends Error {}
Object.setPrototypeOf(ApiError.prototype, Error.prototype);

const HEX = "0123456789abcdef";
const HEX_CODES: readonly number[] = Array.from(HEX, (ch) => ch.charCodeAt(0));
/** a UID's 36 char codes, with the fixed dashes and version/variant digits in place */
const UID_CODES: number[] = Array.from("00000000-0000-4000-a000-000000000000", (ch) => ch.charCodeAt(0));
/** the two lower-case hex digits' char codes of each byte value, at 2 * byte and 2 * byte + 1 */
const BYTE_CODES: readonly number[] = Array.from({ length: 512 }, (_, i) => HEX_CODES[i & 1 ? (i >> 1) & 15 : i >> 5]!);
/** write the two hex digits of the byte `x` at `codes[at]` and `codes[at + 1]` (Number#toString(16) is a slow path in V8) */
function putByte(codes: number[], at: number, x: number): void {
  codes[at] = BYTE_CODES[2 * x]!;
  codes[at + 1] = BYTE_CODES[2 * x + 1]!;
}
/** write the 32-bit `x`'s 8 hex digits at `codes[at...]` */
function putHex8(codes: number[], at: number, x: number): void {
  putByte(codes, at, x >>> 24);
  putByte(codes, at + 2, (x >>> 16) & 255);
  putByte(codes, at + 4, (x >>> 8) & 255);
  putByte(codes, at + 6, x & 255);
}
/**
 * The string of 36 char codes. Arguments written out: `fromCharCode.apply`
 * with the array spreads it through CallWithArrayLike and CallVarargs, ~15 %
 * of a UID's instructions.
 */
function uidString(c: readonly number[]): string {
  return String.fromCharCode(c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, c[6]!, c[7]!, c[8]!, c[9]!, c[10]!, c[11]!, c[12]!, c[13]!, c[14]!, c[15]!, c[16]!, c[17]!, c[18]!, c[19]!, c[20]!, c[21]!, c[22]!, c[23]!, c[24]!, c[25]!, c[26]!, c[27]!, c[28]!, c[29]!, c[30]!, c[31]!, c[32]!, c[33]!, c[34]!, c[35]!);
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.reason === "NotFound";

export type WatchType = "ADDED" | "MODIFIED" | "DELETED";

export interface ApiFault {
  verb: "create" | "update" | "patch" | "delete" | "get";
  kind: Kind;
  name?: string;
  reason: "Conflict" | "InternalError" | "NotFound";
  message?: string;
  /**
   * (k8s-releases) the client it hits: "kube-controller-manager",
   * "csi-attacher", "kubelet" (every kubelet) or "kubelet/NODE"; undefined =
   * any client, except a kubelet's own status writes (below)
   */
  component?: string;
  /**
   * (k8s-releases) "status" = only writes of the status subresource
   * (nodes/status, pods/status); "" = only the object itself; undefined =
   * both, except that a kubelet's status writes are hit only by a fault that
   * names `subresource: status` or that kubelet as `component:` (a fault on
   * `patch Node` is not a fault on every kubelet's heartbeat)
   */
  subresource?: string;
  /** remaining failures; Infinity = always */
  count: number;
  fromMs: number;
  untilMs: number;
}

/**
 * An informer's local store: one map per kind, keyed like the API store
 * ("ns/name" or "name"). A map per kind (rather than one map keyed
 * "Kind:ns/name") lets a component look up and list one kind without building
 * keys or scanning the others; the order of a kind's entries is the same as in
 * a single map (insertion order, a deleted and re-added key goes last).
 */
export class InformerCache {
  /** by kindSlot, created on the first object of a kind (an array: a Map lookup by kind costs a hash lookup on every delivery) */
  private readonly bySlot: Array<Map<string, KObj> | undefined> = noMaps();
  /** kinds the model does not know (made on first use: a run has none) */
  private other: Map<Kind, Map<string, KObj>> | undefined = undefined;
  get(kind: Kind, key: string): KObj | undefined {
    const s = kindSlot(kind);
    return (s >= 0 ? this.bySlot[s] : this.other?.get(kind))?.get(key);
  }
  /** the objects of one kind, in cache order */
  list(kind: Kind): Iterable<KObj> {
    const s = kindSlot(kind);
    return (s >= 0 ? this.bySlot[s] : this.other?.get(kind))?.values() ?? EMPTY;
  }
  /** the map of a kind (created empty if needed) */
  kind(kind: Kind): Map<string, KObj> {
    const s = kindSlot(kind);
    let m = s >= 0 ? this.bySlot[s] : this.other?.get(kind);
    if (!m) {
      m = new Map();
      if (s >= 0) this.bySlot[s] = m;
      else (this.other ??= new Map()).set(kind, m);
    }
    return m;
  }
}
/** one slot per kind of KINDS, all empty (a packed array) */
function noMaps<T>(): Array<T | undefined> {
  return [undefined, undefined, undefined, undefined, undefined, undefined];
}
const EMPTY: readonly KObj[] = [];

export interface Informer {
  readonly kinds: readonly Kind[];
  readonly cache: InformerCache;
  /** called on delivery, after the cache is updated */
  onEvent: (type: WatchType, obj: KObj, old: KObj | undefined) => void;
  latencyMs: number;
  extraDelay: (now: number) => number;
  lastDeliverAt: number;
  dead: boolean;
  synced: boolean;
  /** the owner's wake group: a delivery changes only the owner's view (engine/sim.ts section 3) */
  group: WakeGroup;
  /**
   * Narrower groups for the deliveries of some kinds: the owner's loops that
   * read that kind from this cache (e.g. the kubelet caches nodes but none of
   * its loops reads them there). The initial list wakes `group`.
   */
  groupByKind: Partial<Record<Kind, WakeGroup>> | undefined;
  /** groupByKind by kindSlot (read on every delivery) */
  groupBySlot: Array<WakeGroup | undefined> | undefined;
  /**
   * A field selector: whether the watch carries `obj` at all (undefined: every
   * object of its kinds). The kubelet's pod watch is upstream
   * `spec.nodeName=<node>` and its node watch `metadata.name=<node>`: another
   * node's pods and Node never reach its cache, its handler or its loops. The
   * server filters (emit, the initial list), so a dropped event costs no
   * queue event and no delivery. Neither field ever changes (spec is
   * immutable; a pod re-created under the same name on another node is
   * another object, whose events go to that node), so the selector is asked
   * of the written object alone. It gets `selectArg` (a function made once
   * with its argument, rather than a closure per informer and run).
   */
  selects: ((obj: KObj, arg: any) => boolean) | undefined;
  selectArg: unknown;
  /** the kinds as bits by kindSlot (emit asks it for every informer on every write) */
  kindMask: number;
  /**
   * Kinds (as bits by kindSlot) whose watch events the owner never reads:
   * its handler ignores them and nothing reads them from its cache (the
   * kubelet's own Node and the CSIDrivers: it reads both from the store).
   * Their place in the stream is kept (a watch delay still holds back what
   * comes after), but no delivery is queued for them: a kubelet's status
   * report costs the kubelet nothing to receive.
   */
  unreadMask: number;
}

type Verb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const VERBS: readonly Verb[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
/** a request counter's slot: verb * KINDS.length + kindSlot(kind), the verb an index in VERBS (counted in an array, the `requests` map built on read) */
const GET = 0;
const POST = 1;
const PUT = 2;
const PATCH = 3;
const DELETE = 4;
/** a new server's request counters, copied (a packed array: new Array(n).fill(0) makes a holey one, element by element) */
const ZERO_COUNTS: readonly number[] = Array.from({ length: VERBS.length * KINDS.length }, () => 0);

export class ApiServer {
  /** the objects by kindSlot (kinds the model does not know in `otherStore`, made on first use) */
  private readonly store: Array<Map<string, KObj> | undefined> = noMaps();
  private otherStore: Map<Kind, Map<string, KObj>> | undefined = undefined;
  private rv = 1;
  private uidSeq = 0;
  private informers: Informer[] = [];
  readonly faults: ApiFault[] = [];
  /** request counts by verb and kind (see `requests`) */
  private readonly counts: number[] = ZERO_COUNTS.slice();
  /** the order requests of each "VERB Kind" were first counted in */
  private readonly countOrder: number[] = [];
  /** request counts by "VERB Kind" (PATCH Node counts node status patches, #88565), in the order first seen */
  get requests(): Map<string, number> {
    const m = new Map<string, number>();
    const known = VERBS.length * KINDS.length;
    for (const slot of this.countOrder) m.set(slot < known ? `${VERBS[Math.floor(slot / KINDS.length)]} ${KINDS[slot % KINDS.length]}` : this.otherKeys[slot - known]!, this.counts[slot]!);
    return m;
  }
  private readonly otherKeys: string[] = [];
  /** objects written, for the final-objects output */
  onWrite: ((type: WatchType, obj: KObj, old: KObj | undefined) => void) | null = null;

  /**
   * Loops that read a kind straight from the store (not through an informer),
   * by kind: a write of that kind wakes just them (engine/sim.ts section 3).
   * Informers are woken by their deliveries, in their owners' groups. CSIDriver
   * is read by every volume plugin's attach question, so its writes wake all.
   */
  private readonly readers: Array<WakeGroup | undefined> = noMaps();
  private otherReaders: Map<Kind, WakeGroup> | undefined = undefined;

  constructor(private readonly sim: Sim) {}

  // ---- the process (section 4) ----

  /** when the kube-apiserver process went down, or -1 while it serves */
  private downSince = -1;
  /** informers started while it was down: their initial LIST waits for it */
  private waitingLists: Array<() => void> | undefined = undefined;

  get down(): boolean {
    return this.downSince >= 0;
  }

  /** the process stops (an outage, or the node of its static pod goes down): every request fails until comeUp */
  goDown(): void {
    if (this.downSince >= 0) return;
    this.downSince = this.sim.now;
    this.sim.bump();
  }

  /** the process serves again: the informers that waited LIST now (a watch that was open resumes where it was) */
  comeUp(): void {
    if (this.downSince < 0) return;
    this.downSince = -1;
    this.sim.bump();
    const w = this.waitingLists;
    this.waitingLists = undefined;
    if (w !== undefined) for (const f of w) f();
  }

  /** the wake group of the loops that read `kind` from the store directly */
  storeReaders(kind: Kind): WakeGroup {
    const s = kindSlot(kind);
    let g = s >= 0 ? this.readers[s] : this.otherReaders?.get(kind);
    if (!g) {
      g = this.sim.group(`api/${kind}`);
      if (s >= 0) this.readers[s] = g;
      else (this.otherReaders ??= new Map()).set(kind, g);
    }
    return g;
  }

  /** the objects of `kind`, if any was written (a read does not make an empty map) */
  private peek(kind: Kind): Map<string, KObj> | undefined {
    const s = kindSlot(kind);
    return s >= 0 ? this.store[s] : this.otherStore?.get(kind);
  }

  private bucket(kind: Kind): Map<string, KObj> {
    const s = kindSlot(kind);
    let b = s >= 0 ? this.store[s] : this.otherStore?.get(kind);
    if (!b) {
      b = new Map();
      if (s >= 0) this.store[s] = b;
      else (this.otherStore ??= new Map()).set(kind, b);
    }
    return b;
  }

  newUid(prefix: string): string {
    // deterministic UIDs in the 8-4-4-4-12 shape:
    //   hex8(r1) - hex8(r2)[0:4] - 4 hex8(r2)[5:8] - a hex8(r3)[0:3] - hex8(r3)[3:8] hex8(seq)[1:8]
    // written as char codes and turned into one string (no per-digit strings)
    const n = ++this.uidSeq;
    const r1 = this.sim.rng.u32();
    const r2 = this.sim.rng.u32();
    const r3 = this.sim.rng.u32();
    void prefix;
    const c = UID_CODES;
    // (a byte's two digits at a time from a table: half the loads and shifts of a digit at a time)
    putHex8(c, 0, r1);
    putByte(c, 9, r2 >>> 24);
    putByte(c, 11, (r2 >>> 16) & 255);
    c[15] = HEX_CODES[(r2 >>> 8) & 15]!;
    putByte(c, 16, r2 & 255);
    putByte(c, 20, r3 >>> 24);
    c[22] = HEX_CODES[(r3 >>> 20) & 15]!;
    c[24] = HEX_CODES[(r3 >>> 16) & 15]!;
    putByte(c, 25, (r3 >>> 8) & 255);
    putByte(c, 27, r3 & 255);
    if (n < 0x1000000) {
      c[29] = HEX_CODES[(n >>> 24) & 15]!;
      putByte(c, 30, (n >>> 16) & 255);
      putByte(c, 32, (n >>> 8) & 255);
      putByte(c, 34, n & 255);
      return uidString(c);
    }
    return String.fromCharCode.apply(null, c.slice(0, 29)) + n.toString(16).padStart(7, "0");
  }


  private count(verb: number, kind: Kind): void {
    const ks = kindSlot(kind);
    if (ks < 0) {
      // a kind the model does not know (counted by name)
      const k = `${VERBS[verb]} ${kind}`;
      let i = this.otherKeys.indexOf(k);
      if (i < 0) {
        i = this.otherKeys.push(k) - 1;
        this.counts.push(0);
        this.countOrder.push(VERBS.length * KINDS.length + i);
      }
      this.counts[VERBS.length * KINDS.length + i]!++;
      return;
    }
    const slot = verb * KINDS.length + ks;
    if (this.counts[slot]++ === 0) this.countOrder.push(slot);
  }

  /**
   * (k8s-releases) The client of the request being made and its subresource,
   * set around a call by the writers that API faults can be scoped to (a
   * kubelet's node and pod status writes, the attach/detach controller's node
   * status updater); "" = not said.
   */
  caller = "";
  subresource = "";
  /**
   * (k8s-releases) The next write changes nothing any loop reads from the
   * store (a kubelet's report of an unchanged node status: only the Ready
   * condition's lastHeartbeatTime is new), so it does not wake the store's
   * readers; its watchers still get it (engine/sim.ts section 3). Reset by
   * that write, or by the writer when the call throws.
   */
  unreadWrite = false;

  /** whether fault `f` (verb, kind and name matched) is scoped to this request's client and subresource */
  private faultScoped(f: ApiFault): boolean {
    const caller = this.caller;
    if (f.component !== undefined) {
      if (caller === "") return false;
      if (f.component !== caller && !(f.component === "kubelet" && caller.startsWith("kubelet/"))) return false;
    }
    if (f.subresource !== undefined && f.subresource !== this.subresource) return false;
    // a kubelet's own status writes: only a fault that asks for them
    if (f.component === undefined && f.subresource === undefined && this.subresource === "status" && caller.startsWith("kubelet/")) return false;
    return true;
  }

  private fault(verb: ApiFault["verb"], kind: Kind, name: string): ApiError | null {
    if (this.downSince >= 0) return new ApiError("InternalError", 503, `Get "https://10.96.0.1:443/api/v1/${kind.toLowerCase()}s/${name.split("/").pop()}": dial tcp 10.96.0.1:443: connect: connection refused`);
    for (const f of this.faults) {
      if (f.count <= 0 || f.verb !== verb || f.kind !== kind) continue;
      if (f.name !== undefined && f.name !== name) continue;
      if ((f.component !== undefined || f.subresource !== undefined || this.caller !== "") && !this.faultScoped(f)) continue;
      const now = this.sim.now;
      if (now < f.fromMs || now >= f.untilMs) continue;
      f.count--;
      const code = f.reason === "Conflict" ? 409 : f.reason === "NotFound" ? 404 : 500;
      return new ApiError(f.reason, code, f.message ?? `injected ${f.reason} on ${verb} ${kind} ${name}`);
    }
    return null;
  }

  get(kind: Kind, key: string): KObj {
    this.count(GET, kind);
    const f = this.fault("get", kind, key);
    if (f) throw f;
    const o = this.peek(kind)?.get(key);
    if (!o) throw new ApiError("NotFound", 404, `${kind.toLowerCase()}s "${key.split("/").pop()}" not found`);
    return o;
  }

  tryGet(kind: Kind, key: string): KObj | undefined {
    return this.peek(kind)?.get(key);
  }

  list(kind: Kind): KObj[] {
    return [...this.bucket(kind).values()];
  }

  /** append the objects of `kind` to `out` in store order (list without the intermediate array) */
  listInto(kind: Kind, out: KObj[]): void {
    const s = kindSlot(kind);
    const b = s >= 0 ? this.store[s] : this.otherStore?.get(kind);
    if (b !== undefined) for (const o of b.values()) out.push(o);
  }

  /** POST a copy of `obj` (never changed itself), with `uid` if given. */
  create(obj: KObj, uid?: string): KObj {
    const o = this.createIfAbsent(obj, uid);
    if (o === null) throw new ApiError("AlreadyExists", 409, `${obj.kind.toLowerCase()}s "${obj.metadata.name}" already exists`);
    return o;
  }

  /**
   * create, with AlreadyExists answered by null instead of an exception (a
   * caller that retries a create every pass, like the CSI attacher, expects
   * it); every other failure still throws.
   */
  createIfAbsent(obj: KObj, uid?: string): KObj | null {
    this.count(POST, obj.kind);
    const key = plainKeyOf(obj);
    const f = this.fault("create", obj.kind, key);
    if (f) throw f;
    const b = this.bucket(obj.kind);
    if (b.has(key)) return null;
    const o = cloneObj(obj);
    if (uid !== undefined) o.metadata.uid = uid;
    else if (!o.metadata.uid) o.metadata.uid = this.newUid(obj.kind);
    o.metadata.creationTimestamp ??= this.sim.now;
    o.metadata.resourceVersion = String(++this.rv);
    b.set(key, o);
    this.emit("ADDED", o, undefined, key);
    return o;
  }

  /** Write `obj` if its resourceVersion is current; else Conflict. */
  update(obj: KObj): KObj {
    this.count(PUT, obj.kind);
    const key = keyOf(obj);
    const f = this.fault("update", obj.kind, key);
    if (f) throw f;
    const b = this.bucket(obj.kind);
    const cur = b.get(key);
    if (!cur) throw new ApiError("NotFound", 404, `${obj.kind.toLowerCase()}s "${obj.metadata.name}" not found`);
    if (cur.metadata.resourceVersion !== obj.metadata.resourceVersion)
      throw new ApiError(
        "Conflict",
        409,
        `Operation cannot be fulfilled on ${obj.kind.toLowerCase()}s "${obj.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    const o = cloneObj(obj);
    o.metadata.resourceVersion = String(++this.rv);
    return this.store1(b, key, o, cur);
  }

  /**
   * Apply `mutate` to a copy of the current object (cloneMeta: its own
   * metadata; spec and status shared, which `mutate` replaces, never changes
   * in place). `mutate` returns false when it changed nothing: then nothing
   * is written. Returns the stored object.
   * `changes`, when given, answers the same question from the stored object
   * without copying it (frequent no-op patches, e.g. node status, skip the copy).
   * Both get `arg` (a writer that patches often passes functions made once and
   * its state here, not closures made per patch or per run: a new closure's
   * first call goes through V8's lazy-compile stub).
   */
  patch<A = undefined>(kind: Kind, key: string, mutate: (draft: KObj, arg: A) => boolean, changes?: (cur: KObj, arg: A) => boolean, arg?: A): KObj {
    this.count(PATCH, kind);
    const f = this.fault("patch", kind, key);
    if (f) throw f;
    const b = this.bucket(kind);
    const cur = b.get(key);
    if (!cur) throw new ApiError("NotFound", 404, `${kind.toLowerCase()}s "${key.split("/").pop()}" not found`);
    if (changes && !changes(cur, arg as A)) return cur;
    const o = cloneMeta(cur);
    if (!mutate(o, arg as A)) return cur;
    o.metadata.resourceVersion = String(++this.rv);
    return this.store1(b, key, o, cur);
  }

  private store1(b: Map<string, KObj>, key: string, o: KObj, cur: KObj): KObj {
    // an object being deleted goes away when its last finalizer is removed
    if (o.metadata.deletionTimestamp !== undefined && (o.metadata.finalizers?.length ?? 0) === 0 && o.kind !== "Pod") {
      b.delete(key);
      this.emit("DELETED", o, cur, key);
      return o;
    }
    b.set(key, o);
    this.emit("MODIFIED", o, cur, key);
    return o;
  }

  /**
   * DELETE. Objects with finalizers get a deletionTimestamp; pods with a grace
   * period > 0 get deletionTimestamp + deletionGracePeriodSeconds and stay
   * until the kubelet deletes them with grace 0.
   */
  delete(kind: Kind, key: string, graceSeconds?: number): KObj | undefined {
    const r = this.deleteIfPresent(kind, key, graceSeconds);
    if (r === null) throw new ApiError("NotFound", 404, `${kind.toLowerCase()}s "${key.split("/").pop()}" not found`);
    return r;
  }

  /**
   * delete, with NotFound answered by null instead of an exception (the CSI
   * detacher, which expects it for an attachment already gone: a throw and
   * catch is a runtime call); every other failure, and an injected fault of
   * any reason, still throws.
   */
  deleteIfPresent(kind: Kind, key: string, graceSeconds?: number): KObj | undefined | null {
    this.count(DELETE, kind);
    const f = this.fault("delete", kind, key);
    if (f) throw f;
    const b = this.bucket(kind);
    const cur = b.get(key);
    if (!cur) return null;
    const grace = graceSeconds ?? (kind === "Pod" ? cur.spec?.terminationGracePeriodSeconds ?? 30 : 0);
    const needsGrace = kind === "Pod" && grace > 0 && cur.spec?.nodeName;
    if ((cur.metadata.finalizers?.length ?? 0) > 0 || needsGrace) {
      if (cur.metadata.deletionTimestamp !== undefined) {
        if (kind === "Pod" && grace === 0) {
          b.delete(key);
          this.emit("DELETED", cur, cur, key);
        }
        return cur;
      }
      const o = cloneMeta(cur);
      o.metadata.deletionTimestamp = this.sim.now;
      if (kind === "Pod") o.metadata.deletionGracePeriodSeconds = grace;
      o.metadata.resourceVersion = String(++this.rv);
      b.set(key, o);
      this.emit("MODIFIED", o, cur, key);
      return o;
    }
    b.delete(key);
    this.emit("DELETED", cur, cur, key);
    return undefined;
  }

  /** `key`: the object's key in the store (deliveries use it rather than building it again) */
  private emit(type: WatchType, obj: KObj, old: KObj | undefined, key: string): void {
    const unread = this.unreadWrite;
    if (obj.kind === "CSIDriver") this.sim.bump();
    else if (unread) this.unreadWrite = false;
    else this.sim.bump(this.storeReaders(obj.kind));
    this.onWrite?.(type, obj, old);
    const now = this.sim.now;
    const slot = kindSlot(obj.kind);
    const bit = slot >= 0 ? 1 << slot : 0;
    // one queue event per run of informers due at the same instant (section 2):
    // they ran back to back anyway (consecutive sequence numbers, nothing
    // scheduled in between), so a batch delivers in exactly the same order
    let batch: Delivery | null = null;
    const infs = this.informers;
    for (let i = 0; i < infs.length; i++) {
      const inf = infs[i]!;
      if (inf.dead || (bit !== 0 ? (inf.kindMask & bit) === 0 : !inf.kinds.includes(obj.kind))) continue;
      const at = Math.max(now + inf.latencyMs + inf.extraDelay(now), inf.lastDeliverAt);
      inf.lastDeliverAt = at;
      // an event the field selector drops still takes its place in the
      // stream: a watch delay holds back what comes after it as before
      if (inf.selects !== undefined && !inf.selects(obj, inf.selectArg)) continue;
      if (batch !== null && batch.at === at) {
        if ((inf.unreadMask & bit) === 0) batch.to.push(inf);
      } else {
        // (an unread kind's event still takes its queue turn, with no one to
        // deliver to: the run's events, and so its digest, stay as they were)
        batch = new Delivery(this.sim, at, (inf.unreadMask & bit) === 0 ? inf : null, type, obj, old, key, unread);
        this.sim.call(at, deliverBatch, batch);
      }
    }
  }

  /**
   * Start an informer: an initial LIST delivered as ADDED events after the
   * latency, then the watch. `synced` turns true after the initial list.
   */
  informer(
    kinds: readonly Kind[],
    latencyMs: number,
    extraDelay: (now: number) => number,
    onEvent: Informer["onEvent"],
    onSynced: () => void,
    group: WakeGroup,
    groupByKind?: Partial<Record<Kind, WakeGroup>>,
    selects?: Informer["selects"],
    selectArg?: unknown,
    /** kinds of `kinds` whose watch events the owner never reads (Informer.unreadMask) */
    unreadKinds?: readonly Kind[],
  ): Informer {
    let kindMask = 0;
    for (const k of kinds) {
      const s = kindSlot(k);
      if (s >= 0) kindMask |= 1 << s;
    }
    let unreadMask = 0;
    if (unreadKinds !== undefined)
      for (const k of unreadKinds) {
        const s = kindSlot(k);
        if (s >= 0) unreadMask |= 1 << s;
      }
    const inf: Informer = {
      kinds,
      cache: new InformerCache(),
      onEvent,
      latencyMs,
      extraDelay,
      lastDeliverAt: 0,
      dead: false,
      synced: false,
      group,
      groupByKind,
      groupBySlot: groupBySlotOf(groupByKind),
      selects,
      selectArg,
      kindMask,
      unreadMask,
    };
    this.informers.push(inf);
    if (this.downSince >= 0) (this.waitingLists ??= []).push(() => this.startList(inf, kinds, selects, selectArg, onSynced));
    else this.startList(inf, kinds, selects, selectArg, onSynced);
    return inf;
  }

  /** an informer's initial LIST, delivered after its latency */
  private startList(inf: Informer, kinds: readonly Kind[], selects: Informer["selects"], selectArg: unknown, onSynced: () => void): void {
    if (inf.dead) return;
    const { latencyMs, extraDelay } = inf;
    const now = this.sim.now;
    const at = now + latencyMs + extraDelay(now);
    inf.lastDeliverAt = at;
    // the LIST: keys and objects, in store order, in one array (key, object,
    // key, ...: one array to grow, and each entry read once instead of a key
    // and then its lookup)
    const list: Array<string | KObj> = [];
    for (let i = 0; i < kinds.length; i++) {
      const b = this.peek(kinds[i]!);
      if (b === undefined) continue;
      for (const [key, o] of b) if (selects === undefined || selects(o, selectArg)) list.push(key, o);
    }
    this.sim.call(at, deliverList, new InitialList(this.sim, inf, list, onSynced));
  }

  stopInformer(inf: Informer): void {
    inf.dead = true;
    const i = this.informers.indexOf(inf);
    if (i >= 0) this.informers.splice(i, 1);
  }
}

/** groupByKind by kindSlot (named reads: a lookup by each kind in turn is a megamorphic one) */
function groupBySlotOf(g: Partial<Record<Kind, WakeGroup>> | undefined): Array<WakeGroup | undefined> | undefined {
  if (g === undefined) return undefined;
  // in KINDS order (kindSlot)
  return [g.Node, g.Pod, g.PersistentVolume, g.PersistentVolumeClaim, g.VolumeAttachment, g.CSIDriver, g.StorageClass, g.CSINode];
}

/** one write's watch events due at one instant, in informer order */
class Delivery {
  readonly to: Informer[];
  constructor(
    readonly sim: Sim,
    readonly at: number,
    first: Informer | null,
    readonly type: WatchType,
    readonly obj: KObj,
    readonly old: KObj | undefined,
    readonly key: string,
    /** (k8s-releases) ApiServer.unreadWrite: the watchers' caches change in nothing their loops read */
    readonly unread = false,
  ) {
    this.to = first === null ? [] : [first];
  }
}

/** an informer's initial LIST (Sim.call: no closure per informer) */
class InitialList {
  constructor(
    readonly sim: Sim,
    readonly inf: Informer,
    /** key, object, key, object, ... */
    readonly list: ReadonlyArray<string | KObj>,
    readonly onSynced: () => void,
  ) {}
}

function deliverList(l: InitialList): void {
  const { sim, inf, list } = l;
  if (inf.dead) return;
  for (let i = 0; i < list.length; i += 2) deliver(sim, inf, "ADDED", list[i + 1] as KObj, undefined, list[i] as string);
  inf.synced = true;
  sim.bump(inf.group);
  l.onSynced();
}

function deliverBatch(d: Delivery): void {
  const to = d.to;
  for (let i = 0; i < to.length; i++) deliver(d.sim, to[i]!, d.type, d.obj, d.old, d.key, d.unread);
}

function deliver(sim: Sim, inf: Informer, type: WatchType, obj: KObj, old: KObj | undefined, key: string, unread = false): void {
  if (inf.dead) return;
  const store = inf.cache.kind(obj.kind);
  const prev = store.get(key);
  if (type === "DELETED") {
    if (!prev) return;
    store.delete(key);
  } else {
    // never go backwards (initial list racing a watch event)
    if (prev && rvAtLeast(prev.metadata.resourceVersion, obj.metadata.resourceVersion)) return;
    store.set(key, obj);
  }
  // (an unread write's delivery: the handler bumps what it changes itself)
  if (!unread) sim.bump((inf.groupBySlot !== undefined ? inf.groupBySlot[kindSlot(obj.kind)] : undefined) ?? inf.group);
  inf.onEvent(type === "ADDED" && prev ? "MODIFIED" : type, obj, prev ?? old);
}

/**
 * resourceVersion `a` is `b` or newer: both are decimal strings of the
 * server's counter without leading zeros, so the longer is the newer and
 * equal lengths compare as strings (no conversion to numbers per delivery).
 */
function rvAtLeast(a: string, b: string): boolean {
  return a.length !== b.length ? a.length > b.length : a >= b;
}
