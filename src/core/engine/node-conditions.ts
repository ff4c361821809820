/**
 * Node conditions: the conditions of met thresholds (grace periods ignored), remembered per
 * condition, and reported for the pressure transition period after the last run that observed them.
 */
import type { EpochMs, NodeCondition, Threshold } from "../model.js";
import { NODE_CONDITIONS, SIGNALS } from "../signals.js";

/** Distinct conditions of the given thresholds, in reporting order. */
export function nodeConditionsOf(thresholds: readonly Threshold[]): NodeCondition[] {
  const seen = new Set(thresholds.map((t) => SIGNALS[t.signal].condition));
  return NODE_CONDITIONS.filter((c) => seen.has(c));
}

/** Observed conditions get `now`; the others keep their last time (entries are never dropped). */
export function nodeConditionsLastObservedAt(
  observed: readonly NodeCondition[],
  previous: ReadonlyMap<NodeCondition, EpochMs>,
  now: EpochMs,
): Map<NodeCondition, EpochMs> {
  const out = new Map(previous);
  for (const c of observed) out.set(c, now);
  return out;
}

/** Conditions last observed strictly less than the transition period ago, in reporting order. */
export function nodeConditionsObservedSince(
  lastObservedAt: ReadonlyMap<NodeCondition, EpochMs>,
  transitionPeriodMs: number,
  now: EpochMs,
): NodeCondition[] {
  return NODE_CONDITIONS.filter((c) => {
    const t = lastObservedAt.get(c);
    return t !== undefined && now - t < transitionPeriodMs;
  });
}
