/**
 * Memory wakes rehearsed after the node's pods change, so the first real wake after a pod starts
 * reads files already open and runs code V8 has compiled for the figures it will see. A new pod's
 * first memory read opens its cgroup files and learns its limits; on a 110-pod node that first
 * wake otherwise spent several milliseconds of its reaction there. Once a burst of changes
 * settles, a few rehearsals run ({@link EvictionLoop.rehearse}: a memory read and a decision,
 * acted on by nothing), spread out so that a real wake arriving meanwhile waits for one at most.
 * `evictd run`'s loop thread and `evictd watch --stats cgroups` both schedule them this way.
 */
import type { ClockPort, LoggerPort } from "../ports.js";

/** Rehearsals after a change. */
export const REHEARSAL_READS = 10;
/** The pause between two rehearsals. */
export const REHEARSAL_SPACING_MS = 25;
/** How long a burst of pod changes may settle before the rehearsals. */
export const REHEARSAL_DELAY_MS = 100;

export interface WakeRehearsalsOptions {
  /** One rehearsed wake (EvictionLoop.rehearse). */
  readonly rehearse: () => Promise<void>;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** Stops the rehearsals under way and every later one. */
  readonly signal: AbortSignal;
  /** After each rehearsal (a collection of its garbage while nothing waits, say). */
  readonly afterEach?: () => void;
}

export class WakeRehearsals {
  readonly #o: WakeRehearsalsOptions;
  #scheduled = false;

  constructor(options: WakeRehearsalsOptions) {
    this.#o = options;
  }

  /** The pods changed: rehearse once the changes settle (one round for a burst of them). */
  poke(): void {
    if (this.#scheduled || this.#o.signal.aborted) return;
    this.#scheduled = true;
    this.#round().catch((e: unknown) => {
      if (!this.#o.signal.aborted)
        this.#o.log.warn({ err: String(e) }, "cannot prepare the stats of new pods");
    });
  }

  async #round(): Promise<void> {
    const { clock, signal, rehearse, afterEach } = this.#o;
    try {
      await clock.sleep(REHEARSAL_DELAY_MS, signal);
    } finally {
      // Changes from here on call for a round of their own.
      this.#scheduled = false;
    }
    for (let i = 0; i < REHEARSAL_READS && !signal.aborted; i++) {
      await rehearse();
      afterEach?.();
      await clock.sleep(REHEARSAL_SPACING_MS, signal);
    }
  }
}
