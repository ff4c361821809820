/**
 * An eventfd read by the calling thread's own event loop. libuv's epoll watches a duplicate of the
 * descriptor as it watches a pipe, so the kernel's signal (a memcg threshold crossed, the kernel
 * reclaiming for a cgroup) wakes the thread that acts on it directly.
 *
 * Why not one poll(2) on the thread pool (fd-poller.ts, which still serves every other fd): that
 * route puts a pool thread between the kernel and the loop. The pool thread runs at the process's
 * default priority however high the loop thread is raised, so on a node whose CPUs are busy (a
 * ramp and any CPU-bound pod beside it) its wake-up waits its turn behind them before the loop
 * hears anything; and after each readiness the next poll(2) is queued behind whatever fs work holds
 * the pool's threads. Read here, a wake costs one thread wake-up at the loop's own priority.
 *
 * Node has no public handle for an arbitrary descriptor (net.Socket refuses a descriptor that is
 * not a pipe, socket or tty), so the pipe handle comes from `process.binding("pipe_wrap")`, the
 * handle net.Socket itself wraps. Where a runtime does not offer it, {@link eventfdReaderAvailable}
 * says so and the fd poller keeps such descriptors on its poll(2).
 */
import net from "node:net";
import { getSystemErrorName } from "node:util";
import { AdapterError, errnoCode } from "../../errors.js";
import { closeFd, duplicateFd } from "./eventfd.js";

/** The part of `process.binding("pipe_wrap")` used here. */
interface PipeBinding {
  readonly Pipe: new (type: number) => { open(fd: number): number };
  readonly constants: { readonly SOCKET: number };
}

/** What a descriptor that cannot be read any more means, in every failure here. */
const DESCRIPTOR_GONE = "the watched file was closed, or the kernel object behind it went away";

let pipeBinding: PipeBinding | null | undefined;

function pipes(): PipeBinding | null {
  if (pipeBinding !== undefined) return pipeBinding;
  try {
    // Not in @types/node: Node documents process.binding as deprecated, not removed.
    const { binding: load } = process as unknown as { binding?: (name: string) => unknown };
    const binding = load?.call(process, "pipe_wrap") as Partial<PipeBinding> | undefined;
    pipeBinding =
      typeof binding?.Pipe === "function" && typeof binding.constants?.SOCKET === "number"
        ? (binding as PipeBinding)
        : null;
  } catch {
    pipeBinding = null;
  }
  return pipeBinding;
}

/** True when this runtime can hand a descriptor to its event loop (see the top of this file). */
export function eventfdReaderAvailable(): boolean {
  return pipes() !== null;
}

/** A running read of one eventfd; {@link close} ends it. */
export interface EventfdReader {
  /**
   * Stops reading and closes the duplicate. Resolves once the event loop has let go of it; the
   * caller's own descriptor stays open (closing it is what unregisters a kernel event).
   */
  close(): Promise<void>;
}

/**
 * Reads the eventfd `fd` on this thread's event loop: `onCount` with the counter's value (reset by
 * the read) each time it is signalled, `onFailure` once if the descriptor cannot be read (nothing
 * is delivered after it). Throws an `fd-poll-error` AdapterError if `fd` cannot be duplicated or
 * handed to the event loop (a closed or foreign descriptor), and `ffi-unavailable` without a pipe
 * handle ({@link eventfdReaderAvailable}).
 */
export function readEventfdOnEventLoop(
  fd: number,
  onCount: (count: bigint) => void,
  onFailure: (error: AdapterError) => void,
): EventfdReader {
  const binding = pipes();
  if (binding === null)
    throw new AdapterError("ffi-unavailable", "this runtime offers no pipe handle to read an eventfd with");
  // libuv owns and closes what it is given: a duplicate, so the caller's descriptor (and with it the
  // kernel's registration) lives until the caller closes it.
  let copy: number;
  try {
    copy = duplicateFd(fd);
  } catch (cause) {
    throw new AdapterError(
      "fd-poll-error",
      `fd ${fd} cannot be read by the event loop (${errnoCode(cause instanceof AdapterError ? cause.cause : cause) ?? "error"})`,
      { cause, hint: DESCRIPTOR_GONE },
    );
  }
  const handle = new binding.Pipe(binding.constants.SOCKET);
  const status = handle.open(copy);
  if (status !== 0) {
    // The handle never took the duplicate: it is still ours to close.
    try {
      closeFd(copy);
    } catch {
      // A duplicate that will not close has nothing left to release.
    }
    throw new AdapterError(
      "fd-poll-error",
      `fd ${fd} cannot be read by the event loop (${getSystemErrorName(status)})`,
      { hint: DESCRIPTOR_GONE },
    );
  }
  const socket = new net.Socket({ handle, readable: true, writable: false } as net.SocketConstructorOpts);
  let open = true;
  socket.on("data", (chunk: Buffer) => {
    if (!open) return;
    // One read per signal returns the 8-byte counter; should reads ever arrive joined, they add up.
    let count = 0n;
    for (let at = 0; at + 8 <= chunk.length; at += 8) count += chunk.readBigUInt64LE(at);
    onCount(count);
  });
  const fail = (cause: Error | undefined): void => {
    if (!open) return;
    open = false;
    socket.destroy();
    onFailure(
      new AdapterError(
        "fd-poll-error",
        `fd ${fd} stopped being readable (${cause === undefined ? "end of file" : (errnoCode(cause) ?? cause.message)})`,
        { cause, hint: DESCRIPTOR_GONE },
      ),
    );
  };
  socket.on("error", (error) => fail(error));
  socket.on("end", () => fail(undefined));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    close: () => {
      open = false;
      socket.destroy();
      return closed;
    },
  };
}
