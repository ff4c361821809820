/**
 * The pods port of `evictd run --dry-run`: the runtime's active pods, and every action the loop
 * asks for logged instead of done. A "killed" pod keeps running and stays active, so the engine
 * keeps seeing the pressure it would have relieved; reclaim frees nothing.
 */
import type { ClockPort, FailedPodStatus, KillResult, LoggerPort, PodsPort, GcReport } from "../app/ports.js";
import type { Pod } from "../core/model.js";

export interface DryRunPodsOptions {
  /** Where the active pods come from (the process runtime). */
  readonly pods: { activePods(): readonly Pod[] };
  /** Stamps each would-be kill (`KillResult.terminatedAt`). */
  readonly clock: Pick<ClockPort, "now">;
  readonly logger: LoggerPort;
}

/** A {@link PodsPort} that observes but never acts. */
export class DryRunPods implements PodsPort {
  readonly #options: DryRunPodsOptions;

  constructor(options: DryRunPodsOptions) {
    this.#options = options;
  }

  activePods(): readonly Pod[] {
    return this.#options.pods.activePods();
  }

  /**
   * Logs what would be evicted; the pod is untouched, and nothing is left to wait for. A pod no
   * longer active (it finished since the loop saw it) would be left as it is, as the runtime leaves
   * a finished pod: the line says so.
   */
  kill(pod: Pod, gracePeriodSeconds: number, status: FailedPodStatus): Promise<KillResult> {
    const active = this.#options.pods.activePods().some((p) => p.uid === pod.uid);
    this.#options.logger.info(
      { pod: pod.key, grace: gracePeriodSeconds, message: status.message },
      active
        ? `dry run: would evict ${pod.key}`
        : `dry run: ${pod.key} is no longer active (it has finished): nothing to evict`,
    );
    return Promise.resolve({
      terminatedAt: this.#options.clock.now(),
      done: Promise.resolve({ ok: true, stuck: [] }),
    });
  }

  /** Nothing was killed, so nothing is left over. */
  isCleanedUp(_pod: Pod): Promise<boolean> {
    return Promise.resolve(true);
  }

  containerGC(): Promise<GcReport> {
    return Promise.resolve({ freedBytes: 0, note: "dry run" });
  }

  imageGC(): Promise<GcReport> {
    return Promise.resolve({ freedBytes: 0, note: "dry run" });
  }
}
