/** What /proc says about processes: state, process group, start time; and signalling that tolerates the already-dead. */
import { readFile, readdir } from "node:fs/promises";

/** The fields of `/proc/<pid>/stat` the runtime needs (proc(5)). */
export interface ProcStat {
  readonly pid: number;
  /** One letter: R running, S sleeping, D uninterruptible (disk) sleep, Z zombie, T stopped... */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  /** Field 22, clock ticks after boot: with the pid, identifies a process across pid reuse. */
  readonly startTicks: string;
}

/** Parses a stat line. The command name is in parentheses and may hold spaces and ')', so fields are counted after the last ')'. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(")");
  const pid = Number.parseInt(text, 10);
  if (close < 0 || !Number.isSafeInteger(pid)) return undefined;
  const rest = text
    .slice(close + 2)
    .trim()
    .split(" ");
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const startTicks = rest[19];
  if (
    state === undefined ||
    startTicks === undefined ||
    !Number.isSafeInteger(ppid) ||
    !Number.isSafeInteger(pgrp)
  )
    return undefined;
  return { pid, state, ppid, pgrp, startTicks };
}

/** The stat of a live process, or undefined when it is gone. */
export async function readProcStat(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs the same process (same start time) and is not a zombie. */
export async function isSameProcessAlive(pid: number, startTicks: string | undefined): Promise<boolean> {
  const stat = await readProcStat(pid);
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}

/** Every live (non-zombie) process whose process group is one of `pgids`, by scanning /proc. */
export async function processGroupMembers(pgids: ReadonlySet<number>): Promise<ProcStat[]> {
  if (pgids.size === 0) return [];
  const out: ProcStat[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readProcStat(Number(entry));
    if (stat !== undefined && pgids.has(stat.pgrp) && stat.state !== "Z" && stat.state !== "X")
      out.push(stat);
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** Sends a signal; a process (or group, for negative ids) that is already gone is not an error. */
export function signalQuietly(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}
