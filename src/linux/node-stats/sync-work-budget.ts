/**
 * How much synchronous filesystem work (a `lstat`, a directory entry) the thread does before it
 * lets other events in. Disk walks run on the eviction loop's thread: done with the asynchronous
 * `fs.promises` calls, each entry cost a thread-pool round trip, a promise and a few objects, most
 * of them alive across the loop's between-step collections (the walks of a 100-pod node are all
 * under way at once), so they were promoted to the old generation and collected there later: the
 * largest part of the loop thread's promoted bytes and a measurable share of its CPU. Done with the
 * synchronous calls in turns of a bounded number of entries, a walk costs a few microseconds an
 * entry, and a kernel wake-up waits for at most one turn (tens of entries, well under a
 * millisecond on a local filesystem) before the loop handles it.
 *
 * One budget is shared by every walk under way, so that a hundred pods walked together still do no
 * more than one turn's entries between two looks at the event loop (and one more entry for each
 * walk that waited for the turn: a walk does the entry it waited for without counting it again).
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/** Entries one turn may visit (lstat calls and directory entries read). */
export const DEFAULT_ENTRIES_PER_TURN = 64;

export class SyncWorkBudget {
  readonly #perTurn: number;
  #left: number;
  /** The turn every walk that ran out waits for (one per turn, shared). */
  #turn: Promise<void> | undefined;
  /** Turns given to the event loop so far (for tests). */
  turns = 0;

  constructor(entriesPerTurn: number = DEFAULT_ENTRIES_PER_TURN) {
    this.#perTurn = Math.max(1, Math.floor(entriesPerTurn));
    this.#left = this.#perTurn;
  }

  /**
   * Counts one entry of synchronous work. Returns undefined while the turn has room, or the promise
   * of the next turn (the caller awaits it before its next entry).
   */
  take(): Promise<void> | undefined {
    if (this.#turn !== undefined) return this.#turn;
    if (this.#left > 0) {
      this.#left--;
      return undefined;
    }
    this.#turn = nextTurn().then(() => {
      this.#turn = undefined;
      this.#left = this.#perTurn;
      this.turns++;
    });
    return this.#turn;
  }
}
