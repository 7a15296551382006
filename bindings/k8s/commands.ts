// `iosim k8s ...`: the Kubernetes replay's commands, declared (names, options,
// help); each action loads cli.ts, and with it the replay, only when it runs.
import type { Command } from "commander";
import type { K8sDiffOptions, K8sRunOptions } from "./cli.js";

const collect = (v: string, prev: string[]): string[] => [...prev, v];

export function registerK8sCommands(program: Command): void {
  const k8s = program.command("k8s").description("replay Kubernetes volume attach/detach/mount incidents on simulated time");

  k8s
    .command("run")
    .argument("<scenario>", "a scenario YAML file or a built-in name (see `iosim k8s list`)")
    .option("--version <version>", "Kubernetes version (1.MINOR or 1.MINOR.PATCH); default: the scenario's")
    .option("--fix <id=on|off>", "turn an upstream fix on or off (repeatable), e.g. 104526=on; a bare ID is on", collect, [] as string[])
    .option("--seed <n>", "PRNG seed")
    .option("--json", "print one JSON object: violations, timeline, logs, objects")
    .option("--logs", "print the component logs (klog format)")
    .option("--no-events", "do not print the event timeline")
    .description("run a scenario; exit code 0 only when every invariant and expectation holds")
    .action(async (arg: string, o: K8sRunOptions) => (await import("./cli.js")).k8sRunAction(arg, o));

  k8s
    .command("list")
    .option("--json", "print [{name, incident, affected, fixed}]")
    .description("list the built-in incident scenarios")
    .action(async (o: { json?: boolean }) => (await import("./cli.js")).k8sListAction(o));

  k8s
    .command("diff")
    .argument("<scenario>", "a scenario YAML file or a built-in name")
    .option("--version <version>", "give twice: the two versions to compare", collect, [] as string[])
    .option("--fix <id=on|off>", "fix overrides applied to both runs", collect, [] as string[])
    .option("--fix-a <id=on|off>", "fix overrides of the first run only (after --fix)", collect, [] as string[])
    .option("--fix-b <id=on|off>", "fix overrides of the second run only (after --fix); with one --version, both runs are that version", collect, [] as string[])
    .option("--seed <n>", "PRNG seed of both runs (default: the scenario's)")
    .option("--json", "print the divergence as JSON: {scenario, a, b, events, logs, violationsA, violationsB}")
    .description("where two versions' timelines diverge; exit code 1 when they do, 0 when they agree")
    .action(async (arg: string, o: K8sDiffOptions) => (await import("./cli.js")).k8sDiffAction(arg, o));

  k8s
    .command("versions")
    .option("--json", "print [{version, minor, patches, switches: {ID: {on, since}}}]")
    .description("the modelled Kubernetes releases (1.10 to the newest) and, for each, which fix switches it has on, with the patch release a cherry-pick brought one in")
    .action(async (o: { json?: boolean }) => (await import("./cli.js")).k8sVersionsAction(o));
}
