/**
 * What the stats collector remembers of each pod from one read to the next: each pod cgroup's last
 * memory and PID figures and each container cgroup's memory figures, with the time they were read
 * at (what a read within the refresh period reuses), and each pod's last Summary entry with what it
 * was built from. A read whose figures for a pod are all the ones of the last read hands out the
 * same entry object again, so a read of a quiet node builds and decodes no pod entry; one where
 * only memory or PIDs moved shares with the last entry the parts that did not (podRef, containers,
 * disk use).
 *
 * Kept in WeakMaps keyed by the runtime's own objects (it hands out the same pod and cgroup objects
 * while a pod does not change), so what a pod that went away left here goes with it.
 */
import { formatRfc3339Ms, formatRfc3339Nano } from "../../core/time/rfc3339.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import type { FilesystemStats } from "./filesystem-stats.js";
import type { PodDisk } from "./pod-disk-meter.js";
import {
  counter,
  fsJson,
  type ContainerJson,
  type MemoryJson,
  type PodJson,
  type VolumeJson,
} from "./summary-json.js";

/** A pod's memory and process figures (from cgroups or /proc), as one read reports them. */
export interface PodLive {
  readonly memory: MemoryJson | undefined;
  readonly containers: ReadonlyMap<string, MemoryJson>;
  readonly processCount: bigint | undefined;
  /** Working set charged to the pod, for the `pods` system container without cgroups. */
  readonly workingSetBytes: bigint;
}

/** A pod cgroup's last memory and PID figures and when they were read (epoch ns). */
export interface PodFigures {
  readonly memory: MemoryJson | undefined;
  readonly count: number | undefined;
  readonly workingSetBytes: bigint;
  readonly atNs: bigint;
  /** The figures as a housekeeping read reuses them, once built (with its containers' reused figures). */
  readonly live?: PodLive;
}

/** A container cgroup's last memory figures and when they were read (epoch ns). */
export interface ContainerFigures {
  readonly figures: MemoryJson;
  readonly atNs: bigint;
}

/** A pod's Summary entry without its memory and process figures, which change on every read. */
type PodParts = Omit<PodJson, "memory" | "process_stats">;

/** A pod's last entry and what it was built from. */
interface LastEntry {
  readonly containerMemory: readonly (MemoryJson | undefined)[];
  readonly disk: PodDisk | undefined;
  readonly fs: FilesystemStats;
  readonly parts: PodParts;
  readonly memory: MemoryJson | undefined;
  readonly count: bigint | undefined;
  readonly entry: PodJson;
}

/** Times formatted at most this many at once (see {@link PodEntryMemo}'s stamps): a node's worth. */
const MAX_STAMPS = 4096;

/** Each pod's and container's last figures and each pod's last Summary entry; owned by one collector. */
export class PodEntryMemo {
  readonly #podFigures = new WeakMap<CgroupRef, PodFigures>();
  readonly #containerFigures = new WeakMap<CgroupRef, ContainerFigures>();
  readonly #entries = new WeakMap<ActivePodInfo, LastEntry>();
  /**
   * Disk figures are reused for a walk period, so their few distinct times are formatted once, not
   * for every pod on every read. Emptied when it grows past a node's worth.
   */
  readonly #stamps = new Map<bigint, string>();
  readonly #stamp = (atNs: bigint): string => {
    let text = this.#stamps.get(atNs);
    if (text === undefined) {
      if (this.#stamps.size >= MAX_STAMPS) this.#stamps.clear();
      text = formatRfc3339Nano(atNs);
      this.#stamps.set(atNs, text);
    }
    return text;
  };

  /** The pod cgroup's last figures, if it was read. */
  podFigures(podCgroup: CgroupRef): PodFigures | undefined {
    return this.#podFigures.get(podCgroup);
  }

  rememberPodFigures(podCgroup: CgroupRef, figures: PodFigures): void {
    this.#podFigures.set(podCgroup, figures);
  }

  /** The container cgroup's last memory figures, if they were read. */
  containerFigures(cgroup: CgroupRef): ContainerFigures | undefined {
    return this.#containerFigures.get(cgroup);
  }

  rememberContainerFigures(cgroup: CgroupRef, figures: ContainerFigures): void {
    this.#containerFigures.set(cgroup, figures);
  }

  /** Forgets a container cgroup's figures (it could not be read: the next read tries again). */
  forgetContainerFigures(cgroup: CgroupRef): void {
    this.#containerFigures.delete(cgroup);
  }

  /**
   * When the oldest of `pod`'s figures was read: its cgroup's and those of each container in a
   * cgroup. Undefined when one of them never was. Allocates nothing: a housekeeping read asks it of
   * every pod.
   */
  oldestReadAtNs(pod: ActivePodInfo, podCgroup: CgroupRef): bigint | undefined {
    let oldest = this.#podFigures.get(podCgroup)?.atNs;
    if (oldest === undefined) return undefined;
    for (const c of pod.containers) {
      if (c.cgroup === undefined) continue;
      const atNs = this.#containerFigures.get(c.cgroup)?.atNs;
      if (atNs === undefined) return undefined;
      if (atNs < oldest) oldest = atNs;
    }
    return oldest;
  }

  /** The pod's last Summary entry, if it has one. */
  lastEntry(pod: ActivePodInfo): PodJson | undefined {
    return this.#entries.get(pod)?.entry;
  }

  /**
   * The pod's Summary API entry from `live` and its disk use `disk` (reported against `fs`): the
   * last one again while everything it was built from is the same (a housekeeping read reuses pod
   * figures for a refresh period, and disk figures until the next walk); otherwise a new entry,
   * sharing with the last one the parts that did not change (podRef, containers, disk).
   */
  entry(pod: ActivePodInfo, live: PodLive, disk: PodDisk | undefined, fs: FilesystemStats): PodJson {
    const last = this.#entries.get(pod);
    // Compared in place: on a quiet node every pod's entry is reused, and this runs for each of
    // them on every housekeeping read, so it allocates nothing.
    const sameParts =
      last !== undefined &&
      last.disk === disk &&
      last.fs === fs &&
      sameContainerMemory(last.containerMemory, pod, live.containers);
    if (sameParts && last.memory === live.memory && last.count === live.processCount) return last.entry;
    const containerMemory = sameParts
      ? last.containerMemory
      : pod.containers.map((c) => live.containers.get(c.name));
    const parts = sameParts ? last.parts : podParts(pod, containerMemory, disk, fs, this.#stamp);
    const entry: PodJson = { ...parts };
    if (live.memory !== undefined) entry.memory = live.memory;
    if (live.processCount !== undefined) entry.process_stats = { process_count: counter(live.processCount) };
    this.#entries.set(pod, {
      containerMemory,
      disk,
      fs,
      parts,
      memory: live.memory,
      count: live.processCount,
      entry,
    });
    return entry;
  }
}

/** Container name → memory figures, for the containers that have them. */
export function containerMap(
  pod: ActivePodInfo,
  figures: readonly (MemoryJson | undefined)[],
): ReadonlyMap<string, MemoryJson> {
  const map = new Map<string, MemoryJson>();
  pod.containers.forEach((c, i) => {
    const f = figures[i];
    if (f !== undefined) map.set(c.name, f);
  });
  return map;
}

/** The pod's entry but for its memory and process figures: identity, containers and disk use. */
function podParts(
  pod: ActivePodInfo,
  containerMemory: readonly (MemoryJson | undefined)[],
  disk: PodDisk | undefined,
  nodeFs: FilesystemStats,
  stamp: (atNs: bigint) => string,
): PodParts {
  const ns = stamp;
  const containers = pod.containers.map((c, i): ContainerJson => {
    const out: ContainerJson = { name: c.name };
    if (c.startTime !== undefined) out.startTime = formatRfc3339Ms(c.startTime);
    const memory = containerMemory[i];
    if (memory !== undefined) out.memory = memory;
    const rootfs = disk?.rootfs.get(c.name);
    if (rootfs !== undefined) out.rootfs = fsJson(nodeFs, ns(rootfs.atNs), rootfs.bytes, rootfs.inodes);
    const logs = disk?.logs.get(c.name);
    if (logs !== undefined) out.logs = fsJson(nodeFs, ns(logs.atNs), logs.bytes, logs.inodes);
    return out;
  });
  const volumes: VolumeJson[] = [];
  for (const v of pod.volumes) {
    const u = disk?.volumes.get(v.name);
    if (u !== undefined)
      volumes.push({ ...fsJson(u.ownFs ?? nodeFs, ns(u.atNs), u.bytes, u.inodes), name: v.name });
  }
  const out: PodParts = { podRef: { name: pod.name, namespace: pod.namespace, uid: pod.uid }, containers };
  if (pod.startTime !== undefined) out.startTime = formatRfc3339Ms(pod.startTime);
  if (volumes.length > 0) out.volume = volumes;
  if (disk !== undefined)
    out["ephemeral-storage"] = fsJson(
      nodeFs,
      ns(disk.ephemeral.atNs),
      disk.ephemeral.bytes,
      disk.ephemeral.inodes,
    );
  return out;
}

/** Whether `pod`'s containers have in `containers` the very figures `memo` (one per container, in order) holds. */
function sameContainerMemory(
  memo: readonly (MemoryJson | undefined)[],
  pod: ActivePodInfo,
  containers: ReadonlyMap<string, MemoryJson>,
): boolean {
  const list = pod.containers;
  if (memo.length !== list.length) return false;
  for (let i = 0; i < list.length; i++) {
    if (memo[i] !== containers.get((list[i] as ActivePodInfo["containers"][number]).name)) return false;
  }
  return true;
}
