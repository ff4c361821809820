/** A wall clock in epoch nanoseconds: Date.now() for the seconds, the monotonic clock for the digits below a millisecond. */

/** The two host clocks the nanosecond clock combines (injected by tests). */
export interface NanoClockSources {
  /** Wall-clock epoch milliseconds (Date.now). */
  readonly wallMs: () => number;
  /** A monotonic nanosecond counter (process.hrtime.bigint). */
  readonly monotonicNs: () => bigint;
}

const NS_PER_MS = 1_000_000n;
/** The real clocks. */
const HOST_CLOCKS: NanoClockSources = {
  wallMs: () => Date.now(),
  monotonicNs: () => process.hrtime.bigint(),
};

/** How far the extrapolated time may drift from the wall clock before re-anchoring. */
const MAX_DRIFT_NS = 2n * NS_PER_MS;

/**
 * Date.now() has millisecond resolution, which a 100 ms sampling loop can live with but several
 * reads within one collection cannot be ordered by. This clock extrapolates from an anchor (a wall
 * time and the monotonic counter at that moment) and re-anchors whenever the wall clock has moved
 * away by more than 2 ms (NTP steps, suspend), so it never strays far from Date.now(). It never
 * goes backwards: a wall-clock step back holds the clock still until real time catches up.
 */
export class NanoClock {
  readonly #sources: NanoClockSources;
  #anchorWallNs = 0n;
  #anchorMonoNs = 0n;
  #last = 0n;

  constructor(sources: NanoClockSources = HOST_CLOCKS) {
    this.#sources = sources;
    this.#anchor();
  }

  /** Nanoseconds after the Unix epoch. */
  nowNs(): bigint {
    const wallNs = BigInt(Math.floor(this.#sources.wallMs())) * NS_PER_MS;
    let t = this.#anchorWallNs + (this.#sources.monotonicNs() - this.#anchorMonoNs);
    const drift = t - wallNs;
    if (drift > MAX_DRIFT_NS || drift < -MAX_DRIFT_NS) {
      this.#anchor();
      t = this.#anchorWallNs;
    }
    if (t < this.#last) t = this.#last;
    this.#last = t;
    return t;
  }

  /** The same instant in epoch milliseconds (fractional), for code that keeps time in ms. */
  nowMs(): number {
    return Number(this.nowNs()) / 1e6;
  }

  #anchor(): void {
    this.#anchorWallNs = BigInt(Math.floor(this.#sources.wallMs())) * NS_PER_MS;
    this.#anchorMonoNs = this.#sources.monotonicNs();
  }
}
