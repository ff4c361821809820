/**
 * thresholdsMet and the per-run threshold bookkeeping of the eviction manager: which thresholds are
 * met (strictly less available than the threshold, optionally inflated by minimum reclaim), the
 * union with still-unresolved thresholds, first-observed times, grace periods and fresh stats.
 * Every function is (previous, current, now) → next; nothing here mutates its inputs.
 */
import type { EpochMs, Threshold, ThresholdValue } from "../model.js";
import { addQuantity, cmpQuantity, quantityNanos } from "../quantity.js";
import { thresholdQuantity } from "./threshold-quantity.js";
import type { Observations } from "./types.js";

const NANOS = 1_000_000_000n;

/** Thresholds whose signal is observed with available strictly below the threshold quantity. */
export function thresholdsMet(
  thresholds: readonly Threshold[],
  observations: Observations,
  enforceMinReclaim: boolean,
): Threshold[] {
  const met: Threshold[] = [];
  for (const t of thresholds) {
    // An inert derived copy (no operator) never evaluates as met.
    if (t.operator !== "LessThan" || t.value === undefined) continue;
    const o = observations.get(t.signal);
    if (o === undefined) continue; // upstream logs "no observation found for eviction signal"
    let q = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim && t.minReclaim !== undefined) {
      q = addQuantity(q, thresholdQuantity(t.minReclaim, o.capacity));
    }
    if (quantityNanos(q) > o.available * NANOS) met.push(t);
  }
  return met;
}

function sameValue(a: ThresholdValue | undefined, b: ThresholdValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind === "quantity" && b.kind === "quantity") return cmpQuantity(a.quantity, b.quantity) === 0;
  if (a.kind === "percentage" && b.kind === "percentage") return a.percentage === b.percentage;
  return false;
}

/** Upstream threshold equality: signal, operator, grace period and value (min reclaim ignored). */
export function sameThreshold(a: Threshold, b: Threshold): boolean {
  return (
    a.signal === b.signal &&
    a.operator === b.operator &&
    a.gracePeriodMs === b.gracePeriodMs &&
    sameValue(a.value, b.value)
  );
}

/** mergeThresholds: the union of two lists, first occurrence wins. */
export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const out = [...a];
  for (const t of b) if (!out.some((x) => sameThreshold(x, t))) out.push(t);
  return out;
}

/** Met thresholds keep their first-observed time; newly met ones start now; the rest are forgotten. */
export function thresholdsFirstObservedAt(
  met: readonly Threshold[],
  previous: ReadonlyMap<string, EpochMs>,
  now: EpochMs,
): Map<string, EpochMs> {
  const out = new Map<string, EpochMs>();
  for (const t of met) out.set(t.id, previous.get(t.id) ?? now);
  return out;
}

/** Thresholds met for at least their grace period (`≥`, so hard thresholds always qualify). */
export function thresholdsMetGracePeriod(
  met: readonly Threshold[],
  firstObservedAt: ReadonlyMap<string, EpochMs>,
  now: EpochMs,
): Threshold[] {
  return met.filter((t) => {
    const since = firstObservedAt.get(t.id);
    return since !== undefined && now - since >= t.gracePeriodMs;
  });
}

/**
 * The fresh-stats rule: act on a threshold only if its signal's stats are newer than the ones the
 * previous run saw, so the same sample is never acted on twice.
 */
export function thresholdsUpdatedStats(
  thresholds: readonly Threshold[],
  observations: Observations,
  last: Observations | undefined,
): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations.get(t.signal);
    if (o === undefined) return false;
    const prev = last?.get(t.signal);
    if (prev === undefined || o.time === undefined) return true;
    return prev.time === undefined ? true : o.time > prev.time;
  });
}
