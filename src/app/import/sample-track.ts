/**
 * One series' raw samples and the question a replay step asks of them: what was the latest value
 * scraped at or before time t? Prometheus answers the same way (an instant query's lookback), but
 * asking it per step would cost a query per step; the raw samples of a window answer every step of
 * the window from one query. A sample older than the lookback is stale: the series had stopped
 * (a pod gone, a target down), and the step gets no value rather than an old one.
 */
export interface TimedValue {
  /** Epoch ms the sample was scraped at. */
  readonly at: number;
  readonly value: number;
}

export class SampleTrack {
  readonly #times: number[] = [];
  readonly #values: number[] = [];

  /** Adds samples (oldest first, as the API returns them); samples not after the last one are dropped. */
  add(samples: readonly (readonly [number, number])[]): void {
    for (const [at, value] of samples) {
      const last = this.#times[this.#times.length - 1];
      if (last !== undefined && at <= last) continue;
      this.#times.push(at);
      this.#values.push(value);
    }
  }

  get size(): number {
    return this.#times.length;
  }

  /** The latest sample at or before `t`, if it is no older than `lookbackMs`. */
  at(t: number, lookbackMs: number): TimedValue | undefined {
    let lo = 0;
    let hi = this.#times.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#times[mid] as number) <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return undefined;
    const at = this.#times[found] as number;
    if (t - at > lookbackMs) return undefined;
    const value = this.#values[found] as number;
    return Number.isFinite(value) ? { at, value } : undefined;
  }
}
