/**
 * A histogram of non-negative amounts (bytes, inodes, PIDs available) in logarithmic buckets, 64 to
 * a doubling (each about 1.1% wide), with the exact minimum beside it. Its counts add up, so the
 * histograms of many nodes, computed in any order on any number of workers or machines, merge into
 * exactly the histogram of the whole fleet: the low percentiles a comparison reports (p1 headroom)
 * are the same whichever way the work was split. A percentile is reported as its bucket's lower
 * bound, never more than the true value. Values at or below 0 share one bucket.
 */

const PER_DOUBLING = 64;
/** The bucket of values ≤ 0 (available PIDs can go negative, as upstream computes them). */
const NON_POSITIVE = -1_000_000;

/** As JSON: `[bucket, count]` pairs in bucket order, the count and the minimum. */
export interface HistogramData {
  readonly count: number;
  /** The smallest value added; null when empty. */
  readonly min: number | null;
  readonly buckets: readonly (readonly [number, number])[];
}

function bucketOf(v: number): number {
  return v <= 0 ? NON_POSITIVE : Math.floor(Math.log2(v) * PER_DOUBLING);
}

function lowerBound(bucket: number): number {
  return bucket === NON_POSITIVE ? 0 : Math.ceil(2 ** (bucket / PER_DOUBLING));
}

export class LogHistogram {
  readonly #counts = new Map<number, number>();
  #count = 0;
  #min: number | undefined;

  add(value: number, times = 1): void {
    const b = bucketOf(value);
    this.#counts.set(b, (this.#counts.get(b) ?? 0) + times);
    this.#count += times;
    if (this.#min === undefined || value < this.#min) this.#min = value;
  }

  merge(data: HistogramData): void {
    for (const [b, n] of data.buckets) this.#counts.set(b, (this.#counts.get(b) ?? 0) + n);
    this.#count += data.count;
    if (data.min !== null && (this.#min === undefined || data.min < this.#min)) this.#min = data.min;
  }

  get count(): number {
    return this.#count;
  }

  get min(): number | undefined {
    return this.#min;
  }

  /**
   * The `p`-th percentile (0 < p ≤ 100), as the lower bound of the bucket holding it (the exact
   * minimum when that is the lowest bucket); undefined when empty.
   */
  percentile(p: number): number | undefined {
    if (this.#count === 0 || this.#min === undefined) return undefined;
    const rank = Math.max(1, Math.ceil((p / 100) * this.#count));
    let seen = 0;
    const buckets = [...this.#counts.keys()].sort((a, b) => a - b);
    for (const b of buckets) {
      seen += this.#counts.get(b) ?? 0;
      if (seen >= rank) return Math.max(this.#min, b === bucketOf(this.#min) ? this.#min : lowerBound(b));
    }
    return this.#min;
  }

  toJSON(): HistogramData {
    return {
      count: this.#count,
      min: this.#min ?? null,
      buckets: [...this.#counts.entries()].sort((a, b) => a[0] - b[0]),
    };
  }

  static from(data: HistogramData): LogHistogram {
    const h = new LogHistogram();
    h.merge(data);
    return h;
  }
}
