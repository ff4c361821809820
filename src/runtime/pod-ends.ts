/**
 * A pod's end, put on record: the final status a caller gives (an eviction, a rejection) set on the
 * pod, and every end and deletion written into the final-status journal (final-status-journal.ts)
 * before anything can undo it, one record per end (the journal's slots are few); with what the
 * journal held at start, so a pod that ended in an earlier run is known as ended.
 */
import type { ClockPort, LoggerPort } from "../app/ports.js";
import type { FinalStatus, FinalStatusJournal, JournalRecord } from "./final-status-journal.js";
import { upsertConditions, type GivenPodStatus, type PodRecord } from "./pod-record.js";
import type { RunnablePod } from "./runnable-pod.js";

export interface PodEndsOptions {
  readonly clock: ClockPort;
  readonly logger: LoggerPort;
  /** The journal and the latest record of each UID it held at start; without it, status files alone are the record. */
  readonly journal?: {
    readonly writer: FinalStatusJournal;
    readonly found: ReadonlyMap<string, JournalRecord>;
  };
}

/** How the pod ended, as its status file says it (what the journal records). */
export function finalStatus(record: PodRecord): FinalStatus {
  return {
    phase: record.phase,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.message !== undefined ? { message: record.message } : {}),
    conditions: record.conditions,
    statusFixed: record.statusFixed,
  };
}

/** The runtime's side of the final-status journal, and the given final statuses it records. */
export class PodEnds {
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  readonly #journal: FinalStatusJournal | undefined;
  /** Pods the journal says ended (or were deleted) before this start, by UID. */
  readonly #found: Map<string, JournalRecord>;
  /** Pods whose end is in the journal already (one record per end: the journal's slots are few). */
  readonly #journalled = new Set<string>();

  constructor(options: PodEndsOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#journal = options.journal?.writer;
    this.#found = new Map(options.journal?.found ?? []);
  }

  /** Whether ends are journalled (so a finished pod's end outlives a status file that cannot be written). */
  get keepsJournal(): boolean {
    return this.#journal !== undefined;
  }

  /** How the pod of `uid` ended, when the journal found at start says it ended in an earlier run. */
  endedBefore(uid: string): FinalStatus | undefined {
    const found = this.#found.get(uid);
    return found?.kind === "final" ? found.status : undefined;
  }

  /** Sets a caller-given final status (eviction, rejection), and journals it unless the pod had one already. */
  fix(record: PodRecord, status: GivenPodStatus): void {
    const wasFinal = record.final && record.statusFixed;
    record.final = true;
    record.statusFixed = true;
    record.phase = status.phase;
    record.reason = status.reason;
    record.message = status.message;
    record.conditions = upsertConditions(record.conditions, status.conditions ?? []);
    if (!wasFinal) this.record(record, finalStatus(record));
  }

  /** Records in the journal that the pod ended; a failed write is logged, never in the way. */
  record(record: PodRecord, status: FinalStatus): void {
    if (this.#journal === undefined || this.#journalled.has(record.pod.uid)) return;
    this.#journalled.add(record.pod.uid);
    const failed = this.#journal?.recordFinal(record.pod.uid, record.pod.key, status, this.#clock.now());
    if (failed !== undefined)
      this.#logger.error(
        { pod: record.pod.key, err: String(failed) },
        "cannot record the pod's end in the final-status journal",
      );
  }

  /** The pod's end was put in the journal by the thread that signalled its kill. */
  recordedElsewhere(uid: string): void {
    this.#journalled.add(uid);
  }

  /** The pod was deleted: its UID may come back as a new pod, which the journal must not end. */
  forgotten(pod: RunnablePod): void {
    this.#found.delete(pod.uid);
    this.#journalled.delete(pod.uid);
    const failed = this.#journal?.recordForgotten(pod.uid, this.#clock.now());
    if (failed !== undefined)
      this.#logger.error(
        { pod: pod.key, err: String(failed) },
        "cannot record the pod's deletion in the final-status journal",
      );
  }
}
