/**
 * The daemon's decision log: one JSON line per synchronize, the same step record `evictd replay`
 * prints, so a day on a real node can be read, replayed and explained with the same tools.
 * `at` is the time since the daemon started; `wake` says what woke the loop; `timings` how long
 * the step's stats read, decision and kills took on the loop's own clock (ms).
 */
import type { StepTimings } from "../app/loop/eviction-loop.js";
import type { LoopStepData } from "../app/loop/loop-step-data.js";
import { stepRecord } from "../app/replay/records.js";
import type { StepOutcome } from "../app/replay/run-replay.js";

/**
 * A loop step as a replay's step outcome, the one conversion behind both the decision log's line
 * and the live page's history: a daemon step has no scenario input (no pods added, no admission).
 */
export function loopStepOutcome(step: LoopStepData, startedAt: number): StepOutcome {
  return {
    step: {
      index: 0,
      atMs: Math.max(0, step.now - startedAt),
      reclaimErrors: step.report.reclaim?.errors ?? {},
      killFailures: [],
      addPods: [],
      updatePods: [],
      removePods: [],
      admit: [],
    },
    time: step.now,
    report: step.report,
    kills: step.evictions.map((e) => ({
      effectiveGracePeriodSeconds: e.effectiveGracePeriodSeconds,
      killFailed: e.kill === undefined,
    })),
    admission: [],
    activeAfter: [],
    summary: undefined,
  };
}

export function daemonStepRecord(step: LoopStepData, startedAt: number): Record<string, unknown> {
  const record = stepRecord(loopStepOutcome(step, startedAt));
  const reaction = step.evictions.map((e) => e.reactionMs);
  const sinceBelow = step.evictions.map((e) => e.sinceBelowMs);
  return {
    ...record,
    wake: { reason: step.wake.reason, notification: step.wake.notification },
    ...(reaction.some((r) => r !== undefined) ? { reactionMs: reaction } : {}),
    ...(sinceBelow.some((r) => r !== undefined) ? { sinceBelowMs: sinceBelow } : {}),
    ...(step.timings !== undefined ? { timings: roundTimings(step.timings) } : {}),
  };
}

/** Phase times to the microsecond (the decision log's and the eviction log lines'). */
export function roundTimings(t: StepTimings): StepTimings {
  const r = (ms: number): number => Math.round(ms * 1000) / 1000;
  return { readMs: r(t.readMs), decideMs: r(t.decideMs), killMs: r(t.killMs) };
}
