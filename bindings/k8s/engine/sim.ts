import { shown } from "../../util/shown.js";
// The simulation kernel of the Kubernetes replay: one clock, one ordered event
// queue, a few periodic loops ("tickers") that sleep while nothing changes.
//
// 1. Time
//
// Simulated time is an integer number of milliseconds since the start of the
// scenario (`now`). Every period and timeout of the modelled loops is a whole
// number of ms upstream (100 ms reconciler, 500 ms initial backoff, 2 min 2 s
// backoff cap, 6 min max wait for unmount), so ms is exact and fast.
//
// 2. Ordering
//
// Events are ordered by (time, class, seq). Class 0 holds ordinary one-shot
// events (an operation finishing, a watch event arriving, a timeline action);
// they run first, in FIFO order of scheduling. Class 1 holds ticker passes;
// at one instant they run after all ordinary events, in ticker registration
// order. This fixed order is what makes skipping idle ticks exact (section 3).
//
// 3. Skipping idle ticks
//
// Upstream, the attach/detach reconciler wakes every 100 ms for ever. A replay
// of a 20-minute incident would be 12,000 passes of which almost all change
// nothing. Instead every pass is watched: every effective state change
// anywhere in the cluster (an API write, a cache change, an operation
// completing) is reported with `bump()` (and counted in `epoch`). If a pass
// changed nothing its own loop reads (see wake groups below) it was idle for
// that loop, and the loop's next pass would be idle too unless (a) something
// it reads changes, or (b) time crosses a threshold the pass looked at (a
// backoff expiring, the 6-minute unmount timer). Loops report (b) with
// `wakeAt(t)`. A pass whose changes are all in state other loops read (the
// kubelet populator's additions to the desired state of world, read by the
// reconciler and the pod workers) wakes those loops and sleeps itself; so does a pass that only started operations: a pending operation
// can only make its owner skip that volume on its next pass, and the
// operation's completion bumps the owner's group again (`bump(group, true)`),
// except a failure whose backoff alone decides the owner's next passes: that
// wakes the owner when the backoff ends (`deferGroup`; see
// nestedpendingoperations complete); a periodic list that can find nothing
// new (nothing in its groups was bumped since the last one: WakeGroup.bumps)
// sets no wake, and the lists slept through are accounted for at the next
// pass (the attach/detach controller's 3-minute pod list, populate);
// likewise a pod worker's move to "starting", to "backoff" or out of backoff
// (the pass already did what the next one would). A sleeping ticker is
// rescheduled at its next grid point (start + k * period, never twice at the
// same instant) when `bump()` is called or at the first grid point at or after
// its earliest wake time. A ticker woken at an instant where its turn has
// already passed (tickers of lower order ran before the change) waits for its
// next grid point, exactly as it would when ticking every period. A pass that
// leaves work for its next turn without changing state (a failed status PATCH
// to retry, an error it will log again) says so with wakeAt(now + 1).
//
// Wake groups. Most state is read by a few loops only, and each loop is
// registered in the groups of exactly what it reads; a change is bumped into
// the group of what it changed (`bump(group)`) and wakes only the tickers
// registered there. The groups: the attach/detach controller's caches (all
// its loops); its pending operations, and a kubelet's (the reconciler alone);
// a kubelet's volume manager state (its reconciler, pod workers and node
// status loop), its pod workers' own state, its node's pods as its informer
// delivers them (pod workers and housekeeping; another node's pods are
// never delivered: `Informer.selects`, upstream's spec.nodeName field
// selector; the populator is woken only by the deliveries that can change its
// next pass, new pods, deleted ones and a stopped pod turning deleted or
// terminal: VolumeManager.podDeliveryMatters; housekeeping, whose only output
// is a log line, runs only in runs that build log lines); a host's mount table
// and directories (housekeeping) and its container runtime (pod workers,
// populator, housekeeping; host state, so a container stopping after a kubelet
// restart wakes the new kubelet); an informer delivery of a kind wakes the
// owner's loops that read that kind from its cache (the ADC's nodes: its
// reconciler; pods, claims and volumes: its populator; the kubelet's claims
// and volumes: its populator; nodes and CSIDrivers read from a kubelet's
// cache: none); an API write of a kind wakes the loops that read that kind
// from the store itself (Pod: none, see kubelet.ts run; Node: the kubelet node
// status loop and the ADC reconciler's status updater; VolumeAttachment: the
// ADC's VerifyVolumesAreAttached); the storage backend wakes the loop that
// reads it (VerifyVolumesAreAttached of in-tree disks). CSIDriver writes
// (every plugin's attach question reads them) and timeline actions bump
// globally (`bump()`) and wake every ticker. A pass therefore wakes for
// exactly the changes it can observe, which keeps skipping exact while sparing
// the other loops idle passes (a replay with two nodes has 13 tickers).
// Example: the kubelet on node-1 mounts a volume for a pod: the mount wakes
// node-1's housekeeping (host mounts), the volume manager's new mounted pod
// wakes node-1's reconciler, pod workers and node status loop; the
// controller's three loops and node-2's five sleep on, since none of them
// reads node-1's mounts or volume manager; the pod workers' PATCH of the pod's
// status, an API write of a Pod, wakes the pod workers of every node (they
// read pods from the store) and, through the informers' deliveries, the
// controller's populator and node-1's pod loops, not node-2's.
//
// Getting a group wrong breaks the equality with tick-by-tick runs, which
// scenarios/golden.test.ts and scenario/idleskip.test.ts catch.
//
// Worked example: a detach fails at t = 10,000 ms and backs off 500 ms. The
// pass at 10,100 sees "in backoff until 10,500" and calls wakeAt(10,501) (the
// backoff check is `now - last <= 500`, so 10,500 still backs off). The pass
// changes nothing, so the ticker sleeps and the next pass is at 10,600, the
// first grid point >= 10,501. Passes 10,200 .. 10,500 are skipped; in
// tick-by-tick mode (`tickEveryPeriod`) they run and do nothing. Tests run
// every built-in scenario both ways, and random variations of them (versions,
// seeds, watch delays, restarts, faults: scenario/idleskip.test.ts), and
// compare timelines, logs and objects.
//
// 4. Randomness
//
// One seeded PRNG (xorshift128+, split into 32-bit halves for exactness) for
// the few random choices (kubelet pod-worker jitter, fault probabilities),
// and, with `interleave` (a scenario's `settings.interleave`), the order of
// a volume call's end against the loop passes due at the same instant
// (`afterCall`: class 0, before them, or class 2, after every pass at that
// instant unless it lands earlier inside one, at an interleave point of a
// loop that reads what it writes: `yieldPoint`; volume/operation.ts section 3).
//
// 5. Interleave points
//
// A loop whose pass reads shared state several times (a reconciler: its
// cache's copy, then the pending operations) is registered `interleavable`
// with a tag (the controller's "", a kubelet's node name) and calls
// `yieldPoint()` between two reads. There each late call end of its tag due
// now lands or not, one seed draw each; the event runs nested in the pass
// (its wakeAt ignored, its bumps counted as the pass's own changes), and is
// skipped when the queue reaches it. For exactness against tick-by-tick runs
// every reader loop whose grid holds a late end's instant is made to pass
// then (`forceAt`, kept in `forced` until that pass has run), and a late end
// that wakes a loop treats every pass at its instant as over (`afterPasses`).
// Worked example: a detach ends at 42,120 ms, on the controller's grid; drawn
// late, the controller's pass at 42,120 copies the ASW (the volume still
// attached), reaches point (a) and draws "land": the detach's reply marks
// the volume detached and its operation complete; the pass then finds no
// operation pending and goes on with the copy.

export type Ms = number;

/** A periodic loop: runs `pass` at start + k * period. */
export interface Ticker {
  readonly name: string;
  readonly periodMs: Ms;
  /** stop scheduling passes (the component crashed). */
  stop(): void;
  readonly stopped: boolean;
}

/** Tickers woken by a component's own state changes (section 3). */
export interface WakeGroup {
  readonly name: string;
  readonly tickers: Ticker[];
  /** changes bumped into it so far (a loop compares counts to ask "did anything I read change since?") */
  bumps: number;
}

interface Ev {
  t: Ms;
  cls: number;
  seq: number;
  /** a one-shot event's function, called with `arg` */
  fn: ((arg: any) => void) | null;
  arg: unknown;
  tk: TickerImpl | null;
}

class TickerImpl implements Ticker {
  stopped = false;
  /** a loop whose only output is log lines, started only when lines are built (see Sim.events) */
  logOnly = false;
  /** time of the queued pass, or -1 */
  queuedAt: Ms = -1;
  lastRun: Ms = -Infinity;
  wake: Ms = Infinity;
  sleeping = false;
  /** its passes have interleave points for the call ends of this tag (Sim.interleavable), or null */
  interleaveTag: string | null = null;
  /** grid points at which it must pass, ascending (Sim.afterCall with interleave: a call end may land inside that pass) */
  forced: Ms[] | null = null;
  constructor(
    readonly name: string,
    readonly periodMs: Ms,
    readonly startMs: Ms,
    readonly order: number,
    /** the pass, called on `owner` (a method of the loop's component, or a function that ignores its receiver) */
    readonly pass: (this: unknown) => void,
    readonly owner: unknown,
    private readonly sim: Sim,
    /** the wake groups it is registered in (what its pass reads): the caller's rest array, kept (no copy per loop and run) */
    readonly groups: readonly WakeGroup[],
  ) {}
  stop(): void {
    this.stopped = true;
  }
  /** first grid point >= t and > lastRun */
  gridAtOrAfter(t: Ms): Ms {
    const min = Math.max(t, this.lastRun + this.periodMs, this.startMs);
    const k = Math.ceil((min - this.startMs) / this.periodMs);
    return this.startMs + k * this.periodMs;
  }
  schedule(t: Ms): void {
    if (this.stopped) return;
    const g = this.gridAtOrAfter(t);
    if (this.queuedAt >= 0 && this.queuedAt <= g) return;
    this.queuedAt = g;
    this.sim._pushTicker(this, g);
  }
}

/** xorshift128+ on four 32-bit words; deterministic for a seed. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number) {
    // the state words are splitmix32's outputs for states s + k * 0x9e3779b9, k = 1..4
    const s = seed >>> 0 || 0x9e3779b9;
    this.a = splitmix32((s + 0x9e3779b9) >>> 0);
    this.b = splitmix32((s + 2 * 0x9e3779b9) >>> 0);
    this.c = splitmix32((s + 3 * 0x9e3779b9) >>> 0);
    this.d = splitmix32((s + 4 * 0x9e3779b9) >>> 0);
  }
  /** uniform 32-bit unsigned integer (xoshiro128**) */
  u32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }
  /** uniform float in [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }
  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
}
/** splitmix32's output for state `s` (a function made once: Rng's constructor runs once per replay) */
function splitmix32(s: number): number {
  let z = s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

export interface SimOptions {
  seed: number;
  /** run every ticker at every grid point (reference mode for the idle-skip test) */
  tickEveryPeriod?: boolean;
}

export class Sim {
  now: Ms = 0;
  /** counts effective state changes; see section 3 */
  epoch = 0;
  readonly rng: Rng;
  /** the run's seed (streams of their own derive from it: kubelet.ts delayAfterNodeStatusChange) */
  readonly seed: number;
  readonly tickEveryPeriod: boolean;
  private heap: Ev[] = [];
  private free: Ev[] = [];
  private seq = 0;
  private tickers: TickerImpl[] = [];
  private current: TickerImpl | null = null;
  /** the current pass changed something its own ticker reads (see bump) */
  private selfChanged = false;
  /** tickers with `sleeping` set (bump has nothing to wake when 0) */
  private sleepers = 0;
  /** time and order of the last ticker pass: tickers up to that order had their turn at that time */
  private lastTickT = -1;
  private lastTickOrder = -1;
  /** changes bumped into every group at once (bump() without a group) */
  globalBumps = 0;
  /** number of events executed (for the benchmark and tests) */
  executed = 0;
  /** of those, the turns of logging-only loops (markLogOnly) */
  private logOnlyExecuted = 0;
  stopped = false;

  constructor(opts: SimOptions) {
    this.rng = new Rng(opts.seed);
    this.seed = opts.seed;
    this.tickEveryPeriod = opts.tickEveryPeriod ?? false;
  }

  /** Run `fn` at absolute time t (>= now). */
  at(t: Ms, fn: () => void): void {
    if (t < this.now) t = this.now;
    this.push(this.ev(t, 0, this.seq++, fn, undefined, null));
  }

  /**
   * Run `fn(arg)` at absolute time t (>= now): `at` without a closure per
   * event, for the frequent ones (watch deliveries) whose function is shared.
   */
  call<A>(t: Ms, fn: (arg: A) => void, arg: A): void {
    if (t < this.now) t = this.now;
    this.push(this.ev(t, 0, this.seq++, fn, arg, null));
  }

  /** a queue record, recycled from executed ones (a replay runs hundreds; none outlives its turn) */
  private ev(t: Ms, cls: number, seq: number, fn: ((arg: any) => void) | null, arg: unknown, tk: TickerImpl | null): Ev {
    const e = this.free.pop();
    if (e === undefined) return { t, cls, seq, fn, arg, tk };
    e.t = t;
    e.cls = cls;
    e.seq = seq;
    e.fn = fn;
    e.arg = arg;
    e.tk = tk;
    return e;
  }
  /** Run `fn` after d ms. */
  after(d: Ms, fn: () => void): void {
    this.at(this.now + d, fn);
  }

  /** draw the order of call ends against same-instant passes (see section 4) */
  interleave = false;
  /**
   * `after` for the end of a volume call (volume/operation.ts): without
   * `interleave` exactly `after`; with it, the seed puts the event before
   * the loop passes due at its instant (class 0) or after them (class 2),
   * and a class-2 end may land earlier, at an interleave point inside one
   * of those passes (`yieldPoint`), as upstream's goroutines may finish
   * while a loop's pass is between two reads of shared state. Every
   * interleavable loop whose grid holds the instant is made to pass at it
   * (`forceAt`), sleeping or not, so runs that skip idle passes and runs
   * that tick every period meet the same interleave points.
   */
  afterCall(d: Ms, fn: () => void, tag = ""): void {
    this.afterCallWith(d, fn, undefined, tag);
  }

  /** `afterCall` running `fn(arg)`: no closure per call (volume/operation.ts perform's common path) */
  afterCallWith<A>(d: Ms, fn: (arg: A) => void, arg: A, tag: string): void {
    const t = this.now + d;
    if (!this.interleave) {
      this.push(this.ev(t < this.now ? this.now : t, 0, this.seq++, fn, arg, null));
      return;
    }
    const late = (this.rng.u32() & 1) === 1;
    const ev = this.ev(t, late ? 2 : 0, this.seq++, fn, arg, null);
    this.push(ev);
    if (!late) return;
    this.inPass.push({ ev, seq: ev.seq, tag });
    const tks = this.tickers;
    for (let i = 0; i < tks.length; i++) if (tks[i]!.interleaveTag === tag) this.forceAt(tks[i]!, t);
  }

  /**
   * call ends drawn late that may still land inside a pass (afterCall);
   * `seq` tells a recycled record from its event; `tag` says whose passes
   * read what the end writes: "" the attach/detach controller's (attach,
   * detach, ControllerPublish, ...), a node's name its kubelet's (NodeStage,
   * mount, ...). Only those passes have it land inside: inside any other it
   * is the same as before or after that pass.
   */
  private inPass: Array<{ ev: Ev; seq: number; tag: string }> = [];
  /** a call end drawn late runs (afterCall): every loop due at this instant has passed */
  private afterPasses = false;
  /** > 0 while an event runs inside a pass (yieldPoint) */
  private nested = 0;

  /** make `tk` pass at t if t is on its grid and after its last pass (see afterCall) */
  private forceAt(tk: TickerImpl, t: Ms): void {
    if (tk.stopped || t <= tk.lastRun || t < tk.startMs || (t - tk.startMs) % tk.periodMs !== 0) return;
    // an end due now whose reader has had its turn at this instant (a loop of
    // lower order passed, or every pass is over): ticking every period it
    // would not pass again now either
    if (t === this.now && (this.afterPasses || (this.now === this.lastTickT && tk.order <= this.lastTickOrder))) return;
    // kept until the pass at t has run: an earlier pass queued later (a wake-up) supersedes the queued one, and runTicker queues t again
    const f = (tk.forced ??= []);
    let i = f.length;
    while (i > 0 && f[i - 1]! > t) i--;
    if (f[i - 1] !== t) f.splice(i, 0, t);
    tk.schedule(t);
  }

  /**
   * The loop's passes have interleave points (`yieldPoint`) for call ends
   * of `tag` (see inPass): the attach/detach controller's reconciler ("")
   * and each kubelet's volume reconciler (its node's name).
   */
  interleavable(t: Ticker, tag: string): Ticker {
    (t as TickerImpl).interleaveTag = tag;
    return t;
  }

  /**
   * An interleave point of the current pass: between two of its reads of
   * shared state (volume/operation.ts section 3). With `interleave`, each
   * call end due now and drawn late (afterCall) lands here or not, as the
   * seed draws; one that does not may land at a later point or after the
   * passes. Without `interleave` it does nothing (one length check).
   * Returns true when the current loop was stopped meanwhile (a timeline
   * action on a call's step restarted its component): the pass must end.
   */
  yieldPoint(): boolean {
    const q = this.inPass;
    if (q.length === 0) return false;
    const tk = this.current;
    const tag = tk === null ? null : tk.interleaveTag;
    let j = 0;
    for (let i = 0; i < q.length; i++) {
      const r = q[i]!;
      const ev = r.ev;
      // (gone: run, at a point or from the queue, or its record reused)
      if (ev.seq !== r.seq || ev.fn === null || ev.t < this.now) continue;
      if (ev.t > this.now || r.tag !== tag || (this.rng.u32() & 1) === 0) {
        q[j++] = r;
        continue;
      }
      const fn = ev.fn;
      const arg = ev.arg;
      ev.fn = null;
      this.executed++;
      this.nested++;
      try {
        fn(arg);
      } finally {
        this.nested--;
      }
    }
    q.length = j;
    return tk !== null && tk.stopped;
  }
  /** A wake group (section 3). */
  group(name: string): WakeGroup {
    return { name, tickers: [], bumps: 0 };
  }

  /** Register a periodic loop whose first pass is at `startMs`, woken by global bumps and by bumps into its groups. */
  ticker(name: string, periodMs: Ms, startMs: Ms, pass: () => void, ...groups: WakeGroup[]): Ticker {
    return this.addTicker(new TickerImpl(name, periodMs, startMs, this.tickers.length, pass, undefined, this, groups));
  }

  /**
   * `ticker` whose pass is a method of `owner`, called on it: a component's
   * loops are its methods (the kubelet's syncPods, the volume manager's
   * reconcile), with no closure per loop and run, whose first call would go
   * through V8's lazy-compile stub in every run.
   */
  loop<O>(name: string, periodMs: Ms, startMs: Ms, pass: (this: O) => void, owner: O, ...groups: WakeGroup[]): Ticker {
    return this.addTicker(new TickerImpl(name, periodMs, startMs, this.tickers.length, pass as (this: unknown) => void, owner, this, groups));
  }

  private addTicker(tk: TickerImpl): Ticker {
    this.tickers.push(tk);
    const groups = tk.groups;
    for (let i = 0; i < groups.length; i++) groups[i]!.tickers.push(tk);
    tk.schedule(tk.startMs);
    return tk;
  }

  /**
   * Record an effective state change: wakes every sleeping ticker, or those of
   * `group` (section 3). Called from a ticker's pass, a change the ticker
   * reads (a global one, or one in a group it is registered in) makes the pass
   * effective, so the ticker passes again one period later, unless
   * `narrowsOnly`: the change can only make the ticker's own next pass do less
   * (an operation it started is now pending), so that pass would be idle.
   */
  bump(group?: WakeGroup, narrowsOnly = false): void {
    this.epoch++;
    if (group === undefined) this.globalBumps++;
    else group.bumps++;
    const cur = this.current;
    if (cur !== null && !narrowsOnly && !this.selfChanged && (group === undefined || cur.groups.includes(group))) this.selfChanged = true;
    if (this.sleepers === 0) return;
    const tks = group === undefined ? this.tickers : (group.tickers as TickerImpl[]);
    for (let i = 0; i < tks.length; i++) {
      const tk = tks[i]!;
      if (tk.sleeping && tk !== this.current && !tk.stopped) {
        tk.sleeping = false;
        this.sleepers--;
        // a ticker whose turn at this instant has passed (it ran, idle, before
        // the ticker or event that changed state) waits for its next grid point,
        // as it would when ticking every period
        const passed = this.afterPasses || (this.now === this.lastTickT && tk.order <= this.lastTickOrder);
        tk.schedule(passed ? this.now + 1 : this.now);
      }
    }
  }

  /**
   * A change that only `group`'s loops read and that cannot alter what their
   * next pass does before time t (an operation that failed and backs off
   * until t, and that no pass saw pending in a way the failure changes:
   * nestedpendingoperations complete): counted like bump, but a sleeping
   * ticker of the group is scheduled at its first grid point >= t rather
   * than woken now. Its passes in between would be idle; the one at t finds
   * the backoff over, as it would ticking every period.
   */
  deferGroup(group: WakeGroup, t: Ms): void {
    this.epoch++;
    const tks = group.tickers as TickerImpl[];
    for (let i = 0; i < tks.length; i++) {
      const tk = tks[i]!;
      if (tk.sleeping && !tk.stopped) tk.schedule(t);
    }
  }

  /**
   * Mark a loop as logging-only: its passes build log lines and change no
   * state any other loop reads, and it is started only in runs that build
   * lines (the kubelet's housekeeping). Its turns are left out of `events`.
   */
  markLogOnly(t: Ticker): Ticker {
    (t as TickerImpl).logOnly = true;
    return t;
  }

  /**
   * The events a run executed, its logging-only loops' turns left out
   * (markLogOnly), so a run counts the same events whether or not it builds
   * log lines: what `stats.events` and the Monte Carlo `events` metric give.
   */
  get events(): number {
    return this.executed - this.logOnlyExecuted;
  }

  /** Called by a ticker pass: "my outcome may change at time t". */
  wakeAt(t: Ms): void {
    if (this.nested > 0) return; // (an event landing inside a pass is no part of it)
    const tk = this.current;
    if (tk && t < tk.wake) tk.wake = t;
  }

  _pushTicker(tk: TickerImpl, t: Ms): void {
    this.push(this.ev(t, 1, tk.order, null, undefined, tk));
  }

  /** Run until the queue is empty or time passes `untilMs`. Returns the end time. */
  run(untilMs: Ms): Ms {
    const heap = this.heap;
    while (heap.length > 0 && !this.stopped) {
      const ev = heap[0]!;
      if (ev.t > untilMs) {
        this.now = untilMs;
        return untilMs;
      }
      this.pop();
      const t = ev.t;
      const tk = ev.tk;
      const late = ev.cls === 2;
      const fn = ev.fn;
      const arg = ev.arg;
      ev.fn = null;
      ev.arg = undefined;
      ev.tk = null;
      this.free.push(ev);
      this.now = t;
      if (tk === null && fn === null) continue; // (a call end that landed inside a pass: yieldPoint)
      this.executed++;
      if (tk) {
        if (tk.logOnly) this.logOnlyExecuted++;
        if (tk.queuedAt !== t || tk.stopped) continue; // superseded
        tk.queuedAt = -1;
        this.runTicker(tk);
      } else if (late) {
        // (after every pass due now: a loop it wakes has had its turn at this instant)
        this.afterPasses = true;
        fn!(arg);
        this.afterPasses = false;
      } else {
        fn!(arg);
      }
    }
    // nothing left before untilMs: the clock still advances to it
    if (!this.stopped && untilMs !== Infinity && this.now < untilMs) this.now = untilMs;
    return this.now;
  }

  private runTicker(tk: TickerImpl): void {
    this.selfChanged = false;
    tk.wake = Infinity;
    if (tk.sleeping) {
      tk.sleeping = false;
      this.sleepers--;
    }
    this.current = tk;
    this.lastTickT = this.now;
    this.lastTickOrder = tk.order;
    tk.lastRun = this.now;
    tk.pass.call(tk.owner);
    this.current = null;
    if (tk.stopped) return;
    if (this.tickEveryPeriod || this.selfChanged) {
      tk.schedule(this.now + tk.periodMs);
    } else {
      tk.sleeping = true;
      this.sleepers++;
      if (tk.wake !== Infinity) tk.schedule(Math.max(tk.wake, this.now + tk.periodMs));
    }
    const f = tk.forced;
    if (f !== null) {
      let i = 0;
      while (i < f.length && f[i]! <= this.now) i++;
      if (i > 0) f.splice(0, i);
      if (f.length > 0) tk.schedule(f[0]!);
    }
  }

  get pending(): number {
    return this.heap.length;
  }

  private less(x: Ev, y: Ev): boolean {
    if (x.t !== y.t) return x.t < y.t;
    if (x.cls !== y.cls) return x.cls < y.cls;
    return x.seq < y.seq;
  }
  private push(ev: Ev): void {
    // sift up with a hole: parents move down, `ev` is written once
    const h = this.heap;
    let i = h.length;
    h.push(ev);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p]!;
      if (!this.less(ev, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = ev;
  }
  private pop(): void {
    // sift the last record down from the root with a hole
    const h = this.heap;
    const last = h.pop()!;
    const n = h.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      let child = h[l]!;
      if (r < n && this.less(h[r]!, child)) {
        m = r;
        child = h[r]!;
      }
      if (!this.less(child, last)) break;
      h[i] = child;
      i = m;
    }
    h[i] = last;
  }
}

/** Parse "100ms", "2m2s", "1h", "1.5s" or a number of ms. */
export function parseDurationMs(v: unknown): Ms {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return Math.round(v);
  if (typeof v !== "string") throw new Error(`expected a duration like "500ms" or "2m2s", got ${shown(v)}`);
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    if (m.index !== consumed) break;
    consumed += m[0].length;
    const n = Number(m[1]);
    total += m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60000 : n * 3600000;
  }
  if (consumed !== s.length || s.length === 0) throw new Error(`expected a duration like "500ms" or "2m2s", got ${shown(v)}`);
  return Math.round(total);
}

/** Go's time.Duration String() for whole ms: 500ms, 2s, 2m2s, 1h0m0s. */
export function formatGoDuration(ms: Ms): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3600000);
  const m = Math.floor((ms % 3600000) / 60000);
  const sMs = ms % 60000;
  const s = sMs % 1000 === 0 ? String(sMs / 1000) : (sMs / 1000).toFixed(3).replace(/0+$/, "");
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
