/**
 * The node's disk figures for the stats collector, measured in the background: the filesystems
 * (statfs of nodefs and imagefs) and each pod's disk use ({@link PodDiskMeter}'s directory walks).
 * The first read measures and waits; after that a read never waits for a directory walk: it takes
 * the last measurement (each figure stamped with the time it was made at, so the engine sees which
 * ones moved, as with the kubelet's asynchronously refreshed stats) and, unless it is a memory
 * wake, starts the next measurement in the background. The loop's reads then cost the same on a
 * large node as on a small one, and a memory wake never queues behind a housekeeping read's walks.
 * A complete read alone takes the filesystems as they are now (see {@link DiskMeasurement.figuresFor}).
 */
import type { NodeSpec } from "../../core/node/node-spec.js";
import { formatRfc3339Nano } from "../../core/time/rfc3339.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import { statFilesystem, type FilesystemStats } from "./filesystem-stats.js";
import { mapConcurrently } from "./map-concurrently.js";
import { PodDiskMeter, type PodDisk } from "./pod-disk-meter.js";
import { walkDue } from "./refresh-schedule.js";
import type { NsClock } from "./usage-cache.js";

/** Disk figures of one collection: the filesystems, each pod's use (in `collect`'s order and by UID). */
export interface DiskFigures {
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
 * What one disk measurement does with the pods' directories: walk them (renewing the walk period,
 * or keeping `walkedAtNs` when only a new pod needs a walk), or report `from`'s use again.
 */
type DiskPlan =
  | { readonly walk: true; readonly walkedAtNs?: bigint }
  | { readonly walk: false; readonly from: DiskFigures };

/** What kind of read asks for disk figures. */
export interface DiskRead {
  /** A memory wake: the last measurement, and none started. */
  readonly memoryOnly: boolean;
  /** A complete read: the filesystems measured now (the walks as last measured). */
  readonly freshFilesystems: boolean;
  /** The node's walk period: the pods' directories are walked again once it has passed. */
  readonly walkMs: number;
}

/**
 * Pods whose directories are walked at once. A walk is a few lstat/opendir calls on libuv's pool
 * per pod; started for every pod at once, a large node's walk queued hundreds of them (ahead of the
 * poll(2) a re-armed notifier needs a pool thread for) and kept their objects alive together, so
 * each young collection it set off copied them into the loop thread's old generation. Three at a
 * time (the pool has four threads, one held by that poll) made fewer collections and took the
 * daemon's CPU and memory down (docs/benchmarks.md, "Figures behind design choices").
 */
const WALK_CONCURRENCY = 3;

/** The background disk measurement of one collector: the last figures, and the measurement under way. */
export class DiskMeasurement {
  readonly #filesystems: Pick<NodeSpec, "stateDir" | "imagefsDir">;
  readonly #clock: NsClock;
  readonly #meter: PodDiskMeter;
  /** The last disk figures measured: what a read reports, with the times they carry. */
  #last: DiskFigures | undefined;
  /** The measurement under way in the background, if any. */
  #measuring: Promise<DiskFigures> | undefined;

  /**
   * Measures `filesystems.stateDir` (nodefs) and `imagefsDir` (imagefs, when given), and the pods'
   * directories with walks of at most `maxWalkEntries` entries each, reused for `walkPeriodMs`
   * until a read sets the node's.
   */
  constructor(
    filesystems: Pick<NodeSpec, "stateDir" | "imagefsDir">,
    clock: NsClock,
    options: { readonly walkPeriodMs: number; readonly maxWalkEntries: number },
  ) {
    this.#filesystems = filesystems;
    this.#clock = clock;
    this.#meter = new PodDiskMeter(options.walkPeriodMs, clock, options.maxWalkEntries);
  }

  /**
   * How long a pod's directory walk is reused from now on (the node's walk period: the collector
   * sets it when a read begins, before any walk of that read's can start).
   */
  set walkPeriodMs(ms: number) {
    this.#meter.ttlMs = ms;
  }

  get walkPeriodMs(): number {
    return this.#meter.ttlMs;
  }

  /**
   * Disk figures for a read of `pods`. The first read measures and waits; the others take the last
   * measurement and, but for a memory wake, start the next in the background: the filesystems every
   * time, the pods' directories once per walk period, or for a new pod (alone: the meter reuses the
   * others' walks, and their period is not renewed).
   */
  async figuresFor(pods: readonly ActivePodInfo[], read: DiskRead): Promise<DiskFigures> {
    let last = this.#last;
    if (last === undefined) return this.#measuring ?? this.#measure(pods, { walk: true });
    if (read.freshFilesystems) {
      // A complete read (a decision that may evict) takes the filesystems as they are now: a
      // measurement begun earlier may predate the removal of an evicted pod's volumes, and deciding
      // from it evicted a second pod for space the first had already given back (the kubelet's
      // statfs is as fresh). The walks stay as last measured, with their times; a walk under way
      // is not waited for (on a large node it may take long).
      last = await this.#measureFilesystems(last);
    }
    if (!read.memoryOnly && this.#measuring === undefined) {
      const plan: DiskPlan = walkDue(last.walkedAtNs, this.#clock.nowNs(), read.walkMs)
        ? { walk: true }
        : pods.some((pod) => !last.byPod.has(pod.uid))
          ? { walk: true, walkedAtNs: last.walkedAtNs }
          : { walk: false, from: last };
      // After a fresh measurement only a walk is worth starting.
      if (!read.freshFilesystems || plan.walk) {
        this.#measuring = this.#measure(pods, plan).finally(() => (this.#measuring = undefined));
        // A failed walk is reported by the next read that has to wait for one; never unhandled.
        this.#measuring.catch(() => undefined);
      }
    }
    return reuse(last, pods);
  }

  /** Resolves when the measurement under way in the background (if any) has ended. */
  async measured(): Promise<void> {
    await this.#measuring?.catch(() => undefined);
  }

  /** `last` with the filesystems measured now, kept as the last measurement. */
  async #measureFilesystems(last: DiskFigures): Promise<DiskFigures> {
    const fsAtNs = this.#clock.nowNs();
    const fsTime = formatRfc3339Nano(fsAtNs);
    const [nodeFs, imageFs] = await this.#statFilesystems();
    const now: DiskFigures = { ...(this.#last ?? last), nodeFs, imageFs, fsTime, fsAtNs };
    this.#last = now;
    return now;
  }

  /** statfs of nodefs (stateDir) and of imagefs when it is a filesystem of its own. */
  #statFilesystems(): Promise<[FilesystemStats, FilesystemStats | undefined]> {
    const { stateDir, imagefsDir } = this.#filesystems;
    return Promise.all([
      statFilesystem(stateDir),
      imagefsDir === undefined ? undefined : statFilesystem(imagefsDir),
    ]);
  }

  /** The filesystems measured now, and every pod's disk use as `plan` says (walks within the meter's TTL reused). */
  async #measure(pods: readonly ActivePodInfo[], plan: DiskPlan): Promise<DiskFigures> {
    // The figures' time is when the filesystems were read, not when the walks beside them ended.
    const fsAtNs = this.#clock.nowNs();
    const fsTime = formatRfc3339Nano(fsAtNs);
    const [[nodeFs, imageFs], walked] = await Promise.all([
      this.#statFilesystems(),
      plan.walk ? mapConcurrently(pods, WALK_CONCURRENCY, (pod) => this.#meter.measure(pod)) : undefined,
    ]);
    let byPod: ReadonlyMap<string, PodDisk>;
    let walkedAtNs: bigint;
    let walkFs: FilesystemStats;
    if (plan.walk) {
      this.#meter.sweep();
      byPod = new Map(pods.map((pod, i) => [pod.uid, walked?.[i] as PodDisk]));
      walkedAtNs = plan.walkedAtNs ?? this.#clock.nowNs();
      walkFs = nodeFs;
    } else {
      byPod = plan.from.byPod;
      walkedAtNs = plan.from.walkedAtNs;
      walkFs = plan.from.walkFs;
    }
    const measured: DiskFigures = {
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
    const newer = this.#last;
    this.#last =
      newer !== undefined && newer.fsAtNs > fsAtNs
        ? {
            ...measured,
            nodeFs: newer.nodeFs,
            imageFs: newer.imageFs,
            fsTime: newer.fsTime,
            fsAtNs: newer.fsAtNs,
          }
        : measured;
    return this.#last;
  }
}

/**
 * `last` again for `pods`, with the times it was measured at: no statfs, no walk, no thread-pool
 * round trip. A pod that arrived since has no disk figures until the next measurement ends.
 */
function reuse(last: DiskFigures, pods: readonly ActivePodInfo[]): DiskFigures {
  return { ...last, disks: pods.map((pod) => last.byPod.get(pod.uid)) };
}
