/**
 * The processes a teardown has SIGKILLed, watched on their way out: slow is not stuck.
 *
 * After SIGKILL the kernel does the rest. Each thread runs its own exit (unmapping its memory,
 * closing its files) and leaves the cgroup only at the end of it; a process is listed in
 * `cgroup.procs` until its last thread has left. A thread group whose leader has already exited
 * is still listed while any other thread is exiting, and `/proc/<pid>/stat` then shows the leader
 * as Z although the process is not done; a process whose every thread has exited is not listed at
 * all, whether or not its parent has reaped it yet. On a slow machine (an emulated guest, a loaded
 * host) those exits take a while, all the longer the more memory and threads there are to free,
 * and nothing about that is wrong. What cannot finish is a thread in uninterruptible sleep
 * (state D) waiting for I/O that does not complete: it uses no CPU and nothing else changes.
 *
 * So the node is emptying while anything moves: a process leaves, one of its threads ends, or a
 * process uses CPU (its exit running). A teardown gives up only once nothing has moved for its
 * whole patience, and then names what is left with the state of each thread.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseProcStat, readCmdline, readProcStatNow } from "../procfs.js";

/** What shows a killed process moving toward its end. */
export interface ProcessSample {
  /** Clock ticks after boot at which it started: with the pid, tells a new process from a reused pid. */
  readonly startTicks: number;
  /** CPU time of all its threads so far, in clock ticks: an exit that runs uses CPU. */
  readonly cpuTicks: number;
  /** Threads that have not yet exited (the leader included). */
  readonly threads: number;
}

/** Samples a process; undefined when it cannot be seen (gone already, or no /proc to look in). */
export type SampleProcess = (pid: number) => ProcessSample | undefined;

/** The sample of a live process from `/proc/<pid>/stat`. */
export function sampleProcess(pid: number): ProcessSample | undefined {
  const stat = readProcStatNow(pid);
  if (stat === undefined) return undefined;
  return { startTicks: stat.startTimeTicks, cpuTicks: stat.cpuTicks, threads: stat.numThreads };
}

/** Processes listed in a subtree being torn down, looked at again and again until none is left. */
export class DyingProcesses {
  readonly #sample: SampleProcess;
  /** The processes of the last look, by pid. */
  #listed = new Map<number, ProcessSample | undefined>();
  #movedAt: number;

  constructor(sample: SampleProcess, now: number) {
    this.#sample = sample;
    this.#movedAt = now;
  }

  /**
   * Looks at the processes listed now and returns those the last look did not list (to be
   * killed: the first look's, and any that joined since). A newcomer counts as movement (it has
   * just been killed: its exit starts now), as does a process that left, lost a thread or used CPU.
   */
  look(pids: readonly number[], now: number): number[] {
    const newcomers: number[] = [];
    const listed = new Map<number, ProcessSample | undefined>();
    let moved = false;
    for (const pid of pids) {
      const sample = this.#sample(pid);
      listed.set(pid, sample);
      const before = this.#listed.get(pid);
      if (!this.#listed.has(pid) || isAnother(before, sample)) {
        newcomers.push(pid);
        moved = true;
      } else if (before !== undefined && sample !== undefined) {
        if (sample.cpuTicks !== before.cpuTicks || sample.threads !== before.threads) moved = true;
      }
    }
    for (const pid of this.#listed.keys()) if (!listed.has(pid)) moved = true;
    this.#listed = listed;
    if (moved) this.#movedAt = now;
    return newcomers;
  }

  /** How long (ms) nothing listed has moved, as of `now`. */
  stillFor(now: number): number {
    return now - this.#movedAt;
  }
}

/** Whether a pid now names another process than before (it ended and the pid was given out again). */
function isAnother(before: ProcessSample | undefined, now: ProcessSample | undefined): boolean {
  return before !== undefined && now !== undefined && before.startTicks !== now.startTicks;
}

/**
 * A process that outlived SIGKILL as an error message names it: its pid, the state of its leader
 * and of each other live thread (`D` waiting on I/O, `R` still running its exit; a leader in `Z`
 * has exited while other threads have not), and its command (its name once its memory is gone).
 */
export function describeDyingProcess(pid: number): string {
  const leader = readProcStatNow(pid);
  if (leader === undefined) return String(pid);
  let threads: string[] = [];
  try {
    threads = readdirSync(`/proc/${pid}/task`)
      .filter((tid) => tid !== String(pid))
      .map((tid) => threadState(pid, tid))
      .filter((state) => state !== undefined);
  } catch {
    // Gone meanwhile: the leader's state is all there is.
  }
  const others = threads.length === 0 ? "" : `, threads ${threads.join(" ")}`;
  return `${pid} (state ${leader.state}${others}: ${readCmdline(pid) ?? leader.comm})`;
}

/** One thread's state letter, or undefined when it has ended. */
function threadState(pid: number, tid: string): string | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"))?.state;
  } catch {
    return undefined;
  }
}
