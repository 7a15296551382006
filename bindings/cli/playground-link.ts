// The playground link `iosim run` prints (on stderr) for the run it made:
// the page's URL state (web/src/lib/urlstate.ts) for the same scenario, seed
// and kernel, so the run opens with its charts and the same result hash.
//
//   no argument (the io.max demo)  -> #family=throttle&scenario=iomax-demo&seed=S&v=K (its ssd only)
//   a scenario YAML                -> #family=file&scenario=file&seed=S&v=K[&dev=P]&edit=<scenario.yaml>
//   a fio job file                 -> the same, the jobs wrapped in a scenario YAML
//                                     (devices: [{preset: P}], series: 100ms, fio: |)
//
// `edit` is the edited files as JSON, deflated (raw) and base64url-encoded,
// as the page's encodeState writes it. No link (undefined) when the page
// could not run the same thing: a scenario that reads other files (fio_file,
// a device file, an include), a device file given to --device, a fio job
// naming a device other than the --device's, an oracle JSON scenario.
// The page is what `npm run web` serves (http://127.0.0.1:4173/), or
// $IOSIM_PLAYGROUND.
//
// Worked example: `iosim run --seed 3` -> http://127.0.0.1:4173/#family=throttle&scenario=iomax-demo&seed=3&v=6.18
import { deflateRawSync } from "node:zlib";
import { extname } from "node:path";
import { loadScenario } from "../scenario/load.js";
import type { Scenario } from "../scenario/types.js";

export const DEFAULT_PLAYGROUND = "http://127.0.0.1:4173/";
const PRESETS = ["ssd", "nvme", "hdd", "ideal", "nullb"];

export function deflateB64url(text: string): string {
  return deflateRawSync(Buffer.from(text, "utf8")).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

class ReadsFiles extends Error {}

/** Does the scenario YAML read other files (fio_file, device files, includes)? */
function readsFiles(text: string): boolean {
  try {
    loadScenario(text, "scenario.yaml", {
      readFile: () => {
        throw new ReadsFiles();
      },
    });
    return false;
  } catch (e) {
    return e instanceof ReadsFiles;
  }
}

export interface LinkInput {
  /** the run's target (undefined: the demo) and its text */
  target?: string;
  text?: string;
  /** the scenario as it ran (seed and kernel after the command line's) */
  scenario: Scenario;
  /** --device as given */
  device?: string;
  base?: string;
}

export function playgroundLink(x: LinkInput): string | undefined {
  const base = x.base ?? process.env.IOSIM_PLAYGROUND ?? DEFAULT_PLAYGROUND;
  const p = new URLSearchParams();
  const dev = x.device;
  if (dev !== undefined && !PRESETS.includes(dev)) return undefined;
  const head = (family: string, scenario: string) => {
    p.set("family", family);
    p.set("scenario", scenario);
    p.set("seed", String(x.scenario.seed));
    p.set("v", x.scenario.kernel);
  };
  if (!x.target || x.target === "demo" || x.target === "iomax-demo") {
    // `iosim run --device nvme` builds the demo on that device (nvme0n1, 259:0); the page swaps the
    // curve under the demo's sda 8:0: another run, so no link
    if (dev && dev !== "ssd") return undefined;
    head("throttle", "iomax-demo");
    return `${base}#${p.toString()}`;
  }
  const text = x.text ?? "";
  const ext = extname(x.target).toLowerCase();
  let yaml: string;
  if (ext === ".fio" || ext === ".ini" || (!/\.(ya?ml|json)$/.test(ext) && /^\s*\[/m.test(text))) {
    if (/^\s*include\s/m.test(text)) return undefined;
    const devName = x.scenario.devices[0]?.name;
    if (x.scenario.jobs.some((j) => j.device !== devName)) return undefined;
    const name = x.target.replace(/^.*\//, "").replace(/\.[^.]*$/, "");
    yaml = `name: ${JSON.stringify(name)}\ndevices: [{preset: ${dev ?? "ssd"}}]\nseries: 100ms\nfio: |\n${text
      .replace(/\n$/, "")
      .split("\n")
      .map((l) => `  ${l}`)
      .join("\n")}\n`;
    // the page runs the wrapped file with the loader: it must name the same device
    try {
      const again = loadScenario(yaml, "scenario.yaml").scenario;
      if (again.jobs.length !== x.scenario.jobs.length || again.jobs.some((j) => j.device !== devName)) return undefined;
    } catch {
      return undefined;
    }
    head("file", "file");
  } else if (/\.ya?ml$/.test(ext) || !ext) {
    if (readsFiles(text)) return undefined;
    yaml = text;
    head("file", "file");
    if (dev) p.set("dev", dev);
  } else {
    return undefined;
  }
  p.set("edit", deflateB64url(JSON.stringify({ "scenario.yaml": yaml })));
  return `${base}#${p.toString()}`;
}
