/**
 * The first reads of a long-running command (`evictd watch`: the kubelet's configuration, the
 * first Summary): a cluster that does not answer yet (unreachable, silent, 5xx) is waited for, as
 * the loop waits for it later, each failure logged with the attempt and when the next one goes,
 * until the read succeeds or the command is stopped. A refusal that trying again cannot change
 * (401/403, a certificate refused, a response that is not what it should be, a kubeconfig or file
 * problem) is thrown at once. The port's errors say which they are with `transient: true`.
 */
import type { ClockPort, LoggerPort } from "../ports.js";

export interface UntilAnsweredOptions {
  readonly log: LoggerPort;
  readonly clock: ClockPort;
  readonly signal: AbortSignal;
  /** Waits between tries: doubling from `minMs` up to `maxMs`. */
  readonly backoff?: { readonly minMs: number; readonly maxMs: number };
}

/** Whether an error says that trying again later may succeed (the adapter's `transient` flag). */
export function isTransientFailure(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { transient?: unknown }).transient === true;
}

/**
 * Runs `read` until it resolves; a transient failure is logged (`what` names the read) and retried
 * after a backoff. Resolves undefined when `signal` aborts first; other failures reject.
 */
export async function untilAnswered<T>(
  what: string,
  read: () => Promise<T>,
  o: UntilAnsweredOptions,
): Promise<T | undefined> {
  const { minMs, maxMs } = o.backoff ?? { minMs: 1000, maxMs: 30_000 };
  for (let attempt = 1; ; attempt++) {
    if (o.signal.aborted) return undefined;
    try {
      return await read();
    } catch (error) {
      if (o.signal.aborted) return undefined;
      if (!isTransientFailure(error)) throw error;
      const delay = Math.min(minMs * 2 ** (attempt - 1), maxMs);
      o.log.warn(
        { err: String(error), attempt, retryInMs: delay },
        `${what} failed (attempt ${attempt}): ${error instanceof Error ? error.message : String(error)}; trying again in ${Math.round(delay / 1000)}s (watch waits for the cluster until stopped)`,
      );
      await o.clock.sleep(delay, o.signal).catch(() => undefined);
    }
  }
}
