import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./sha256.js";

const ref = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

describe("sha256Hex", () => {
  it("is SHA-256 of the UTF-8 bytes, short texts (its own loop) and long ones (Node's) alike", () => {
    for (const unit of ["a", "é", "日本", "😀", '{"k":[1,2,3]},']) {
      for (const n of [0, 1, 55, 56, 63, 64, 65, 4095, 4096, 4097, 100_000]) {
        const t = unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
        // (slice may cut a surrogate pair: those texts are checked below)
        if (!t.isWellFormed()) continue;
        expect(sha256Hex(t)).toBe(ref(Buffer.from(t, "utf8")));
      }
    }
  });
  it("encodes a lone surrogate as itself (ED A0 80 for U+D800), not as U+FFFD, short or long", () => {
    for (const n of [10, 10_000]) {
      const t = `${"x".repeat(n)}\ud800`;
      const bytes = Buffer.concat([Buffer.from("x".repeat(n)), Buffer.from([0xed, 0xa0, 0x80])]);
      expect(sha256Hex(t)).toBe(ref(bytes));
    }
  });
});
