// The run journal: an append-only JSON Lines file, one line per finished run.
//
// Line 1 is a header naming the sweep (scenario text and digest, seed, number
// of runs, shard, and the table axes `--by` gave, if it was given: a merge or
// resume without `--by` tabulates as the sweep did); every further line is
// one RunRecord. Records are appended
// as workers report them, in whatever order they finish, and fsync'd in
// batches (every FSYNC_EVERY_RUNS records or FSYNC_EVERY_MS, whichever comes
// first), so a crash loses at most the last unsynced batch, and only on a
// power cut: after a kill -9 the page cache still holds everything written.
// A batch's fsync runs on libuv's thread pool, not on the main thread, which
// meanwhile feeds the workers (a synchronous fsync stalled it for ~0.5 s of a
// 20,000-run sweep on a busy disk, and the workers with it); close() syncs
// what is left synchronously.
//
// Resume reads the journal back, drops a torn last line (the process died in
// the middle of a write), truncates the file to the last whole line, and
// hands the runner the set of finished run indices, so no run is lost or
// repeated. The summary is a function of the *set* of records (sorted by run
// index before anything is computed), so an interrupted-and-resumed sweep
// and an uninterrupted one summarise identically.
//
// A journal is read as a stream (scanJournal(): 4 MiB at a time, one record
// handed on per line), so its size is bounded by the disk, not by the
// longest string V8 can make (~512 MiB, some 2.6 M runs of ~200 bytes) nor by
// the heap: a resume or a merge keeps a bit per run index and the running
// tally (summary.ts SweepTally), not the records.

import { shown } from "../util/shown.js";
import { closeSync, existsSync, fstatSync, fsync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import { InputError } from "../scenario/errors.js";
import type { Json } from "./distributions.js";
import type { TableAxis } from "./model.js";
import { runSeed } from "./rng.js";

export const JOURNAL_VERSION = 1;
export const FSYNC_EVERY_RUNS = 2000;
export const FSYNC_EVERY_MS = 250;

export interface ShardSpec {
  index: number;
  count: number;
}

export interface JournalHeader {
  mc: typeof JOURNAL_VERSION;
  scenario: { file: string; digest: string; text: string };
  seed: string;
  runs: number;
  shard: ShardSpec;
  /**
   * The summary's table axes when `--by` set them (absent: the scenario's
   * mc.table). Optional, so journals written before it was recorded read
   * as they did; an older iosim reading a newer journal ignores it.
   */
  table?: TableAxis[];
}

/** One finished run. */
export interface RunRecord {
  /** run index in [0, runs) */
  i: number;
  /** run seed (runSeed(seed, i)) */
  seed: number;
  /** outcome classes; [] = ok */
  classes: string[];
  metrics: Record<string, number>;
  params: Record<string, Json>;
  /** model size measure of the sampled scenario */
  size: number;
}

export function digestText(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The run indices of shard i/N: a contiguous slice [floor(runs i/N), floor(runs (i+1)/N)). */
export function shardRange(runs: number, shard: ShardSpec): [number, number] {
  return [Math.floor((runs * shard.index) / shard.count), Math.floor((runs * (shard.index + 1)) / shard.count)];
}

export function parseShard(s: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(s.trim());
  if (!m) throw new InputError(`--shard takes i/N (e.g. 0/4), got "${s}"`, "command line", undefined, "--shard");
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!(count >= 1 && index < count)) throw new InputError(`--shard ${s}: need 0 <= i < N`, "command line", undefined, "--shard");
  return { index, count };
}

export interface JournalContents {
  header: JournalHeader;
  records: RunRecord[];
  /** byte length of the whole lines (a torn tail beyond it is dropped) */
  goodBytes: number;
  torn: boolean;
}

export function readJournal(path: string): JournalContents {
  const records: RunRecord[] = [];
  const j = scanJournal(path, (r) => void records.push(r));
  return { header: j.header, records, goodBytes: j.goodBytes, torn: j.torn };
}

export interface JournalScan {
  header: JournalHeader;
  /** records handed on */
  records: number;
  /** bytes up to and including the last whole line */
  goodBytes: number;
  /** a partial last line follows goodBytes */
  torn: boolean;
}

/** Bytes read per call while scanning a journal. */
const SCAN_CHUNK_BYTES = 4 << 20;

/**
 * Read a journal line by line without holding it: the header is checked
 * first and handed to `onHeader` (which may throw) before any record, then
 * `onRecord` gets each record
 * in file order. A write is one whole line, so a crash mid-write leaves a
 * tail without "\n": that tail is reported as torn, not parsed. ("\n" is
 * never part of a multi-byte UTF-8 character, so lines are cut on bytes.)
 */
/** 32-bit FNV-1a of a line's bytes */
function fnv1a(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < b.length; k++) h = Math.imul(h ^ b[k]!, 0x01000193);
  return h >>> 0;
}

/** Each run index's first line: its hash and line number (arrays over the shard's range, a Map outside it). */
class FirstLines {
  private readonly hash: Uint32Array;
  private readonly line: Uint32Array;
  private readonly other = new Map<number, { hash: number; line: number }>();
  constructor(private readonly lo: number, hi: number) {
    const n = Math.max(0, Math.min(hi - lo, 1 << 26));
    this.hash = new Uint32Array(n);
    this.line = new Uint32Array(n);
  }
  get(i: number): { hash: number; line: number } | undefined {
    const k = i - this.lo;
    if (k >= 0 && k < this.hash.length) return this.hash[k] ? { hash: this.hash[k]!, line: this.line[k]! } : undefined;
    return this.other.get(i);
  }
  set(i: number, hash: number, line: number): void {
    const k = i - this.lo;
    if (k >= 0 && k < this.hash.length) {
      this.hash[k] = hash;
      this.line[k] = line;
    } else this.other.set(i, { hash, line });
  }
}

export function scanJournal(path: string, onRecord: (r: RunRecord) => void, onHeader?: (h: JournalHeader) => void): JournalScan {
  const fd = openSync(path, "r");
  let header: JournalHeader | undefined;
  let records = 0;
  let lineNo = 0;
  let sweepSeed = 0n;
  let goodBytes = 0;
  let pending: Buffer = Buffer.alloc(0); // the start of a line cut by a chunk boundary
  let firstOf = new FirstLines(0, 0);
  const buf = Buffer.allocUnsafe(SCAN_CHUNK_BYTES);
  const line = (b: Buffer) => {
    lineNo++;
    let obj: unknown;
    try {
      obj = JSON.parse(b.toString("utf8"));
    } catch {
      throw new InputError("not a JSON line (the journal is damaged before its last line)", path, lineNo);
    }
    if (lineNo === 1) {
      const h = obj as JournalHeader;
      if (!h || h.mc !== JOURNAL_VERSION) throw new InputError(`not an iosim mc journal (header mc: ${String(h?.mc)})`, path, 1);
      checkHeaderTable(h.table, path);
      if (!(Number.isInteger(h.runs) && h.runs >= 1)) throw new InputError(`header runs must be a whole number >= 1, got ${shown(h.runs)}`, path, 1, "runs");
      try {
        sweepSeed = BigInt(h.seed);
      } catch {
        throw new InputError(`header seed must be an integer, got ${shown(h.seed)}`, path, 1, "seed");
      }
      // a journal from before shards has none (the whole sweep); one given must be i/N with 0 <= i < N
      // (`shard: null` was a TypeError, exit 3, in --resume)
      if (h.shard === undefined) h.shard = { index: 0, count: 1 };
      const sh = h.shard as Partial<ShardSpec> | null;
      if (!sh || typeof sh !== "object" || !Number.isSafeInteger(sh.index) || !Number.isSafeInteger(sh.count) || sh.count! < 1 || sh.index! < 0 || sh.index! >= sh.count!) {
        throw new InputError(`header shard must be {index, count} with 0 <= index < count, got ${shown(h.shard) ?? String(h.shard)}`, path, 1, "shard");
      }
      header = h;
      firstOf = new FirstLines(...shardRange(h.runs, h.shard));
      onHeader?.(h);
    } else {
      checkRecord(obj, header!.runs, sweepSeed, path, lineNo);
      // a run index given again must be the same run (a sweep writes each run's line the same
      // way every time): one with other classes or metrics is a damaged or foreign journal
      const i = (obj as RunRecord).i;
      const h = fnv1a(b) || 1;
      const prev = firstOf.get(i);
      if (prev === undefined) firstOf.set(i, h, lineNo);
      else if (prev.hash !== h) throw new InputError(`run ${i} is given again with another result (first at line ${prev.line}): the journal is damaged or mixes two sweeps`, path, lineNo, "i");
      records++;
      onRecord(obj as RunRecord);
    }
  };
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, SCAN_CHUNK_BYTES, null);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      let a = 0;
      for (let b = chunk.indexOf(10); b >= 0; a = b + 1, b = chunk.indexOf(10, a)) {
        const piece = chunk.subarray(a, b);
        goodBytes += pending.length + piece.length + 1;
        if (pending.length) {
          line(Buffer.concat([pending, piece]));
          pending = Buffer.alloc(0);
        } else line(piece);
      }
      if (a < n) pending = Buffer.concat([pending, chunk.subarray(a)]); // a copy: buf is read into again
    }
  } finally {
    closeSync(fd);
  }
  if (!header) throw new InputError("empty journal (no header line)", path, 1);
  return { header, records, goodBytes, torn: pending.length > 0 };
}

/**
 * A record line must be what runLine writes for this sweep: run index i a
 * whole number in [0, runs), its seed runSeed(sweep seed, i), classes a list
 * of names, metrics numbers, params a mapping, size a number (null when not
 * finite). A damaged or foreign line counted as it was read (an index past
 * the sweep's runs counted as completed, a string index dropped, `classes:
 * null` an internal error) is refused with the file, line and field, before
 * a resume truncates or appends anything.
 */
function checkRecord(o: unknown, runs: number, sweepSeed: bigint, path: string, lineNo: number): void {
  const bad = (field: string, want: string, got: unknown): never => {
    throw new InputError(`not a run record of this sweep: ${field} must be ${want}, got ${shown(got) ?? String(got)}`, path, lineNo, field);
  };
  if (!o || typeof o !== "object" || Array.isArray(o)) bad("record", "a mapping {i, seed, classes, metrics, params, size}", o);
  const r = o as Record<string, unknown>;
  if (!(Number.isInteger(r.i) && (r.i as number) >= 0 && (r.i as number) < runs)) bad("i", `a run index in [0, ${runs})`, r.i);
  const want = runSeed(sweepSeed, r.i as number);
  if (r.seed !== want) bad("seed", `run ${r.i as number}'s seed ${want} (the header's seed ${sweepSeed})`, r.seed);
  if (!Array.isArray(r.classes) || !r.classes.every((c) => typeof c === "string")) bad("classes", "a list of class names", r.classes);
  const m = r.metrics;
  if (!m || typeof m !== "object" || Array.isArray(m)) bad("metrics", "a mapping of names to numbers", m);
  for (const k in m as Record<string, unknown>) {
    const v = (m as Record<string, unknown>)[k];
    if (typeof v !== "number") bad(`metrics.${k}`, "a number", v);
  }
  if (!r.params || typeof r.params !== "object" || Array.isArray(r.params)) bad("params", "a mapping", r.params);
  if (typeof r.size !== "number" && r.size !== null) bad("size", "a number", r.size);
}

/** Appends records, fsync'ing in batches. */
export class JournalWriter {
  private fd: number;
  private unsynced = 0;
  private lastSync = Date.now();
  /** a batch's fsync in flight on the thread pool */
  private syncing = false;
  /** close() came while one was: the fd is closed when it returns */
  private closeAfterSync = false;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Start a new journal (the file must not exist unless `overwrite`). */
  static create(path: string, header: JournalHeader, overwrite = false): JournalWriter {
    if (existsSync(path) && !overwrite) {
      throw new InputError("journal exists: pass --resume to continue it (a finished sweep is then tabulated again, e.g. --by another parameter, and no run is repeated) or --force to start over", path);
    }
    const fd = openSync(path, "w");
    writeSync(fd, JSON.stringify(header) + "\n");
    fsyncSync(fd);
    return new JournalWriter(fd);
  }

  /** Reopen a journal for appending after dropping its torn tail. */
  static reopen(path: string, goodBytes: number): JournalWriter {
    const fd = openSync(path, "r+");
    if (fstatSync(fd).size !== goodBytes) ftruncateSync(fd, goodBytes);
    closeSync(fd);
    return new JournalWriter(openSync(path, "a"));
  }

  append(records: readonly RunRecord[]): void {
    if (records.length === 0) return;
    let s = "";
    for (const r of records) s += JSON.stringify(r) + "\n";
    writeSync(this.fd, s);
    this.unsynced += records.length;
    if (this.unsynced >= FSYNC_EVERY_RUNS || Date.now() - this.lastSync >= FSYNC_EVERY_MS) this.sync();
  }

  /** Append `runs` records already encoded as journal lines (each ending in "\n"). */
  appendLines(lines: string, runs: number): void {
    if (runs === 0) return;
    writeSync(this.fd, lines);
    this.unsynced += runs;
    if (this.unsynced >= FSYNC_EVERY_RUNS || Date.now() - this.lastSync >= FSYNC_EVERY_MS) this.sync();
  }

  /** fsync what was appended, in the background (one fsync in flight at a time; what comes meanwhile waits for the next batch) */
  sync(): void {
    if (this.unsynced === 0 || this.syncing) return;
    this.syncing = true;
    this.unsynced = 0;
    this.lastSync = Date.now();
    fsync(this.fd, () => {
      this.syncing = false;
      if (this.closeAfterSync) closeSync(this.fd);
    });
  }

  /** Sync everything appended (synchronously) and close the file. */
  close(): void {
    fsyncSync(this.fd);
    this.unsynced = 0;
    // the fd stays open until a background fsync on it has returned
    if (this.syncing) this.closeAfterSync = true;
    else closeSync(this.fd);
  }
}

/** Headers of shard journals must describe the same sweep. */
/** A header's `table` is what `--by` parses to: [{param, bins?}], bins increasing numbers. */
function checkHeaderTable(t: unknown, path: string): void {
  if (t === undefined) return;
  const ok = Array.isArray(t) && t.every((a) => {
    if (!a || typeof a !== "object" || typeof (a as TableAxis).param !== "string" || !(a as TableAxis).param) return false;
    const b = (a as TableAxis).bins;
    return b === undefined || (Array.isArray(b) && b.every((e, k) => typeof e === "number" && Number.isFinite(e) && (k === 0 || e > b[k - 1]!)));
  });
  if (!ok) throw new InputError("header table must be a list of {param, bins?} (the axes --by gave)", path, 1, "table");
}

/** How two headers' `--by` axes differ, or undefined when they are the same (both absent included). */
export function sameTable(a: JournalHeader, b: JournalHeader): string | undefined {
  const show = (h: JournalHeader) => (h.table ? h.table.map((x) => x.param + (x.bins ? `:${x.bins.join(",")}` : "")).map((x) => `--by ${x}`).join(" ") : "no --by");
  return show(a) === show(b) ? undefined : `tabulated differently (${show(a)} vs ${show(b)})`;
}

export function sameSweep(a: JournalHeader, b: JournalHeader): string | undefined {
  if (a.scenario.digest !== b.scenario.digest) return "different scenario files";
  if (a.seed !== b.seed) return `different seeds (${a.seed} vs ${b.seed})`;
  if (a.runs !== b.runs) return `different run counts (${a.runs} vs ${b.runs})`;
  return undefined;
}
