/**
 * Container garbage collection ("delete all unused containers", the kubelet's nodefs reclaim):
 * the writable directories and logs of the dead containers of terminated pods, rotated logs
 * included (the kubelet's log manager `Clean` removes `<log>*`).
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { diskUsageBytes } from "./disk-usage.js";
import type { PodRecord } from "./pod-record.js";

/** What a garbage collection freed. */
export interface GcReport {
  readonly freedBytes: number;
  /** Paths deleted. */
  readonly removed: readonly string[];
  /** Why nothing could be freed, when that is by design. */
  readonly note?: string;
}

/** A pod whose containers are all dead for good: Succeeded or Failed, not being killed. */
export function isTerminated(record: PodRecord): boolean {
  return record.final && !record.terminating && (record.phase === "Succeeded" || record.phase === "Failed");
}

/** Deletes the containers' directories and logs of every terminated pod that `hasProcesses` says is empty. */
export async function collectDeadContainers(
  records: Iterable<PodRecord>,
  hasProcesses: (record: PodRecord) => Promise<boolean>,
): Promise<GcReport> {
  let freedBytes = 0;
  const removed: string[] = [];
  for (const record of records) {
    if (!isTerminated(record) || (await hasProcesses(record))) continue;
    for (const c of record.containers) {
      const live = record.paths.log(c.spec.name);
      for (const path of [record.paths.containerDir(c.spec.name), live, ...(await rotatedCopies(live))]) {
        if (
          !(await lstat(path).then(
            () => true,
            () => false,
          ))
        )
          continue;
        const bytes = await diskUsageBytes(path);
        await rm(path, { recursive: true, force: true });
        freedBytes += bytes;
        removed.push(path);
      }
    }
  }
  return { freedBytes, removed };
}

/** Every `<live>.<suffix>` file next to a live log: rotated, compressed or half-written copies. */
async function rotatedCopies(live: string): Promise<string[]> {
  const prefix = `${basename(live)}.`;
  const names = await readdir(dirname(live)).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(prefix)).map((n) => join(dirname(live), n));
}
