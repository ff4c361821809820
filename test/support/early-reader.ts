/**
 * A reader that stops early, as `evictd … | head -N` does: runs a command with its stdout on a
 * pipe, reads until `lines` lines have come, closes its end and waits for the command to exit.
 */
import { spawn } from "node:child_process";

export interface EarlyReaderResult {
  /** What was read before the pipe was closed (at least `lines` lines). */
  readonly read: string;
  readonly stderr: string;
  readonly status: number | null;
}

export async function readLinesThenClose(
  program: string,
  args: readonly string[],
  lines: number,
): Promise<EarlyReaderResult> {
  const child = spawn(program, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let read = "";
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      read += s;
      if (read.split("\n").length > lines) {
        child.stdout.destroy();
        resolve();
      }
    });
    child.stdout.on("end", () => resolve());
  });
  return { read, stderr, status: await exited };
}
