/**
 * Waits on raw file descriptors without blocking the event loop. Eventfds are read by the calling
 * thread's own event loop where the runtime allows it (eventfd-on-event-loop.ts says why); every
 * other fd (a PSI trigger waits for POLLPRI, which a pipe handle does not) shares one poll(2) run on
 * the libuv thread pool, its result delivered back to the thread that asked.
 */
import koffi from "koffi";
import { AdapterError } from "../../errors.js";
import {
  eventfdReaderAvailable,
  readEventfdOnEventLoop,
  type EventfdReader,
} from "./eventfd-on-event-loop.js";
import {
  closeFd,
  createEventfd,
  drainEventfd,
  ERRNO,
  LIBC_PROTOTYPES,
  POLL,
  signalEventfd,
  syscallError,
} from "./eventfd.js";

// Why one poll(2) on the pool, and not a read per source or a thread of our own:
// - A pending read pins one of the pool's 4 threads for as long as its source is armed; upstream
//   arms one notifier per memory threshold (up to 4), which would starve every fs call of the
//   process. One poll(2) over all descriptors pins one thread, however many sources there are.
// - A worker thread of its own (how this was done before) costs a V8 isolate (megabytes resident),
//   and its messages land on the event loop no sooner than a pool completion does (see
//   docs/benchmarks.md, "Figures behind design choices").
// - The poll has a timeout (POLL_TIMEOUT_MS), so a thread that must end (a worker being torn down,
//   the process exiting) never waits on it for more than that, even if nobody signals it; the
//   control eventfd makes it return at once whenever the watch set changes or the poller stops.
const POLL_TIMEOUT_MS = 1000;

/** What to watch and whom to tell. */
export interface FdWatch {
  readonly fd: number;
  /** {@link POLL} bits to wait for (POLLIN for an eventfd, POLLPRI for a PSI trigger). */
  readonly events: number;
  /** Read and reset 8 bytes after each readiness: true for eventfds, false for PSI files. */
  readonly drain: boolean;
  /** Called on the event loop each time the fd is ready. */
  readonly onReady: (revents: number, count: bigint) => void;
  /** Called once if the fd reports an error condition or polling fails; the watch is then gone. */
  readonly onFailure: (error: AdapterError) => void;
}

interface Entry {
  readonly id: number;
  readonly watch: FdWatch;
  /** Set when unwatch was requested: later readiness is dropped, so nothing fires after unwatch(). */
  releasing: boolean;
  readonly released: Promise<void>;
  readonly resolveReleased: () => void;
}

type PollAsync = (
  set: Uint8Array,
  n: number,
  timeoutMs: number,
  callback: (error: unknown, result: number) => void,
) => void;
type ReadSync = (fd: number, buf: Uint8Array, n: number) => number;

let bound: { readonly poll: PollAsync; readonly read: ReadSync } | undefined;

function libc(): { readonly poll: PollAsync; readonly read: ReadSync } {
  if (bound !== undefined) return bound;
  const lib = koffi.load("libc.so.6");
  const poll = lib.func(LIBC_PROTOTYPES.poll) as unknown as { async: PollAsync };
  bound = {
    poll: (set, n, timeoutMs, callback) => poll.async(set, n, timeoutMs, callback),
    read: lib.func(LIBC_PROTOTYPES.read) as ReadSync,
  };
  return bound;
}

/** How a poller waits on eventfds (its other fds always share the poll(2) on the pool). */
export interface FdPollerOptions {
  /**
   * `event-loop` (the default where the runtime allows it): each eventfd read by this thread's event
   * loop; `thread-pool`: eventfds in the shared poll(2) too.
   */
  readonly eventfds?: "event-loop" | "thread-pool";
}

/**
 * Multiplexes fd watches onto one poll(2) at a time, started on the first watch and not re-armed
 * once the last watch is released, so an idle poller holds no pool thread and a stopped source
 * leaves no fd behind; eventfds go to the event loop instead (see {@link FdPollerOptions}).
 * Readiness is delivered on the thread that created the poller.
 */
export class FdPoller {
  readonly #entries = new Map<number, Entry>();
  /** Eventfds read by the event loop, by watch id. */
  readonly #readers = new Map<number, EventfdReader>();
  /** Closes of event-loop reads not finished yet (what {@link idle} waits for besides the poll). */
  readonly #closing = new Set<Promise<void>>();
  readonly #eventfdsOnEventLoop: boolean;
  #nextId = 1;
  #controlFd: number | undefined;
  /** The watches the poll in flight covers (undefined: none in flight). */
  #inFlight: readonly Entry[] | undefined;
  /** Resolves when the poll in flight returns. */
  #pollDone: Promise<void> = Promise.resolve();
  /** True while a result is being handled: a watch or unwatch from a callback must not arm a second poll. */
  #handling = false;

  constructor(options: FdPollerOptions = {}) {
    this.#eventfdsOnEventLoop =
      (options.eventfds ?? "event-loop") === "event-loop" && eventfdReaderAvailable();
  }

  /** Where eventfd watches are read (the other fds share the poll(2) on the pool). */
  get eventfdRoute(): "event-loop" | "thread-pool" {
    return this.#eventfdsOnEventLoop ? "event-loop" : "thread-pool";
  }

  /** Starts watching; returns an id for {@link unwatch}. Readiness is delivered asynchronously. */
  watch(watch: FdWatch): number {
    const id = this.#nextId++;
    if (this.#eventfdsOnEventLoop && watch.drain && watch.events === POLL.in) {
      this.#readOnEventLoop(id, watch);
      return id;
    }
    let resolveReleased = (): void => {};
    const released = new Promise<void>((resolve) => (resolveReleased = resolve));
    this.#entries.set(id, { id, watch, releasing: false, released, resolveReleased });
    this.#changed();
    return id;
  }

  /**
   * Stops watching `id`. Resolves once no poll(2) holds the fd any more (only then may the caller
   * close it: a closed number can be reused by the next open). No readiness is delivered for `id`
   * after this call.
   */
  async unwatch(id: number): Promise<void> {
    const reader = this.#readers.get(id);
    if (reader !== undefined) {
      this.#readers.delete(id);
      await this.#close(reader);
      return;
    }
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    entry.releasing = true;
    this.#entries.delete(id);
    if (this.#inFlight?.includes(entry) === true) this.#changed();
    else entry.resolveReleased();
    await entry.released;
  }

  /** Number of fds currently watched (for tests and status pages). */
  get size(): number {
    return this.#entries.size + this.#readers.size;
  }

  /** An eventfd watch read by the event loop; a descriptor it cannot take fails as a poll would report it. */
  #readOnEventLoop(id: number, watch: FdWatch): void {
    try {
      const reader = readEventfdOnEventLoop(
        watch.fd,
        (count) => {
          if (this.#readers.has(id)) watch.onReady(POLL.in, count);
        },
        (error) => {
          if (this.#readers.delete(id)) watch.onFailure(error);
        },
      );
      this.#readers.set(id, reader);
    } catch (error) {
      const failure =
        error instanceof AdapterError
          ? error
          : new AdapterError("fd-poll-error", `fd ${watch.fd} cannot be watched`, { cause: error });
      // Asynchronously, as readiness and failures always are.
      setImmediate(() => watch.onFailure(failure));
    }
  }

  #close(reader: EventfdReader): Promise<void> {
    const closing = reader.close();
    this.#closing.add(closing);
    return closing.finally(() => this.#closing.delete(closing));
  }

  /** The watch set changed: interrupt the poll in flight (it re-arms with the new set), or arm one. */
  #changed(): void {
    if (this.#handling) return; // the handler arms the next poll with the current set
    if (this.#inFlight !== undefined) {
      if (this.#controlFd !== undefined) signalEventfd(this.#controlFd);
      return;
    }
    this.#arm();
  }

  #arm(): void {
    const entries = [...this.#entries.values()];
    if (entries.length === 0) {
      // Nothing to wait for: release the control fd too, so an idle poller holds nothing.
      if (this.#controlFd !== undefined) closeFd(this.#controlFd);
      this.#controlFd = undefined;
      return;
    }
    let controlFd: number;
    let poll: PollAsync;
    try {
      controlFd = this.#controlFd ??= createEventfd();
      poll = libc().poll;
    } catch (error) {
      this.#failAll(
        error instanceof AdapterError
          ? error
          : new AdapterError("poll-failed", "cannot set up poll(2)", { cause: error }),
      );
      return;
    }
    // struct pollfd { int fd; short events; short revents; }: 8 bytes; slot 0 is the control eventfd.
    const set = Buffer.alloc(8 * (entries.length + 1));
    set.writeInt32LE(controlFd, 0);
    set.writeInt16LE(POLL.in, 4);
    entries.forEach((e, i) => {
      set.writeInt32LE(e.watch.fd, 8 * (i + 1));
      set.writeInt16LE(e.watch.events, 8 * (i + 1) + 4);
    });
    this.#inFlight = entries;
    let settle = (): void => {};
    this.#pollDone = new Promise<void>((resolve) => (settle = resolve));
    poll(set, entries.length + 1, POLL_TIMEOUT_MS, (error, result) => {
      this.#inFlight = undefined;
      // Whatever happens next, every fd released meanwhile is out of poll(2) now.
      for (const e of entries) if (e.releasing) e.resolveReleased();
      this.#handling = true;
      try {
        this.#onPollReturned(set, entries, error, result);
      } finally {
        this.#handling = false;
      }
      this.#arm();
      settle();
    });
  }

  /** Handles one poll(2) result: readiness and failures delivered (the caller arms the next poll). */
  #onPollReturned(set: Buffer, entries: readonly Entry[], error: unknown, result: number): void {
    if (error !== undefined && error !== null) {
      this.#failAll(new AdapterError("poll-failed", "poll(2) could not run", { cause: error }));
      return;
    }
    if (result < 0) {
      const errno = koffi.errno();
      if (errno !== ERRNO.EINTR) {
        this.#failAll(
          new AdapterError("poll-failed", "poll(2) failed", { cause: syscallError("poll", errno) }),
        );
        return;
      }
    }
    const failure = POLL.err | POLL.hup | POLL.nval;
    const counter = Buffer.alloc(8);
    if (result > 0) {
      if (set.readUInt16LE(6) !== 0 && this.#controlFd !== undefined) drainEventfd(this.#controlFd);
      entries.forEach((entry, i) => {
        const revents = set.readUInt16LE(8 * (i + 1) + 6);
        if (revents === 0 || entry.releasing) return;
        if ((revents & failure) !== 0) {
          this.#entries.delete(entry.id);
          entry.resolveReleased();
          entry.watch.onFailure(
            new AdapterError(
              "fd-poll-error",
              `fd ${entry.watch.fd} reported poll error (revents 0x${revents.toString(16)})`,
              { hint: "the watched file was closed, or the kernel object behind it went away" },
            ),
          );
          return;
        }
        // Reading resets an eventfd counter; without it poll would return at once forever.
        const count =
          entry.watch.drain && libc().read(entry.watch.fd, counter, 8) === 8 ? counter.readBigUInt64LE() : 0n;
        entry.watch.onReady(revents, count);
      });
    }
  }

  #failAll(error: AdapterError): void {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) {
      entry.resolveReleased();
      if (!entry.releasing) entry.watch.onFailure(error);
    }
    if (this.#controlFd !== undefined) {
      try {
        closeFd(this.#controlFd);
      } catch {
        // Only EBADF is possible, i.e. someone else closed our fd; there is nothing left to release.
      }
      this.#controlFd = undefined;
    }
  }

  /**
   * Resolves when no poll(2) is in flight any more (after the last unwatch, at most the poll
   * timeout) and every event-loop read unwatched has let go of its descriptor.
   */
  async idle(): Promise<void> {
    while (this.#inFlight !== undefined) await this.#pollDone;
    await Promise.all(this.#closing);
  }
}

let shared: FdPoller | undefined;

/** The poller the wake sources of this thread use unless given one: one poll(2) for all of them. */
export function sharedFdPoller(): FdPoller {
  return (shared ??= new FdPoller());
}
