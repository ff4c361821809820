/**
 * What the process pod runtime can and cannot do on this node, as /status lists it: whether pods
 * run in cgroups (and with a pids controller), oom_score_adj, what emptyDir volumes of medium
 * Memory are, that there are no images, and where container output goes.
 */
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";

export interface PodRuntimeCapabilitiesInput {
  /** The cgroup driver pods run under, or undefined without cgroups. */
  readonly cgroups: CgroupDriver | undefined;
  /** Whether tmpfs can be mounted. */
  readonly canMount: boolean;
  /** The state directory, absolute. */
  readonly stateDir: string;
}

/** One sentence per capability or limit, in the order /status shows them. */
export function podRuntimeCapabilities(o: PodRuntimeCapabilitiesInput): string[] {
  const driver = o.cgroups;
  return [
    driver === undefined
      ? "no cgroups: pod processes run without memory limits, each container in a process group of its own, and are measured through /proc"
      : `pods run in cgroup ${driver.api} cgroups laid out as the kubelet's cgroupfs driver does (QoS tiers, pod and container cgroups), with per-container memory limits` +
        (driver.hasPids ? "" : "; no pids controller: no per-pod pid counts"),
    "oom_score_adj is set for each container before its command runs (a second shim stage)",
    o.canMount
      ? "emptyDir volumes with medium Memory are tmpfs mounts"
      : "tmpfs cannot be mounted (not root): emptyDir volumes with medium Memory are plain directories on nodefs",
    "no container images: image garbage collection frees nothing",
    `container output is appended to ${o.stateDir}/pods/<pod>/logs/<container>.log`,
  ];
}
