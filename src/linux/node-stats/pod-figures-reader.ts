/**
 * Each pod's memory and process figures for the stats collector: from its pod and container
 * cgroups, read synchronously through kept-open descriptors, or, without cgroups, from its
 * containers' process trees in /proc (statm RSS, thread totals). What it reads it remembers in the
 * collector's {@link PodEntryMemo}, for the reads that reuse figures within the refresh period, and
 * each pod's memory usage, for a memory wake's read order (partial-usage-read.ts).
 *
 * A pod's `process_count` is its cgroup's `pids.current` (tasks, the unit the pids limit counts),
 * or the number of processes in it without a pids controller, or the thread total of its process
 * tree without cgroups. A pod whose cgroup or files vanish mid-read (it is terminating) is reported
 * without the figures that could not be read.
 */
import { formatRfc3339Nano } from "../../core/time/rfc3339.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import {
  readPidsCurrent,
  readUsage,
  readWorkingSet,
  type KnownLimits,
  type ReadText,
  type WorkingSetReading,
} from "./cgroup-stats-reader.js";
import { unlessCgroupGone, unlessCgroupGoneAsync, type CgroupStatsReader } from "./collector-cgroups.js";
import { containerMap, type PodEntryMemo, type PodLive } from "./pod-entry-memo.js";
import { ProcessTable } from "./process-table.js";
import { dueForRefresh } from "./refresh-schedule.js";
import { counter, memoryJson, type MemoryJson } from "./summary-json.js";
import type { NsClock } from "./usage-cache.js";

/**
 * How a collection reads each pod's cgroup: everything (`fresh`), the figures of the last read while
 * the refresh period lasts (`reuse`), or its memory usage alone (`usage`).
 */
export type PodRead = "fresh" | "reuse" | "usage";

export interface PodFiguresReaderOptions {
  /** The cgroup driver; absent when running without cgroups. */
  readonly driver: CgroupStatsReader | undefined;
  /** Where procfs is mounted. */
  readonly procRoot: string;
  readonly clock: NsClock;
  /** Reads a cgroup file (the collector's kept-open descriptors). */
  readonly read: ReadText;
  /** The memory limits the collector's read reuses or reads again (shared with the node's reads). */
  readonly limits: KnownLimits;
  readonly memo: PodEntryMemo;
  /** The base page size statm counts in (asked only for a pod without cgroups). */
  readonly pageSize: () => number;
}

/** A pod cgroup's memory as a read found it, and the working set (or its upper bound) it stands for. */
export interface PodMemoryRead {
  readonly memory: MemoryJson | undefined;
  readonly workingSetBytes: bigint;
}

/** Reads pods' memory and process figures, remembering them for the reads that follow. */
export class PodFiguresReader {
  readonly #driver: CgroupStatsReader | undefined;
  readonly #procRoot: string;
  readonly #clock: NsClock;
  readonly #read: ReadText;
  readonly #limits: KnownLimits;
  readonly #memo: PodEntryMemo;
  readonly #pageSize: () => number;
  /** Each pod cgroup's memory usage as last read (usage alone or in full), to order a memory wake's reads. */
  readonly #lastUsage = new WeakMap<CgroupRef, bigint>();

  constructor(options: PodFiguresReaderOptions) {
    this.#driver = options.driver;
    this.#procRoot = options.procRoot;
    this.#clock = options.clock;
    this.#read = options.read;
    this.#limits = options.limits;
    this.#memo = options.memo;
    this.#pageSize = options.pageSize;
  }

  /** The pod cgroup's memory usage as last read, if it was. */
  lastUsage(podCgroup: CgroupRef): bigint | undefined {
    return this.#lastUsage.get(podCgroup);
  }

  /**
   * A pod's figures read synchronously from its cgroups, or undefined when this pod needs an
   * asynchronous read ({@link read}: no cgroups, or no pids controller and a count to take).
   * Figures read after `reuseAfterNs` are reused as `podRead` allows; a housekeeping read whose
   * figures are all reused hands out the same object again.
   */
  readNow(pod: ActivePodInfo, reuseAfterNs: bigint, podRead: PodRead, passTime: string): PodLive | undefined {
    const driver = this.#driver;
    const podCgroup = pod.cgroup;
    if (driver === undefined || podCgroup === undefined) return undefined;
    const known = this.#memo.podFigures(podCgroup);
    if (!driver.hasPids && (podRead === "fresh" || known?.count === undefined)) return undefined;
    // A housekeeping read of a pod whose figures are all reused: the same object again, found
    // without allocating (on a quiet node this is most pods on every step).
    if (
      podRead === "reuse" &&
      known?.live !== undefined &&
      !dueForRefresh(this.#memo.oldestReadAtNs(pod, podCgroup), reuseAfterNs)
    )
      return known.live;
    const containerFigures: (MemoryJson | undefined)[] = [];
    let containersReused = true;
    for (const c of pod.containers) {
      const cgroup = c.cgroup;
      if (cgroup === undefined) {
        containerFigures.push(undefined);
        continue;
      }
      const seen = this.#memo.containerFigures(cgroup);
      if (seen !== undefined && !dueForRefresh(seen.atNs, reuseAfterNs)) containerFigures.push(seen.figures);
      else {
        containersReused = false;
        containerFigures.push(this.readContainer(cgroup));
      }
    }
    if (podRead === "reuse" && known !== undefined && !dueForRefresh(known.atNs, reuseAfterNs)) {
      // Here some container was read again, or the pod's figures were never handed out as one object.
      const live: PodLive = {
        memory: known.memory,
        containers: containerMap(pod, containerFigures),
        processCount: known.count === undefined ? undefined : BigInt(known.count),
        workingSetBytes: known.workingSetBytes,
      };
      if (containersReused) this.#memo.rememberPodFigures(podCgroup, { ...known, live });
      return live;
    }
    const containers = containerMap(pod, containerFigures);
    if (podRead === "usage") {
      const { memory, workingSetBytes } = this.readUsage(podCgroup, passTime);
      // A memory decision ranks by memory alone: the pod's task count is the last one read (a
      // `pids.current` per pod is a sizeable share of a large node's wake reads; docs/benchmarks.md,
      // "Figures behind design choices"), unless it was never read.
      const count = known?.count ?? this.readPids(podCgroup);
      return {
        memory,
        containers,
        processCount: count === undefined ? undefined : BigInt(count),
        // Unused with cgroups (the pods cgroup is read); the bound, not the working set.
        workingSetBytes,
      };
    }
    const count = driver.hasPids ? this.readPids(podCgroup) : known?.count;
    const live = this.readInFull(podCgroup, count);
    return {
      memory: live.memory,
      containers,
      processCount: count === undefined ? undefined : BigInt(count),
      workingSetBytes: live.workingSetBytes,
    };
  }

  /**
   * A pod's figures when {@link readNow} cannot read them synchronously: from its cgroups with an
   * asynchronous task count, or without cgroups from its containers' process trees in `table`
   * (read now when not given).
   */
  async read(
    pod: ActivePodInfo,
    table: ProcessTable | undefined,
    podRead: PodRead,
    passTime: string,
  ): Promise<PodLive> {
    const driver = this.#driver;
    if (driver !== undefined && pod.cgroup !== undefined)
      return this.#readFromCgroups(pod, pod.cgroup, driver, podRead, passTime);
    // Without cgroups: the pod is its containers' process trees.
    const procs = table ?? ProcessTable.read(this.#procRoot);
    const pageSize = this.#pageSize();
    const trees = pod.containers.map((c) => procs.tree(c.pids ?? []));
    const rss = trees.map((pids) => procs.residentBytes(pids, pageSize));
    const time = this.#time();
    const rssJson = (bytes: bigint): MemoryJson => ({
      ...memoryJson(time, bytes, bytes, undefined),
      rssBytes: counter(bytes),
    });
    const containers = new Map<string, MemoryJson>();
    pod.containers.forEach((c, i) => containers.set(c.name, rssJson(rss[i] ?? 0n)));
    const podRss = rss.reduce((sum, b) => sum + b, 0n);
    return {
      memory: rssJson(podRss),
      containers,
      processCount: BigInt(procs.tasks(procs.tree(trees.flat()))),
      workingSetBytes: podRss,
    };
  }

  /**
   * On a memory wake, the pod whose usage grew most since it was last read in full is read in full
   * now: the pod that crossed the threshold is most often the one a decision picks, and the loop
   * then decides once instead of twice (bounded-memory-pick.ts; any pod would be correct, this one
   * saves a round). `lives` holds the wake's figures of `pods`, by index; the grown pod's are
   * replaced.
   */
  readGrowingPod(pods: readonly ActivePodInfo[], lives: PodLive[]): void {
    if (this.#driver === undefined) return;
    let best = -1;
    let bestGrowth = 0n;
    for (let i = 0; i < pods.length; i++) {
      const cgroup = pods[i]?.cgroup;
      const usage = lives[i]?.memory?.usageBytes;
      if (cgroup === undefined || usage === undefined) continue;
      const before = this.#memo.podFigures(cgroup)?.memory?.usageBytes;
      const growth = BigInt(usage) - BigInt(before ?? 0);
      if (growth > bestGrowth) {
        best = i;
        bestGrowth = growth;
      }
    }
    const pod = pods[best];
    const live = lives[best];
    if (pod?.cgroup === undefined || live === undefined) return;
    const count = live.processCount === undefined ? undefined : Number(live.processCount);
    const full = this.readInFull(pod.cgroup, count);
    lives[best] = { ...live, memory: full.memory, workingSetBytes: full.workingSetBytes };
  }

  /**
   * One pod cgroup's memory (with its working set), read now and remembered with `count` for the
   * reads that may reuse them.
   */
  readInFull(podCgroup: CgroupRef, count: number | undefined): PodMemoryRead {
    const driver = this.#cgroupDriver;
    const atNs = this.#clock.nowNs();
    const memory = unlessCgroupGone(() => readWorkingSet(driver, podCgroup, this.#read, this.#limits));
    const memoryFigures =
      memory === undefined ? undefined : cgroupMemoryJson(memory, formatRfc3339Nano(atNs));
    const workingSetBytes = memory?.workingSetBytes ?? 0n;
    if (memory !== undefined) this.#lastUsage.set(podCgroup, memory.usageBytes);
    this.#memo.rememberPodFigures(podCgroup, { memory: memoryFigures, count, workingSetBytes, atNs });
    return { memory: memoryFigures, workingSetBytes };
  }

  /**
   * A pod cgroup's memory usage alone, read now and remembered for the next wake's read order: its
   * usage-only figure (undefined when it cannot be read) and the working set's upper bound.
   */
  readUsage(podCgroup: CgroupRef, passTime: string): PodMemoryRead {
    const driver = this.#cgroupDriver;
    const usage = unlessCgroupGone(() => readUsage(driver, podCgroup, this.#read));
    if (usage === undefined) return { memory: undefined, workingSetBytes: 0n };
    this.#lastUsage.set(podCgroup, usage);
    return { memory: { time: passTime, usageBytes: counter(usage) }, workingSetBytes: usage };
  }

  /** One container cgroup's memory, read now and remembered for the reads that follow. */
  readContainer(cgroup: CgroupRef): MemoryJson | undefined {
    const driver = this.#cgroupDriver;
    const r = unlessCgroupGone(() => readWorkingSet(driver, cgroup, this.#read, this.#limits));
    if (r === undefined) {
      this.#memo.forgetContainerFigures(cgroup);
      return undefined;
    }
    const atNs = this.#clock.nowNs();
    const figures = cgroupMemoryJson(r, formatRfc3339Nano(atNs));
    this.#memo.rememberContainerFigures(cgroup, { figures, atNs });
    return figures;
  }

  /** A pod cgroup's `pids.current` (undefined when it is gone or there is no pids controller). */
  readPids(podCgroup: CgroupRef): number | undefined {
    const driver = this.#cgroupDriver;
    return unlessCgroupGone(() => readPidsCurrent(driver, podCgroup, this.#read));
  }

  /** A pod in cgroups without the pids controller: its count is an asynchronous listing of its subtree. */
  async #readFromCgroups(
    pod: ActivePodInfo,
    podCgroup: CgroupRef,
    driver: CgroupStatsReader,
    podRead: PodRead,
    passTime: string,
  ): Promise<PodLive> {
    const containers = containerMap(
      pod,
      pod.containers.map((c) => (c.cgroup === undefined ? undefined : this.readContainer(c.cgroup))),
    );
    const count = await this.#tasks(driver, podCgroup);
    const { memory, workingSetBytes } =
      podRead === "usage" ? this.readUsage(podCgroup, passTime) : this.readInFull(podCgroup, count);
    return {
      memory,
      containers,
      processCount: count === undefined ? undefined : BigInt(count),
      workingSetBytes,
    };
  }

  /** Tasks in a pod cgroup: `pids.current`, or without a pids controller the processes listed in its subtree. */
  async #tasks(driver: CgroupStatsReader, podCgroup: CgroupRef): Promise<number | undefined> {
    return driver.hasPids
      ? this.readPids(podCgroup)
      : (await unlessCgroupGoneAsync(() => driver.procs(podCgroup, { recursive: true })))?.length;
  }

  /** The driver, for the reads only a pod in cgroups is asked for (the collector has cgroups then). */
  get #cgroupDriver(): CgroupStatsReader {
    return this.#driver as CgroupStatsReader;
  }

  #time(): string {
    return formatRfc3339Nano(this.#clock.nowNs());
  }
}

/** Memory of a cgroup; `availableBytes` only when it has a limit, as cAdvisor reports it. */
function cgroupMemoryJson(r: WorkingSetReading, time: string): MemoryJson {
  return memoryJson(time, r.usageBytes, r.workingSetBytes, r.limitBytes);
}
