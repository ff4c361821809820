/**
 * Each pod's status file kept saying what the runtime knows: writes queued per pod and coalesced
 * (one pending write carries the latest state), a write that fails tried again until it succeeds,
 * and, when the runtime closes, what a write that still fails leaves the next start said out loud.
 */
import type { LoggerPort } from "../app/ports.js";
import { writeFileAtomic } from "../formats/write-file-atomic.js";
import { toPersisted, type PodRecord } from "./pod-record.js";
import { encodeStatus } from "./pod-status-file.js";

/** How often a status write that failed is tried again. */
const STATUS_RETRY_MS = 1000;

export interface PodStatusWriterOptions {
  readonly logger: LoggerPort;
  /** Called with every write asked for: a change worth writing may change what the pods are said to be. */
  readonly changed: () => void;
  /** Whether the record is still the runtime's record of its pod (a forgotten pod's write is not retried). */
  readonly isCurrent: (record: PodRecord) => boolean;
}

/** Writes the runtime's pod records to their status files; see the module comment. */
export class PodStatusWriter {
  readonly #logger: LoggerPort;
  readonly #changed: () => void;
  readonly #isCurrent: (record: PodRecord) => boolean;
  /** {@link close} has run: failed writes are no longer retried. */
  #closed = false;

  constructor(options: PodStatusWriterOptions) {
    this.#logger = options.logger;
    this.#changed = options.changed;
    this.#isCurrent = options.isCurrent;
  }

  /**
   * Queues a status write (coalesced: one pending write carries the latest state). A write that
   * fails (the state filesystem full) is tried again every {@link STATUS_RETRY_MS} until it succeeds:
   * the file must come to say what happened (an evicted pod's says Failed), or a restart would
   * bring back a pod the daemon already stopped.
   */
  persist(record: PodRecord): void {
    // Every change worth a status write may change what the stats collector or the loop is told.
    this.#changed();
    if (record.writeQueued) return;
    record.writeQueued = true;
    record.writes = record.writes.then(async () => {
      record.writeQueued = false;
      try {
        await writeFileAtomic(record.paths.statusFile, encodeStatus(toPersisted(record)));
        if (record.writeFailing) {
          record.writeFailing = false;
          this.#logger.info(
            { pod: record.pod.key, file: record.paths.statusFile },
            "pod status written again",
          );
        }
      } catch (error) {
        if (!record.writeFailing) {
          const fields = { pod: record.pod.key, file: record.paths.statusFile, error: String(error) };
          this.#logger.error(fields, `cannot write the pod status: trying again every ${STATUS_RETRY_MS} ms`);
        }
        record.writeFailing = true;
        const retry = setTimeout(() => {
          if (!this.#closed && this.#isCurrent(record)) this.persist(record);
        }, STATUS_RETRY_MS);
        retry.unref();
      }
    });
  }

  /** Writes the status and waits for it. */
  async persistNow(record: PodRecord): Promise<void> {
    this.persist(record);
    await record.writes;
  }

  /** Resolves when every status write queued so far for `records` is on disk. */
  async flush(records: Iterable<PodRecord>): Promise<void> {
    await Promise.all([...records].map((r) => r.writes));
  }

  /**
   * Tries each write that still fails once more, logs what stays unwritten (the operator must know
   * what the next start will and will not find), and stops retrying. `journalled`: the runtime keeps
   * the final-status journal, where a finished pod's end is already recorded.
   */
  async close(records: Iterable<PodRecord>, journalled: boolean): Promise<void> {
    for (const record of records) {
      if (!record.writeFailing) continue;
      await this.persistNow(record);
      if (!record.writeFailing) continue;
      const kept =
        record.final && journalled
          ? `its end (${record.phase}${record.reason !== undefined ? `, ${record.reason}` : ""}) is kept in the final-status journal, so the next start will not run it again`
          : record.final
            ? "without a journal, the next start may run it again"
            : "its container states since the last good write are lost; the next start adopts its processes";
      this.#logger.error(
        { pod: record.pod.key, file: record.paths.statusFile },
        `stopping with the pod's status file not written: ${kept}`,
      );
    }
    this.#closed = true;
  }
}
