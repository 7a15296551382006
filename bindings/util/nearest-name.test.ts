// The did-you-mean rule at its boundaries: a typo is suggested, a different
// name is not (db-0 was once offered web-0: two edits of four characters).
import { describe, expect, it } from "vitest";
import { maxSuggestDistance, nearestName, swapDistance } from "./nearest-name.js";

describe("nearestName", () => {
  it("allows max(1, floor(length / 3)) edits: 1 up to 5 characters, 2 for 6 to 8, 3 from 9", () => {
    expect([1, 2, 5, 6, 8, 9].map((n) => maxSuggestDistance("x".repeat(n)))).toEqual([1, 1, 1, 2, 2, 3]);
    // 4 characters, 2 edits: no
    expect(nearestName("db-0", ["web-0", "web-1"])).toBeUndefined();
    // 4 characters, 1 edit: yes
    expect(nearestName("wb-0", ["web-0", "db-1"])).toBe("web-0");
    expect(nearestName("n2", ["n1"])).toBe("n1");
    expect(nearestName("ab", ["cd"])).toBeUndefined();
    // 5 characters: 1 edit yes, 2 no
    expect(nearestName("web-O", ["web-0"])).toBe("web-0");
    expect(nearestName("wbb-O", ["web-0"])).toBeUndefined();
    // 6 characters: 2 edits yes, 3 no
    expect(nearestName("iodeph", ["iodepth", "direct"])).toBe("iodepth");
    expect(nearestName("abcdXY", ["abcdef"])).toBe("abcdef");
    expect(nearestName("abcXYZ", ["abcdef"])).toBeUndefined();
    // 8 characters: 2 edits yes, 3 no
    expect(nearestName("exportXY", ["exporter"])).toBe("exporter");
    expect(nearestName("exporXYZ", ["exporter"])).toBeUndefined();
    // 9 characters: 3 edits
    expect(nearestName("blocksise", ["blocksize"])).toBe("blocksize");
    expect(nearestName("bxocksxxe", ["blocksize"])).toBe("blocksize");
    expect(nearestName("bxoxksxxe", ["blocksize"])).toBeUndefined();
  });

  it("counts a swap of neighbours as one edit (libiao -> libaio), differences of case as none", () => {
    expect(swapDistance("libiao", "libaio")).toBe(1);
    expect(swapDistance("ab", "ba")).toBe(1);
    expect(nearestName("libiao", ["libaio", "io_uring", "psync"])).toBe("libaio");
    expect(nearestName("io-uring", ["libaio", "io_uring"])).toBe("io_uring");
    // a 3-character name swapped is found
    expect(nearestName("n1a", ["na1"])).toBe("na1");
    expect(nearestName("IODEPTH", ["iodepth", "iodepth_low"])).toBe("iodepth");
  });

  it("offers a known name the bad one is a whole part of (cut at - _ / .), else nothing", () => {
    expect(nearestName("attacher", ["kube-controller-manager", "csi-attacher", "kubelet"])).toBe("csi-attacher");
    expect(nearestName("pod", ["pod-volumes", "pod-volumes-ready"])).toBe("pod-volumes");
    // a bare substring is not a part
    expect(nearestName("depth", ["iodepth"])).toBeUndefined();
    expect(nearestName("", ["a"])).toBeUndefined();
    expect(nearestName("x", [])).toBeUndefined();
  });

  it("ties go to the alphabetically first name", () => {
    expect(nearestName("c3", ["c2", "c1"])).toBe("c1");
  });
});
