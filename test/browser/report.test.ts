// `iosim run --report FILE.html`: one self-contained page, opened from disk in
// a real browser (Debian's Chromium via playwright-core): the charts render,
// nothing is fetched, no script error, and the page's summary table is the
// CLI's (bindings/report/html-report.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(__dirname, "../..");
const MAIN = join(ROOT, "dist", "bindings", "cli", "main.js");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED the report page test: ${CHROMIUM} is absent (apt-get install -y chromium)`);
const tmp = mkdtempSync(join(tmpdir(), "iosim-report-"));
let browser: Browser | undefined;
beforeAll(async () => {
  if (haveChromium) {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  }
});
afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function open(file: string) {
  const page = await browser!.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto("file://" + file);
  await page.waitForSelector("body[data-charts]");
  return { page, errors, requests: requests.filter((u) => !u.startsWith("file:")) };
}

describe.skipIf(!haveChromium)("the run's report page", () => {
  it("the iocost example: IOPS, bandwidth, p99 and vrate charts, no request, no error, the CLI's summary", async () => {
    const file = join(tmp, "bursty.html");
    const r = spawnSync(process.execPath, [MAIN, "run", join(ROOT, "scenarios/iocost-bursty.yaml"), "-q", "--report", file], { encoding: "utf8" });
    expect(r.status).toBe(0);
    const { page, errors, requests } = await open(file);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.getAttribute("body", "data-charts")).toBe("4");
    const titles = await page.$$eval(".u-title", (els) => els.map((e) => e.textContent));
    expect(titles).toEqual(["IOPS", "Bandwidth", "p99 latency per bin", "blk-iocost vrate (sda)"]);
    const cells = await page.$$eval("#summary tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    const cli = r.stdout.split("\n").filter((l) => /^(web|batch)\s+read/.test(l)).map((l) => l.trim().split(/\s+/));
    expect(cells.map((c) => [c[0], c[1], c[2], c[3], c[4]])).toEqual(cli.map((c) => [c[0], c[1], c[2], c[3], c[4]]));
    expect(await page.textContent("p.meta")).toContain(/result sha256 ([0-9a-f]{64})/.exec(r.stdout)![1]);
    await page.close();
  });

  it("--out writes report.html; a warning shows first; a run without series says so", async () => {
    const out = join(tmp, "out");
    const r = spawnSync(process.execPath, [MAIN, "run", join(ROOT, "test/fixtures/oracle/throtl/scenarios/iops100_qd1_read.json"), "-q", "--out", out], { encoding: "utf8" });
    // an oracle scenario keeps no time series: --out used to die on series.csv (exit 3)
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("(no time series: the scenario has series: 0)");
    const html = readFileSync(join(out, "report.html"), "utf8");
    expect(html).toContain("This run kept no time series");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    const { page, errors } = await open(join(out, "report.html"));
    expect(errors).toEqual([]);
    expect(await page.getAttribute("body", "data-charts")).toBe("0");
    await page.close();
  });
});
