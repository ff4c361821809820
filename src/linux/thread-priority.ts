/**
 * Per-thread scheduling priority. On Linux every thread is a task with a nice value of its own, and
 * setpriority(2) on a thread id changes that thread alone, so the daemon's loop thread can be
 * raised above everything else the process does (HTTP, logs, garbage collection helpers), as
 * OOM daemons raise themselves (earlyoom's `-p` sets nice −20).
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { errnoCode } from "../errors.js";

/**
 * The nice value of the thread a wake's way to an eviction runs on (`run`'s loop thread, `watch`'s
 * event loop with node-local stats): above everything else on the node, as OOM daemons run.
 */
export const EVICTION_LOOP_NICE = -20;

/** This thread's kernel task id (`/proc/thread-self` → `<pid>/task/<tid>`), or undefined off Linux. */
export function currentThreadId(): number | undefined {
  try {
    const match = /\/task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"));
    return match?.[1] === undefined ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** Sets this thread's nice value; what happened, in a sentence for the capability list. */
export function setCurrentThreadNice(
  nice: number,
  what: string,
): { readonly ok: boolean; readonly note: string } {
  const tid = currentThreadId();
  if (tid === undefined)
    return { ok: false, note: `${what} runs at the default priority (no /proc/thread-self)` };
  try {
    setPriority(tid, nice);
    return { ok: true, note: `${what} runs at nice ${nice}` };
  } catch (error) {
    const code = errnoCode(error) ?? String(error);
    return {
      ok: false,
      note: `${what} runs at the default priority: raising it to nice ${nice} was refused (${code}; it needs root or CAP_SYS_NICE)`,
    };
  }
}
