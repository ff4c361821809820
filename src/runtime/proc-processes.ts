/**
 * What the runtime asks /proc about its processes (is it still the same process, who is in a
 * process group), and signalling that tolerates the already-dead. /proc itself is parsed in
 * `linux/procfs.ts`.
 */
import { readdir } from "node:fs/promises";
import { readProcStat, type ProcStat } from "../linux/procfs.js";

/** Whether `pid` still runs the same process (same start time) and is not a zombie. */
export async function isSameProcessAlive(pid: number, startTicks: number | undefined): Promise<boolean> {
  const stat = await readProcStat(pid);
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  return startTicks === undefined || stat.startTimeTicks === startTicks;
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
