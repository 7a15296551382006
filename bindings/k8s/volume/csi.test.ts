import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../util/sha256.js";
import { getAttachmentName, isAttachmentName, makeVolumeHandle } from "./csi.js";

describe("CSI names", () => {
  it("sha256 matches the FIPS 180-2 test vectors", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  });
  it("a VolumeAttachment name is csi- + sha256(handle + driver + node), 68 characters", () => {
    const n = getAttachmentName("vol-1", "ebs.csi.aws.com", "node-1");
    expect(n).toBe(`csi-${sha256Hex("vol-1ebs.csi.aws.comnode-1")}`);
    expect(n).toHaveLength(68);
    expect(isAttachmentName(n)).toBe(true);
  });
  it("seed 004: a 68-character unique name of a driver starting with csi- looks like an attachment name", () => {
    expect(isAttachmentName("csi-unity.dellemc.com^csiunity-3a9c1d2e7f-iSCSI-APM00193821231-sv_42")).toBe(true);
    expect(isAttachmentName("csi-unity.dellemc.com^csiunity-openshift-3a9c1d2e7f-iSCSI-APM00193821231-sv_42")).toBe(false);
  });
  it("an ephemeral volume handle is csi- + sha256(podUID + volume name)", () => {
    expect(makeVolumeHandle("uid", "data")).toBe(`csi-${sha256Hex("uiddata")}`);
  });
});
