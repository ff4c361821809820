/** statfs(2) of the filesystem holding a directory, in the Summary API's terms, and whether a directory is a mount point. */
import { stat, statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";

/** One filesystem's figures (what cAdvisor's `FsInfo` gives the kubelet). */
export interface FilesystemStats {
  /** blocks × bsize. */
  readonly capacityBytes: bigint;
  /** bavail × bsize: what an unprivileged writer can still use (root-reserved blocks excluded). */
  readonly availableBytes: bigint;
  /** (blocks − bfree) × bsize: so available + used may fall short of capacity by the reserve. */
  readonly usedBytes: bigint;
  readonly inodes: bigint;
  readonly inodesFree: bigint;
  readonly inodesUsed: bigint;
}

/**
 * statfs of the filesystem `path` is on. BigInt throughout: block counts times block size exceed
 * 2^53 on large filesystems. Fails with `stats-statfs-failed` naming the path.
 */
export async function statFilesystem(path: string): Promise<FilesystemStats> {
  let s;
  try {
    s = await statfs(path, { bigint: true });
  } catch (error) {
    throw new AdapterError(
      "stats-statfs-failed",
      `cannot read filesystem statistics of ${path}: ${errnoCode(error) ?? String(error)}`,
      {
        cause: error,
        hint: "the node's stateDir and imagefsDir must exist and be readable",
      },
    );
  }
  const used = s.blocks > s.bfree ? s.blocks - s.bfree : 0n;
  return {
    capacityBytes: s.blocks * s.bsize,
    availableBytes: s.bavail * s.bsize,
    usedBytes: used * s.bsize,
    inodes: s.files,
    inodesFree: s.ffree,
    inodesUsed: s.files > s.ffree ? s.files - s.ffree : 0n,
  };
}

/**
 * Whether `dir` is the root of a filesystem of its own (its device differs from its parent's, or
 * it is `/`): a Memory-medium emptyDir the pod runtime mounted as a tmpfs. Undefined when `dir`
 * does not exist.
 */
export async function isMountPoint(dir: string): Promise<boolean | undefined> {
  try {
    const [self, parent] = await Promise.all([stat(dir), stat(dirname(dir))]);
    return self.dev !== parent.dev || self.ino === parent.ino;
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}
