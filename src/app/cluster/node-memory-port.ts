/**
 * The port `watch --stats cgroups` reads memory through: the kubelet's own cgroups on this node,
 * read the moment the loop asks, instead of the Summary API's figures of up to a housekeeping
 * interval ago. Figures are Summary `MemoryStats` objects (the kubelet's field names), stamped with
 * the time they were read.
 */
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import type { StatsScope } from "../ports.js";

/** `MemoryStats` as the Summary API writes it. */
export interface MemoryStatsJson {
  readonly time: string;
  readonly usageBytes: number | bigint;
  /** Left out of a memory wake's pod figures: usage alone bounds it (see app/loop/bounded-memory-pick). */
  readonly workingSetBytes?: number | bigint;
  /** Where a limit exists: the limit (the machine's memory for the root) − working set. */
  readonly availableBytes?: number | bigint;
}

/** One pod's memory: its pod cgroup, and its containers' cgroups by container id. */
export interface PodMemory {
  readonly memory: MemoryStatsJson;
  readonly containersById: ReadonlyMap<string, MemoryStatsJson>;
}

/** What one read gives: the node (`memory.available`), kubepods (`allocatableMemory.available`), each pod by UID. */
export interface NodeLocalMemory {
  readonly node: MemoryStatsJson;
  /** The kubepods cgroup, the Summary's `pods` system container. */
  readonly pods: MemoryStatsJson;
  readonly podsByUid: ReadonlyMap<string, PodMemory>;
  /**
   * A memory wake on a large node: the pods it left unread (their Summary entries stand, as old as
   * they are) and the bound on the usage of each, kubepods' usage less the usage of the pods read.
   */
  readonly unread?: UnreadPods;
}

export interface NodeMemoryReadOptions {
  /**
   * The pods a memory wake may leave unread: those with an entry in the Summary it is merged into
   * (the engine ranks an unread pod at the bound through that entry; a pod without one must be
   * read). None when absent.
   */
  readonly mayStayUnread?: ReadonlySet<string>;
}

export interface NodeMemoryPort {
  /** Where the figures come from, for the capability line (`cgroup v2 at /sys/fs/cgroup, systemd driver`). */
  readonly describe: string;
  /**
   * Reads now. `all` and `node` (housekeeping) also look for pod cgroups that appeared and read
   * every pod and container in full; a memory wake reads the node and kubepods in full and each known pod's
   * usage alone (its working set's upper bound; the picked pods are then read with `readPods`), or
   * on a node of more than a few pods the largest of them until kubepods' usage bounds the rest
   * (`unread`; linux/node-stats/partial-usage-read.ts).
   * `uids` are the pods the API says are on the node: one not yet known makes the read look for it.
   */
  read(scope: StatsScope, uids: readonly string[], options?: NodeMemoryReadOptions): NodeLocalMemory;
  /** The named pods read in full (working sets, containers), those whose cgroup is gone left out. */
  readPods(uids: readonly string[]): ReadonlyMap<string, PodMemory>;
  /** The named pods' usage alone, as a memory wake reads it; those whose cgroup is gone left out. */
  readUsages(uids: readonly string[]): ReadonlyMap<string, PodMemory>;
  /**
   * The node's memory three ways, read now: the kubelet's formula, the kernel's MemAvailable and a
   * working set with kernel memory in it (core/memory/node-memory-views.ts), for /status and
   * `explain` to show beside `memory.available`; never an input to a decision. Undefined when
   * they cannot be read; absent where the port cannot tell.
   */
  readNodeMemoryViews?(): NodeMemoryViewsReading | undefined;
}
