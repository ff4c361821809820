/**
 * What a pod uses, as the ranking functions measure it: pod working set, disk bytes or inodes over
 * the filesystem usages a layout counts (podDiskUsage upstream), and the process count.
 */
import type { Pod, PodStats } from "../model.js";
import type { FsStatsType } from "../engine/signal-tables.js";

export type DiskResource = "ephemeral-storage" | "inodes";

/** Pod-level working set; missing counts as zero. */
export function podMemoryUsage(stats: PodStats): bigint {
  return stats.memory?.workingSetBytes ?? 0n;
}

/**
 * Volumes whose usage counts as the pod's local ephemeral storage: hostPath, gitRepo, configMap and
 * disk-backed emptyDir. Memory-backed emptyDirs, secrets, projected, downwardAPI and PVCs do not.
 */
export function localVolumeNames(pod: Pod): string[] {
  return pod.volumes
    .filter(
      (v) =>
        v.kind === "hostPath" ||
        v.kind === "gitRepo" ||
        v.kind === "configMap" ||
        (v.kind === "emptyDir" && v.medium !== "Memory"),
    )
    .map((v) => v.name);
}

/** Disk bytes or inodes used by the pod over the given usage sources; missing stats count as zero. */
export function podDiskUsage(
  pod: Pod,
  stats: PodStats,
  fsTypes: readonly FsStatsType[],
  resource: DiskResource,
): bigint {
  const pick = resource === "inodes" ? "inodesUsed" : "usedBytes";
  let total = 0n;
  if (fsTypes.includes("root")) for (const c of stats.containers) total += c.rootfs?.[pick] ?? 0n;
  if (fsTypes.includes("logs")) for (const c of stats.containers) total += c.logs?.[pick] ?? 0n;
  if (fsTypes.includes("localVolumes")) {
    for (const name of localVolumeNames(pod)) {
      const v = stats.volumes.find((s) => s.name === name);
      if (v !== undefined) total += v[pick] ?? 0n;
    }
  }
  // "images" is declared by upstream for some signals but never measured: it adds nothing.
  return total;
}

/** Process count of the pod; missing counts as zero. */
export function podProcessCount(stats: PodStats): bigint {
  return stats.processCount ?? 0n;
}
