#!/usr/bin/env node
// The `iosim` command (package.json "bin"). In the published package dist/ is
// prebuilt: this only hands over to the bundled CLI, dist/cli/iosim.js
// (scripts/bundle.mjs). In a clone not built yet, it says so and builds once
// (`npm run build`: the WebAssembly core, tsc and the bundle), then runs.
// Installing the package never builds (there is no install or prepare script).
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli/iosim.js", import.meta.url));
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  if (!existsSync(fileURLToPath(new URL("../assembly/index.ts", import.meta.url)))) {
    process.stderr.write(`iosim: ${cli} is missing from this install of iosim: reinstall the package\n`);
    process.exit(3);
  }
  process.stderr.write("iosim: first run in this checkout: building the WebAssembly core and the CLI (npm run build, once; about 30 s)...\n");
  const npmCli = process.env.npm_execpath;
  const [cmd, args] = npmCli && /\.c?js$/.test(npmCli) ? [process.execPath, [npmCli, "run", "build"]] : ["npm", ["run", "build"]];
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", 2, 2], shell: process.platform === "win32" });
  if (r.status !== 0 || !existsSync(cli)) {
    process.stderr.write("iosim: the build failed (above); `npm install` installs the build tools, then `npm run build`\n");
    process.exit(3);
  }
  process.stderr.write("iosim: built; running.\n");
}
// the CLI runs when it is the script node was started with (bindings/cli/main.ts isMain)
process.argv[1] = cli;
await import(new URL("../dist/cli/iosim.js", import.meta.url).href);
