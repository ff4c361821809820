/**
 * The processes of a cgroup subtree, read synchronously. cgroupfs files are generated from kernel
 * memory and never wait for a disk; a pod's subtree is the pod and its containers, a handful of
 * small files. A kill that must leave within a millisecond of the decision reads them here instead
 * of through the driver's asynchronous `procs`, whose every read is a thread-pool round trip that
 * can queue behind directory walks.
 */
import { readdirSync, readFileSync, type Dirent } from "node:fs";
import { join } from "node:path";

/** Every pid listed in `cgroup.procs` under `dir` (the cgroup and its descendants); none when it is gone. */
export function cgroupProcsNow(dir: string): number[] {
  const pids = new Set<number>();
  const walk = (at: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return; // The cgroup is gone: it holds no process.
    }
    try {
      for (const line of readFileSync(join(at, "cgroup.procs"), "utf8").split("\n"))
        if (/^\d+$/.test(line)) pids.add(Number(line));
    } catch {
      // Removed between the listing and the read.
    }
    for (const e of entries) if (e.isDirectory()) walk(join(at, e.name));
  };
  walk(dir);
  return [...pids];
}
