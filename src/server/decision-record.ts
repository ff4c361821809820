/**
 * The daemon's decision log: one JSON line per synchronize, the same step record `evictd replay`
 * prints, so a day on a real node can be read, replayed and explained with the same tools.
 * `at` is the time since the daemon started; `wake` says what woke the loop; `timings` how long
 * the step's stats read, decision and kills took on the loop's own clock (ms).
 */
import type { LoopStepData } from "../app/loop/loop-step-data.js";
import { stepRecord } from "../app/replay/records.js";

export function daemonStepRecord(step: LoopStepData, startedAt: number): Record<string, unknown> {
  const record = stepRecord({
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
  });
  const reaction = step.evictions.map((e) => e.reactionMs);
  const sinceBelow = step.evictions.map((e) => e.sinceBelowMs);
  return {
    ...record,
    wake: { reason: step.wake.reason, notification: step.wake.notification },
    ...(reaction.some((r) => r !== undefined) ? { reactionMs: reaction } : {}),
    ...(sinceBelow.some((r) => r !== undefined) ? { sinceBelowMs: sinceBelow } : {}),
    ...(step.timings !== undefined
      ? {
          timings: {
            readMs: roundMs(step.timings.readMs),
            decideMs: roundMs(step.timings.decideMs),
            killMs: roundMs(step.timings.killMs),
          },
        }
      : {}),
  };
}

/** Milliseconds to the microsecond. */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
