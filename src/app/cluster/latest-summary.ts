/**
 * The kubelet's Summary API sample, kept current in the background: read every interval, the last
 * good one kept. `watch --stats cgroups` takes disk, inode and PID figures from it while memory
 * comes from the cgroups; a memory wake never waits for this read, and a failed read leaves the
 * previous sample (whose figures carry their own times) in place.
 */
import type { ClockPort, LoggerPort } from "../ports.js";

export interface LatestSummaryOptions {
  readonly read: (signal: AbortSignal) => Promise<unknown>;
  readonly intervalMs: number;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
}

export class LatestSummary {
  readonly #o: LatestSummaryOptions;
  #value: unknown;
  #failing = false;

  constructor(options: LatestSummaryOptions) {
    this.#o = options;
  }

  /** The last sample read (undefined before the first). */
  get value(): unknown {
    return this.#value;
  }

  /** Reads once; rejects when the read fails (the first read's failure is the caller's to report). */
  async refresh(signal: AbortSignal): Promise<void> {
    this.#value = await this.#o.read(signal);
  }

  /** Reads every interval until `signal` aborts; failures are logged once per streak and retried. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, log, intervalMs } = this.#o;
    while (!signal.aborted) {
      await clock.sleep(intervalMs, signal).catch(() => undefined);
      if (signal.aborted) return;
      try {
        await this.refresh(signal);
        if (this.#failing) log.info({}, "the Summary API answers again");
        this.#failing = false;
      } catch (error) {
        if (signal.aborted) return;
        if (!this.#failing)
          log.warn(
            { err: String(error) },
            "cannot read the Summary API: disk, inode and PID figures stay as of the last sample",
          );
        this.#failing = true;
      }
    }
  }
}
