// Several domains in one run: e.g. a node's device under io.max (IO domain)
// while its pods churn through attach/detach (k8s domain), with the same
// named draws (mc.params) feeding both.
//
//   mc:
//     domain: multi
//     params: {churn: {uniform: ["0ms", "3000ms"]}, rbps: {loguniform: [1048576, 104857600], round: 4096}}
//   scenario:
//     parts:
//       node-io:  {domain: io,  scenario: {... cgroups: {pods: {io.max: {concat: ["259:0 rbps=", {param: rbps}]}}} ...}}
//       volumes:  {domain: k8s, scenario: {... timeline: [{after: ..., delay: {param: churn}, ...}] ...}}
//
// Each part runs with the run seed (a repro writes it as each part's seed, so
// a part replayed alone runs as it did); a class or metric of part P is reported
// as "P/<class>", "P/<metric>", so a sweep gives the joint distribution (the
// table can cross a k8s symptom with an IO parameter). The engines do not
// exchange state inside a run: the Kubernetes replay has no block layer, so
// "together" means shared random inputs and joint outcomes, not coupling.

import { stringify } from "yaml";
import { InputError } from "../../scenario/errors.js";
import type { Json } from "../distributions.js";
import { mcDomains, type McDomain, type McOutcome } from "../model.js";

interface Part {
  name: string;
  domain: McDomain;
  prepared: unknown;
}

export const multiDomain: McDomain<Part[]> = {
  name: "multi",
  replayCommand: "iosim mc replay",
  detect(doc) {
    return !!doc && typeof doc === "object" && !Array.isArray(doc) && typeof (doc as Record<string, Json>).parts === "object";
  },
  prepare(doc, file, lines) {
    const parts = (doc as Record<string, Json>)?.parts;
    if (!parts || typeof parts !== "object" || Array.isArray(parts)) throw new InputError("a multi scenario has parts: {name: {domain, scenario}}", file, lines.get("parts"), "parts");
    return Object.entries(parts).map(([name, p]) => {
      const at = `parts.${name}`;
      const o = p as Record<string, Json>;
      const d = mcDomains().find((x) => x.name === o?.domain);
      if (!d || d.name === "multi") {
        throw new InputError(`part "${name}" needs domain: one of ${mcDomains().filter((x) => x.name !== "multi").map((x) => x.name).join(", ")}`, file, lines.get(at), `${at}.domain`);
      }
      const sub = new Map<string, number>();
      const pre = `${at}.scenario`;
      for (const [k, l] of lines) if (k === pre) sub.set("", l); else if (k.startsWith(`${pre}.`)) sub.set(k.slice(pre.length + 1), l);
      return { name, domain: d, prepared: d.prepare(o.scenario ?? null, file, sub) };
    });
  },
  run(parts, runSeed): McOutcome {
    const classes: string[] = [];
    const metrics: Record<string, number> = {};
    for (const p of parts) {
      const out = p.domain.run(p.prepared, runSeed);
      for (const c of out.classes) classes.push(`${p.name}/${c}`);
      for (const [k, v] of Object.entries(out.metrics)) metrics[`${p.name}/${k}`] = v;
    }
    return { classes, metrics };
  },
  check(parts) {
    for (const p of parts) p.domain.check?.(p.prepared);
  },
  serialize(doc, runSeed, header, mc) {
    // every part ran with the run seed, whatever seed its scenario names: the
    // repro gives each part that seed too, so a part replayed alone (`iosim
    // k8s run`, `iosim run` on its scenario) runs as it did in the sweep (a
    // k8s part kept its own `seed: 2`, and its between: instants moved)
    const o = doc as Record<string, Json>;
    const parts = o.parts && typeof o.parts === "object" && !Array.isArray(o.parts)
      ? Object.fromEntries(Object.entries(o.parts).map(([name, p]) => {
        const part = p as Record<string, Json>;
        if (!part || typeof part !== "object" || !part.scenario || typeof part.scenario !== "object" || Array.isArray(part.scenario)) return [name, p];
        const d = mcDomains().find((x) => x.name === part.domain);
        const scenario = d?.withSeed ? d.withSeed(part.scenario, runSeed) : { ...(part.scenario as Record<string, Json>), seed: runSeed };
        return [name, { ...part, scenario }];
      }))
      : o.parts;
    const body = { mc: { ...(mc ?? {}), domain: "multi" }, scenario: { ...o, ...(parts !== undefined ? { parts } : {}), seed: runSeed } };
    return header.split("\n").map((l) => `# ${l}`).join("\n") + "\n" + stringify(body, { lineWidth: 0 });
  },
};
