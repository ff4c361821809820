/**
 * What the Prometheus import reads from a Prometheus server: raw samples of a selector over a
 * window, and which series exist. Owned here, by the consumer; src/prometheus implements it over
 * the HTTP API.
 */

/** One time series: its labels (with `__name__`) and its raw samples, oldest first. */
export interface PrometheusSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** [epoch ms, value] pairs as scraped (no step alignment, no interpolation); stale markers left out. */
  readonly samples: readonly (readonly [number, number])[];
}

export interface PrometheusPort {
  /**
   * The raw samples of every series `selector` (a metric name with label matchers, no functions)
   * matches in the window (endMs − windowMs, endMs].
   */
  samples(
    selector: string,
    endMs: number,
    windowMs: number,
    signal?: AbortSignal,
  ): Promise<PrometheusSeries[]>;
  /** The label sets of the series matching `match` (a selector) between startMs and endMs. */
  series(
    match: string,
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ): Promise<Record<string, string>[]>;
}
