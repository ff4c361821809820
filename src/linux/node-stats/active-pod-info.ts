/** What the stats collector needs to know about each running pod: identity, where its processes are, and where its files are. */
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
}

/** One volume of an active pod, as the pod spec declares it. */
export interface ActiveVolumeInfo {
  readonly name: string;
  readonly kind: VolumeKind;
  /** emptyDir only: `Memory` for a tmpfs-backed volume, "" or absent for the node's disk. */
  readonly medium?: string;
}

/**
 * An active pod. Its files follow the pod runtime's layout under `dir` (see `podPaths`):
 * `logs/<container>.log`, `volumes/<name>/`, `containers/<name>/rootfs/`.
 */
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
  /** `<stateDir>/pods/<uid>`: the pod's directory on nodefs. */
  readonly dir: string;
}
