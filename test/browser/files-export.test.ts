// The playground's files on disk and exports, in Debian's Chromium (as
// playground.test.ts): a scenario YAML opened with the file picker runs as
// `iosim run FILE` runs it (the CLI's result hash); a fio job file dropped on
// the page becomes jobs.fio and runs; Save downloads the file shown as
// edited; each chart exports as PNG, SVG and CSV, the CSV holding the
// chart's own numbers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { build } from "vite";
import { chromium, type Browser, type Download, type Page } from "playwright-core";
import { serveDir, type StaticServer } from "./serve.js";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(__dirname, "../..");
const haveChromium = existsSync(CHROMIUM);
const BURSTY = join(ROOT, "scenarios", "iocost-bursty.yaml");

async function waitRun(page: Page, after: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const r = document.getElementById("results")!;
      return (r.dataset.state === "done" && Number(r.dataset.run) > n) || r.dataset.state === "error";
    },
    after,
    { timeout: 60_000 },
  );
}
const runNo = async (page: Page) => Number((await page.getAttribute("#results", "data-run")) ?? 0);
const text = async (d: Download) => readFileSync((await d.path())!, "utf8");

describe.skipIf(!haveChromium)("the playground: open, save, export", () => {
  let outDir: string;
  let server: StaticServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), "iosim-web-files-"));
    await build({ configFile: join(ROOT, "web/vite.config.ts"), logLevel: "warn", build: { outDir, emptyOutDir: true } });
    server = await serveDir(outDir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}#family=throttle&scenario=iomax-demo&seed=1&v=6.18`);
    await waitRun(page, 0);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it("opens a scenario YAML from the file picker and runs it as the CLI does (same result hash)", async () => {
    const n = await runNo(page);
    const chooser = page.waitForEvent("filechooser");
    await page.click("#open-file");
    await (await chooser).setFiles(BURSTY);
    await waitRun(page, n);
    expect(await page.getAttribute("#results", "data-state")).toBe("done");
    expect(await page.inputValue("#scenario")).toBe("file/file");
    expect(await page.inputValue("#version")).toBe("6.12");
    expect(await page.inputValue("#editor textarea")).toBe(readFileSync(BURSTY, "utf8"));
    const cli = spawnSync(process.execPath, [join(ROOT, "bin", "iosim.js"), "run", BURSTY], { encoding: "utf8" });
    const hash = /result sha256 ([0-9a-f]{64})/.exec(cli.stdout)![1];
    expect(await page.getAttribute(".run", "data-hash")).toBe(hash);
    expect(errors).toEqual([]);
  });

  it("takes a fio job file dropped on the page as jobs.fio, and runs it", async () => {
    const fio = "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\nruntime=2s\ntime_based=1\n\n[dropped]\ncgroup=capped\niodepth=4\n";
    const n = await runNo(page);
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], "mine.fio", { type: "text/plain" }));
      document.getElementById("editor")!.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, fio);
    await waitRun(page, n);
    expect(await page.inputValue("#scenario")).toBe("throttle/iomax-demo");
    expect(await page.getAttribute("#tab-jobs-fio", "aria-selected")).toBe("true");
    expect(await page.inputValue("#editor textarea")).toBe(fio);
    expect(await page.getAttribute("#results", "data-state")).toBe("done");
    // the summary has the dropped job's cgroup with ~4 s of IO at 20 MiB/s capped... and nothing of the demo's "free" job
    const keys = await page.locator(".run [data-table=cgroups] tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-key")));
    expect(keys).toEqual(["capped"]);
  });

  it("saves the file shown, as edited", async () => {
    await page.fill("#editor textarea", "[edited]\nrw=read\n");
    const dl = page.waitForEvent("download");
    await page.click("#save-file");
    const d = await dl;
    expect(d.suggestedFilename()).toBe("jobs.fio");
    expect(await text(d)).toBe("[edited]\nrw=read\n");
  });

  it("exports a chart as PNG, SVG and CSV; the CSV holds the chart's numbers", async () => {
    await page.goto("about:blank");
    await page.goto(`${server.url}#family=throttle&scenario=iomax-demo&seed=1&v=6.18`);
    await waitRun(page, 0);
    const fig = page.locator(".run .chart-panel").first();
    await fig.locator(".uplot").waitFor();
    const get = async (kind: string) => {
      const dl = page.waitForEvent("download");
      await fig.locator(`[data-export=${kind}]`).click();
      return dl;
    };
    const png = await get("png");
    expect(png.suggestedFilename()).toMatch(/\.png$/);
    expect(readFileSync((await png.path())!).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const svg = await text(await get("svg"));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.match(/<polyline /g)!.length).toBeGreaterThanOrEqual(2);
    expect(svg).toContain('data-series="capped"');
    const csv = (await text(await get("csv"))).trim().split("\n");
    expect(csv[0]).toBe("t_s,capped,free");
    // the first chart is MiB/s per 100 ms bin: capped at rbps=20971520, 20 MiB/s in every full bin; free gets the rest
    const rows = csv.slice(1).map((r) => r.split(",").map(Number));
    expect(rows.length).toBeGreaterThan(90);
    expect(rows.filter((r) => r[1] === 20).length).toBeGreaterThan(80);
    expect(rows.filter((r) => r[2]! > 200).length).toBeGreaterThan(80);
    expect(errors).toEqual([]);
  });
});
