// io.max and blkio.throttle.* writes through the simulation, as the kernel's
// tg_set_limit() / tg_set_conf() take them (the one parser in
// bindings/cgroup/throttle.ts). Each case is one a user can hit, where the
// simulation's own parser used to differ from the kernel.
import { describe, expect, it } from "vitest";
import { loadScenario, simulate, InputError, type KernelVersion } from "../../index.js";

const yaml = (ioMax: string, kernel: KernelVersion = "6.18", file = "io.max") =>
  `name: x\nkernel: "${kernel}"\ncgroup_version: ${file === "io.max" ? 2 : 1}\ncgroups:\n  a:\n    ${file}: ${JSON.stringify(ioMax)}\n` +
  `jobs:\n  - name: j\n    cgroup: a\n    bs: 4k\n    direct: 1\n    number_ios: 200\n`;

/** The job's read IOPS, and the run's warnings. */
function run(ioMax: string, kernel?: KernelVersion, file?: string) {
  const r = simulate(loadScenario(yaml(ioMax, kernel, file), "s.yaml").scenario);
  const j = r.jobs[0]!;
  return { iops: j.read.ios / (j.runtimeMs / 1e3), warnings: r.warnings ?? [] };
}

function rejected(ioMax: string, kernel?: KernelVersion, file?: string): InputError {
  try {
    run(ioMax, kernel, file);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(ioMax)} to be rejected`);
}

describe("io.max through the simulation follows tg_set_limit()", () => {
  it('io.max "8:0 riops=2k" runs at 2 IOPS as the kernel would, and the run warns at the file and line, naming the token (it said nothing)', () => {
    const r = run("8:0 riops=2k wiops=max");
    expect(r.iops).toBeLessThan(3);
    expect(r.warnings).toContain('s.yaml:6: io.max: "riops=2k": the kernel reads 2 and ignores "k" (no unit suffixes or fractions)');
  });

  it("a control: riops=100 holds 200 reads to 100 IOPS", () => {
    expect(Math.abs(run("8:0 riops=100").iops / 100 - 1)).toBeLessThan(0.06);
  });

  it("values are sscanf(\"%llu\"): 2^64 wraps to 0 (ERANGE), 2^64+1 to 1 (EINVAL before 6.18), trailing junk is ignored", () => {
    const e = rejected("8:0 riops=18446744073709551616");
    expect([e.errno, e.field]).toEqual(["ERANGE", "io.max riops"]);
    expect(e.message).toMatch(/io\.max: write rejected at "riops=18446744073709551616": 0 is out of range/);
    expect(rejected("8:0 riops=18446744073709551617", "6.12").message).toMatch(/value 1 is refused before 6\.18/);
    expect(run("8:0 riops=18446744073709551617").iops).toBeLessThan(1.01); // 1 IOPS on 6.18
    expect(Math.abs(run("8:0 riops=100abc", "6.12").iops / 100 - 1)).toBeLessThan(0.06);
  });

  it("a token longer than 26 characters is cut, and its tail is a token without '=': EINVAL (it was read whole)", () => {
    // "riops=000000000000000000100" is 27 characters: the kernel reads "riops=00000000000000000010", then "0"
    const e = rejected("8:0 riops=000000000000000000100");
    expect([e.errno, e.file, e.line]).toEqual(["EINVAL", "s.yaml", 6]);
    expect(e.message).toMatch(/io\.max: write rejected at "0": expected key=value/);
    // 26 characters still parse
    expect(Math.abs(run("8:0 riops=00000000000000000100").iops / 100 - 1)).toBeLessThan(0.06);
  });

  it("MAJ:MIN is two %u numbers: 08:00 names 8:0 (it was ENODEV)", () => {
    expect(Math.abs(run("08:00 riops=100").iops / 100 - 1)).toBeLessThan(0.06);
  });

  it("6.1 accepts io.low's idle= and latency= on io.max and ignores them, with a warning (they were EINVAL)", () => {
    const r = run("8:0 idle=1000 riops=100 latency=5", "6.1");
    expect(Math.abs(r.iops / 100 - 1)).toBeLessThan(0.06);
    expect(r.warnings.some((w) => /s\.yaml:6: .*io\.max: 6\.1 accepts and ignores io\.low's idle=1000 latency=5/.test(w))).toBe(true);
    expect(rejected("8:0 idle=1000 riops=100", "6.12").errno).toBe("EINVAL");
  });

  it("the value is what `echo` writes: an empty value is EINVAL (it wrote nothing), and so is `default` or MAX", () => {
    expect(rejected("").errno).toBe("EINVAL");
    expect(rejected("default riops=100").errno).toBe("EINVAL");
    const e = rejected("8:0 riops=MAX");
    expect([e.errno, e.field]).toEqual(["EINVAL", "io.max riops"]);
  });

  it("white space is the kernel's, in bytes: a non-ASCII space is token bytes, and 26 is counted in bytes (an em space split tokens)", () => {
    // "riops=100\u2003rbps=1048576000": U+2003 is three bytes and not white
    // space, so this is 27 bytes of one token (25 characters): cut at 26, its
    // tail "0" is a token without '=': EINVAL
    const e = rejected("8:0 riops=100\u2003rbps=1048576000");
    expect(e.errno).toBe("EINVAL");
    expect(e.message).toMatch(/write rejected at "0"/);
    // a shorter one is one token: riops=100 with trailing junk, the rbps in it never read
    expect(Math.abs(run("8:0 riops=100\u2003rbps=1").iops / 100 - 1)).toBeLessThan(0.06);
    // tabs, and the 0xa0 byte of U+00A0 (its 0xc2 byte is the end of "riops=100"), are white space
    expect(Math.abs(run("8:0\triops=100\u00a0rbps=max").iops / 100 - 1)).toBeLessThan(0.06);
  });

  it("each line of a value is one write, in order (echo LINE > io.max), with the kernel's errors per line", () => {
    expect(Math.abs(run("8:0 riops=50\n8:0 wiops=10\n").iops / 50 - 1)).toBeLessThan(0.06);
    expect(rejected("8:0 riops=50\n8:0 rbps=0").errno).toBe("ERANGE");
  });

  it("the v1 files take the same device rules, and warn when an iops value does not fit 32 bits", () => {
    expect(Math.abs(run("08:00 100", "6.18", "blkio.throttle.read_iops_device").iops / 100 - 1)).toBeLessThan(0.06);
    const r = run("8:0 4294967396", "6.18", "blkio.throttle.read_iops_device");
    expect(Math.abs(r.iops / 100 - 1)).toBeLessThan(0.06); // 2^32 + 100 is stored as 100
    expect(r.warnings.some((w) => /s\.yaml:6: .*does not fit the kernel's unsigned int iops field; it stores 100/.test(w))).toBe(true);
  });
});
