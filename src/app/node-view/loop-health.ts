/**
 * Whether the eviction loop is doing its job, for `/healthz`: it must complete a stats read and a
 * synchronize at least every few housekeeping periods. The kubelet's own `syncloop` health check
 * (pkg/kubelet/server/server.go `syncLoopHealthCheck`) fails when its sync loop was last entered
 * more than max(2 × resync interval, 5 min) ago; an eviction manager that has not looked at the
 * node for minutes protects nothing, so the allowance here is the loop's own scale: three
 * housekeeping periods, plus the cleanup wait after an eviction (the loop waits, bounded, for the
 * evicted pod to be gone before it looks again). A loop whose steps all fail to read the stats
 * (the node cgroup removed under it, /proc unreadable) is unhealthy too, with the last error.
 */

/** The verdict: healthy, or why not. */
export type HealthVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** What one loop step tells the tracker. */
export interface StepProgress {
  /** When the step read the stats (the loop's clock, epoch ms). */
  readonly now: number;
  /** Why the stats could not be read; absent when they were. */
  readonly readError?: string;
  /** The step evicted a pod: the loop now waits for its cleanup before the next step. */
  readonly evicted: boolean;
}

export interface LoopHealthOptions {
  readonly startedAt: number;
  readonly housekeepingIntervalMs: number;
  /** The longest the loop waits for an evicted pod's cleanup (upstream's podCleanupTimeout). */
  readonly cleanupTimeoutMs: number;
}

/** Housekeeping periods without a completed read and sync before the loop counts as stuck. */
export const HEALTH_PERIODS = 3;

export class LoopHealth {
  readonly #o: LoopHealthOptions;
  #lastStep: StepProgress | undefined;
  #lastGoodAt: number | undefined;

  constructor(options: LoopHealthOptions) {
    this.#o = options;
  }

  observe(step: StepProgress): void {
    this.#lastStep = step;
    if (step.readError === undefined) this.#lastGoodAt = step.now;
  }

  verdict(now: number): HealthVerdict {
    const { housekeepingIntervalMs, cleanupTimeoutMs, startedAt } = this.#o;
    const allowance =
      HEALTH_PERIODS * housekeepingIntervalMs + (this.#lastStep?.evicted === true ? cleanupTimeoutMs : 0);
    const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    const last = this.#lastStep;
    if (last === undefined) {
      return now - startedAt <= allowance
        ? { ok: true }
        : {
            ok: false,
            reason: `the eviction loop has completed no stats read and sync in the ${seconds(now - startedAt)} since the daemon started (allowed: ${seconds(allowance)})`,
          };
    }
    if (now - last.now > allowance)
      return {
        ok: false,
        reason: `the eviction loop has completed no sync for ${seconds(now - last.now)} (allowed: ${seconds(allowance)}, ${HEALTH_PERIODS} housekeeping periods${last.evicted ? " and the cleanup wait after an eviction" : ""})`,
      };
    const goodSince = this.#lastGoodAt ?? startedAt;
    if (last.readError !== undefined && now - goodSince > allowance)
      return {
        ok: false,
        reason: `the eviction loop's stats reads have failed for ${seconds(now - goodSince)}${this.#lastGoodAt === undefined ? " (none has succeeded yet)" : ""}: ${last.readError}`,
      };
    return { ok: true };
  }
}
