/**
 * The Linux stats source: the node's real memory, disk, inode and PID figures assembled into a
 * kubelet Summary API object (stats/v1alpha1), the same input the engine takes in replay.
 *
 * The collector orchestrates one read: which figures are read now and which are reused (by the
 * read's kind and the refresh schedule), in what order, and how they become one Summary; and, for a
 * memory wake on a larger node, which pods stay unread (partial-usage-read.ts decides the order and
 * when to stop, the collector keeps what it left unread and reads it on demand). Its parts:
 *
 * - refresh-schedule.ts: the refresh and walk periods, a housekeeping read's refresh budget, and
 *   when figures are due (pure functions);
 * - pod-entry-memo.ts: each pod's and container's last figures and each pod's last Summary entry,
 *   handed out again while nothing it was built from changed;
 * - disk-measurement.ts: the filesystems and the pods' disk use, measured in the background;
 * - node-figures.ts: the node's memory, the pods cgroup's memory and the PID budget, read fresh;
 *
 * with the pods' memory and processes read by pod-figures-reader.ts, and the cgroups they read
 * through in collector-cgroups.ts.
 */
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import type { EpochMs } from "../../core/model.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import type { NodeSpec } from "../../core/node/node-spec.js";
import { formatRfc3339Ms, formatRfc3339Nano } from "../../core/time/rfc3339.js";
import type { CgroupRef } from "../cgroups/cgroup-driver.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import { countsDescendants, readUsage, type KnownLimits, type ReadText } from "./cgroup-stats-reader.js";
import { unlessCgroupGone, withRememberedDirectories, type CollectorCgroups } from "./collector-cgroups.js";
import { DiskMeasurement } from "./disk-measurement.js";
import { KernelFileReader } from "./kernel-file-reader.js";
import { NanoClock } from "./nano-clock.js";
import { NodeFigures } from "./node-figures.js";
import { MIN_PODS_READ, readLargestFirst } from "./partial-usage-read.js";
import { PodEntryMemo, type PodLive } from "./pod-entry-memo.js";
import { PodFiguresReader, type PodRead } from "./pod-figures-reader.js";
import { ProcessTable } from "./process-table.js";
import {
  DEFAULT_REFRESH_SCHEDULE,
  dueForRefresh,
  periodStartNs,
  refreshBudget,
  refreshPeriodMs,
  REUSE_ANY_AGE,
  sweepDue,
  walkPeriodMs,
  type RefreshSchedule,
} from "./refresh-schedule.js";
import { fsJson, type PodJson, type RawSummaryJson } from "./summary-json.js";
import type { NsClock } from "./usage-cache.js";

/** The node facts the collector needs (a subset of the node file). */
export type CollectorNodeSpec = Pick<
  NodeSpec,
  "name" | "capacity" | "podsMemoryLimitBytes" | "stateDir" | "imagefsDir"
>;

export interface LinuxSummaryCollectorOptions {
  readonly node: CollectorNodeSpec;
  /** The node's cgroups and the driver that locates them; absent when running without cgroups. */
  readonly cgroups?: CollectorCgroups;
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
 * Builds a Summary API object from the real system. Where the figures come from:
 *
 * - the node's memory, the `pods` system container and `rlimit`: {@link NodeFigures};
 * - `fs` = statfs of stateDir (nodefs); `runtime.imageFs` = statfs of imagefsDir, or the same as
 *   `fs` without one; `runtime.containerFs` = `fs`, because writable directories live on nodefs:
 *   with an imagefsDir this is upstream's split layout (images apart, writable layers on nodefs);
 *   measured by {@link DiskMeasurement};
 * - pods: memory from the pod and container cgroups (or statm RSS of each container's process
 *   tree) and their process counts ({@link PodFiguresReader}); disk from the pods' directories
 *   ({@link DiskMeasurement} over `PodDiskMeter`).
 *
 * Time stamps carry nanoseconds (see `formatRfc3339Nano`); cached figures keep the time they were
 * measured at. Node-level failures throw `AdapterError`; a pod whose cgroup or files vanish
 * mid-collection (it is terminating) is reported without the figures that could not be read.
 *
 * cgroupfs and procfs files are read synchronously (kernel memory, no disk: far cheaper than the
 * promise API's thread-pool round trips, see `cgroup-stats-reader.ts`); filesystems are read
 * asynchronously.
 */
export class LinuxSummaryCollector {
  readonly #node: CollectorNodeSpec;
  readonly #cgroups: CollectorCgroups | undefined;
  readonly #procRoot: string;
  readonly #clock: NsClock;
  readonly #startTime: string;
  readonly #schedule: RefreshSchedule;
  /** cgroup interface and procfs files, read through descriptors kept open from one collection to the next. */
  readonly #files = new KernelFileReader();
  readonly #read: ReadText = (path) => this.#files.read(path);
  /** Memory limits by cgroup: read on every full collection, reused on a memory wake. */
  readonly #limits: KnownLimits = { byDir: new Map(), reuse: false };
  readonly #memo = new PodEntryMemo();
  readonly #pods: PodFiguresReader;
  readonly #nodeFigures: NodeFigures;
  readonly #disk: DiskMeasurement;
  /** When the kept-open descriptors were last swept. */
  #sweptAtNs = 0n;
  /** The pods a memory wake's Summary left unread, with their bound (see {@link unreadPods}). */
  readonly #unread = new WeakMap<RawSummaryJson, UnreadPods>();
  readonly #partialWakeReads: boolean;
  /** When the last housekeeping read began (see `refreshBudget`). */
  #housekeptAtNs: bigint | undefined;
  /** Whether the pods cgroup's usage counts the pods' pages (read once; see `countsDescendants`). */
  #podsCountDescendants: boolean | undefined;

  constructor(options: LinuxSummaryCollectorOptions) {
    this.#node = options.node;
    this.#cgroups =
      options.cgroups === undefined
        ? undefined
        : { driver: withRememberedDirectories(options.cgroups.driver), node: options.cgroups.node };
    this.#procRoot = options.procRoot ?? "/proc";
    this.#clock = options.clock ?? new NanoClock();
    this.#schedule = {
      minRefreshMs: options.diskTtlMs ?? DEFAULT_REFRESH_SCHEDULE.minRefreshMs,
      refreshPerPodMs: options.refreshPerPodMs ?? DEFAULT_REFRESH_SCHEDULE.refreshPerPodMs,
      walkPerPodMs: options.walkPerPodMs ?? DEFAULT_REFRESH_SCHEDULE.walkPerPodMs,
    };
    this.#partialWakeReads = options.partialWakeReads ?? true;
    this.#nodeFigures = new NodeFigures({
      node: this.#node,
      cgroups: this.#cgroups,
      procRoot: this.#procRoot,
      clock: this.#clock,
      read: this.#read,
      limits: this.#limits,
      pageSize: options.pageSize,
    });
    this.#pods = new PodFiguresReader({
      driver: this.#cgroups?.driver,
      procRoot: this.#procRoot,
      clock: this.#clock,
      read: this.#read,
      limits: this.#limits,
      memo: this.#memo,
      pageSize: () => this.#nodeFigures.pageSize(),
    });
    this.#disk = new DiskMeasurement(this.#node, this.#clock, {
      walkPeriodMs: this.#schedule.minRefreshMs,
      maxWalkEntries: options.maxWalkEntries ?? 200_000,
    });
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
    this.#disk.walkPeriodMs = walkMs;
    // Container figures read after this are reused; memory wakes reuse any.
    const nowNs = this.#clock.nowNs();
    const reuseAfterNs = memoryOnly ? REUSE_ANY_AGE : periodStartNs(nowNs, refreshMs);
    const withoutCgroup = pods.some((p) => cgroups === undefined || p.cgroup === undefined);
    const table = withoutCgroup ? ProcessTable.read(this.#procRoot) : undefined;
    const podRead: PodRead = memoryOnly ? "usage" : options.reusePods === true ? "reuse" : "fresh";
    // Usage reads of a memory wake share the time the pass began (formatted and parsed once, not
    // once per pod).
    const passTime = this.#time();
    // Pods in cgroups are read synchronously (kernel files through kept-open descriptors); only a
    // pod without cgroups, or a count without the pids controller, waits for an asynchronous read.
    const lives: PodLive[] = new Array<PodLive>(pods.length);
    const waits: Promise<void>[] = [];
    let refreshes = Infinity;
    if (podRead === "reuse") {
      refreshes = refreshBudget(pods.length, this.#housekeptAtNs, nowNs, refreshMs);
      this.#housekeptAtNs = nowNs;
    }
    const readPod = (i: number): bigint | undefined => {
      const pod = pods[i] as ActivePodInfo;
      let reuseAfter = reuseAfterNs;
      if (podRead === "reuse" && this.#dueForRefresh(pod, reuseAfterNs)) {
        // Past this housekeeping read's share of the refreshes: this pod's figures wait for the next.
        if (refreshes > 0) refreshes--;
        else reuseAfter = REUSE_ANY_AGE;
      }
      const now = this.#pods.readNow(pod, reuseAfter, podRead, passTime);
      if (now === undefined) {
        waits.push(this.#pods.read(pod, table, podRead, passTime).then((l) => void (lives[i] = l)));
        return undefined;
      }
      lives[i] = now;
      // Only a memory wake's read order (#readLargestPods) takes the usage read.
      return podRead !== "usage" || now.memory === undefined ? undefined : BigInt(now.memory.usageBytes);
    };
    const skipped = podRead === "usage" ? this.#readLargestPods(pods, readPod) : undefined;
    if (skipped === undefined) for (let i = 0; i < pods.length; i++) readPod(i);
    if (waits.length > 0) await Promise.all(waits);
    if (podRead === "usage") this.#pods.readGrowingPod(pods, lives);
    const nodeMemory = this.#nodeFigures.nodeMemory();
    const podsMemory = this.#nodeFigures.podsMemory(lives);
    const rlimit = this.#nodeFigures.rlimit(lives);

    const { nodeFs, walkFs, imageFs, disks, fsTime } = await this.#disk.figuresFor(pods, {
      memoryOnly,
      freshFilesystems: podRead === "fresh",
      walkMs,
    });
    // Only full reads touch every file a pod has (its limits, and its containers' files once per
    // refresh period): descriptors unread for two periods belong to cgroups that are gone.
    const sweepNs = this.#clock.nowNs();
    if (!memoryOnly && sweepDue(this.#sweptAtNs, sweepNs, refreshMs)) {
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
          ? (this.#memo.lastEntry(pod) as PodJson)
          : this.#memo.entry(pod, live, disks[i], walkFs);
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

  /** Whether a housekeeping read would read `pod` again: its oldest figure is past the period that began at `reuseAfterNs`. */
  #dueForRefresh(pod: ActivePodInfo, reuseAfterNs: bigint): boolean {
    const cgroup = pod.cgroup;
    return cgroup !== undefined && dueForRefresh(this.#memo.oldestReadAtNs(pod, cgroup), reuseAfterNs);
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
    this.#podsCountDescendants ??=
      unlessCgroupGone(() => countsDescendants(driver, node.pods, this.#read)) === true;
    if (!this.#podsCountDescendants) return undefined;
    const podsUsage = unlessCgroupGone(() => readUsage(driver, node.pods, this.#read));
    if (podsUsage === undefined) return undefined;
    // A pod may stay unread when it has an entry to keep, from a read that found its memory.
    const last = pods.map((pod) =>
      this.#memo.lastEntry(pod)?.memory === undefined
        ? undefined
        : this.#pods.lastUsage(pod.cgroup as CgroupRef),
    );
    return readLargestFirst(last, podsUsage, readPod);
  }

  /**
   * How long container memory figures are reused on a node of `pods` pods (refresh-schedule.ts):
   * max(diskTtlMs, pods × refreshPerPodMs).
   */
  refreshPeriodMs(pods: number): number {
    return refreshPeriodMs(this.#schedule, pods);
  }

  /**
   * How long the pods' directory walks are reused on a node of `pods` pods (refresh-schedule.ts):
   * pods × walkPerPodMs, kept between diskTtlMs and 60 s (diskTtlMs wins if longer).
   */
  walkPeriodMs(pods: number): number {
    return walkPeriodMs(this.#schedule, pods);
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
        const kept = entry.process_stats?.process_count;
        // Without a pids controller the count is an asynchronous listing: the read's count stays.
        const count = cgroups.driver.hasPids
          ? this.#pods.readPids(podCgroup)
          : kept === undefined
            ? undefined
            : Number(kept);
        const live = this.#pods.readInFull(podCgroup, count);
        const { memory: _memory, process_stats: _count, ...rest } = entry;
        return {
          ...rest,
          ...(live.memory !== undefined ? { memory: live.memory } : {}),
          ...(count !== undefined ? { process_stats: { process_count: count } } : {}),
          containers: entry.containers.map((c) => {
            const cgroup = pod.containers.find((info) => info.name === c.name)?.cgroup;
            if (cgroup === undefined) return c;
            const memory = this.#pods.readContainer(cgroup);
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
    const podCgroup = pod?.cgroup;
    if (this.#cgroups === undefined || podCgroup === undefined) return entry;
    const { memory } = this.#pods.readUsage(podCgroup, passTime);
    const { memory: _last, ...rest } = entry;
    return memory === undefined ? rest : { ...rest, memory };
  }

  /** Resolves when the disk measurement under way in the background (if any) has ended. */
  async diskMeasured(): Promise<void> {
    await this.#disk.measured();
  }

  /** The node's memory three ways, read now, for /status (see {@link NodeFigures.memoryViews}). */
  readNodeMemoryViews(): NodeMemoryViewsReading | undefined {
    return this.#nodeFigures.memoryViews();
  }

  /** Closes the descriptors kept open between collections. */
  close(): void {
    this.#files.close();
  }

  #time(): string {
    return formatRfc3339Nano(this.#clock.nowNs());
  }
}
