/**
 * The decision log: one JSON record per line, appended by `evictd run` (`<stateDir>/decisions.jsonl`)
 * and `evictd watch --decision-log FILE`, so that every line parses whatever happened to the disk or
 * the process:
 *
 * - an append is whole or not there: after a failed write (ENOSPC part-way) the file is truncated
 *   back to its length before the append (truncating frees space, it never needs any); should even
 *   that fail, the torn bytes are cut before anything else is appended, or on the next open;
 * - on open, a torn tail (no final newline: a process killed mid-write, a disk that filled) and
 *   any last line that does not parse are cut off, with a warning naming the file and the bytes;
 * - before an append would take the file past `maxBytes`, it is rotated: `FILE.{n-2}` → `FILE.{n-1}`
 *   … `FILE` → `FILE.1` (each rename replacing its target, so the oldest goes), then the record
 *   starts the new file. Renames move whole files: no record is split at a rotation, and one that
 *   cannot be rotated is still appended. Numbered names keep the order obvious
 *   (`cat FILE.4 … FILE.1 FILE` is the history, oldest first) and every file stays plain JSON lines
 *   that jq and `evictd` tools read as they are. The size is read from the file at every append,
 *   so a restarted daemon rotates where the previous one left off.
 *
 * So the log takes at most `maxFiles × maxBytes` on its filesystem (one record larger than
 * `maxBytes` is kept whole, alone in its file). Appends are synchronous on the main thread, one
 * small write per synchronize, as before; the eviction loop runs on its own thread.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { LoggerPort } from "../app/ports.js";
import { DEFAULT_DECISION_LOG_BOUNDS, type DecisionLogBounds } from "../core/node/decision-log-bounds.js";
import { AdapterError, errnoCode } from "../errors.js";

export interface DecisionLogOptions {
  readonly file: string;
  readonly log: LoggerPort;
  /** Where to rotate and how many files to keep (default 10 MiB, 5 files). */
  readonly bounds?: DecisionLogBounds;
  /**
   * The operator named the file (`watch --decision-log`): one that cannot be opened is an error at
   * once (exit 3), and a file none of whose last lines is a record is refused, not cut. Otherwise
   * (the daemon's own file in its state directory) a problem at open is a warning, appends retry,
   * and whatever does not parse at the end is cut.
   */
  readonly namedByOperator?: boolean;
}

/** How much of the file is read at a time when looking backwards for a line's start. */
const SCAN_CHUNK = 64 * 1024;

export class DecisionLog {
  readonly file: string;
  readonly #log: LoggerPort;
  readonly #bounds: DecisionLogBounds;
  /** A failed append's torn bytes could not be cut: the file is cut to this length before anything else. */
  #cutTo: number | undefined;
  /** Records not written since the last failure was reported. */
  #lost = 0;
  /** Rotation failed and was reported; appends go on to the live file. */
  #rotationFailing = false;

  private constructor(options: DecisionLogOptions) {
    this.file = options.file;
    this.#log = options.log;
    this.#bounds = options.bounds ?? DEFAULT_DECISION_LOG_BOUNDS;
  }

  /** Opens (creating) the log, cuts a torn tail and removes rotated files beyond the bound. */
  static open(options: DecisionLogOptions): DecisionLog {
    const decisionLog = new DecisionLog(options);
    decisionLog.#repair(options.namedByOperator === true);
    decisionLog.#removeExcessFiles();
    return decisionLog;
  }

  /** Appends one record as a line (rotating first when it would not fit); never throws. */
  append(record: unknown): void {
    const line = Buffer.from(JSON.stringify(record) + "\n", "utf8");
    if (this.#cutTo !== undefined) {
      try {
        truncateSync(this.file, this.#cutTo);
        this.#cutTo = undefined;
      } catch (e) {
        this.#failed(e);
        return;
      }
    }
    let fd: number | undefined;
    let before: number | undefined;
    try {
      fd = openSync(this.file, "a", 0o644);
      let size = fstatSync(fd).size;
      if (size > 0 && size + line.length > this.#bounds.maxBytes && this.#rotate(size)) {
        closeSync(fd);
        fd = undefined;
        fd = openSync(this.file, "a", 0o644);
        size = fstatSync(fd).size;
      }
      before = size;
      writeAll(fd, line);
      if (this.#lost > 0) {
        this.#log.info({ file: this.file, lost: this.#lost }, "appending to the decision log again");
        this.#lost = 0;
      }
    } catch (e) {
      if (fd !== undefined && before !== undefined) {
        try {
          ftruncateSync(fd, before);
        } catch {
          this.#cutTo = before;
        }
      }
      this.#failed(e);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  #failed(e: unknown): void {
    if (this.#lost === 0)
      this.#log.warn(
        {
          err: String(e),
          file: this.file,
          ...(this.#cutTo !== undefined ? { tornAfterBytes: this.#cutTo } : {}),
        },
        "cannot append to the decision log; the record is dropped and nothing torn is left",
      );
    this.#lost++;
  }

  /** Shifts the rotated files and moves the live one to `.1`; false (reported once) when it could not. */
  #rotate(size: number): boolean {
    const { maxFiles } = this.#bounds;
    try {
      for (let i = maxFiles - 1; i >= 2; i--) renameIfPresent(`${this.file}.${i - 1}`, `${this.file}.${i}`);
      renameSync(this.file, `${this.file}.1`);
    } catch (e) {
      if (!this.#rotationFailing)
        this.#log.warn(
          { err: String(e), file: this.file, bytes: size },
          "cannot rotate the decision log; appending to it as it is",
        );
      this.#rotationFailing = true;
      return false;
    }
    this.#rotationFailing = false;
    this.#log.info({ file: this.file, bytes: size, keep: maxFiles }, "rotated the decision log");
    return true;
  }

  /** Cuts off what a crash or a full disk left at the end: a line without its newline, lines that do not parse. */
  #repair(named: boolean): void {
    let fd: number;
    try {
      // A file the operator named is created now, to refuse an unusable path at start; the daemon's
      // own is created by its first record (a start refused before any leaves nothing behind).
      fd = openSync(this.file, named ? constants.O_RDWR | constants.O_CREAT : constants.O_RDWR, 0o644);
    } catch (e) {
      if (!named && errnoCode(e) === "ENOENT") return;
      if (named)
        throw new AdapterError(
          "decision-log",
          `cannot open the decision log ${this.file}: ${errnoCode(e) ?? String(e)}`,
          {
            cause: e,
            hint: "name a writable file in an existing directory with --decision-log",
          },
        );
      this.#log.warn({ err: String(e), file: this.file }, "cannot open the decision log; appends will retry");
      return;
    }
    try {
      const size = fstatSync(fd).size;
      // A file the operator named may be anything: one damaged last line is cut, more is refused.
      const end = wholeRecordsEnd(fd, size, named ? 1 : Infinity);
      if (end === undefined)
        throw new AdapterError(
          "decision-log",
          `${this.file} is not a decision log: its last lines are not JSON records`,
          {
            hint: "name a new file (or an earlier decision log) with --decision-log; this one is left as it is",
          },
        );
      if (end === size) return;
      try {
        ftruncateSync(fd, end);
        this.#log.warn(
          { file: this.file, cutBytes: size - end, keptBytes: end },
          `cut ${size - end} bytes of torn or unreadable records off the end of the decision log ${this.file}`,
        );
      } catch (e) {
        this.#cutTo = end;
        this.#log.warn(
          { err: String(e), file: this.file, tornBytes: size - end },
          "the decision log ends in a torn record that cannot be cut now; it is cut before the next append",
        );
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Rotated files beyond the bound (left by a larger `maxFiles` before): removed, so the bound holds. */
  #removeExcessFiles(): void {
    const base = basename(this.file);
    let names: string[];
    try {
      names = readdirSync(dirname(this.file));
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(`${base}.`)) continue;
      const suffix = name.slice(base.length + 1);
      if (!/^[1-9][0-9]*$/.test(suffix) || Number(suffix) < this.#bounds.maxFiles) continue;
      try {
        unlinkSync(join(dirname(this.file), name));
        this.#log.info(
          { file: name, keep: this.#bounds.maxFiles },
          "removed a rotated decision log beyond the bound",
        );
      } catch (e) {
        this.#log.warn(
          { err: String(e), file: name },
          "cannot remove a rotated decision log beyond the bound",
        );
      }
    }
  }
}

/** write(2) until every byte is written: a short write (the disk filling) is followed by the error. */
function writeAll(fd: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

function renameIfPresent(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (e) {
    if (errnoCode(e) !== "ENOENT") throw e;
  }
}

/**
 * The length of the file's whole records: up to its last newline, less every last line that does
 * not parse as a JSON object (a torn record's newline is its last byte, so a record cut short has
 * none; a line that ends but does not parse is damage of another kind, and is cut as well).
 * Undefined when more than `maxBadLines` whole lines would go.
 */
export function wholeRecordsEnd(fd: number, size: number, maxBadLines = Infinity): number | undefined {
  const scan = new BackwardScanner(fd);
  let end = scan.lastNewlineBefore(size) + 1;
  let bad = 0;
  while (end > 0) {
    const start = scan.lastNewlineBefore(end - 1) + 1;
    if (isRecord(readRange(fd, start, end - 1))) break;
    if (++bad > maxBadLines) return undefined;
    end = start;
  }
  return end;
}

function isRecord(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Finds newlines from the end of a file towards its start, reading each chunk once. */
class BackwardScanner {
  readonly #fd: number;
  readonly #chunk = Buffer.allocUnsafe(SCAN_CHUNK);
  /** The file's bytes [#start, #end) are in #chunk. */
  #start = 0;
  #end = 0;

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The offset of the last newline before `limit`, or −1. */
  lastNewlineBefore(limit: number): number {
    let end = limit;
    while (end > 0) {
      if (end <= this.#start || end > this.#end) {
        this.#start = Math.max(0, end - SCAN_CHUNK);
        this.#end = this.#start + readSync(this.#fd, this.#chunk, 0, end - this.#start, this.#start);
        if (this.#end < end) end = this.#end; // the file shrank meanwhile
      }
      const at = this.#chunk.subarray(0, end - this.#start).lastIndexOf(0x0a);
      if (at >= 0) return this.#start + at;
      end = this.#start;
    }
    return -1;
  }
}

function readRange(fd: number, start: number, end: number): string {
  const buffer = Buffer.allocUnsafe(end - start);
  let offset = 0;
  while (offset < buffer.length) {
    const n = readSync(fd, buffer, offset, buffer.length - offset, start + offset);
    if (n === 0) break;
    offset += n;
  }
  return buffer.subarray(0, offset).toString("utf8");
}
