import { describe, expect, it } from "vitest";
import { boundedMemo } from "./bounded-memo.js";

describe("boundedMemo", () => {
  it("makes each key's value once and gives that same object on every later call", () => {
    let made = 0;
    const ref = boundedMemo(8, (k: string) => ({ k, n: ++made }));
    const a = ref("pod-a");
    expect(ref("pod-a")).toBe(a);
    expect(ref("pod-b")).not.toBe(a);
    expect(made).toBe(2);
  });

  it("is cleared when a new key arrives at capacity, so a sweep's ever-new keys cannot grow it without end", () => {
    let made = 0;
    const m = boundedMemo(3, (k: number) => `v${k}#${++made}`);
    const first = m(1);
    m(2);
    m(3);
    expect(m(1)).toBe(first); // still held at capacity
    m(4); // the fourth distinct key clears the three
    expect(made).toBe(4);
    expect(m(1)).toBe("v1#5"); // made again
  });
});
