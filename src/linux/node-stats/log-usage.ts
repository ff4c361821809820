/** Allocated bytes and inodes of a pod's log files, per file, measured like the kubelet's du-style volume walk; and which files belong to which container. */
import type { Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { errnoCode } from "../../errors.js";

/** File name in a log directory → its allocated bytes and inode (1). */
export type LogUsage = ReadonlyMap<string, { readonly bytes: bigint; readonly inodes: bigint }>;

/**
 * Each regular file in a pod's log directory (empty when it does not exist yet). Allocated
 * blocks × 512, as for every other disk figure: a log written with holes or preallocated costs
 * what it occupies. Files deleted during the scan are left out.
 */
export async function measureLogs(dir: string): Promise<LogUsage> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return new Map();
    throw error;
  }
  const stats = await Promise.all(
    names.map(async (name): Promise<[string, Stats | undefined]> => {
      try {
        return [name, await lstat(`${dir}/${name}`)];
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return [name, undefined];
        throw error;
      }
    }),
  );
  const out = new Map<string, { bytes: bigint; inodes: bigint }>();
  for (const [name, st] of stats) {
    if (st !== undefined && st.isFile()) out.set(name, { bytes: BigInt(st.blocks * 512), inodes: 1n });
  }
  return out;
}

/** Whether `file` (a name in a log directory) is the live log named `live` or a rotated copy of it (`<live>.<suffix>`). */
export function isLogOf(file: string, live: string): boolean {
  return file === live || file.startsWith(`${live}.`);
}
