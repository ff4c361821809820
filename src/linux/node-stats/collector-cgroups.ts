/**
 * The node's cgroups as the stats collector and its parts read them: the part of the driver they
 * use, the driver with each cgroup's directories remembered, and what a cgroup gone mid-read means
 * (its pod is terminating: the figures are missing, nothing failed).
 */
import { AdapterError } from "../../errors.js";
import type { CgroupDirectories, CgroupDriver, CgroupRef, NodeCgroups } from "../cgroups/cgroup-driver.js";

/** The part of the cgroup driver the collector reads through. */
export type CgroupStatsReader = Pick<CgroupDriver, "api" | "hasPids" | "directories" | "procs">;

/** The node's cgroups and the driver that locates them. */
export interface CollectorCgroups {
  readonly driver: CgroupStatsReader;
  readonly node: NodeCgroups;
}

/**
 * The driver with each cgroup's directories computed once: the runtime hands the same `CgroupRef`
 * objects to every collection, and joining their paths again for 200 cgroups on every wake is a
 * measurable part of a memory wake's read.
 */
export function withRememberedDirectories(driver: CgroupStatsReader): CgroupStatsReader {
  const known = new WeakMap<CgroupRef, CgroupDirectories>();
  return {
    api: driver.api,
    hasPids: driver.hasPids,
    procs: (cgroup, options) => driver.procs(cgroup, options),
    directories: (cgroup) => {
      let dirs = known.get(cgroup);
      if (dirs === undefined) {
        dirs = driver.directories(cgroup);
        known.set(cgroup, dirs);
      }
      return dirs;
    },
  };
}

/** Runs `read`, turning "the cgroup is gone" (the pod is terminating) into undefined. */
export function unlessCgroupGone<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (isCgroupGone(error)) return undefined;
    throw error;
  }
}

/** {@link unlessCgroupGone} for an asynchronous read. */
export async function unlessCgroupGoneAsync<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isCgroupGone(error)) return undefined;
    throw error;
  }
}

function isCgroupGone(error: unknown): boolean {
  return error instanceof AdapterError && error.code === "cgroup-not-found";
}
