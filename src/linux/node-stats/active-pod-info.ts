/**
 * What the stats collector needs to know about each running pod: identity, start times, where its
 * processes are, and where its files are. The pod runtime owns the on-disk layout and hands the
 * collector each path; the collector measures what it is given and computes no path itself.
 */
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import type { EpochMs, VolumeKind } from "../../core/model.js";

/** One container of an active pod. */
export interface ActiveContainerInfo {
  readonly name: string;
  /** Its container cgroup (`<pod>/<name>`), when the node runs with cgroups. */
  readonly cgroup?: CgroupRef;
  /** Its main process ids, when the node runs without cgroups (descendants are found through /proc). */
  readonly pids?: readonly number[];
  /** When it started (epoch ms); reported as the container's `startTime`. */
  readonly startTime?: EpochMs;
  /** Its writable directory (its "writable layer"), measured as its `rootfs`; may not exist yet. */
  readonly rootfsDir: string;
  /** Its live log file; rotated copies are `<logFile>.<suffix>` in the same directory. */
  readonly logFile: string;
}

/** One volume of an active pod, as the pod spec declares it. */
export interface ActiveVolumeInfo {
  readonly name: string;
  readonly kind: VolumeKind;
  /** emptyDir only: `Memory` for a tmpfs-backed volume, "" or absent for the node's disk. */
  readonly medium?: string;
  /** The directory holding its contents. */
  readonly dir: string;
}

/** An active pod, as the pod runtime describes it (`ProcessPodRuntime.statsTargets`). */
export interface ActivePodInfo {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  /** When the pod started (epoch ms); reported as the pod's `startTime`. */
  readonly startTime?: EpochMs;
  /** The pod cgroup (`pods/[burstable|besteffort/]pod<uid>`), when the node runs with cgroups. */
  readonly cgroup?: CgroupRef;
  readonly containers: readonly ActiveContainerInfo[];
  readonly volumes: readonly ActiveVolumeInfo[];
}
