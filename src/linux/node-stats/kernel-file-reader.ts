/**
 * Reads kernel interface files (cgroupfs, procfs) through descriptors kept open between reads.
 *
 * `readFileSync` costs four system calls per file (open, fstat, read, close); for a 110-pod node the
 * stats of one loop step are some 700 such files, which made the reads alone several times the few
 * milliseconds a wake-to-kill path should take (docs/benchmarks.md, "Figures behind design
 * choices"). A kept-open descriptor read with `pread` at offset 0 makes the kernel generate the
 * file afresh (interface files have no content of their own: every read at 0 is a new sample), in
 * one system call. A descriptor whose cgroup was removed reads ENODEV; it is closed and the path
 * opened again once, so a cgroup removed and made again (a restarted pod) is read fresh, and one
 * that is gone reports `cgroup-not-found` as a plain read would.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { AdapterError, errnoCode } from "../../errors.js";

/** Errors that mean "this file's cgroup or process is gone", not "the read failed". */
const GONE = new Set(["ENOENT", "ENODEV", "ESRCH"]);

/** Interface files are small (v1 memory.stat ~1.5 KiB); the buffer grows if one is not. */
const INITIAL_BUFFER_BYTES = 16 * 1024;

export class KernelFileReader {
  readonly #fds = new Map<string, number>();
  /** Paths read since the last {@link sweep}: the others belong to pods that left. */
  readonly #used = new Set<string>();
  #buffer = Buffer.allocUnsafe(INITIAL_BUFFER_BYTES);

  /** The file's current content; throws `AdapterError` `cgroup-not-found` when it is gone, `cgroup-io` otherwise. */
  read(path: string): string {
    this.#used.add(path);
    const cached = this.#fds.get(path);
    if (cached !== undefined) {
      try {
        return this.#readAt(cached);
      } catch (error) {
        this.#drop(path);
        if (!GONE.has(errnoCode(error) ?? "")) throw failure(path, error);
        // The cgroup behind the descriptor was removed: it may have been made again.
      }
    }
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      throw failure(path, error);
    }
    this.#fds.set(path, fd);
    try {
      return this.#readAt(fd);
    } catch (error) {
      this.#drop(path);
      throw failure(path, error);
    }
  }

  /** Closes the descriptors of files not read since the last sweep (pods that left, cgroups removed). */
  sweep(): void {
    for (const path of [...this.#fds.keys()]) if (!this.#used.has(path)) this.#drop(path);
    this.#used.clear();
  }

  /** Closes every descriptor. */
  close(): void {
    for (const path of [...this.#fds.keys()]) this.#drop(path);
    this.#used.clear();
  }

  /** How many descriptors are open (for tests and /status). */
  get openFiles(): number {
    return this.#fds.size;
  }

  #readAt(fd: number): string {
    for (;;) {
      const n = readSync(fd, this.#buffer, 0, this.#buffer.length, 0);
      if (n < this.#buffer.length) return this.#buffer.toString("utf8", 0, n);
      this.#buffer = Buffer.allocUnsafe(this.#buffer.length * 2);
    }
  }

  #drop(path: string): void {
    const fd = this.#fds.get(path);
    this.#fds.delete(path);
    if (fd === undefined) return;
    try {
      closeSync(fd);
    } catch {
      // Closing a descriptor of a removed cgroup cannot fail in a way that matters here.
    }
  }
}

/** The error a plain read would have thrown: the same codes, so callers tell "gone" from "broken". */
function failure(path: string, error: unknown): AdapterError {
  const errno = errnoCode(error);
  const code = GONE.has(errno ?? "") ? "cgroup-not-found" : "cgroup-io";
  return new AdapterError(code, `cannot read ${path}: ${errno ?? String(error)}`, { cause: error });
}
