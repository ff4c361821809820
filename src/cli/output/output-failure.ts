/**
 * Standard output that cannot take what a command prints for another reason than a reader gone (a
 * full disk behind `> file`, an I/O error): one line saying so and exit 3, not Node's dump of an
 * unhandled stream error. A reader gone (EPIPE) stays the quiet end it is (see broken-pipe).
 */
import type { Writable } from "node:stream";
import { AdapterError } from "../../errors.js";
import { isBrokenPipe } from "./broken-pipe.js";

/** The error a failed write to standard output is reported as. */
export function stdoutFailure(error: unknown): AdapterError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === "ENOSPC"
      ? "no space left on the device"
      : error instanceof Error
        ? error.message
        : String(error);
  return new AdapterError("stdout-write", `cannot write to standard output: ${reason}`, { cause: error });
}

/**
 * Keeps `stream`'s `error` events from ending the process: the write that failed reports the
 * failure itself (its callback), and a reader gone is nobody's error.
 */
export function reportFailuresThroughWrites(stream: Writable): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on("error", () => undefined);
}

const guarded = new WeakSet<Writable>();

/** Writes `text` and waits for it: resolves too when the reader is gone; rejects with {@link stdoutFailure}. */
export function writeStdout(text: string, stream: Writable = process.stdout): Promise<void> {
  reportFailuresThroughWrites(stream);
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => {
      if (error === null || error === undefined || isBrokenPipe(error)) resolve();
      else reject(stdoutFailure(error));
    });
  });
}
