/** Bytes and inodes under a directory, measured as upstream's du-style walk does: allocated blocks, one filesystem, hard links once. */
import type { Dir, Stats } from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { errnoCode } from "../../errors.js";

/** What a walk found. */
export interface DirectoryUsage {
  /** Allocated bytes (`st_blocks × 512`), the directory itself included. */
  readonly bytes: bigint;
  /** Inodes: the directory itself, every file, directory, symlink and special file below it. */
  readonly inodes: bigint;
  /** The walk stopped at `maxEntries`: both figures are lower bounds. */
  readonly truncated: boolean;
}

export interface MeasureOptions {
  /** Stop after this many entries (default 200 000): a runaway tree must not stall the loop. */
  readonly maxEntries?: number;
  /** How many lstat calls run at once within one directory (default 32). */
  readonly concurrency?: number;
}

/** Errors that mean "this entry went away (or was never ours to read) while we looked". */
const VANISHED = new Set(["ENOENT", "ENOTDIR", "ESTALE"]);
/** Errors that mean "cannot look inside": the entry is counted, its contents are not. */
const UNREADABLE = new Set(["EACCES", "EPERM"]);

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (VANISHED.has(errnoCode(error) ?? "")) return undefined;
    throw error;
  }
}

async function openOrUndefined(path: string): Promise<Dir | undefined> {
  try {
    return await opendir(path, { bufferSize: 128 });
  } catch (error) {
    const code = errnoCode(error) ?? "";
    if (VANISHED.has(code) || UNREADABLE.has(code)) return undefined;
    throw error;
  }
}

/**
 * Walks `root` iteratively (an explicit stack, so depth cannot overflow anything) and sums what
 * upstream's `fs.DiskUsage` (pkg/volume/util/fs) sums for emptyDir and the other du-measured
 * volumes:
 *
 * - bytes are ALLOCATED blocks × 512, not file sizes: a sparse file costs what it occupies and a
 *   3-byte file costs a whole block, which is what fills a disk and what `du` shows;
 * - every inode counts once: hard-linked files are recognised by inode number;
 * - symbolic links are counted as the inodes they are and never followed;
 * - entries on another filesystem (a tmpfs mounted inside) are skipped, like `du -x`;
 * - entries that vanish mid-walk (a pod deleting its files) are left out, not errors.
 *
 * Returns undefined when `root` itself does not exist.
 */
export async function measureDirectory(
  root: string,
  options: MeasureOptions = {},
): Promise<DirectoryUsage | undefined> {
  const maxEntries = options.maxEntries ?? 200_000;
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const top = await lstatOrUndefined(root);
  if (top === undefined) return undefined;
  const device = top.dev;
  let bytes = top.blocks * 512;
  let inodes = 1;
  let entries = 0;
  let truncated = false;
  const linked = new Set<number>();
  const stack: string[] = top.isDirectory() ? [root] : [];

  while (stack.length > 0 && !truncated) {
    const dir = stack.pop() as string;
    const handle = await openOrUndefined(dir);
    if (handle === undefined) continue;
    const names: string[] = [];
    try {
      for await (const entry of handle) {
        names.push(entry.name);
        if (++entries >= maxEntries) {
          truncated = true;
          break;
        }
      }
    } catch (error) {
      // The directory was removed while being read: what was read so far still counts.
      if (!VANISHED.has(errnoCode(error) ?? "")) throw error;
    }
    for (let i = 0; i < names.length; i += concurrency) {
      const batch = names.slice(i, i + concurrency).map((name) => `${dir}/${name}`);
      const stats = await Promise.all(batch.map(lstatOrUndefined));
      for (let j = 0; j < stats.length; j++) {
        const st = stats[j];
        if (st === undefined || st.dev !== device) continue;
        if (st.nlink > 1 && !st.isDirectory()) {
          if (linked.has(st.ino)) continue;
          linked.add(st.ino);
        }
        bytes += st.blocks * 512;
        inodes += 1;
        if (st.isDirectory()) stack.push(batch[j] as string);
      }
    }
  }
  return { bytes: BigInt(bytes), inodes: BigInt(inodes), truncated };
}
