/**
 * What the stats collector is told about a pod the runtime runs: its identity, the start times the
 * runtime recorded, where its processes are, and every path of its files in the runtime's own
 * layout (`PodPaths`). The collector computes no path, so a pod is measured exactly where it
 * runs, whatever its UID (an unsafe UID gets a hashed directory name, see `podDirName`).
 */
import type { CgroupRef } from "../linux/cgroups/cgroup-driver.js";
import type { ActiveContainerInfo, ActivePodInfo } from "../linux/node-stats/active-pod-info.js";
import type { PodRecord } from "./pod-record.js";

/** Where a pod's processes are: its cgroups, or without cgroups each container's main pids. */
export type PodProcessPlace =
  | {
      readonly cgroups: { readonly pod: CgroupRef; readonly containers: ReadonlyMap<string, CgroupRef> };
    }
  | { readonly pids: ReadonlyMap<string, readonly number[]> };

/** The collector's description of the pod of `record` (its regular containers, as the kubelet reports). */
export function statsTarget(record: PodRecord, place: PodProcessPlace): ActivePodInfo {
  const { pod, paths } = record;
  return {
    uid: pod.uid,
    name: pod.name,
    namespace: pod.namespace,
    ...(record.startTime !== undefined ? { startTime: record.startTime } : {}),
    ...("cgroups" in place ? { cgroup: place.cgroups.pod } : {}),
    containers: pod.containers.map((c) => {
      const startedAt = record.containers.find((r) => r.spec.name === c.name)?.startedAt;
      const cgroup = "cgroups" in place ? place.cgroups.containers.get(c.name) : undefined;
      const pids = "pids" in place ? place.pids.get(c.name) : undefined;
      const info: ActiveContainerInfo = {
        name: c.name,
        ...(startedAt !== undefined ? { startTime: startedAt } : {}),
        ...(cgroup !== undefined ? { cgroup } : {}),
        ...(pids !== undefined ? { pids } : {}),
        rootfsDir: paths.rootfs(c.name),
        logFile: paths.log(c.name),
      };
      return info;
    }),
    volumes: pod.volumes.map((v) => ({
      name: v.name,
      kind: v.kind,
      ...(v.medium !== undefined ? { medium: v.medium } : {}),
      dir: paths.volume(v.name),
    })),
  };
}
