/**
 * The Linux stats source: the node's real memory, disk, inode and PID figures assembled into a
 * kubelet Summary API object (stats/v1alpha1), the same input the engine takes in replay.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { AdapterError, errnoCode } from "../../errors.js";
import type { CgroupDirectories, CgroupDriver, CgroupRef, NodeCgroups } from "../cgroups/cgroup-driver.js";
import type { EpochMs } from "../../core/model.js";
import type { NodeSpec } from "../../core/node/node-spec.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import {
  countsDescendants,
  readPidsCurrent,
  readUsage,
  readWorkingSet,
  type KnownLimits,
  type ReadText,
  type WorkingSetReading,
} from "./cgroup-stats-reader.js";
import { KernelFileReader } from "./kernel-file-reader.js";
import { statFilesystem, type FilesystemStats } from "./filesystem-stats.js";
import { NanoClock } from "./nano-clock.js";
import { MIN_PODS_READ, readLargestFirst } from "./partial-usage-read.js";
import { PodDiskMeter, type PodDisk } from "./pod-disk-meter.js";
import { ProcessTable } from "./process-table.js";
import { parseKernelInteger, parseKernelPageSize, parseLoadavg, parseMeminfo } from "../procfs.js";
import { formatRfc3339Ms, formatRfc3339Nano } from "../../core/time/rfc3339.js";
import {
  counter,
  fsJson,
  memoryJson,
  type ContainerJson,
  type MemoryJson,
  type PodJson,
  type RawSummaryJson,
  type RlimitJson,
  type VolumeJson,
} from "./summary-json.js";
import type { NsClock } from "./usage-cache.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { readNodeMemoryViews } from "./node-memory-views-reader.js";
import { mapConcurrently } from "./map-concurrently.js";

/** The part of the cgroup driver the collector reads through. */
export type CgroupStatsReader = Pick<CgroupDriver, "api" | "hasPids" | "directories" | "procs">;

/** The node facts the collector needs (a subset of the node file). */
export type CollectorNodeSpec = Pick<
  NodeSpec,
  "name" | "capacity" | "podsMemoryLimitBytes" | "stateDir" | "imagefsDir"
>;

export interface LinuxSummaryCollectorOptions {
  readonly node: CollectorNodeSpec;
  /** The node's cgroups and the driver that locates them; absent when running without cgroups. */
  readonly cgroups?: { readonly driver: CgroupStatsReader; readonly node: NodeCgroups };
  /** Where procfs is mounted (default `/proc`; tests point it at a fixture tree). */
  readonly procRoot?: string;
  /**
   * The shortest time a directory walk or a container's memory figures are reused for (default
   * 1000 ms). Node and pod memory and PIDs are read fresh every time.
   */
  readonly diskTtlMs?: number;
  /**
   * How much longer, per pod, that reuse lasts on a larger node (default 100 ms): figures the
   * ranking does not use are refreshed every max(diskTtlMs, pods × this), so their cost per second
   * stays the same at 5 pods and at 110 (1 s and 11 s).
   */
  readonly refreshPerPodMs?: number;
  /**
   * The same for the pods' directory walks (default 300 ms), up to a period of 60 s (or
   * `diskTtlMs` if longer): walks repeat every pods × this, kept between diskTtlMs and 60 s, 1.5 s
   * at 5 pods, 30 s at 100, 60 s from 200 on. See {@link LinuxSummaryCollector.walkPeriodMs}.
   */
  readonly walkPerPodMs?: number;
  /** Entries one directory walk may visit before it stops (default 200 000). */
  readonly maxWalkEntries?: number;
  /**
   * Whether a memory wake may leave pods unread, bounding their usage by the pods cgroup's instead
   * ({@link CollectOptions.memoryOnly}; default true). False reads every pod's usage on every wake.
   */
  readonly partialWakeReads?: boolean;
  /** Base page size for statm; read from `<procRoot>/self/smaps` when absent. */
  readonly pageSize?: number;
  /** The node's `startTime` (default: when the collector was made). */
  readonly startTime?: EpochMs;
  readonly clock?: NsClock;
}

/** Disk figures of one collection: the filesystems, each pod's use (in `collect`'s order and by UID). */
interface LastDisk {
  readonly nodeFs: FilesystemStats;
  /**
   * nodefs as it was when the pods' directories were last walked: their figures are reported
   * against it (capacity and available bytes as of their own time, as the kubelet's cached volume
   * stats are), so a pod's entry stays the same object from one read to the next until its next
   * walk, and the decoder neither checks nor builds it again.
   */
  readonly walkFs: FilesystemStats;
  readonly imageFs: FilesystemStats | undefined;
  /** Undefined for a pod that arrived after the last measurement (a memory wake does not walk it). */
  readonly disks: readonly (PodDisk | undefined)[];
  readonly fsTime: string;
  /** `fsTime` in epoch ns, to tell which of two measurements read the filesystems last. */
  readonly fsAtNs: bigint;
  readonly byPod: ReadonlyMap<string, PodDisk>;
  /** When the pods' directories were last walked (epoch ns); the filesystems are read on every measurement. */
  readonly walkedAtNs: bigint;
}

/**
 * What one disk measurement does with the pods' directories: walk them (renewing the refresh
 * period, or keeping `walkedAtNs` when only a new pod needs a walk), or report `from`'s use again.
 */
type DiskPlan =
  { readonly walk: true; readonly walkedAtNs?: bigint } | { readonly walk: false; readonly from: LastDisk };

/** How fresh one collection must be. */
export interface CollectOptions {
  /**
   * A memory wake: the node's memory and PIDs are read fresh, and in cgroups each pod's memory
   * usage alone, without `memory.stat`, so its entry has `usageBytes` and no
   * `workingSetBytes` (usage is the working set's upper bound; the engine ranks a pod whose working
   * set is not reported as using none, as upstream does a nil pointer). The pods a decision picks
   * are then read in full ({@link refreshPods}); see `bounded-memory-pick.ts` for why that finds
   * the pod a complete read would. The last disk measurements, memory limits and container memory
   * figures are reused whatever their age, each with the time it was read at (no directory walk, no
   * statfs, no thread-pool round trip), and so are the pods' task counts: only a PID ranking reads
   * them, and a decision from this read that would evict for anything but memory is made again from
   * a complete read (app/loop/eviction-loop.ts).
   *
   * On a node of more than a few pods, those whose usage was largest are read and the rest may be
   * left unread, their usage bounded by the pods cgroup's instead (partial-usage-read.ts): their
   * entries are the last read's, each figure with the time it was read at, and
   * {@link unreadPods} names them with the bound.
   */
  readonly memoryOnly?: boolean;
  /**
   * A housekeeping read: the node's own figures fresh, and each pod's memory and PIDs reused for
   * the refresh period like its containers' (each stamped with the time it was read at). Nothing
   * but a ranking needs pod figures, so a caller whose decision would evict reads again without it.
   */
  readonly reusePods?: boolean;
}

/**
 * How a collection reads each pod's cgroup: everything (`fresh`), the figures of the last read while
 * the refresh period lasts (`reuse`), or its memory usage alone (`usage`).
 */
type PodRead = "fresh" | "reuse" | "usage";

/** A pod's memory and process figures (from cgroups or /proc). */
interface PodLive {
  readonly memory: MemoryJson | undefined;
  readonly containers: ReadonlyMap<string, MemoryJson>;
  readonly processCount: bigint | undefined;
  /** Working set charged to the pod, for the `pods` system container without cgroups. */
  readonly workingSetBytes: bigint;
}

/**
 * Builds a Summary API object from the real system. Where the figures come from:
 *
 * - `node.memory`: with cgroups, the node cgroup, exactly as the kubelet derives it from the root
 *   cgroup: working set = usage − inactive_file, available = limit − working set (clamped at 0),
 *   limit = the node cgroup's limit (the node's memory capacity). Without cgroups, /proc/meminfo:
 *   working set = MemTotal − MemAvailable (the kernel's own estimate of what cannot be reclaimed
 *   cheaply; usage − Inactive(file) on kernels before 3.14), available = MemAvailable, usage =
 *   MemTotal − MemFree. Without a node cgroup nothing caps the node below the machine, so the
 *   machine's memory is what runs out, and `capacity.memory` bounds only the pods' budget.
 * - `systemContainers[pods]`: the pods (allocatable) cgroup the same way, its limit being
 *   capacity − reservations. Without cgroups: the pods' resident memory added up, against
 *   `podsMemoryLimitBytes`.
 * - `fs` = statfs of stateDir (nodefs); `runtime.imageFs` = statfs of imagefsDir, or the same as
 *   `fs` without one; `runtime.containerFs` = `fs`, because writable directories live on nodefs:
 *   with an imagefsDir this is upstream's split layout (images apart, writable layers on nodefs).
 * - `rlimit`: with a `capacity.pids` the node's PID budget is its cgroup: maxpid = capacity.pids,
 *   curproc = the node cgroup's `pids.current` (or, without a pids controller or cgroups, the pods'
 *   process counts added up). Otherwise upstream's host view: maxpid = min(pid_max, threads-max),
 *   curproc = the task total from /proc/loadavg.
 * - pods: memory from the pod and container cgroups (or statm RSS of each container's process
 *   tree); `process_count` = the pod cgroup's `pids.current` (tasks, the unit the pids limit
 *   counts), or the number of processes in it without a pids controller, or the thread total of its
 *   process tree without cgroups; disk from {@link PodDiskMeter}.
 *
 * Time stamps carry nanoseconds (see `formatRfc3339Nano`); cached disk figures keep the time they
 * were measured at. Node-level failures throw `AdapterError`; a pod whose cgroup or files vanish
 * mid-collection (it is terminating) is reported without the figures that could not be read.
 *
 * cgroupfs and procfs files are read synchronously (kernel memory, no disk: about 10 µs each,
 * 100 times cheaper than the promise API); filesystems are read asynchronously.
 */
export class LinuxSummaryCollector {
  readonly #node: CollectorNodeSpec;
  readonly #cgroups: LinuxSummaryCollectorOptions["cgroups"];
  readonly #procRoot: string;
  readonly #clock: NsClock;
  readonly #startTime: string;
  readonly #disk: PodDiskMeter;
  /** cgroup interface files, read through descriptors kept open from one collection to the next. */
  readonly #files = new KernelFileReader();
  readonly #read: ReadText = (path) => this.#files.read(path);
  /** Memory limits by cgroup: read on every full collection, reused on a memory wake. */
  readonly #limits: KnownLimits = { byDir: new Map(), reuse: false };
  /** The last disk figures measured: what a read reports, with the times they carry. */
  #lastDisk: LastDisk | undefined;
  /** The disk measurement under way in the background, if any. */
  #measuring: Promise<LastDisk> | undefined;
  #pageSize: number | undefined;
  /** Each pod cgroup's last memory and PID figures and when they were read (epoch ns). */
  readonly #podFigures = new WeakMap<
    CgroupRef,
    {
      readonly memory: MemoryJson | undefined;
      readonly count: number | undefined;
      readonly workingSetBytes: bigint;
      readonly atNs: bigint;
      /** The figures as a housekeeping read reuses them, once built (with its containers' reused figures). */
      readonly live?: PodLive;
    }
  >();
  /** Each container cgroup's last memory figures and when they were read (epoch ns). */
  readonly #containerMemory = new WeakMap<
    CgroupRef,
    { readonly figures: MemoryJson; readonly atNs: bigint }
  >();
  readonly #minRefreshMs: number;
  /**
   * Disk figures are reused for a refresh period, so their few distinct times are formatted once,
   * not for every pod on every read. Emptied when it grows past a node's worth.
   */
  readonly #stamps = new Map<bigint, string>();
  readonly #stamp = (atNs: bigint): string => {
    let text = this.#stamps.get(atNs);
    if (text === undefined) {
      if (this.#stamps.size >= 4096) this.#stamps.clear();
      text = formatRfc3339Nano(atNs);
      this.#stamps.set(atNs, text);
    }
    return text;
  };
  /** When the kept-open descriptors were last swept. */
  #sweptAtNs = 0n;
  /** Each pod's last Summary entry and what it was built from (see {@link #podEntry}). */
  readonly #podEntries = new WeakMap<ActivePodInfo, PodEntryMemo>();
  /** Each pod cgroup's memory usage as last read (usage alone or in full), to order a memory wake's reads. */
  readonly #lastUsage = new WeakMap<CgroupRef, bigint>();
  /** The pods a memory wake's Summary left unread, with their bound (see {@link unreadPods}). */
  readonly #unread = new WeakMap<RawSummaryJson, UnreadPods>();
  readonly #partialWakeReads: boolean;
  /** When the last housekeeping read began (see {@link #refreshBudget}). */
  #housekeptAtNs: bigint | undefined;
  /** Whether the pods cgroup's usage counts the pods' pages (read once; see `countsDescendants`). */
  #podsCountDescendants: boolean | undefined;
  readonly #refreshPerPodMs: number;
  readonly #walkPerPodMs: number;

  constructor(options: LinuxSummaryCollectorOptions) {
    this.#node = options.node;
    this.#cgroups =
      options.cgroups === undefined
        ? undefined
        : { driver: withRememberedDirectories(options.cgroups.driver), node: options.cgroups.node };
    this.#procRoot = options.procRoot ?? "/proc";
    this.#clock = options.clock ?? new NanoClock();
    this.#pageSize = options.pageSize;
    this.#minRefreshMs = options.diskTtlMs ?? 1000;
    this.#refreshPerPodMs = options.refreshPerPodMs ?? 100;
    this.#walkPerPodMs = options.walkPerPodMs ?? 300;
    this.#partialWakeReads = options.partialWakeReads ?? true;
    this.#disk = new PodDiskMeter(this.#minRefreshMs, this.#clock, options.maxWalkEntries ?? 200_000);
    this.#startTime = formatRfc3339Ms(options.startTime ?? Number(this.#clock.nowNs() / 1_000_000n));
  }

  /**
   * One Summary API object for the node and `pods`, in the order given. The node's and every pod's
   * memory and PIDs are always fresh. Container memory and disk figures are reused for the refresh
   * period (see {@link refreshPeriodMs}), or whatever their age with `memoryOnly`, each stamped with
   * the time it was measured at (a pod measured never yet has no disk figures on a memory wake, as
   * a pod the kubelet's stats have not caught up with).
   */
  async collect(pods: readonly ActivePodInfo[], options: CollectOptions = {}): Promise<RawSummaryJson> {
    // Memory and PIDs first, all within a few milliseconds of each other.
    const cgroups = this.#cgroups;
    const memoryOnly = options.memoryOnly === true;
    this.#limits.reuse = memoryOnly;
    if (!this.#limits.reuse) this.#limits.byDir.clear();
    const refreshMs = this.refreshPeriodMs(pods.length);
    const walkMs = this.walkPeriodMs(pods.length);
    this.#disk.ttlMs = walkMs;
    // Container figures read after this are reused; memory wakes reuse any.
    const nowNs = this.#clock.nowNs();
    const reuseAfterNs = memoryOnly ? -1n : nowNs - BigInt(refreshMs) * 1_000_000n;
    const withoutCgroup = pods.some((p) => cgroups === undefined || p.cgroup === undefined);
    const table = withoutCgroup ? ProcessTable.read(this.#procRoot) : undefined;
    const podRead: PodRead = memoryOnly ? "usage" : options.reusePods === true ? "reuse" : "fresh";
    // Usage reads of a memory wake share the time the pass began (formatted and parsed once, not
    // 110 times; the pass takes about a millisecond).
    const passTime = this.#time();
    // Pods in cgroups are read synchronously (kernel files through kept-open descriptors); only a
    // pod without cgroups, or a count without the pids controller, waits for an asynchronous read.
    const lives: PodLive[] = new Array<PodLive>(pods.length);
    const waits: Promise<void>[] = [];
    let refreshes = podRead === "reuse" ? this.#refreshBudget(pods.length, nowNs, refreshMs) : Infinity;
    const readPod = (i: number): bigint | undefined => {
      const pod = pods[i] as ActivePodInfo;
      let reuseAfter = reuseAfterNs;
      if (podRead === "reuse" && this.#dueForRefresh(pod, reuseAfterNs)) {
        // Past this housekeeping read's share of the refreshes: this pod's figures wait for the next.
        if (refreshes > 0) refreshes--;
        else reuseAfter = -1n;
      }
      const now = this.#podLiveNow(pod, reuseAfter, podRead, passTime);
      if (now === undefined) {
        waits.push(this.#podLive(pod, table, reuseAfter, podRead, passTime).then((l) => void (lives[i] = l)));
        return undefined;
      }
      lives[i] = now;
      // Only a memory wake's read order (#readLargestPods) takes the usage read.
      return podRead !== "usage" || now.memory === undefined ? undefined : BigInt(now.memory.usageBytes);
    };
    const skipped = podRead === "usage" ? this.#readLargestPods(pods, readPod) : undefined;
    if (skipped === undefined) for (let i = 0; i < pods.length; i++) readPod(i);
    if (waits.length > 0) await Promise.all(waits);
    if (podRead === "usage") this.#readGrowingPod(pods, lives);
    const nodeMemory = this.#nodeMemory();
    const podsMemory = this.#podsMemory(lives);
    const rlimit = this.#rlimit(lives);

    const { nodeFs, walkFs, imageFs, disks, fsTime } = await this.#diskFor(
      pods,
      memoryOnly,
      walkMs,
      podRead === "fresh",
    );
    // Only full reads touch every file a pod has (its limits, and its containers' files once per
    // refresh period): descriptors unread for two periods belong to cgroups that are gone.
    const sweepNs = this.#clock.nowNs();
    if (!memoryOnly && sweepNs - this.#sweptAtNs >= 2n * BigInt(refreshMs) * 1_000_000n) {
      this.#files.sweep();
      this.#sweptAtNs = sweepNs;
    }
    const fs = fsJson(nodeFs, fsTime, nodeFs.usedBytes, nodeFs.inodesUsed);
    const image =
      imageFs === undefined ? { ...fs } : fsJson(imageFs, fsTime, imageFs.usedBytes, imageFs.inodesUsed);
    const raw: RawSummaryJson = {
      node: {
        nodeName: this.#node.name,
        startTime: this.#startTime,
        systemContainers: [{ name: "pods", startTime: this.#startTime, memory: podsMemory }],
        memory: nodeMemory,
        fs,
        runtime: { imageFs: image, containerFs: { ...fs } },
        rlimit,
      },
      pods: pods.map((pod, i) => {
        const live = lives[i];
        // A pod left unread keeps its last entry (see #readLargestPods: it has one).
        return live === undefined
          ? (this.#podEntries.get(pod) as PodEntryMemo).entry
          : this.#podEntry(pod, live, disks[i], walkFs);
      }),
    };
    if (skipped !== undefined && skipped.length > 0) {
      // The bound from the pods cgroup's usage read after the pods: a pod that grew meanwhile makes
      // it larger, never smaller than what is left for the pods not read.
      let readBytes = 0n;
      for (const live of lives) if (live?.memory !== undefined) readBytes += BigInt(live.memory.usageBytes);
      const podsUsage = BigInt(podsMemory.usageBytes);
      this.#unread.set(raw, {
        uids: new Set(skipped.map((i) => (pods[i] as ActivePodInfo).uid)),
        usageBoundBytes: podsUsage > readBytes ? podsUsage - readBytes : 0n,
      });
    }
    return raw;
  }

  /**
   * How many pods a housekeeping read at `nowNs` refreshes at most: its share of a refresh period,
   * `pods × (time since the last housekeeping read) / period`, rounded up. Pods read together (all
   * of them at start) would otherwise come due together, and every period one housekeeping step
   * would re-read the whole node (measured at 100 pods: 17 ms, on the loop thread a memory wake
   * waits behind) where the others read none. With the share, those that came due together are
   * refreshed over the next period (once: the last of them up to a period late), and from then on
   * the refreshes stay spread out, each pod's on the step it comes due.
   */
  #refreshBudget(pods: number, nowNs: bigint, refreshMs: number): number {
    const last = this.#housekeptAtNs;
    this.#housekeptAtNs = nowNs;
    if (last === undefined) return pods;
    const elapsedMs = Number(nowNs - last) / 1e6;
    return Math.max(1, Math.ceil((pods * elapsedMs) / refreshMs));
  }

  /** Whether `pod` has figures older than `reuseAfterNs` (or none): a housekeeping read would read it. */
  #dueForRefresh(pod: ActivePodInfo, reuseAfterNs: bigint): boolean {
    const cgroup = pod.cgroup;
    if (cgroup === undefined) return false;
    const known = this.#podFigures.get(cgroup);
    return known === undefined || known.atNs <= reuseAfterNs || !this.#containersReusable(pod, reuseAfterNs);
  }

  /**
   * The pods a memory wake's Summary `raw` left unread and the bound on their usage, or undefined
   * when it read them all (see {@link CollectOptions.memoryOnly}).
   */
  unreadPods(raw: RawSummaryJson): UnreadPods | undefined {
    return this.#unread.get(raw);
  }

  /**
   * A memory wake's pod reads on a node of more than a few pods: the pods in the order of
   * partial-usage-read.ts, through `readPod` (which returns the usage it read, if it could), until
   * the rest may stay unread. Returns the indices of the pods left unread, or undefined when every
   * pod must be read (a node of at most MIN_PODS_READ pods, no cgroups, a pod outside them, no pids
   * controller to count the node's tasks with, or a pods cgroup whose usage does not count its
   * pods'), and the caller reads them all.
   */
  #readLargestPods(
    pods: readonly ActivePodInfo[],
    readPod: (i: number) => bigint | undefined,
  ): number[] | undefined {
    const cgroups = this.#cgroups;
    if (!this.#partialWakeReads || cgroups === undefined || !cgroups.driver.hasPids) return undefined;
    if (pods.length <= MIN_PODS_READ || pods.some((p) => p.cgroup === undefined)) return undefined;
    const { driver, node } = cgroups;
    this.#podsCountDescendants ??= tolerate(() => countsDescendants(driver, node.pods, this.#read)) === true;
    if (!this.#podsCountDescendants) return undefined;
    const podsUsage = tolerate(() => readUsage(driver, node.pods, this.#read));
    if (podsUsage === undefined) return undefined;
    // A pod may stay unread when it has an entry to keep, from a read that found its memory.
    const last = pods.map((pod) => {
      const memo = this.#podEntries.get(pod);
      return memo?.memory === undefined ? undefined : this.#lastUsage.get(pod.cgroup as CgroupRef);
    });
    return readLargestFirst(last, podsUsage, readPod);
  }

  /**
   * How long container memory figures are reused on a node of `pods` pods: max(diskTtlMs, pods ×
   * refreshPerPodMs), 11 s at 110 pods, about the kubelet's own (cAdvisor's housekeeping, 10–15 s).
   * The engine ranks memory by the pods' own figures, always fresh; container figures only word an
   * eviction message (and the picked pods' are read again, {@link refreshPods}).
   */
  refreshPeriodMs(pods: number): number {
    return Math.max(this.#minRefreshMs, pods * this.#refreshPerPodMs);
  }

  /**
   * How long the pods' directory walks are reused on a node of `pods` pods: pods × walkPerPodMs,
   * kept between diskTtlMs and 60 s (diskTtlMs wins if longer). Disk use moves slowly, a walk is
   * the dearest part of a housekeeping read (measured at 100 idle pods: its promises and directory
   * handles were about half of what the loop thread allocated and most of what it kept past young
   * collections, and a period of 30 s instead of 10 s took RSS from 84.9 to 77.8 MiB and CPU from
   * 1.83 to 1.31 %), and the kubelet's own figures refresh every 60 s (cAdvisor's fs handler, the
   * volume stats' `calcPeriod`): ours are never older than the kubelet's, and fresher below 200 pods.
   */
  walkPeriodMs(pods: number): number {
    return Math.max(this.#minRefreshMs, Math.min(pods * this.#walkPerPodMs, MAX_WALK_PERIOD_MS));
  }

  /**
   * `raw` (a read of `pods`) with the pods named by `uids` read in full now: their memory with its
   * working set, their PIDs and their containers' memory. What the engine needs of the pods it
   * picks: the working set that ranks them (a memory wake reads usage alone) and the containers its
   * eviction message names. The other pods are left as they were, but when `uids` names a pod `raw`
   * left unread ({@link unreadPods}: the bound was not enough to rank it), every pod it left unread
   * has its usage read too, and the result leaves none unread.
   */
  refreshPods(raw: RawSummaryJson, pods: readonly ActivePodInfo[], uids: readonly string[]): RawSummaryJson {
    const cgroups = this.#cgroups;
    if (cgroups === undefined) return raw;
    const wanted = new Set(uids);
    const byUid = new Map(pods.map((p) => [p.uid, p]));
    const unread = this.#unread.get(raw);
    const readUnread = unread !== undefined && uids.some((uid) => unread.uids.has(uid));
    const passTime = readUnread ? this.#time() : "";
    const refreshed: RawSummaryJson = {
      ...raw,
      pods: raw.pods.map((entry) => {
        const uid = entry.podRef.uid;
        if (readUnread && !wanted.has(uid) && unread.uids.has(uid))
          return this.#withUsage(entry, byUid.get(uid), passTime);
        const pod = wanted.has(uid) ? byUid.get(uid) : undefined;
        if (pod?.cgroup === undefined) return entry;
        const podCgroup = pod.cgroup;
        const { driver } = cgroups;
        const kept = entry.process_stats?.process_count;
        // Without a pids controller the count is an asynchronous listing: the read's count stays.
        const count = driver.hasPids
          ? tolerate(() => readPidsCurrent(driver, podCgroup, this.#read))
          : kept === undefined
            ? undefined
            : Number(kept);
        const live = this.#readPodMemory(driver, podCgroup, count);
        const { memory: _memory, process_stats: _count, ...rest } = entry;
        return {
          ...rest,
          ...(live.memory !== undefined ? { memory: live.memory } : {}),
          ...(count !== undefined ? { process_stats: { process_count: count } } : {}),
          containers: entry.containers.map((c) => {
            const cgroup = pod.containers.find((info) => info.name === c.name)?.cgroup;
            if (cgroup === undefined) return c;
            const memory = this.#readContainerMemory(cgroups.driver, cgroup);
            const { memory: _stale, ...other } = c;
            return memory === undefined ? other : { ...other, memory };
          }),
        };
      }),
    };
    if (unread !== undefined && !readUnread) this.#unread.set(refreshed, unread);
    return refreshed;
  }

  /** A pod left unread, its usage read now (its entry without memory figures if it cannot be). */
  #withUsage(entry: PodJson, pod: ActivePodInfo | undefined, passTime: string): PodJson {
    const cgroups = this.#cgroups;
    const podCgroup = pod?.cgroup;
    if (cgroups === undefined || podCgroup === undefined) return entry;
    const { memory } = this.#readPodUsage(cgroups.driver, podCgroup, passTime);
    const { memory: _last, ...rest } = entry;
    return memory === undefined ? rest : { ...rest, memory };
  }

  /**
   * A pod cgroup's memory usage alone, read now and remembered for the next wake's read order: its
   * usage-only figure (undefined when it cannot be read) and the working set's upper bound.
   */
  #readPodUsage(
    driver: CgroupStatsReader,
    podCgroup: CgroupRef,
    passTime: string,
  ): { memory: MemoryJson | undefined; workingSetBytes: bigint } {
    const usage = tolerate(() => readUsage(driver, podCgroup, this.#read));
    if (usage === undefined) return { memory: undefined, workingSetBytes: 0n };
    this.#lastUsage.set(podCgroup, usage);
    return { memory: { time: passTime, usageBytes: counter(usage) }, workingSetBytes: usage };
  }

  /** One container cgroup's memory, read now and remembered for the reads that follow. */
  #readContainerMemory(driver: CgroupStatsReader, cgroup: CgroupRef): MemoryJson | undefined {
    const r = tolerate(() => readWorkingSet(driver, cgroup, this.#read, this.#limits));
    if (r === undefined) {
      this.#containerMemory.delete(cgroup);
      return undefined;
    }
    const atNs = this.#clock.nowNs();
    const figures = cgroupMemoryJson(r, formatRfc3339Nano(atNs));
    this.#containerMemory.set(cgroup, { figures, atNs });
    return figures;
  }

  /**
   * Disk figures for this read. The first read measures and waits; after that a read never waits
   * for a directory walk: it takes the last measurement (each figure stamped with the time it was
   * made at, so the engine sees which ones moved, as with the kubelet's asynchronously refreshed
   * stats) and, unless it is a memory wake, starts the next measurement in the background. The
   * loop's reads then cost the same on a 110-pod node as on a 5-pod one, and a memory wake never
   * queues behind a housekeeping read's walks.
   */
  async #diskFor(
    pods: readonly ActivePodInfo[],
    memoryOnly: boolean,
    walkMs: number,
    freshFilesystems: boolean,
  ): Promise<LastDisk> {
    let last = this.#lastDisk;
    if (last === undefined) return this.#measuring ?? this.#measureDisk(pods, { walk: true });
    if (freshFilesystems) {
      // A complete read (a decision that may evict) takes the filesystems as they are now: a
      // measurement begun earlier may predate the removal of an evicted pod's volumes, and deciding
      // from it evicted a second pod for space the first had already given back (the kubelet's
      // statfs is as fresh). The walks stay as last measured, with their times; a walk under way
      // is not waited for (it may take tens of milliseconds on a large node).
      last = await this.#measureFilesystems(last);
    }
    if (!memoryOnly && this.#measuring === undefined) {
      // The filesystems every time; the pods' directories once per walk period, or for a new pod
      // (alone: the meter reuses the others' walks, and their period is not renewed).
      const periodDue = this.#clock.nowNs() - last.walkedAtNs >= BigInt(walkMs) * 1_000_000n;
      const plan: DiskPlan = periodDue
        ? { walk: true }
        : pods.some((pod) => !last.byPod.has(pod.uid))
          ? { walk: true, walkedAtNs: last.walkedAtNs }
          : { walk: false, from: last };
      // After a fresh measurement only a walk is worth starting.
      if (!freshFilesystems || plan.walk) {
        this.#measuring = this.#measureDisk(pods, plan).finally(() => (this.#measuring = undefined));
        // A failed walk is reported by the next read that has to wait for one; never unhandled.
        this.#measuring.catch(() => undefined);
      }
    }
    return this.#reuseDisk(last, pods);
  }

  /** `last` with the filesystems measured now, kept as the last measurement. */
  async #measureFilesystems(last: LastDisk): Promise<LastDisk> {
    const fsAtNs = this.#clock.nowNs();
    const fsTime = formatRfc3339Nano(fsAtNs);
    const [nodeFs, imageFs] = await this.#statFilesystems();
    const now: LastDisk = { ...(this.#lastDisk ?? last), nodeFs, imageFs, fsTime, fsAtNs };
    this.#lastDisk = now;
    return now;
  }

  /** statfs of nodefs (stateDir) and of imagefs when it is a filesystem of its own. */
  #statFilesystems(): Promise<[FilesystemStats, FilesystemStats | undefined]> {
    return Promise.all([
      statFilesystem(this.#node.stateDir),
      this.#node.imagefsDir === undefined ? undefined : statFilesystem(this.#node.imagefsDir),
    ]);
  }

  /** The filesystems measured now, and every pod's disk use as `plan` says (walks within the meter's TTL reused). */
  async #measureDisk(pods: readonly ActivePodInfo[], plan: DiskPlan): Promise<LastDisk> {
    // The figures' time is when the filesystems were read, not when the walks beside them ended.
    const fsAtNs = this.#clock.nowNs();
    const fsTime = formatRfc3339Nano(fsAtNs);
    const [[nodeFs, imageFs], walked] = await Promise.all([
      this.#statFilesystems(),
      plan.walk ? mapConcurrently(pods, WALK_CONCURRENCY, (pod) => this.#disk.measure(pod)) : undefined,
    ]);
    let byPod: ReadonlyMap<string, PodDisk>;
    let walkedAtNs: bigint;
    let walkFs: FilesystemStats;
    if (plan.walk) {
      this.#disk.sweep();
      byPod = new Map(pods.map((pod, i) => [pod.uid, walked?.[i] as PodDisk]));
      walkedAtNs = plan.walkedAtNs ?? this.#clock.nowNs();
      walkFs = nodeFs;
    } else {
      byPod = plan.from.byPod;
      walkedAtNs = plan.from.walkedAtNs;
      walkFs = plan.from.walkFs;
    }
    const measured: LastDisk = {
      nodeFs,
      walkFs,
      imageFs,
      disks: pods.map((pod) => byPod.get(pod.uid)),
      fsTime,
      fsAtNs,
      byPod,
      walkedAtNs,
    };
    // A complete read may have read the filesystems meanwhile (#measureFilesystems): its figures
    // are newer and stay; the walks are this measurement's.
    const newer = this.#lastDisk;
    this.#lastDisk =
      newer !== undefined && newer.fsAtNs > fsAtNs
        ? {
            ...measured,
            nodeFs: newer.nodeFs,
            imageFs: newer.imageFs,
            fsTime: newer.fsTime,
            fsAtNs: newer.fsAtNs,
          }
        : measured;
    return this.#lastDisk;
  }

  /**
   * The last disk figures again, with the times they were measured at: no statfs, no walk, no
   * thread-pool round trip. A pod that arrived since has none until the next measurement ends.
   */
  #reuseDisk(last: LastDisk, pods: readonly ActivePodInfo[]): LastDisk {
    return { ...last, disks: pods.map((pod) => last.byPod.get(pod.uid)) };
  }

  /** Resolves when the disk measurement under way in the background (if any) has ended. */
  async diskMeasured(): Promise<void> {
    await this.#measuring?.catch(() => undefined);
  }

  /**
   * The node's memory three ways, read now, for /status (node-memory-views-reader.ts): the kubelet's
   * formula on the node cgroup (what `memory.available` is), /proc/meminfo's MemAvailable, and the
   * working set with the node cgroup's kernel memory. The node is a cgroup of its own, not the
   * machine, so its `memory.current` (v1 `memory.usage_in_bytes`) already counts the kernel memory
   * charged to it: the third view equals the kubelet's and says how much of it is kernel memory
   * (`memory.stat`'s `kernel + sock`, v1 kmem). Undefined without cgroups (the signal is then
   * MemAvailable itself, and there is no cgroup to say what kernel memory is) and when the files
   * cannot be read.
   */
  readNodeMemoryViews(): NodeMemoryViewsReading | undefined {
    const cgroups = this.#cgroups;
    if (cgroups === undefined) return undefined;
    try {
      return readNodeMemoryViews(
        {
          api: cgroups.driver.api,
          dir: cgroups.driver.directories(cgroups.node.node).memory,
          isRoot: false,
          capacityBytes: this.#node.capacity.memoryBytes,
          describe: "evictd's node cgroup",
        },
        { procRoot: this.#procRoot, now: () => Number(this.#clock.nowNs()) / 1e6 },
      );
    } catch (error) {
      if (error instanceof AdapterError) return undefined;
      throw error;
    }
  }

  /** Closes the descriptors kept open between collections. */
  close(): void {
    this.#files.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Node

  #nodeMemory(): MemoryJson {
    if (this.#cgroups !== undefined) {
      const r = readWorkingSet(this.#cgroups.driver, this.#cgroups.node.node, this.#read, this.#limits);
      return memoryJson(
        this.#time(),
        r.usageBytes,
        r.workingSetBytes,
        r.limitBytes ?? this.#node.capacity.memoryBytes,
      );
    }
    const info = parseMeminfo(this.#readProc("meminfo"));
    if (info === undefined)
      throw new AdapterError("stats-proc-unreadable", `cannot parse ${this.#procRoot}/meminfo`);
    const usage = info.totalBytes - info.freeBytes;
    const workingSet =
      info.availableBytes !== undefined
        ? clampSub(info.totalBytes, info.availableBytes)
        : clampSub(usage, info.inactiveFileBytes ?? 0n);
    return memoryJson(this.#time(), usage, workingSet, info.totalBytes);
  }

  #podsMemory(lives: readonly PodLive[]): MemoryJson {
    if (this.#cgroups !== undefined) {
      const r = readWorkingSet(this.#cgroups.driver, this.#cgroups.node.pods, this.#read, this.#limits);
      return memoryJson(
        this.#time(),
        r.usageBytes,
        r.workingSetBytes,
        r.limitBytes ?? this.#node.podsMemoryLimitBytes,
      );
    }
    const ws = lives.reduce((sum, l) => sum + l.workingSetBytes, 0n);
    return memoryJson(this.#time(), ws, ws, this.#node.podsMemoryLimitBytes);
  }

  #rlimit(lives: readonly PodLive[]): RlimitJson {
    const budget = this.#node.capacity.pids;
    if (budget !== undefined) {
      const cgroups = this.#cgroups;
      const current =
        cgroups !== undefined && cgroups.driver.hasPids
          ? readPidsCurrent(cgroups.driver, cgroups.node.node, this.#read)
          : undefined;
      const curproc =
        current !== undefined ? BigInt(current) : lives.reduce((sum, l) => sum + (l.processCount ?? 0n), 0n);
      return { time: this.#time(), maxpid: counter(budget), curproc: counter(curproc) };
    }
    const pidMax = parseKernelInteger(this.#readProc("sys/kernel/pid_max"));
    const threadsMax = parseKernelInteger(this.#readProc("sys/kernel/threads-max"));
    const load = parseLoadavg(this.#readProc("loadavg"));
    if (pidMax === undefined || threadsMax === undefined || load === undefined) {
      throw new AdapterError(
        "stats-proc-unreadable",
        `cannot parse ${this.#procRoot}/sys/kernel/{pid_max,threads-max} or loadavg`,
      );
    }
    return { time: this.#time(), maxpid: Math.min(pidMax, threadsMax), curproc: load.total };
  }

  /**
   * The pod's Summary API entry: the last one again while everything it was built from is the same
   * (a housekeeping read reuses pod figures for a refresh period, and disk figures until the next
   * walk), so a read of a quiet 110-pod node builds and decodes no pod entry; otherwise a new
   * entry, sharing with the last one the parts that did not change (podRef, containers, disk).
   */
  #podEntry(pod: ActivePodInfo, live: PodLive, disk: PodDisk | undefined, fs: FilesystemStats): PodJson {
    const memo = this.#podEntries.get(pod);
    // Compared in place: on a quiet node every pod's entry is reused, and this runs for each of
    // them on every housekeeping read, so it allocates nothing.
    const sameParts =
      memo !== undefined &&
      memo.disk === disk &&
      memo.fs === fs &&
      sameContainerMemory(memo.containerMemory, pod, live.containers);
    if (sameParts && memo.memory === live.memory && memo.count === live.processCount) return memo.entry;
    const containerMemory = sameParts
      ? memo.containerMemory
      : pod.containers.map((c) => live.containers.get(c.name));
    const parts = sameParts ? memo.parts : podParts(pod, containerMemory, disk, fs, this.#stamp);
    const entry: PodJson = { ...parts };
    if (live.memory !== undefined) entry.memory = live.memory;
    if (live.processCount !== undefined) entry.process_stats = { process_count: counter(live.processCount) };
    this.#podEntries.set(pod, {
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

  // ---------------------------------------------------------------------------------------------
  // Pods: memory and processes

  async #podLive(
    pod: ActivePodInfo,
    table: ProcessTable | undefined,
    reuseAfterNs: bigint,
    podRead: PodRead,
    passTime: string,
  ): Promise<PodLive> {
    const cgroups = this.#cgroups;
    if (cgroups !== undefined && pod.cgroup !== undefined)
      return this.#podLiveFromCgroups(pod, pod.cgroup, cgroups.driver, podRead, passTime);
    // Without cgroups: the pod is its containers' process trees.
    const procs = table ?? ProcessTable.read(this.#procRoot);
    const pageSize = this.#detectPageSize();
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
   * A pod's figures read synchronously from its cgroups, or undefined when this pod needs an
   * asynchronous read ({@link #podLive}: no cgroups, or no pids controller and a count to take).
   * A housekeeping read whose figures are all reused hands out the same object again.
   */
  #podLiveNow(
    pod: ActivePodInfo,
    reuseAfterNs: bigint,
    podRead: PodRead,
    passTime: string,
  ): PodLive | undefined {
    const cgroups = this.#cgroups;
    const podCgroup = pod.cgroup;
    if (cgroups === undefined || podCgroup === undefined) return undefined;
    const { driver } = cgroups;
    const known = this.#podFigures.get(podCgroup);
    if (!driver.hasPids && (podRead === "fresh" || known?.count === undefined)) return undefined;
    // A housekeeping read of a pod whose figures are all reused: the same object again, found
    // without allocating (on a quiet node this is most pods on every step).
    if (
      podRead === "reuse" &&
      known?.live !== undefined &&
      known.atNs > reuseAfterNs &&
      this.#containersReusable(pod, reuseAfterNs)
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
      const seen = this.#containerMemory.get(cgroup);
      if (seen !== undefined && seen.atNs > reuseAfterNs) containerFigures.push(seen.figures);
      else {
        containersReused = false;
        containerFigures.push(this.#readContainerMemory(driver, cgroup));
      }
    }
    if (podRead === "reuse" && known !== undefined && known.atNs > reuseAfterNs) {
      // Here some container was read again, or the pod's figures were never handed out as one object.
      const live: PodLive = {
        memory: known.memory,
        containers: containerMap(pod, containerFigures),
        processCount: known.count === undefined ? undefined : BigInt(known.count),
        workingSetBytes: known.workingSetBytes,
      };
      if (containersReused) this.#podFigures.set(podCgroup, { ...known, live });
      return live;
    }
    const containers = containerMap(pod, containerFigures);
    if (podRead === "usage") {
      const { memory, workingSetBytes } = this.#readPodUsage(driver, podCgroup, passTime);
      // A memory decision ranks by memory alone: the pod's task count is the last one read (a
      // `pids.current` per pod is a third of a 110-pod wake's reads), unless it was never read.
      const count = known?.count ?? tolerate(() => readPidsCurrent(driver, podCgroup, this.#read));
      return {
        memory,
        containers,
        processCount: count === undefined ? undefined : BigInt(count),
        // Unused with cgroups (the pods cgroup is read); the bound, not the working set.
        workingSetBytes,
      };
    }
    const count = driver.hasPids
      ? tolerate(() => readPidsCurrent(driver, podCgroup, this.#read))
      : known?.count;
    const live = this.#readPodMemory(driver, podCgroup, count);
    return {
      memory: live.memory,
      containers,
      processCount: count === undefined ? undefined : BigInt(count),
      workingSetBytes: live.workingSetBytes,
    };
  }

  /** Whether every container cgroup of `pod` has memory figures read after `reuseAfterNs`. */
  #containersReusable(pod: ActivePodInfo, reuseAfterNs: bigint): boolean {
    for (const c of pod.containers) {
      if (c.cgroup === undefined) continue;
      const seen = this.#containerMemory.get(c.cgroup);
      if (seen === undefined || seen.atNs <= reuseAfterNs) return false;
    }
    return true;
  }

  /** A pod in cgroups without the pids controller: its count is an asynchronous listing of its subtree. */
  async #podLiveFromCgroups(
    pod: ActivePodInfo,
    podCgroup: CgroupRef,
    driver: CgroupStatsReader,
    podRead: PodRead,
    passTime: string,
  ): Promise<PodLive> {
    const containers = containerMap(
      pod,
      pod.containers.map((c) =>
        c.cgroup === undefined ? undefined : this.#readContainerMemory(driver, c.cgroup),
      ),
    );
    const count = await this.#podTasks(driver, podCgroup);
    const { memory, workingSetBytes } =
      podRead === "usage"
        ? this.#readPodUsage(driver, podCgroup, passTime)
        : this.#readPodMemory(driver, podCgroup, count);
    return {
      memory,
      containers,
      processCount: count === undefined ? undefined : BigInt(count),
      workingSetBytes,
    };
  }

  /**
   * On a memory wake, the pod whose usage grew most since it was last read in full is read in full
   * now: the pod that crossed the threshold is most often the one a decision picks, and the loop
   * then decides once instead of twice (bounded-memory-pick.ts; any pod would be correct, this one
   * saves a round).
   */
  #readGrowingPod(pods: readonly ActivePodInfo[], lives: PodLive[]): void {
    const cgroups = this.#cgroups;
    if (cgroups === undefined) return;
    let best = -1;
    let bestGrowth = 0n;
    for (let i = 0; i < pods.length; i++) {
      const cgroup = pods[i]?.cgroup;
      const usage = lives[i]?.memory?.usageBytes;
      if (cgroup === undefined || usage === undefined) continue;
      const before = this.#podFigures.get(cgroup)?.memory?.usageBytes;
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
    const full = this.#readPodMemory(cgroups.driver, pod.cgroup, count);
    lives[best] = { ...live, memory: full.memory, workingSetBytes: full.workingSetBytes };
  }

  /**
   * One pod cgroup's memory (with its working set), read now and remembered with `count` for the
   * reads that may reuse them.
   */
  #readPodMemory(
    driver: CgroupStatsReader,
    podCgroup: CgroupRef,
    count: number | undefined,
  ): { memory: MemoryJson | undefined; workingSetBytes: bigint } {
    const atNs = this.#clock.nowNs();
    const memory = tolerate(() => readWorkingSet(driver, podCgroup, this.#read, this.#limits));
    const memoryFigures =
      memory === undefined ? undefined : cgroupMemoryJson(memory, formatRfc3339Nano(atNs));
    const workingSetBytes = memory?.workingSetBytes ?? 0n;
    if (memory !== undefined) this.#lastUsage.set(podCgroup, memory.usageBytes);
    this.#podFigures.set(podCgroup, { memory: memoryFigures, count, workingSetBytes, atNs });
    return { memory: memoryFigures, workingSetBytes };
  }

  /** Tasks in a pod cgroup: `pids.current`, or without a pids controller the processes listed in its subtree. */
  async #podTasks(driver: CgroupStatsReader, podCgroup: CgroupRef): Promise<number | undefined> {
    return driver.hasPids
      ? tolerate(() => readPidsCurrent(driver, podCgroup, this.#read))
      : (await tolerateAsync(() => driver.procs(podCgroup, { recursive: true })))?.length;
  }

  // ---------------------------------------------------------------------------------------------
  // Plumbing

  #time(): string {
    return formatRfc3339Nano(this.#clock.nowNs());
  }

  /**
   * A node-wide procfs file (meminfo, loadavg, the PID limits), through a kept-open descriptor like
   * the cgroup files: read on every step, and three `readFileSync`s were a quarter of a memory
   * wake's read on a node without a PID capacity.
   */
  #readProc(relative: string): string {
    const path = `${this.#procRoot}/${relative}`;
    try {
      return this.#files.read(path);
    } catch (error) {
      const failure = error instanceof AdapterError ? error : undefined;
      if (failure?.code === "cgroup-not-found")
        throw new AdapterError("stats-proc-unreadable", `cannot read ${path}: no such file`, {
          hint: "is procfs mounted?",
        });
      const cause: unknown = failure?.cause ?? error;
      throw new AdapterError(
        "stats-proc-unreadable",
        `cannot read ${path}: ${errnoCode(cause) ?? String(cause)}`,
        {
          cause,
        },
      );
    }
  }

  /** The base page size, from the first mapping in /proc/self/smaps (read once; 4 KiB if unreadable). */
  #detectPageSize(): number {
    if (this.#pageSize !== undefined) return this.#pageSize;
    let size: number | undefined;
    try {
      // The first mapping's lines are enough; the whole file can be hundreds of KiB.
      const fd = openSync(`${this.#procRoot}/self/smaps`, "r");
      try {
        const buffer = Buffer.alloc(8192);
        const n = readSync(fd, buffer, 0, buffer.length, 0);
        size = parseKernelPageSize(buffer.subarray(0, n).toString("utf8"));
      } finally {
        closeSync(fd);
      }
    } catch {
      size = undefined;
    }
    // 4 KiB is the base page on x86-64 and the default on arm64.
    this.#pageSize = size ?? 4096;
    return this.#pageSize;
  }
}

/** The longest the pods' directory walks are reused for: the kubelet's own disk figures' period. */
const MAX_WALK_PERIOD_MS = 60_000;

/**
 * Pods whose directories are walked at once. A walk is a few lstat/opendir calls on libuv's pool
 * per pod; started for every pod at once, a 100-pod node's walk queued hundreds of them (ahead of
 * the poll(2) a re-armed notifier needs a pool thread for) and kept their objects alive together,
 * so each young collection it set off copied a few hundred KB into the loop thread's old
 * generation. Three at a time (the pool has four threads, one held by that poll), measured at 100
 * idle pods: young collections the loop thread did not schedule 27 → 8 in 240 s, a major
 * collection every 150 s or more instead of every 90 s; in alternated overhead-bench runs CPU
 * 0.97 / 0.93 → 0.87 / 0.80 % of a core and RSS 70–130 s after ready 82.3 / 82.7 → 80.5 / 80.5 MiB.
 */
const WALK_CONCURRENCY = 3;

/** A pod's Summary entry without its memory and process figures, which change on every read. */
type PodParts = Omit<PodJson, "memory" | "process_stats">;

/** What {@link LinuxSummaryCollector}'s last entry of a pod was built from, and the entry. */
interface PodEntryMemo {
  readonly containerMemory: readonly (MemoryJson | undefined)[];
  readonly disk: PodDisk | undefined;
  readonly fs: FilesystemStats;
  readonly parts: PodParts;
  readonly memory: MemoryJson | undefined;
  readonly count: bigint | undefined;
  readonly entry: PodJson;
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

/**
 * The driver with each cgroup's directories computed once: the runtime hands the same `CgroupRef`
 * objects to every collection, and joining their paths again for 200 cgroups on every wake is a
 * measurable part of a memory wake's read.
 */
function withRememberedDirectories(driver: CgroupStatsReader): CgroupStatsReader {
  const known = new WeakMap<CgroupRef, CgroupDirectories>();
  return {
    api: driver.api,
    hasPids: driver.hasPids,
    procs: (cgroup, options) => driver.procs(cgroup, options),
    directories: (cgroup) => {
      let dirs = known.get(cgroup);
      if (dirs === undefined) {
        dirs = driver.directories(cgroup);
        known.set(cgroup, dirs);
      }
      return dirs;
    },
  };
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

/** Container name → memory figures, for the containers that have them. */
function containerMap(
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

/** Memory of a cgroup; `availableBytes` only when it has a limit, as cAdvisor reports it. */
function cgroupMemoryJson(r: WorkingSetReading, time: string): MemoryJson {
  return memoryJson(time, r.usageBytes, r.workingSetBytes, r.limitBytes);
}

/** Runs `read`, turning "the cgroup is gone" (the pod is terminating) into undefined. */
function tolerate<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof AdapterError && error.code === "cgroup-not-found") return undefined;
    throw error;
  }
}

async function tolerateAsync<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AdapterError && error.code === "cgroup-not-found") return undefined;
    throw error;
  }
}

function clampSub(a: bigint, b: bigint): bigint {
  return a > b ? a - b : 0n;
}
