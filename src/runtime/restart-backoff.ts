/**
 * The kubelet's container restart back-off (CrashLoopBackOff): 10 s doubling per restart up to
 * 5 min (`flowcontrol.Backoff` with `backOffPeriod` and `MaxContainerBackOff`), forgotten once a
 * run lasted longer than twice the cap (the entry "expires": 10 min by default).
 */

export interface BackoffPolicy {
  /** First delay; the kubelet's is 10 s. */
  readonly baseMs: number;
  /** Cap; the kubelet's is 5 min. */
  readonly maxMs: number;
}

export const KUBELET_BACKOFF: BackoffPolicy = { baseMs: 10_000, maxMs: 300_000 };

/** The delay before the next restart after `steps` earlier ones: base · 2^steps, capped. */
export function restartDelayMs(policy: BackoffPolicy, steps: number): number {
  // 2^31 overflows nothing in float, but the cap is reached long before; stop doubling there.
  let delay = policy.baseMs;
  for (let i = 0; i < steps && delay < policy.maxMs; i++) delay *= 2;
  return Math.min(delay, policy.maxMs);
}

/**
 * Steps to count for a container that ran from `startedAt` to `finishedAt`: upstream resets the
 * entry when the exit comes more than 2 × max after the last back-off update (the restart).
 */
export function backoffStepsAfterRun(
  policy: BackoffPolicy,
  steps: number,
  startedAt: number,
  finishedAt: number,
): number {
  return finishedAt - startedAt > 2 * policy.maxMs ? 0 : steps;
}
