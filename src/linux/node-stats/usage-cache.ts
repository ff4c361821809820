/** Keeps disk measurements for a short time, so a fast sampling loop does not rescan big trees on every tick. */

/** A measurement and when it was taken. */
export interface Timed<T> {
  readonly value: T;
  /** Epoch nanoseconds at which the measurement finished (the `time` its stats carry). */
  readonly atNs: bigint;
}

/** The clock the cache reads (the collector passes its NanoClock). */
export interface NsClock {
  nowNs(): bigint;
}

interface Entry<T> {
  result: Timed<T> | undefined;
  pending: Promise<Timed<T>> | undefined;
  lastRequestedMs: number;
}

/**
 * A per-key cache with a time-to-live. Memory is read on every sample because it moves in
 * milliseconds; disk usage moves slower and costs a walk, so a reading younger than `ttlMs` is
 * served again (with its original time stamp, so the engine sees how old it is). Concurrent
 * requests for one key share a single measurement. Keys not requested for a while are dropped
 * by {@link sweep}, so pods that went away do not pin memory.
 */
export class UsageCache<T> {
  /** How long a reading is served again; the owner may change it (a larger node refreshes less often). */
  ttlMs: number;
  readonly #clock: NsClock;
  readonly #entries = new Map<string, Entry<T>>();

  constructor(ttlMs: number, clock: NsClock) {
    this.ttlMs = ttlMs;
    this.#clock = clock;
  }

  /** The cached value of `key` if younger than the TTL, else a fresh one from `measure`. */
  get(key: string, measure: () => Promise<T>): Promise<Timed<T>> {
    const now = this.#nowMs();
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { result: undefined, pending: undefined, lastRequestedMs: now };
      this.#entries.set(key, entry);
    }
    entry.lastRequestedMs = now;
    if (entry.result !== undefined && now - Number(entry.result.atNs / 1_000_000n) < this.ttlMs) {
      return Promise.resolve(entry.result);
    }
    if (entry.pending !== undefined) return entry.pending;
    const target = entry;
    const pending = measure().then(
      (value) => {
        target.result = { value, atNs: this.#clock.nowNs() };
        target.pending = undefined;
        return target.result;
      },
      (error: unknown) => {
        target.pending = undefined;
        throw error;
      },
    );
    target.pending = pending;
    return pending;
  }

  /** Drops entries nobody asked for within `idleMs`. */
  sweep(idleMs: number): void {
    const cutoff = this.#nowMs() - idleMs;
    for (const [key, entry] of this.#entries) {
      if (entry.lastRequestedMs < cutoff && entry.pending === undefined) this.#entries.delete(key);
    }
  }

  #nowMs(): number {
    return Number(this.#clock.nowNs() / 1_000_000n);
  }

  /** Number of keys held (for tests and diagnostics). */
  get size(): number {
    return this.#entries.size;
  }
}
