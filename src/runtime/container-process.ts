/**
 * Starts one container's main process: inside its cgroups before its first instruction
 * (`spawnInCgroups`), oom_score_adj set by a second shim stage, stdout and stderr appended to the
 * container's log file, in a session and process group of its own, and not holding the daemon's
 * event loop open (pods outlive a daemon restart and are adopted by the next one).
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { constants } from "node:os";
import { spawnInCgroups } from "../linux/cgroups/spawn-in-cgroup.js";
import { withOomScoreAdj } from "./container-launch.js";

export interface ContainerProcessSpec {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The container's writable directory. */
  readonly cwd: string;
  /** `cgroup.procs` files to join (none without cgroups). */
  readonly procFiles: readonly string[];
  readonly oomScoreAdj: number;
  readonly logFile: string;
}

/** How a process ended: its exit code, or 128 + the signal number as container runtimes report it. */
export interface ProcessExit {
  readonly exitCode: number;
  readonly signal: NodeJS.Signals | undefined;
}

/** Exit status reported for a process that could not be started at all (runtimes use 128 with `StartError`). */
export const START_FAILED_EXIT = 128;

export interface StartedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
}

/** Exit code as a runtime reports it: the status, or 128 + signal number for a killed process. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : constants.signals[signal];
  return number === undefined ? START_FAILED_EXIT : 128 + number;
}

/** Spawns the process; throws when it could not be created (no pid). */
export function startContainerProcess(spec: ContainerProcessSpec): StartedProcess {
  const log = openSync(spec.logFile, "a", 0o644);
  let child: ChildProcess;
  try {
    child = spawnInCgroups(
      withOomScoreAdj(spec.oomScoreAdj, spec.argv),
      { ...spec.env },
      spec.cwd,
      spec.procFiles,
      ["ignore", log, log],
      { detached: true },
    );
  } finally {
    // The child has its own copy of the descriptor.
    closeSync(log);
  }
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) =>
      resolve({ exitCode: exitCodeOf(code, signal), signal: signal ?? undefined }),
    );
    child.once("error", () => resolve({ exitCode: START_FAILED_EXIT, signal: undefined }));
  });
  const pid = child.pid;
  if (pid === undefined) {
    // spawn failed synchronously enough to have no pid; 'error' follows.
    return { child, pid: -1, exited };
  }
  child.unref();
  return { child, pid, exited };
}
