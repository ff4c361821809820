/** The poll thread's body and its message protocol: block in poll(2) on watched fds, post readiness to the main thread. */
import type * as WorkerThreads from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import type * as Koffi from "koffi";
import type { LIBC_PROTOTYPES, POLL, ERRNO } from "./eventfd.js";

/** What the main thread hands the worker at spawn (structured-cloned, the port transferred). */
export interface PollWorkerInit {
  /** Absolute path of koffi's CommonJS entry: an eval worker resolves bare names from the cwd, not from here. */
  readonly koffiPath: string;
  /** eventfd the main thread signals after posting a command, to interrupt poll(2). */
  readonly controlFd: number;
  /** Commands arrive here; the worker reads them synchronously with `receiveMessageOnPort`. */
  readonly commands: MessagePort;
  readonly prototypes: typeof LIBC_PROTOTYPES;
  readonly poll: typeof POLL;
  readonly errno: typeof ERRNO;
}

/** Main thread → worker. */
export type PollCommand =
  /** Start polling `fd` for `events`; `drain` reads 8 bytes after each readiness (eventfd counters are level-triggered). */
  | {
      readonly op: "watch";
      readonly id: number;
      readonly fd: number;
      readonly events: number;
      readonly drain: boolean;
    }
  /** Stop polling; answered by `unwatched` once the fd is out of the poll set, so it is safe to close. */
  | { readonly op: "unwatch"; readonly id: number }
  /** Leave the loop and end the thread. */
  | { readonly op: "exit" };

/** Worker → main thread. */
export type PollEvent =
  /** The fd is ready; `count` is the drained eventfd counter (0n when not drained). */
  | { readonly type: "ready"; readonly id: number; readonly revents: number; readonly count: bigint }
  /** The fd reported POLLERR/POLLHUP/POLLNVAL and was dropped from the poll set. */
  | { readonly type: "failed"; readonly id: number; readonly revents: number }
  | { readonly type: "unwatched"; readonly id: number }
  /** poll(2) itself failed; the thread has ended. */
  | { readonly type: "fatal"; readonly syscall: string; readonly errno: number };

/**
 * Runs inside the worker. It is serialised with `Function.prototype.toString` and evaluated in a
 * fresh CommonJS context (see fd-poller.ts for why), so it must not reference anything outside
 * its own body: everything it needs comes from `workerData`, and modules through `load`, the
 * context's `require` passed in. (A bare `require` here would be rewritten by a bundler into a
 * helper of the bundle, which the worker's context does not have.)
 */
export function pollWorkerMain(load: (id: string) => unknown): void {
  const threads = load("node:worker_threads") as typeof WorkerThreads;
  const init = threads.workerData as PollWorkerInit;
  const koffi = load(init.koffiPath) as typeof Koffi;
  const out = threads.parentPort;
  if (out === null) return;
  const lib = koffi.load("libc.so.6");
  const poll = lib.func(init.prototypes.poll) as (set: Uint8Array, n: number, timeout: number) => number;
  const read = lib.func(init.prototypes.read) as (fd: number, buf: Uint8Array, n: number) => number;
  const { controlFd, commands } = init;
  const failure = init.poll.err | init.poll.hup | init.poll.nval;
  const counter = Buffer.alloc(8);
  const watches = new Map<number, { fd: number; events: number; drain: boolean }>();
  const post = (event: PollEvent): void => out.postMessage(event);

  /** Applies queued commands; false once told to exit. */
  const applyCommands = (): boolean => {
    for (
      let m = threads.receiveMessageOnPort(commands);
      m !== undefined;
      m = threads.receiveMessageOnPort(commands)
    ) {
      const command = m.message as PollCommand;
      if (command.op === "exit") return false;
      if (command.op === "watch")
        watches.set(command.id, { fd: command.fd, events: command.events, drain: command.drain });
      else {
        watches.delete(command.id);
        post({ type: "unwatched", id: command.id });
      }
    }
    return true;
  };

  // Commands posted before the thread came up are already queued: apply them before the first poll.
  if (!applyCommands()) return;
  for (;;) {
    const entries = [...watches.entries()];
    // struct pollfd { int fd; short events; short revents; }: 8 bytes; slot 0 is the control eventfd.
    const set = Buffer.alloc(8 * (entries.length + 1));
    set.writeInt32LE(controlFd, 0);
    set.writeInt16LE(init.poll.in, 4);
    entries.forEach(([, w], i) => {
      set.writeInt32LE(w.fd, 8 * (i + 1));
      set.writeInt16LE(w.events, 8 * (i + 1) + 4);
    });
    if (poll(set, entries.length + 1, -1) < 0) {
      const errno = koffi.errno();
      if (errno === init.errno.EINTR) continue;
      post({ type: "fatal", syscall: "poll", errno });
      return;
    }
    entries.forEach(([id, w], i) => {
      const revents = set.readUInt16LE(8 * (i + 1) + 6);
      if (revents === 0) return;
      if ((revents & failure) !== 0) {
        watches.delete(id);
        post({ type: "failed", id, revents });
        return;
      }
      // Reading resets an eventfd counter; without it poll would return at once forever.
      const count = w.drain && read(w.fd, counter, 8) === 8 ? counter.readBigUInt64LE() : 0n;
      post({ type: "ready", id, revents, count });
    });
    if (set.readUInt16LE(6) !== 0) {
      read(controlFd, counter, 8);
      if (!applyCommands()) return;
    }
  }
}
