/**
 * The loop's wake-ups: the housekeeping timer, or at once when the kernel reports that memory
 * crossed an eviction threshold. Memory thresholds are armed on the node and pods cgroups the way
 * the kubelet arms them (capacity − eviction quantity + inactive_file), re-armed from each sample
 * the engine asks for; a wake that arrives while the loop is busy is kept for its next wait.
 */
import type { StatsSample, Wake, WakePort } from "../../app/ports.js";
import { memoryThresholdArming } from "../../core/engine/memory-threshold-arming.js";
import type { Threshold } from "../../core/model.js";
import { TIMER_MAX_MS } from "../../core/time/timer-limit.js";
import type { ThresholdWakeSource, WakeSource } from "./wake-source.js";
import type { WorkingSetPoller } from "./working-set-poller.js";

/**
 * One armed memory threshold: which engine threshold, the kernel notifier on the matching cgroup
 * (cgroup v1), the working-set poller that catches what the notifier's stale inactive_file
 * makes it late for (both, either, or on v2 only the poller), and two kernel hints that make the
 * poller look at once (cgroup v1, with a poller):
 * - `usageAtLimit`: a second memcg threshold, on usage at the working-set limit itself (what the
 *   kubelet's would be with no inactive_file). Usage crossing it is the earliest the working set
 *   can cross, however stale the kubelet's threshold is and however fast memory is taken;
 * - `reclaim`: the kernel reclaimed for the cgroup (memory-reclaim-watch.ts), so the working set
 *   may be rising while usage stands still at the cgroup's limit.
 * A hint never wakes the loop itself; the poller does, if the working set it then reads is above.
 */
export interface MemoryThresholdSource {
  readonly threshold: Threshold;
  readonly notifier?: ThresholdWakeSource;
  readonly poller?: WorkingSetPoller;
  readonly usageAtLimit?: ThresholdWakeSource;
  readonly reclaim?: WakeSource;
}

export interface NotificationWakePortOptions {
  readonly sources: readonly MemoryThresholdSource[];
  /** Sources without a byte threshold (cgroup v2: PSI trigger, memory.events); never re-armed. */
  readonly others?: readonly WakeSource[];
  readonly now: () => number;
  readonly onError?: (source: string, error: unknown) => void;
}

export class NotificationWakePort implements WakePort {
  private readonly o: NotificationWakePortOptions;
  private pending: Wake | undefined;
  private waiter: ((w: Wake) => void) | undefined;
  /** Sources the kernel refused at start, with why (for the capability list: what is armed, exactly). */
  readonly refused: readonly { readonly name: string; readonly reason: string }[];

  constructor(options: NotificationWakePortOptions) {
    this.o = options;
    const refused: { name: string; reason: string }[] = [];
    for (const source of this.all()) {
      // The poller of the same threshold knows when its figure was last seen below it.
      const owner = this.o.sources.find(
        (s) =>
          s.notifier === source || s.poller === source || s.reclaim === source || s.usageAtLimit === source,
      );
      const poller = owner?.poller;
      try {
        if (owner !== undefined && (owner.reclaim === source || owner.usageAtLimit === source)) {
          const hint =
            owner.reclaim === source ? "the kernel reported reclaim" : "usage crossed the working-set limit";
          source.start(
            () => poller?.poke(hint),
            (error) => this.o.onError?.(source.name, error),
          );
          continue;
        }
        source.start(
          (reason) => {
            const lastBelowAt = poller?.lastBelowAt;
            this.fire({
              reason,
              at: this.o.now(),
              notification: true,
              ...(lastBelowAt !== undefined ? { lastBelowAt } : {}),
            });
          },
          (error) => this.o.onError?.(source.name, error),
        );
      } catch (error) {
        // A source the kernel refuses is a degradation (the housekeeping tick still holds), not a crash.
        refused.push({ name: source.name, reason: error instanceof Error ? error.message : String(error) });
        this.o.onError?.(source.name, error);
      }
    }
    this.refused = refused;
  }

  private all(): WakeSource[] {
    const out: WakeSource[] = [];
    for (const s of this.o.sources) {
      if (s.notifier !== undefined) out.push(s.notifier);
      if (s.poller !== undefined) out.push(s.poller);
      if (s.usageAtLimit !== undefined) out.push(s.usageAtLimit);
      if (s.reclaim !== undefined) out.push(s.reclaim);
    }
    return [...out, ...(this.o.others ?? [])];
  }

  private fire(w: Wake): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(w);
    } else {
      this.pending ??= w; // keep the earliest: reaction is measured from it
    }
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<Wake> {
    const queued = this.pending;
    if (queued !== undefined) {
      this.pending = undefined;
      return Promise.resolve(queued);
    }
    return new Promise<Wake>((resolve) => {
      const done = (w: Wake): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.waiter === done) this.waiter = undefined;
        resolve(w);
      };
      const onAbort = (): void => done({ reason: "shutdown", at: this.o.now(), notification: false });
      // A timer holds at most TIMER_MAX_MS (a longer one fires at once); an early housekeeping wake is harmless.
      const timer = setTimeout(
        () => done({ reason: "housekeeping", at: this.o.now(), notification: false }),
        Math.min(timeoutMs, TIMER_MAX_MS),
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiter = done;
    });
  }

  rearm(sample: StatsSample): void {
    for (const s of this.o.sources) {
      const arming = memoryThresholdArming(s.threshold, sample.summary);
      if (arming === undefined) continue;
      s.poller?.setLimit(arming.workingSetLimit);
      const atLimit = s.usageAtLimit;
      if (
        atLimit !== undefined &&
        arming.workingSetLimit > 0n &&
        arming.workingSetLimit !== atLimit.thresholdBytes
      )
        atLimit.rearm(arming.workingSetLimit).catch((e: unknown) => this.o.onError?.(atLimit.name, e));
      const notifier = s.notifier;
      if (
        notifier === undefined ||
        arming.usageThreshold <= 0n ||
        arming.usageThreshold === notifier.thresholdBytes
      )
        continue;
      notifier.rearm(arming.usageThreshold).catch((e: unknown) => this.o.onError?.(notifier.name, e));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((s) => s.stop()));
  }
}
