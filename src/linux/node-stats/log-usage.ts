/** Allocated bytes and inodes of a pod's log files, per file, measured like the kubelet's du-style volume walk; and which files belong to which container. */
import { lstatSync, readdirSync } from "node:fs";
import { errnoCode } from "../../errors.js";
import { SyncWorkBudget } from "./sync-work-budget.js";

/** File name in a log directory → its allocated bytes and inode (1). */
export type LogUsage = ReadonlyMap<string, { readonly bytes: bigint; readonly inodes: bigint }>;

/**
 * Each regular file in a pod's log directory (empty when it does not exist yet). Allocated
 * blocks × 512, as for every other disk figure: a log written with holes or preallocated costs
 * what it occupies. Files deleted during the scan are left out. Reads synchronously, a turn of
 * `budget` at a time (sync-work-budget.ts).
 */
export async function measureLogs(
  dir: string,
  budget: SyncWorkBudget = new SyncWorkBudget(),
): Promise<LogUsage> {
  let wait = budget.take();
  if (wait !== undefined) await wait;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return new Map();
    throw error;
  }
  const out = new Map<string, { bytes: bigint; inodes: bigint }>();
  for (const name of names) {
    wait = budget.take();
    if (wait !== undefined) await wait;
    const st = lstatSync(`${dir}/${name}`, { throwIfNoEntry: false });
    if (st !== undefined && st.isFile()) out.set(name, { bytes: BigInt(st.blocks * 512), inodes: 1n });
  }
  return out;
}

/** Whether `file` (a name in a log directory) is the live log named `live` or a rotated copy of it (`<live>.<suffix>`). */
export function isLogOf(file: string, live: string): boolean {
  return file === live || file.startsWith(`${live}.`);
}
