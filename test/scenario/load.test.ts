import { readFromMemory } from "../helpers/files-in-memory.js";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../bindings/scenario/load.js";
import { InputError } from "../../bindings/scenario/errors.js";
import { simulate } from "../../bindings/engine/simulation.js";

const ok = `name: two-tenants
kernel: "6.12"
seed: 42
duration: 2s
series: 250ms
devices:
  - preset: nvme
cgroups:
  tenants/a: {}
  tenants/b: {}
jobs:
  - name: a
    cgroup: tenants/a
    rw: randread
    bs: 4k
    ioengine: libaio
    iodepth: 8
    direct: 1
    runtime: 1s
    time_based: 1
  - name: b
    cgroup: tenants/b
    rw: write
    bs: 64k
    ioengine: libaio
    iodepth: 2
    direct: 1
    size: 64m
`;

function errorOf(text: string): InputError {
  try {
    loadScenario(text, "s.yaml");
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error("expected an InputError");
}

describe("scenario files", () => {
  it("a two-tenant YAML scenario becomes devices, cgroups and fio jobs", () => {
    const { scenario } = loadScenario(ok, "s.yaml");
    expect(scenario.kernel).toBe("6.12");
    expect(scenario.seed).toBe(42);
    expect(scenario.durationNs).toBe(2e9);
    expect(scenario.seriesBinNs).toBe(250e6);
    expect(scenario.devices[0]!.name).toBe("nvme0n1");
    expect(scenario.jobs.map((j) => [j.name, j.cgroup, j.rw, j.random, j.iodepth])).toEqual([
      ["a", "tenants/a", "read", true, 8],
      ["b", "tenants/b", "write", false, 2],
    ]);
    expect(scenario.jobs[1]!.bytes).toBe(64 << 20);
    expect(scenario.jobs[0]!.source?.line).toBe(12);
  });

  it("runs: tenant b writes exactly its 64 MiB and tenant a reads for its 1 s", () => {
    const r = simulate(loadScenario(ok, "s.yaml").scenario);
    const b = r.jobs.find((j) => j.name === "b")!;
    expect(b.write.bytes).toBe(64 << 20);
    const a = r.jobs.find((j) => j.name === "a")!;
    expect(a.firstSubmitNs).toBe(0);
    expect(a.read.ios).toBeGreaterThan(1000);
    expect(r.series.length).toBeGreaterThan(0);
  });

  it("a bad fio value is reported at the YAML line of that option", () => {
    const e = errorOf(ok.replace("iodepth: 8", "iodepth: lots"));
    expect(e.file).toBe("s.yaml");
    expect(e.line).toBe(17);
    expect(e.field).toBe("iodepth");
  });

  it("a misspelt fio option in a jobs: mapping is refused at its YAML line and key (it ran at depth 1 with a warning)", () => {
    const e = errorOf(ok.replace("iodepth: 8", "iodeph: 8"));
    expect([e.file, e.line, e.field]).toEqual(["s.yaml", 17, "iodeph"]);
    expect(e.message).toBe('s.yaml:17 (iodeph): fio does not know the option "iodeph" (fio: Bad option <iodeph=8>); did you mean "iodepth"?');
    // an engine's option fits its engine; a real option iosim does not model is a warning at its YAML line
    const { scenario, warnings } = loadScenario(ok.replace("iodepth: 8", "iodepth: 8\n    userspace_reap: true\n    exitall_on_error: true"), "s.yaml");
    expect(scenario.jobs[0]!.iodepth).toBe(8);
    expect(warnings).toContain("s.yaml:18: userspace_reap: no effect in a simulation, ignored");
    expect(warnings).toContain('s.yaml:19: exitall_on_error: not modelled by iosim, ignored (fio: "Terminate all jobs when one exits in error")');
  });

  it("an unknown top-level key names its line", () => {
    const e = errorOf(ok + "jobz: []\n");
    expect(e.line).toBe(29);
    expect(e.field).toBe("jobz");
  });

  it("blkcg_debug_stats is the kernel's module parameter (io.stat's cost.wait/indebt/indelay); a value that is not a bool names its line", () => {
    expect(loadScenario(ok.replace("seed: 42", "seed: 42\nblkcg_debug_stats: true"), "s.yaml").scenario.blkcgDebugStats).toBe(true);
    expect(loadScenario(ok, "s.yaml").scenario.blkcgDebugStats).toBeUndefined();
    const e = errorOf(ok.replace("seed: 42", "seed: 42\nblkcg_debug_stats: maybe"));
    expect([e.line, e.field]).toEqual([4, "blkcg_debug_stats"]);
  });

  it("an unknown kernel version is refused with the known ones", () => {
    const e = errorOf(ok.replace('kernel: "6.12"', 'kernel: "5.4"'));
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/6\.1, 6\.12, 6\.18/);
  });

  it("an unquoted kernel version is read as written: 6.10 has no profile (YAML's number 6.1 ran the 6.1 rules), 6.12 is 6.12", () => {
    const e = errorOf(ok.replace('kernel: "6.12"', "kernel: 6.10"));
    expect([e.line, e.field]).toEqual([2, "kernel"]);
    expect(e.message).toMatch(/kernel "6\.10" has no profile/);
    expect(loadScenario(ok.replace('kernel: "6.12"', "kernel: 6.12"), "s.yaml").scenario.kernel).toBe("6.12");
    expect(loadScenario(ok.replace('kernel: "6.12"', "kernel: 6.1"), "s.yaml").scenario.kernel).toBe("6.1");
  });

  it("YAML syntax errors carry a line", () => {
    const e = errorOf("name: x\ndevices: [\n");
    expect(e.line).toBeGreaterThan(0);
  });

  it("timed changes keep their simulated time and source line", () => {
    const { scenario } = loadScenario(ok + "changes:\n  - at: 500ms\n    cgroup: tenants/a\n    file: io.weight\n    value: \"default 200\"\n", "s.yaml");
    expect(scenario.writes).toEqual([
      { atNs: 500e6, cgroup: "tenants/a", file: "io.weight", value: "default 200", source: { file: "s.yaml", line: 30, field: "changes" } },
    ]);
  });
});

describe("values the loader refuses", () => {
  it("a seed that is negative or fractional names its line (it ran with the seed's low bits)", () => {
    for (const bad of ["-7", "1.5", "abc"]) {
      const e = errorOf(ok.replace("seed: 42", `seed: ${bad}`));
      expect([e.line, e.field]).toEqual([3, "seed"]);
      expect(e.message).toMatch(/non-negative integer|must be a number/);
    }
    expect(loadScenario(ok.replace("seed: 42", "seed: 0"), "s.yaml").scenario.seed).toBe(0);
  });

  it("duration: 0 is refused at its line (it ran nothing and reported an empty run); a change after the run's end is said to be unapplied", () => {
    const e = errorOf(ok.replace("duration: 2s", "duration: 0"));
    expect([e.line, e.field]).toEqual([4, "duration"]);
    const { scenario } = loadScenario(`${ok}changes:\n  - at: 10s\n    cgroup: tenants/a\n    file: io.weight\n    value: "default 200"\n`, "s.yaml");
    const r = simulate(scenario);
    expect(r.warnings).toContain("s.yaml:30: the change of tenants/a/io.weight at 10.000 s was not applied: the run ended at 1.000 s");
  });

  it("a change with a misspelt or missing key names the change's line (it said line 1, or ran without the stray key)", () => {
    const change = (body: string) => `${ok}changes:\n  - at: 500ms\n    cgroup: tenants/a\n${body}`;
    const a = errorOf(change("    file: io.weight\n    valu: \"default 200\"\n"));
    expect([a.line, a.field]).toEqual([33, "valu"]);
    expect(a.message).toMatch(/unknown key "valu" in a change/);
    const b = errorOf(change("    file: io.weight\n"));
    expect([b.line, b.field]).toEqual([30, "value"]);
  });

  it("a change to a cgroup nothing declares names its line (it created an empty cgroup and changed nothing)", () => {
    const change = (cg: string) => `${ok}changes:\n  - at: 500ms\n    cgroup: ${cg}\n    file: io.weight\n    value: "default 200"\n`;
    const e = errorOf(change("tenants/c"));
    expect([e.line, e.field]).toEqual([31, "cgroup"]);
    expect(e.message).toMatch(/"tenants\/c" is neither declared under cgroups: nor used by a job/);
    // declared ones, their ancestors and the root are fine
    for (const cg of ["tenants/a", "/tenants/b/", "tenants", '""']) expect(loadScenario(change(cg), "s.yaml").scenario.writes).toHaveLength(1);
  });
});

describe("files a scenario names", () => {
  it("a fio_file's own includes are found beside it, not in the process's directory", () => {
    const files: Record<string, string> = {
      "/w/jobs/j.fio": "[j]\nfilename=/dev/sda\nsize=1m\ninclude common.inc\n",
      "/w/jobs/common.inc": "ioengine=libaio\ndirect=1\niodepth=8\n",
    };
    const readFile = readFromMemory(files);
    const { scenario } = loadScenario("name: x\nfio_file: jobs/j.fio\n", "/w/sc.yaml", { readFile });
    expect(scenario.jobs[0]).toMatchObject({ iodepth: 8 });
  });
});

describe("device settings in a scenario", () => {
  it("get the checks a --device file gets (jitter 10 ran every IO in 0 ns; channels 0 became 1)", () => {
    for (const [setting, field, msg] of [["jitter: 10", "jitter", /jitter must be within \[0, 3\], got 10/],
      ["channels: 0", "channels", /channels must be a whole number >= 1, got 0/],
      ["max_sectors_kb: 0", "max_sectors_kb", /max_sectors_kb must be a whole number >= 4/]] as const) {
      const e = errorOf(ok.replace("  - preset: nvme\n", `  - preset: nvme\n    ${setting}\n`));
      expect([e.line, e.field]).toEqual([8, field]);
      expect(e.message).toMatch(msg);
    }
    expect(loadScenario(ok.replace("  - preset: nvme\n", "  - preset: nvme\n    jitter: 0.3\n    channels: 4\n"), "s.yaml").scenario.devices[0])
      .toMatchObject({ jitterSigma: 0.3, channels: 4 });
  });
});

describe("a rejected cgroup file write", () => {
  const withIoMax = (v: string, kernel = "6.18") =>
    `name: x\nkernel: "${kernel}"\ncgroups:\n  a:\n    io.weight: "default 100"\n    io.max: "${v}"\njobs:\n  - name: j\n    cgroup: a\n    number_ios: 1\n`;
  const reject = (text: string) => {
    try {
      simulate(loadScenario(text, "s.yaml").scenario);
    } catch (e) {
      if (e instanceof InputError) return e;
      throw e;
    }
    throw new Error("expected the write to be rejected");
  };

  it("names the line of that file's value and the kernel's errno (rbps=0 -> ERANGE)", () => {
    const e = reject(withIoMax("8:0 rbps=0"));
    expect(e.line).toBe(6);
    expect(e.errno).toBe("ERANGE");
  });

  it("rbps=1 is EINVAL on 6.1 and accepted on 6.18", () => {
    expect(reject(withIoMax("8:0 rbps=1", "6.1")).errno).toBe("EINVAL");
    expect(() => simulate(loadScenario(withIoMax("8:0 rbps=1"), "s.yaml").scenario)).not.toThrow();
  });

  it("a device the scenario does not have is ENODEV", () => {
    expect(reject(withIoMax("9:0 rbps=100")).errno).toBe("ENODEV");
  });
});

describe("YAML anchors and aliases", () => {
  it("an aliased cgroup reads as its anchor's mapping, as the same document does in a Monte Carlo sweep (it was refused: 'a mapping of interface file -> value')", () => {
    const text = `name: alias
cgroups:
  a: &lim
    io.max: "8:0 riops=100"
  b: *lim
jobs:
  - {name: r, cgroup: a, rw: randread, bs: &bs 4k, number_ios: &n 50, direct: 1, filename: /dev/sda}
  - {name: w, cgroup: b, rw: randread, bs: *bs, number_ios: *n, direct: 1, filename: /dev/sda}
`;
    const s = loadScenario(text, "alias.yaml").scenario;
    expect(s.cgroups.find((c) => c.path === "b")!.files).toEqual({ "io.max": "8:0 riops=100" });
    const r = simulate(s);
    // both cgroups are held to 100 IOPS: 50 IOs take ~0.4 s in each (10 pass in the first slice)
    for (const cg of ["a", "b"]) expect(r.cgroups.find((c) => c.path === cg)!.throttleWaitNs.read).toBeGreaterThan(0);
    expect(r.jobs.map((j) => j.cgroup).sort()).toEqual(["a", "b"]);
  });
});

describe("bad fio options in a YAML job", () => {
  it("are all named at their own YAML lines (the job text the loader writes has other line numbers)", () => {
    const text = "name: t\njobs:\n  - name: a\n    filename: /dev/sda\n    iodeph: 32\n    rw: randread\n    blocksise: 4k\n";
    let err: unknown;
    try {
      loadScenario(text, "bad.yaml");
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ file: "bad.yaml", line: 5, field: "iodeph" });
    expect((err as Error).message).toMatch(/; and 1 more in this section: line 7 \(blocksise\): .*did you mean "blocksize"\?$/);
  });
});

describe("merge keys (<<: *anchor) in a scenario file", () => {
  const withMerge = ok.replace(
    "  - name: b\n    cgroup: tenants/b\n    rw: write\n    bs: 64k\n    ioengine: libaio\n    iodepth: 2\n    direct: 1\n    size: 64m\n",
    "  - &b\n    name: b\n    cgroup: tenants/b\n    rw: write\n    bs: 64k\n    ioengine: libaio\n    iodepth: 2\n    direct: 1\n    size: 64m\n  - <<: *b\n    name: c\n    iodepth: 4\n",
  );
  it("a job that merges another's anchor is that job with its own fields", () => {
    expect(withMerge).not.toBe(ok);
    const { scenario } = loadScenario(withMerge, "s.yaml");
    expect(scenario.jobs.map((j) => [j.name, j.cgroup, j.rw, j.random, j.iodepth, j.bytes])).toEqual([
      ["a", "tenants/a", "read", true, 8, loadScenario(ok, "s.yaml").scenario.jobs[0]!.bytes],
      ["b", "tenants/b", "write", false, 2, 64 << 20],
      ["c", "tenants/b", "write", false, 4, 64 << 20],
    ]);
  });
  it("a merged field is named at its line under the anchor; a merge of a scalar at its own line", () => {
    // job c takes iodepth: 2 from b's anchor (line 27) with its own psync
    const psync = loadScenario(withMerge.replace("    iodepth: 4\n", "    ioengine: psync\n"), "s.yaml");
    expect(withMerge.split("\n")[26]).toBe("    iodepth: 2");
    expect(psync.warnings).toEqual([expect.stringMatching(/^s\.yaml:27: iodepth=2 with ioengine=psync/)]);
    const scalar = errorOf(ok + "  - name: d\n    <<: 5\n");
    expect(scalar.line).toBe(30);
    expect(scalar.message).toMatch(/merge key takes a mapping/);
  });
});
