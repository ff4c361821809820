/**
 * Gives back the young generation a busy spell left the main thread with. V8 doubles a thread's
 * young generation (up to 16 MiB a semi-space here) while many objects survive its collections,
 * as they do while a daemon starts a hundred pods, and shrinks it again only at a collection made
 * while the thread allocates slowly. The main thread of an idle daemon allocates so slowly that it
 * collects almost never, so it kept the start-up's 16 MiB, touched a little more every second,
 * resident until V8's memory reducer came round much later (docs/benchmarks.md, "Figures behind
 * design choices"). One young collection at a quiet moment lets V8 shrink it (to 1 MiB, the size
 * it starts at) soon after start; while the thread is still busy V8 keeps it, and the trim backs
 * off, so a busy thread is not collected every second for nothing.
 */
import { gcFunction, youngGeneration, type GcFunction } from "./v8-gc.js";

/** A young generation this size or smaller is left alone: V8's initial size on 64-bit Linux. */
export const SMALL_YOUNG_GENERATION_BYTES = 1024 * 1024;

/** The longest a trim that V8 refused waits before the next try, in calls. */
const MAX_BACKOFF_CALLS = 16;

/** The young generation's current capacity (V8's `new_space` size), in bytes. */
export function youngGenerationBytes(): number {
  return youngGeneration()?.space_size ?? 0;
}

export interface YoungGenerationTrimOptions {
  /** The collection to make (default: V8's own `gc`, exposed for this thread). */
  readonly gc?: GcFunction;
  /** The young generation's capacity now (default {@link youngGenerationBytes}). */
  readonly capacity?: () => number;
}

/**
 * Call {@link afterWork} whenever the thread has finished a piece of periodic work (the main thread:
 * each loop step it records). When the young generation is larger than it started, it schedules
 * one young collection for when the thread is idle; if V8 did not shrink it (the thread still
 * allocates fast), the next tries come after 2, 4, 8 and then every 16 calls.
 */
export class YoungGenerationTrim {
  readonly #gc: GcFunction | undefined;
  readonly #capacity: () => number;
  #calls = 0;
  #nextTryAt = 0;
  #backoff = 1;
  #scheduled = false;
  /** Collections made, and how many of them shrank the young generation (for tests). */
  readonly counts = { collections: 0, shrunk: 0 };

  constructor(options: YoungGenerationTrimOptions = {}) {
    this.#gc = options.gc ?? gcFunction();
    this.#capacity = options.capacity ?? youngGenerationBytes;
  }

  afterWork(): void {
    this.#calls++;
    if (this.#gc === undefined || this.#scheduled || this.#calls < this.#nextTryAt) return;
    if (this.#capacity() <= SMALL_YOUNG_GENERATION_BYTES) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.trimNow();
    });
  }

  /** One young collection now, if the young generation is larger than it started; true if it shrank. */
  trimNow(): boolean {
    const gc = this.#gc;
    const before = this.#capacity();
    if (gc === undefined || before <= SMALL_YOUNG_GENERATION_BYTES) return false;
    gc({ type: "minor" });
    this.counts.collections++;
    const shrunk = this.#capacity() < before;
    if (shrunk) {
      this.counts.shrunk++;
      this.#backoff = 1;
    } else {
      this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_CALLS);
    }
    this.#nextTryAt = this.#calls + this.#backoff;
    return shrunk;
  }
}
