/**
 * What the stats collector is told about the active pods (each described as stats-targets.ts
 * describes one): the directories a pod really uses, the start times recorded for it, and its
 * cgroups, or without cgroups its containers' processes. A pod in cgroups is described by the same
 * object until one of its containers (re)starts: a memory wake on a 110-pod node then builds no
 * description, and the collector's per-cgroup memo (keyed by the cgroup objects) keeps hitting.
 * Kept in a WeakMap keyed by the pod's record, so a forgotten pod's description goes with it.
 */
import type { ContainerCgroup, PodCgroup } from "../linux/cgroups/cgroup-driver.js";
import { containerLayout } from "../linux/cgroups/cgroup-layout.js";
import type { ActivePodInfo } from "../linux/node-stats/active-pod-info.js";
import type { PodRecord } from "./pod-record.js";
import type { RunnablePod } from "./runnable-pod.js";
import { statsTarget } from "./stats-targets.js";

/** A pod's cgroup and each container's, by name (a container not started yet: where its cgroup will be). */
export interface PodCgroups {
  readonly pod: PodCgroup;
  readonly containers: ReadonlyMap<string, ContainerCgroup>;
}

/** The cgroups of the pod of `record`, which runs in `pod`. */
export function podCgroupsOf(record: PodRecord, pod: PodCgroup): PodCgroups {
  const containers = new Map<string, ContainerCgroup>();
  for (const c of record.containers)
    containers.set(c.spec.name, c.cgroup ?? containerLayout(pod, c.spec.name));
  return { pod, containers };
}

/** Each container's live processes, as the runtime finds them for a pod outside cgroups. */
export type ProcessesOfPod = (
  pod: RunnablePod,
) => Promise<readonly { readonly container: string; readonly pids: readonly number[] }[]>;

/** A pod's last description and what it was built from. */
interface Described {
  readonly pod: PodCgroup;
  readonly startTime: number | undefined;
  readonly containers: readonly {
    readonly cgroup: ContainerCgroup | undefined;
    readonly startedAt: number | undefined;
  }[];
  readonly target: ActivePodInfo;
}

/** Describes the active pods to the stats collector; see the module comment. */
export class ActivePodTargets {
  readonly #processesOf: ProcessesOfPod;
  /** The last stats description of each pod in cgroups, with what it was built from. */
  readonly #described = new WeakMap<PodRecord, Described>();

  constructor(processesOf: ProcessesOfPod) {
    this.#processesOf = processesOf;
  }

  /** The description of each active pod among `records` (not finished, not being killed), in their order. */
  async describe(records: Iterable<PodRecord>): Promise<ActivePodInfo[]> {
    const out: ActivePodInfo[] = [];
    for (const record of records) {
      if (record.final || record.terminating) continue;
      if (record.cgroup !== undefined) {
        out.push(this.#inCgroups(record, record.cgroup));
        continue;
      }
      const processes = await this.#processesOf(record.pod);
      out.push(statsTarget(record, { pids: new Map(processes.map((p) => [p.container, p.pids])) }));
    }
    return out;
  }

  /** The description of a pod that runs in `pod`: the last one while nothing it was built from changed. */
  #inCgroups(record: PodRecord, pod: PodCgroup): ActivePodInfo {
    const known = this.#described.get(record);
    if (
      known !== undefined &&
      known.pod === pod &&
      known.startTime === record.startTime &&
      known.containers.length === record.containers.length &&
      record.containers.every(
        (c, i) => c.cgroup === known.containers[i]?.cgroup && c.startedAt === known.containers[i]?.startedAt,
      )
    )
      return known.target;
    const target = statsTarget(record, { cgroups: podCgroupsOf(record, pod) });
    this.#described.set(record, {
      pod,
      startTime: record.startTime,
      containers: record.containers.map((c) => ({ cgroup: c.cgroup, startedAt: c.startedAt })),
      target,
    });
    return target;
  }
}
