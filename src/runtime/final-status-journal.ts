/**
 * The final-status journal, `<stateDir>/final-status.journal`: the one record that must survive
 * anything, that a pod has ended (evicted, rejected, completed) or was deleted, written where a full
 * filesystem cannot refuse it. A pod's status file is rewritten atomically (temp file, rename), and
 * that needs free blocks; when the state filesystem is full, an evicted pod's file would still say
 * Running and a restarted daemon would start the pod again. So the journal's space is reserved up
 * front, as databases reserve their write-ahead log: the file is written out in full when the daemon
 * starts (zeros, synced), and each record then overwrites a fixed-size slot in place, which on
 * tmpfs, ext4 and xfs allocates nothing. (Copy-on-write filesystems, btrfs and zfs, allocate on every
 * overwrite: {@link JournalReservation.copyOnWrite} says so, and the daemon lists it.)
 *
 * A slot holds `EVJ1`, the payload's length, its SHA-256, and the payload (JSON), so a slot torn by
 * a crash, or never written, reads as empty. Slots are used in turn, the sequence numbers going on
 * from the highest found at start; the latest record of a UID is what holds. The writer is a plain
 * synchronous write into the page cache, which a process killed the next instant cannot undo (the
 * data sync follows in the background, for power loss). The daemon's loop thread writes an
 * eviction's record before it sends SIGTERM; both threads share the slot counter
 * ({@link JournalShare}).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  rmSync,
  statfsSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { AdapterError, errnoCode } from "../errors.js";
import type { PodCondition } from "./pod-status-file.js";
import type { PodPhase } from "./pod-phase.js";

/** The journal's file name in the state directory. */
export const JOURNAL_FILE = "final-status.journal";
/** Bytes per record. */
export const SLOT_BYTES = 512;
/**
 * Records kept. A pod's record is needed until its status file says the same, which takes one
 * good write: on a filesystem that stays full, one record per pod a node runs (the kubelet's
 * default maxPods is 110), so more pods than this ending while no status can be written is what
 * the journal cannot hold (the oldest record goes first).
 */
export const SLOTS = 128;
/** Bytes of the payload's SHA-256 kept: a check against torn and foreign slots, not a signature. */
const HASH_BYTES = 16;
const MAGIC = Buffer.from("EVJ1", "latin1");
const HEADER_BYTES = 4 + 4 + HASH_BYTES;
const PAYLOAD_BYTES = SLOT_BYTES - HEADER_BYTES;
/** statfs f_type of the copy-on-write filesystems, where an overwrite needs new blocks. */
const COPY_ON_WRITE = new Map<number, string>([
  [0x9123683e, "btrfs"],
  [0x2fc12fc1, "zfs"],
]);

/** How a pod ended, as its status file would say it. */
export interface FinalStatus {
  readonly phase: PodPhase;
  readonly reason?: string;
  readonly message?: string;
  readonly conditions: readonly PodCondition[];
  /** Phase, reason and message were given (eviction, rejection), not derived from the containers. */
  readonly statusFixed: boolean;
}

/** One record: a pod ended (`final`) or was deleted (`forgotten`: a later pod may reuse the UID). */
export type JournalRecord =
  | {
      readonly seq: number;
      readonly kind: "final";
      readonly uid: string;
      readonly pod: string;
      readonly at: number;
      readonly status: FinalStatus;
    }
  | { readonly seq: number; readonly kind: "forgotten"; readonly uid: string; readonly at: number };

/** What a thread needs to write to the journal: the file and the slot counter both threads share. */
export interface JournalShare {
  readonly file: string;
  /** One Int32: the next sequence number (Atomics), in a SharedArrayBuffer. */
  readonly next: SharedArrayBuffer;
}

/** What opening the journal found and reserved. */
export interface JournalReservation {
  readonly file: string;
  /** Whether this start created the file (to be removed again if the start fails). */
  readonly created: boolean;
  /** The latest record of each UID, in sequence order. */
  readonly latest: ReadonlyMap<string, JournalRecord>;
  /** Slots that held something unreadable (torn or foreign), reported once at start. */
  readonly unreadable: number;
  /** The state filesystem copies on write (btrfs, zfs): reserved space does not guarantee an overwrite. */
  readonly copyOnWrite: string | undefined;
  readonly share: JournalShare;
}

function encodeSlot(record: JournalRecord): Buffer {
  let payload = Buffer.from(JSON.stringify(record), "utf8");
  if (payload.length > PAYLOAD_BYTES && record.kind === "final") {
    // Long eviction messages (many containers) are cut: the status file carries them whole.
    const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n)}…`);
    const short: JournalRecord = {
      ...record,
      pod: cut(record.pod, 80),
      status: {
        ...record.status,
        ...(record.status.message !== undefined ? { message: cut(record.status.message, 100) } : {}),
        conditions: record.status.conditions.map((c) => ({
          ...c,
          ...(c.message !== undefined ? { message: cut(c.message, 24) } : {}),
        })),
      },
    };
    payload = Buffer.from(JSON.stringify(short), "utf8");
  }
  if (payload.length > PAYLOAD_BYTES)
    throw new AdapterError(
      "journal-record-too-large",
      `a journal record of ${payload.length} bytes does not fit`,
    );
  const slot = Buffer.alloc(SLOT_BYTES);
  MAGIC.copy(slot, 0);
  slot.writeUInt32LE(payload.length, 4);
  createHash("sha256").update(payload).digest().copy(slot, 8, 0, HASH_BYTES);
  payload.copy(slot, HEADER_BYTES);
  return slot;
}

/** The record in one slot; undefined for an empty slot, `"unreadable"` for a torn or foreign one. */
export function decodeSlot(slot: Buffer): JournalRecord | undefined | "unreadable" {
  if (slot.every((b) => b === 0)) return undefined;
  if (!slot.subarray(0, 4).equals(MAGIC)) return "unreadable";
  const length = slot.readUInt32LE(4);
  if (length > PAYLOAD_BYTES) return "unreadable";
  const payload = slot.subarray(HEADER_BYTES, HEADER_BYTES + length);
  if (
    !createHash("sha256")
      .update(payload)
      .digest()
      .subarray(0, HASH_BYTES)
      .equals(slot.subarray(8, HEADER_BYTES))
  )
    return "unreadable";
  try {
    const value = JSON.parse(payload.toString("utf8")) as Partial<JournalRecord>;
    if (typeof value.seq !== "number" || typeof value.uid !== "string") return "unreadable";
    if (value.kind !== "final" && value.kind !== "forgotten") return "unreadable";
    return value as JournalRecord;
  } catch {
    return "unreadable";
  }
}

function stateDirError(file: string, error: unknown, what: string): AdapterError {
  const code = errnoCode(error) ?? String(error);
  return new AdapterError("state-dir", `cannot ${what} ${file}: ${code}`, {
    cause: error,
    hint:
      code === "ENOSPC" || code === "EDQUOT"
        ? `the state filesystem needs ${(SLOTS * SLOT_BYTES) / 1024} KiB free for the journal once: free space, or set stateDir to another filesystem`
        : "check that stateDir is a writable local directory",
  });
}

/**
 * Opens (creating when missing) the journal in `stateDir`, reserves its full size, and reads every
 * record. Throws AdapterError `state-dir` (exit 3) when the space cannot be reserved; a journal file
 * this call created is removed again then.
 */
export function openFinalStatusJournal(stateDir: string): JournalReservation {
  const file = join(stateDir, JOURNAL_FILE);
  let fd: number;
  let created = false;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    created = true;
  } catch (error) {
    if (errnoCode(error) !== "EEXIST") throw stateDirError(file, error, "create the journal");
    try {
      fd = openSync(file, constants.O_RDWR);
    } catch (again) {
      throw stateDirError(file, again, "open the journal");
    }
  }
  try {
    const size = SLOTS * SLOT_BYTES;
    const image = Buffer.alloc(size);
    const have = Math.min(fstatSync(fd).size, size);
    let got = 0;
    while (got < have) {
      const n = readSync(fd, image, got, have - got, got);
      if (n === 0) break;
      got += n;
    }
    if (fstatSync(fd).size < size) {
      // The reservation: every byte written once, so that later overwrites allocate nothing.
      let at = got;
      while (at < size) at += writeSync(fd, image, at, size - at, at);
      fsyncSync(fd);
    }
    const latest = new Map<string, JournalRecord>();
    let unreadable = 0;
    let top = -1;
    for (let i = 0; i < SLOTS; i++) {
      const record = decodeSlot(image.subarray(i * SLOT_BYTES, (i + 1) * SLOT_BYTES));
      if (record === undefined) continue;
      if (record === "unreadable") {
        unreadable++;
        continue;
      }
      top = Math.max(top, record.seq);
      const known = latest.get(record.uid);
      if (known === undefined || known.seq < record.seq) latest.set(record.uid, record);
    }
    const next = new SharedArrayBuffer(4);
    Atomics.store(new Int32Array(next), 0, top + 1);
    return {
      file,
      created,
      latest: new Map([...latest.entries()].sort((a, b) => a[1].seq - b[1].seq)),
      unreadable,
      copyOnWrite: copyOnWriteFilesystem(stateDir),
      share: { file, next },
    };
  } catch (error) {
    if (created) rmSync(file, { force: true });
    throw error instanceof AdapterError ? error : stateDirError(file, error, "reserve the journal");
  } finally {
    closeSync(fd);
  }
}

function copyOnWriteFilesystem(dir: string): string | undefined {
  try {
    return COPY_ON_WRITE.get(statfsSync(dir).type);
  } catch {
    return undefined;
  }
}

/** Writes records into the reserved slots; one per thread, over a shared {@link JournalShare}. */
export class FinalStatusJournal {
  readonly #fd: number;
  readonly #next: Int32Array;
  #syncing = false;
  #syncAgain = false;
  #closed = false;

  constructor(share: JournalShare) {
    this.#fd = openSync(share.file, constants.O_RDWR);
    this.#next = new Int32Array(share.next);
  }

  /**
   * The pod ended with `status`. Synchronous: on return, no crash of this process can lose it.
   * Returns the error when the write failed (an I/O error; never a full filesystem, but on the
   * copy-on-write ones): the caller goes on (an eviction is never held back) and says so.
   */
  recordFinal(uid: string, pod: string, status: FinalStatus, at: number): Error | undefined {
    return this.#write((seq) => ({ seq, kind: "final", uid, pod, at, status }));
  }

  /** The pod was deleted: its UID may come back as a new pod. */
  recordForgotten(uid: string, at: number): Error | undefined {
    return this.#write((seq) => ({ seq, kind: "forgotten", uid, at }));
  }

  #write(make: (seq: number) => JournalRecord): Error | undefined {
    try {
      if (this.#closed) throw new AdapterError("journal-closed", "the final-status journal is closed");
      const seq = Atomics.add(this.#next, 0, 1);
      const slot = encodeSlot(make(seq));
      const offset = (seq % SLOTS) * SLOT_BYTES;
      let done = 0;
      while (done < SLOT_BYTES) done += writeSync(this.#fd, slot, done, SLOT_BYTES - done, offset + done);
      this.#sync();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Data to the disk in the background (a machine that loses power keeps it too); coalesced. */
  #sync(): void {
    if (this.#closed) return;
    if (this.#syncing) {
      this.#syncAgain = true;
      return;
    }
    this.#syncing = true;
    fdatasync(this.#fd, () => {
      this.#syncing = false;
      if (this.#closed) {
        closeSync(this.#fd);
        return;
      }
      if (this.#syncAgain) {
        this.#syncAgain = false;
        this.#sync();
      }
    });
  }

  /** Closes the file once a data sync under way has ended (its descriptor must not be reused meanwhile). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#syncing) closeSync(this.#fd);
  }
}
