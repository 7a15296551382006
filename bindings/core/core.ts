// Loading the WebAssembly core and talking to it.
//
// The module is embedded (base64) so one import works in Node, in a browser
// bundle and in a Web Worker. Compile once (`coreModule()`), instantiate per
// simulation: each Simulation owns a fresh instance and memory, so runs are
// independent and can run side by side in workers.
//
// i64 parameters cross as BigInt (AssemblyScript's raw ABI); the wrappers in
// Simulation convert. Nothing here is called per bio.

import { WASM_BASE64 } from "./wasm.generated.js";

export interface CoreExports {
  memory: WebAssembly.Memory;
  reset(seed: bigint, hz: number, jiffiesAtZero: bigint, zeroAfterTickNs: bigint, v2: number): void;
  cgroupAdd(parent: number): number;
  pagecacheEnable(profile: number): void;
  pagecacheDevice(dev: number, raKb: number, ioKb: number, sizeBytes: bigint): void;
  pagecacheJob(job: number, dev: number, advice: number, invalidate: number): void;
  pagecacheMemoryMax(cg: number, bytes: bigint): void;
  pagecacheStat(cg: number, field: number): bigint;
  deviceAdd(channels: number, nrRequests: number, fixedLatencyNs: bigint, jitterSigma: number,
    maxSectorsBytes: number, rotational: number): number;
  devicePoint(dev: number, dir: number, rand: number, k: number, size: number, iops: number): void;
  deviceSigma(dev: number, table: number, sigma: number): void;
  deviceQuantileRow(dev: number, table: number, point: number, depth: number): number;
  deviceQuantilePoint(dev: number, u: number, factor: number): void;
  deviceLnBin(dev: number, table: number, k: number, factor: number): void;
  deviceDepthScale(dev: number, k: number, n: number, scale: number): void;
  deviceMechanics(dev: number, settleNs: number, spanNs: number, rotNs: number, nsPerByte: number, capBytes: number): void;
  jobAdd(cg: number, dev: number, rw: number, mixReadPct: number, random: number, direct: number,
    regionOff: bigint, regionLen: bigint, align: bigint, qd: number, pattern: number, rateIops: number,
    rateBps: number, burst: number, thinkNs: bigint, thinkBlocks: number, startNs: bigint, count: bigint,
    bytesLimit: bigint, runtimeNs: bigint, timeBased: number): number;
  jobBs(job: number, size: number, weight: number): void;
  jobBsWrite(job: number, size: number, weight: number): void;
  jobRateDir(job: number, dir: number, iops: number, bps: number): void;
  jobGap(job: number, gapNs: bigint): void;
  jobPoisson(job: number, gapUs: bigint): void;
  jobRamp(job: number, rampNs: bigint): void;
  jobFlow(job: number, group: number, weight: number, sleepNs: bigint): void;
  jobThinkIotime(job: number, iotimeNs: bigint, blocksSet: number): void;
  stagingAlloc(bytes: number): number;
  jobLoadTimes(job: number, n: number): void;
  jobLoadReplay(job: number, n: number): void;
  statsSetup(seriesBinNs: bigint, record: number): void;
  stopAt(t: bigint): void;
  start(): void;
  run(untilNs: bigint, maxEvents: number): number;
  simNow(): bigint;
  jiffiesAtTime(t: bigint): bigint;
  eventCount(): bigint;
  eventsPending(): number;
  biosInFlight(): number;
  jobIssued(job: number): bigint;
  jobCompleted(job: number): bigint;
  /** close the jobs' fio bw/iops sample windows that ended while they ran (before reading results; idempotent) */
  finishRateSamples(): void;
  /** one field (DS below) of a device's /sys/block/<dev>/stat at the current simulated time */
  deviceStat(dev: number, field: number): bigint;
  column(id: number): number;
  columnLength(id: number): number;
  /** the series bin still filling, -1 before any completion */
  seriesOpenBin(): bigint;
  // Modules (throttle, iocost, writeback) add their own exports; they are
  // reached through `core.x` with their own typed views in bindings/engine/modules.
  [name: string]: unknown;
}

let compiled: WebAssembly.Module | undefined;
let compiling: Promise<WebAssembly.Module> | undefined;

function wasmBytes(): Uint8Array {
  // Node's Buffer (a global there, no import: this module also runs in browsers) decodes
  // base64 natively: 0.3 ms for the core against 3 ms for the loop below, which runs cold
  // once per process
  const B = (globalThis as { Buffer?: { from(s: string, encoding: "base64"): Uint8Array } }).Buffer;
  if (B) return B.from(WASM_BASE64, "base64");
  const bin = atob(WASM_BASE64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Size of the embedded WASM in bytes. */
export function coreWasmSize(): number {
  return Math.floor((WASM_BASE64.length * 3) / 4) - (WASM_BASE64.endsWith("==") ? 2 : WASM_BASE64.endsWith("=") ? 1 : 0);
}

/** Compile the core synchronously (Node, Web Workers). */
export function coreModuleSync(): WebAssembly.Module {
  if (!compiled) compiled = new WebAssembly.Module(wasmBytes() as BufferSource);
  return compiled;
}

/** Compile the core asynchronously (browser main thread). */
export function coreModule(): Promise<WebAssembly.Module> {
  if (compiled) return Promise.resolve(compiled);
  if (!compiling) {
    compiling = WebAssembly.compile(wasmBytes() as BufferSource).then((m) => (compiled = m));
  }
  return compiling;
}

/**
 * The core's abort (AssemblyScript's `abort(message, file, line, column)`):
 * `what` and `file` are read from the core's memory (UTF-16 strings with
 * their byte length before them), so an allocation the core cannot make
 * ("Allocation too large" in ~lib/rt) can be told from a real bug.
 */
export class CoreAbort extends Error {
  constructor(
    readonly what: string,
    readonly file: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`iosim core aborted at ${line}:${column}${what ? `: ${what}` : ""}${file ? ` (${file})` : ""}`);
    this.name = "CoreAbort";
  }
  /** the core ran out of room: its memory could not grow, or one table passed the largest block it allocates */
  get outOfMemory(): boolean {
    return this.file.startsWith("~lib/") && /allocation too large|out of memory|invalid length/i.test(this.what);
  }
}

function asString(mem: WebAssembly.Memory | undefined, ptr: number): string {
  try {
    if (!mem || !ptr) return "";
    const bytes = new Uint32Array(mem.buffer, ptr - 4, 1)[0]!;
    if (bytes > 4096) return "";
    return String.fromCharCode(...new Uint16Array(mem.buffer, ptr, bytes >>> 1));
  } catch {
    return "";
  }
}

/** imports of one instance (its abort reads the instance's memory) */
function importsFor(): { imports: WebAssembly.Imports; bind: (e: CoreExports) => void } {
  let mem: WebAssembly.Memory | undefined;
  return {
    imports: {
      env: {
        abort(msg: number, file: number, line: number, col: number): never {
          throw new CoreAbort(asString(mem, msg), asString(mem, file), line, col);
        },
      },
    },
    bind: (e) => {
      mem = e.memory;
    },
  };
}

/** A fresh instance of the core (own memory). */
export function instantiateCore(module: WebAssembly.Module = coreModuleSync()): CoreExports {
  const im = importsFor();
  const inst = new WebAssembly.Instance(module, im.imports);
  const e = inst.exports as unknown as CoreExports;
  im.bind(e);
  return e;
}

export async function instantiateCoreAsync(): Promise<CoreExports> {
  const m = await coreModule();
  const im = importsFor();
  const inst = await WebAssembly.instantiate(m, im.imports);
  const e = inst.exports as unknown as CoreExports;
  im.bind(e);
  return e;
}
