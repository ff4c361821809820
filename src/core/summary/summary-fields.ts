/**
 * The Summary API (stats/v1alpha1) fields the eviction manager reads, as tables shared by the validator
 * and the decoder so the two cannot drift apart. Everything else in a summary (cpu, network, swap, psi,
 * io, userDefinedMetrics, ...) is ignored, as upstream's eviction code never reads it.
 */
import type { FsStats, MemoryStats, RlimitStats, VolumeStats } from "../model.js";

/** `MemoryStats` counters (node, system containers, pods, containers). */
export const MEMORY_COUNTERS = ["availableBytes", "workingSetBytes", "usageBytes"] as const satisfies readonly (keyof MemoryStats)[];

/** `FsStats` counters (node.fs, runtime.imageFs/containerFs, rootfs, logs, ephemeral-storage). */
export const FS_COUNTERS = [
  "availableBytes",
  "capacityBytes",
  "usedBytes",
  "inodesFree",
  "inodes",
  "inodesUsed",
] as const satisfies readonly (keyof FsStats)[];

/** `RlimitStats` counters (int64 upstream; a negative process count is meaningless, so uint64 here). */
export const RLIMIT_COUNTERS = ["maxpid", "curproc"] as const satisfies readonly (keyof RlimitStats)[];

/** The `VolumeStats` counters ranking reads (local ephemeral volume usage). */
export const VOLUME_COUNTERS = ["usedBytes", "inodesUsed"] as const satisfies readonly (keyof VolumeStats)[];
