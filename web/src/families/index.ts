// Every scenario family the playground knows, in menu order. A family whose
// capability is not in the build still appears (greyed out, with why).
import { engineFamily } from "./engine.js";
import { throttleFamily } from "./throttle.js";
import { iocostFamily } from "./iocost.js";
import { writebackFamily } from "./writeback.js";
import { rqosFamily } from "./rqos.js";
import { k8sFamily } from "./k8s.js";
import { scenarioFileFamily } from "./scenario-file.js";
import type { Family } from "./types.js";

export const FAMILIES: readonly Family[] = [throttleFamily, iocostFamily, rqosFamily, writebackFamily, k8sFamily, engineFamily, scenarioFileFamily];

export function family(id: string): Family | undefined {
  return FAMILIES.find((f) => f.id === id);
}
