// SHA-256 (FIPS 180-4) of a UTF-8 string, hex encoded. Pure TS and synchronous,
// so it runs in the browser without WebCrypto's promises: the Kubernetes
// replay's CSI names (VolumeAttachment `csi-<sha256>`, ephemeral volume
// handles) and the playground's result digest (web/src/lib/digest.ts).

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const encoder = typeof TextEncoder === "function" ? new TextEncoder() : undefined;

function utf8(s: string): Uint8Array {
  // TextEncoder writes the same bytes for a well-formed string (a lone surrogate it replaces
  // with U+FFFD, where the loop below encodes it as itself): the loop's number[] took 8 bytes a
  // byte, 700 MB for the 90 MB result of a 2,000 h Kubernetes replay
  const wf = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (encoder && wf && wf.call(s)) return encoder.encode(s);
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** node:crypto's createHash, where process.getBuiltinModule gives it (Node >= 20.16; not in a browser), looked up on first use */
type CreateHash = (alg: "sha256") => { update(s: string, enc: "utf8"): { digest(enc: "hex"): string } };
let nodeHash: CreateHash | null | undefined;
function nativeHash(): CreateHash | null {
  if (nodeHash === undefined) {
    const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => { createHash?: CreateHash } | undefined } }).process;
    nodeHash = p?.getBuiltinModule?.("node:crypto")?.createHash ?? null;
  }
  return nodeHash;
}

/**
 * Texts from this long are hashed by Node's own SHA-256 where there is one:
 * a result digest (a run's canonical JSON, tens of KB and up) took ~12 ms in
 * the loop below, which a process hashing once runs cold, against ~0.4 ms
 * (`iosim run` and `iosim k8s run` print one per run). A short text (the
 * replay's CSI names) stays in the loop, cheaper than a native call.
 */
const NATIVE_MIN_CHARS = 4096;

export function sha256Hex(text: string): string {
  if (text.length >= NATIVE_MIN_CHARS) {
    // the same bytes as utf8() below only for a well-formed string (a lone surrogate it encodes
    // as itself, where Node writes U+FFFD)
    const wf = (text as { isWellFormed?: () => boolean }).isWellFormed;
    const native = wf && wf.call(text) ? nativeHash() : null;
    if (native) return native("sha256").update(text, "utf8").digest("hex");
  }
  const msg = utf8(text);
  const bitLen = msg.length * 8;
  const padded = new Uint8Array(((msg.length + 9 + 63) >> 6) << 6);
  padded.set(msg);
  padded[msg.length] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bitLen / 4294967296));
  dv.setUint32(padded.length - 4, bitLen >>> 0);
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const W = new Uint32Array(64);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const w15 = W[i - 15]!;
      const w2 = W[i - 2]!;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) >>> 0;
    }
    let a = H[0]!, b = H[1]!, c = H[2]!, d = H[3]!, e = H[4]!, f = H[5]!, g = H[6]!, h = H[7]!;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[i]! + W[i]!) >>> 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    H[0] = (H[0]! + a) >>> 0;
    H[1] = (H[1]! + b) >>> 0;
    H[2] = (H[2]! + c) >>> 0;
    H[3] = (H[3]! + d) >>> 0;
    H[4] = (H[4]! + e) >>> 0;
    H[5] = (H[5]! + f) >>> 0;
    H[6] = (H[6]! + g) >>> 0;
    H[7] = (H[7]! + h) >>> 0;
  }
  let hex = "";
  for (let i = 0; i < 8; i++) hex += H[i]!.toString(16).padStart(8, "0");
  return hex;
}
