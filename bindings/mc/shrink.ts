// Shrinking: from a failing run to the smallest scenario that still fails the
// same way.
//
// Greedy descent in the style of Hypothesis / QuickCheck: ask the model for
// candidates one step simpler than the current scenario (leave a fault out,
// one copy fewer, the first option of a choice, a number moved towards the
// simplest end of its range by bisection), run each with the *same run seed*,
// and take the first one that still shows the class and is strictly smaller
// by the model's size measure. Repeat until no candidate is accepted or the
// budget of SHRINK_BUDGET_RUNS runs is spent. Strict decrease makes it
// terminate; the fixed candidate order and the fixed seed make it
// deterministic, so the same failing run always shrinks to the same repro,
// on any machine, in a single sweep or after a shard merge.
//
// Worked example (the detach-backoff sweep, examples/k8s-detach-backoff.yaml):
// a run on 1.22 where the cloud refuses 3 detaches in a row and the new pod
// lands 5.9 s after the first refusal, inside the third backoff window, is
// "incident". Candidates in order: no optional parts to drop; fix104526 is
// already at its simplest (false); landDelay straight to its simplest end,
// 0 ms: still stuck (the pod lands inside the first 500 ms backoff), taken;
// busyDetaches to 1: still stuck, taken. The repro is the incident as the
// upstream issue tells it: one refused detach, the pod re-created at once.

import type { McModel } from "./model.js";

export const SHRINK_BUDGET_RUNS = 400;

export interface ShrinkResult<C> {
  concrete: C;
  /** runs spent */
  runs: number;
  /** accepted steps */
  steps: number;
  sizeBefore: number;
  sizeAfter: number;
}

export function shrinkToClass<C>(model: McModel<C>, start: C, runSeed: number, cls: string,
  budget = SHRINK_BUDGET_RUNS): ShrinkResult<C> {
  let cur = start;
  let curSize = model.size(cur);
  const sizeBefore = curSize;
  let runs = 0;
  let steps = 0;
  outer: while (runs < budget) {
    for (const cand of model.shrinkCandidates(cur)) {
      const sz = model.size(cand);
      if (!(sz < curSize)) continue;
      if (runs >= budget) break outer;
      runs++;
      const out = model.run(cand, runSeed);
      if (out.classes.includes(cls)) {
        cur = cand;
        curSize = sz;
        steps++;
        continue outer;
      }
    }
    break;
  }
  return { concrete: cur, runs, steps, sizeBefore, sizeAfter: curSize };
}
