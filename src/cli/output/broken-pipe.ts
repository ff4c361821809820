/**
 * The reader of a pipe going away (`evictd replay … | head -1`, `evictd demo | tee log` stopped
 * with Ctrl-C) is the reader's choice, not an error of ours: the command stops writing and ends as
 * it would have, without a stack trace. Node ignores SIGPIPE, so a write to such a pipe fails with
 * EPIPE instead, both in the write's callback and as an `error` event on the stream that, without a
 * listener, ends the process.
 */
import type { Writable } from "node:stream";

/** True for the error a write gets once the reading end of its pipe is closed. */
export function isBrokenPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "EPIPE";
}

/**
 * Calls `onGone` once, the first time a write to `stream` finds its reader gone; that error and
 * every later one of the kind are then swallowed. Other errors are thrown as before.
 */
export function onReaderGone(stream: Writable, onGone: () => void): void {
  let gone = false;
  const listener = (error: unknown): void => {
    if (!isBrokenPipe(error)) throw error;
    if (gone) return;
    gone = true;
    onGone();
  };
  stream.on("error", listener);
}
