/**
 * How often and how long the adapter retries a transient failure (network, 409, 429, 5xx): capped
 * exponential backoff, the server's Retry-After when it sends one, bounded attempts and a bound on
 * the total time spent waiting.
 */

/** Retry settings; every field has a default in {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** Wait before the first retry; doubled for each further one. */
  readonly baseDelayMs: number;
  /** Longest single wait, Retry-After included. */
  readonly maxDelayMs: number;
  /**
   * Time budget of one call: the waits, plus a full request timeout for every attempt that timed
   * out. A retry that would exceed it is not made (after a timeout, nor one whose own timeout would).
   */
  readonly totalDelayMs: number;
  /**
   * Fraction of each computed wait that is randomised away (0 = deterministic). Many evictd
   * instances retrying against one recovering API server should not all come back at once.
   */
  readonly jitter: number;
  /**
   * Attempts for an eviction that a PodDisruptionBudget refuses (429 with a `DisruptionBudget`
   * cause). The budget frees up only when another pod becomes ready, so a few tries are enough
   * before the refusal goes back to the caller, which decides what to do next.
   */
  readonly disruptionBudgetAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  totalDelayMs: 30_000,
  jitter: 0.2,
  disruptionBudgetAttempts: 3,
};

/**
 * The wait before retry number `retry` (0 for the first retry). A Retry-After from the server wins
 * over the computed backoff (capped at `maxDelayMs`); `random` returns [0, 1).
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
  const jitter = Math.min(Math.max(policy.jitter, 0), 1);
  return Math.round(exponential * (1 - jitter * random()));
}

/**
 * Retry-After in milliseconds: delta-seconds (what the API server sends) or an HTTP date; undefined
 * when absent or unreadable.
 */
export function parseRetryAfter(
  header: string | readonly string[] | undefined,
  nowMs: number,
): number | undefined {
  const value = (typeof header === "string" ? header : header?.[0])?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date has a weekday and month in letters; anything else (say "-1") is not one.
  if (!/[A-Za-z]/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The defaults with some fields replaced. */
export function retryPolicyWith(overrides: Partial<RetryPolicy> | undefined): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...overrides };
}
