/** Waits on raw file descriptors in one worker thread so kernel notifications never block the event loop. */
import { createRequire } from "node:module";
import { MessageChannel, Worker } from "node:worker_threads";
import { AdapterError } from "../../errors.js";
import {
  closeFd,
  createEventfd,
  ERRNO,
  LIBC_PROTOTYPES,
  POLL,
  signalEventfd,
  syscallError,
} from "./eventfd.js";
import { pollWorkerMain } from "./fd-poll-worker.js";
import type { PollCommand, PollEvent, PollWorkerInit } from "./fd-poll-worker.js";

// Why a dedicated thread rather than fs.read() on the libuv threadpool: a pending read pins one of
// the pool's 4 threads for as long as the source is armed. Upstream arms one notifier per memory
// threshold (hard and soft, node and allocatable: up to 4), so 4 armed sources would starve every
// fs call of the daemon; measured here, with 4 blocked reads `fs.readFile` never completes (koffi's
// `.async` calls run on the same pool, so an async poll(2) has the same flaw). One poll(2) thread
// serves any number of descriptors at about the same latency (median eventfd write → JS callback:
// 0.05–0.11 ms here, vs 0.04 ms for a threadpool read), costs one thread and ~30 ms to start, and is
// interrupted through its own control eventfd instead of a fake event on the watched fd.
//
// Why an eval worker: under a TypeScript loader (tsx) a worker file `.ts` is not loaded on Node 20
// (loader hooks do not reach workers), and dist/ has `.js`; serialising one function works for
// both. It is handed the context's `require` (a bundler would rewrite a bare one into a helper the
// worker does not have); loaders that wrap functions in esbuild's `__name` helper get a no-op shim.
const WORKER_SOURCE = `const __name = (target) => target;\n(${pollWorkerMain.toString()})(require);\n`;

/** What to watch and whom to tell. */
export interface FdWatch {
  readonly fd: number;
  /** {@link POLL} bits to wait for (POLLIN for an eventfd, POLLPRI for a PSI trigger). */
  readonly events: number;
  /** Read and reset 8 bytes after each readiness: true for eventfds, false for PSI files. */
  readonly drain: boolean;
  /** Called on the event loop each time the fd is ready. */
  readonly onReady: (revents: number, count: bigint) => void;
  /** Called once if the fd reports an error condition or the poll thread dies; the watch is then gone. */
  readonly onFailure: (error: AdapterError) => void;
}

interface Entry {
  readonly watch: FdWatch;
  /** Set when unwatch was requested: later readiness is dropped, so nothing fires after stop(). */
  releasing: boolean;
  readonly released: Promise<void>;
  readonly resolveReleased: () => void;
}

/** One poll thread and the watches it serves. */
class PollThread {
  readonly entries = new Map<number, Entry>();
  readonly #worker: Worker;
  readonly #commands: MessageChannel["port1"];
  readonly #controlFd: number;
  readonly #exited: Promise<void>;
  #alive = true;

  constructor() {
    this.#controlFd = createEventfd();
    const channel = new MessageChannel();
    this.#commands = channel.port1;
    const init: PollWorkerInit = {
      koffiPath: createRequire(import.meta.url).resolve("koffi"),
      controlFd: this.#controlFd,
      commands: channel.port2,
      prototypes: LIBC_PROTOTYPES,
      poll: POLL,
      errno: ERRNO,
    };
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: init,
      transferList: [channel.port2],
      // The loop is plain JavaScript: skip the parent's preloads (a TypeScript loader costs ~60 ms and
      // memory), and keep the thread's heap small; it holds a handful of numbers.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
    });
    this.#worker.on("message", (event: PollEvent) => this.#onEvent(event));
    this.#exited = new Promise((resolve) => {
      this.#worker.once("exit", () => {
        this.#alive = false;
        this.#commands.close();
        try {
          closeFd(this.#controlFd);
        } catch {
          // Only EBADF is possible, i.e. someone else closed our fd; there is nothing left to release.
        }
        this.#failAll(new AdapterError("poll-thread-exited", "the fd poll thread ended unexpectedly"));
        resolve();
      });
    });
    this.#worker.on("error", (cause) => {
      this.#failAll(new AdapterError("poll-thread-crashed", "the fd poll thread crashed", { cause }));
    });
  }

  send(command: PollCommand): void {
    // postMessage queues synchronously on the sibling port, so the worker finds the command as
    // soon as the control eventfd wakes it.
    this.#commands.postMessage(command);
    signalEventfd(this.#controlFd);
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Ends the thread (which then closes the control eventfd); resolves when both are gone. */
  close(): Promise<void> {
    if (this.#alive) this.send({ op: "exit" });
    return this.#exited;
  }

  #onEvent(event: PollEvent): void {
    if (event.type === "fatal") {
      this.#failAll(
        new AdapterError("poll-failed", "poll(2) failed in the fd poll thread", {
          cause: syscallError(event.syscall, event.errno),
        }),
      );
      return;
    }
    const entry = this.entries.get(event.id);
    if (entry === undefined) return;
    if (event.type === "unwatched") {
      this.entries.delete(event.id);
      entry.resolveReleased();
    } else if (event.type === "failed") {
      this.entries.delete(event.id);
      entry.resolveReleased();
      if (!entry.releasing) {
        entry.watch.onFailure(
          new AdapterError(
            "fd-poll-error",
            `fd ${entry.watch.fd} reported poll error (revents 0x${event.revents.toString(16)})`,
            {
              hint: "the watched file was closed, or the kernel object behind it went away",
            },
          ),
        );
      }
    } else if (!entry.releasing) {
      entry.watch.onReady(event.revents, event.count);
    }
  }

  #failAll(error: AdapterError): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) {
      entry.resolveReleased();
      if (!entry.releasing) entry.watch.onFailure(error);
    }
  }
}

/**
 * Multiplexes fd watches onto one poll thread, started on the first watch and ended when the last
 * watch is released, so an idle daemon holds no thread and a stopped source leaves no fd behind.
 */
export class FdPoller {
  #thread: PollThread | undefined;
  #nextId = 1;
  readonly #closing = new Set<Promise<void>>();

  /** Starts watching; returns an id for {@link unwatch}. Readiness is delivered asynchronously. */
  watch(watch: FdWatch): number {
    // A thread that died has already failed its watches and released its fds: start a fresh one.
    const thread = this.#thread?.alive === true ? this.#thread : (this.#thread = new PollThread());
    const id = this.#nextId++;
    let resolveReleased = (): void => {};
    const released = new Promise<void>((resolve) => (resolveReleased = resolve));
    thread.entries.set(id, { watch, releasing: false, released, resolveReleased });
    thread.send({ op: "watch", id, fd: watch.fd, events: watch.events, drain: watch.drain });
    return id;
  }

  /**
   * Stops watching `id`. Resolves once the poll thread no longer holds the fd (only then may the
   * caller close it: a closed number can be reused by the next open) and, if it was the last
   * watch, once the thread has ended. No readiness is delivered for `id` after this call.
   */
  async unwatch(id: number): Promise<void> {
    const thread = this.#thread;
    const entry = thread?.entries.get(id);
    if (thread === undefined || entry === undefined) {
      await Promise.all(this.#closing);
      return;
    }
    if (!entry.releasing) {
      entry.releasing = true;
      thread.send({ op: "unwatch", id });
    }
    await entry.released;
    if (thread === this.#thread && thread.entries.size === 0) {
      this.#thread = undefined;
      const closing = thread.close();
      this.#closing.add(closing);
      const forget = (): void => void this.#closing.delete(closing);
      closing.then(forget, forget);
    }
    await Promise.all(this.#closing);
  }

  /** Number of fds currently watched (for tests and status pages). */
  get size(): number {
    return this.#thread?.entries.size ?? 0;
  }
}

let shared: FdPoller | undefined;

/** The process-wide poller the wake sources use unless given one: one poll thread for all of them. */
export function sharedFdPoller(): FdPoller {
  return (shared ??= new FdPoller());
}
