/**
 * Grace periods: the override the eviction manager requests, and the effective grace the pod
 * worker then gives the pod (pod_workers.go calculateEffectiveGracePeriod).
 */
import type { Pod, Threshold } from "../model.js";

/** Hard evictions request 1 s (since v1.31; 0 had silently meant "the pod's own grace"). */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;

/**
 * Hard threshold → 1 s. Soft threshold → evictionMaxPodGracePeriod, capped by the pod's
 * terminationGracePeriodSeconds (since v1.32). 0 therefore means "no override" downstream.
 */
export function evictionGracePeriodOverride(
  threshold: Threshold,
  pod: Pod,
  maxPodGracePeriodSeconds: number,
): number {
  if (threshold.gracePeriodMs === 0) return IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS;
  return Math.min(maxPodGracePeriodSeconds, pod.terminationGracePeriodSeconds);
}

/**
 * What the pod gets: start from the grace already in force for a terminating pod (0 if none); an
 * override replaces it if the current value is 0 or the override is smaller; a result of 0 falls
 * back to terminationGracePeriodSeconds; the result is at least 1 s. A negative max-pod grace
 * therefore yields 1 s, not "defer to the pod" as the flag's help text claims.
 */
export function effectiveGracePeriod(override: number, pod: Pod, inForceSeconds = 0): number {
  let grace = inForceSeconds;
  if (grace === 0 || override < grace) grace = override;
  if (grace === 0) grace = pod.terminationGracePeriodSeconds;
  return Math.max(grace, 1);
}
