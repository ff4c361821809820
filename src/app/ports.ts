/**
 * The ports the daemon's eviction loop drives. Each is small and owned here, by the consumer:
 * adapters (Linux stats, the process pod runtime, kernel notifications, the system clock) implement
 * them, and tests can drive the loop through them.
 */
import type { NodeSummary, Pod } from "../core/model.js";
import type { UnreadPods } from "../core/rank/working-set-bounds.js";

/** One sample of the node: the raw Summary API object and its decoded form. */
export interface StatsSample {
  readonly raw: unknown;
  readonly summary: NodeSummary;
  /**
   * A `memory` read on a large node: the pods whose memory it did not read (their entries are an
   * earlier read's) and the bound on their usage it found instead (core/rank/working-set-bounds.ts).
   */
  readonly unread?: UnreadPods;
}

/**
 * What a read must bring fresh. The node's own figures are always read fresh.
 *
 * - `all` (a decision that may evict, after reclaim): each pod's memory and PIDs fresh too, while
 *   per-container memory and disk use may be reused for a refresh period the source chooses.
 * - `node` (housekeeping): pod figures may be reused for that period as well. Only a ranking reads
 *   them, so a decision made from such a read that would evict is made again from an `all` read.
 * - `memory`: a kernel memory notification woke the loop, and the decision it needs is a memory
 *   one: node memory and PIDs fresh; each pod's memory fresh too, or (a source with
 *   {@link StatsPort.refreshPods}) its usage alone, without its working set, which the loop reads
 *   for the pods a decision picks (app/loop/bounded-memory-pick.ts), or not even that for the pods
 *   it names unread, whose usage it bounds instead ({@link StatsSample.unread}); disk figures
 *   (directory walks, the slow part on a large node), per-container memory and the pods' task
 *   counts may be the last ones read whatever their age. A decision from such a read that would
 *   evict for anything but memory is made again from an `all` read.
 *
 * Every reused figure keeps the time it was read at, as the kubelet's own cached stats do; the
 * engine treats a figure whose time has not moved as not updated. The pods the engine picks are
 * read in full again through {@link StatsPort.refreshPods} before their eviction messages are
 * written.
 */
export type StatsScope = "all" | "node" | "memory";

export interface StatsPort {
  /** Reads stats from the system (fresh as `scope` asks, default `all`); rejects when they cannot be read. */
  collect(scope?: StatsScope): Promise<StatsSample>;
  /**
   * `sample` with every figure of the pods named by `uids` read fresh (their memory with its working
   * set, PIDs, their containers' memory), for a source whose scoped reads carry some pod figures
   * over or leave working sets out. Absent: scoped reads are complete. When `uids` names a pod of
   * `sample.unread`, every unread pod's usage is read as well: the result leaves none unread.
   */
  refreshPods?(sample: StatsSample, uids: readonly string[]): Promise<StatsSample>;
}

/**
 * The status a pod is left with when the kubelet fails it (eviction or admission rejection): what the
 * process runtime writes into its pod record, and what the cluster frontends PATCH into pods/NAME/status.
 */
export interface FailedPodStatus {
  readonly phase: "Failed";
  readonly reason: string;
  readonly message: string;
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
}

export interface KillResult {
  /** When SIGTERM reached the pod's processes (epoch ms). */
  readonly terminatedAt: number;
  /** Resolves when the pod is gone or the kill gave up: processes still alive (e.g. in D state). */
  readonly done: Promise<{
    readonly ok: boolean;
    readonly stuck: readonly { readonly pid: number; readonly state: string }[];
  }>;
}

/**
 * What a node-level garbage collection (containers, images) freed, for logs. Not the engine's
 * `ReclaimReport` (core/engine/types.ts), which says whether reclaim ran and was enough.
 */
export interface GcReport {
  readonly freedBytes: number;
  readonly note?: string;
}

/**
 * How urgent an eviction is: `hard` for a hard threshold (or a pod over its own local-storage
 * limit), which the kubelet acts on at once with a 1 s grace period; `soft` for a soft threshold
 * whose grace period has passed, which gives the pod its own grace and may take a gentler way.
 */
export type EvictionUrgency = "hard" | "soft";

/**
 * What asking before an eviction said: it may go ahead, or it would be refused (a
 * PodDisruptionBudget allows no disruption of the pod now), with why, so that the next pod in the
 * ranking can be considered instead.
 */
export type EvictionPreflight =
  { readonly verdict: "allowed" } | { readonly verdict: "refused"; readonly reason: string };

/**
 * Thrown by a kill that was refused and left the pod as it was (a PodDisruptionBudget allows no
 * disruption of it now): like a preflight's refusal, the loop considers the next pod in the
 * ranking instead. Any other error is a failed kill.
 */
export class EvictionBlockedError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = "EvictionBlockedError";
  }
}

export interface PodsPort {
  /** Admitted pods that are not terminated and not being evicted, in a stable order. */
  activePods(): readonly Pod[];
  /**
   * SIGTERM now, SIGKILL after the grace period; the status is written and the pod never restarted.
   * `annotations` are the engine's facts about the eviction (offending containers, their usage, the
   * starved resource) that the kubelet attaches to its Evicted event; ports without events ignore them.
   * `urgency` (default `hard`) lets a port take a gentler way for a soft threshold.
   */
  kill(
    pod: Pod,
    gracePeriodSeconds: number,
    status: FailedPodStatus,
    annotations?: Readonly<Record<string, string>>,
    urgency?: EvictionUrgency,
  ): Promise<KillResult>;
  /**
   * Asks, without evicting, whether evicting `pod` now would be refused; `status` says why it would
   * go, `urgency` which way its kill will take. Absent: no eviction is asked about first. A port
   * whose kill itself can be refused ({@link EvictionBlockedError}) answers `allowed` without asking
   * where the kill's refusal is the answer.
   */
  preflight?(
    pod: Pod,
    gracePeriodSeconds: number,
    status: FailedPodStatus,
    urgency: EvictionUrgency,
  ): Promise<EvictionPreflight>;
  /**
   * Replaces the status a pod being killed will be left with (its eviction message written again
   * from fresher figures); does nothing for a pod not being killed. Absent: statuses are final.
   */
  restate?(pod: Pod, status: FailedPodStatus): void;
  /** Whether no process of the pod is left (its cgroups are empty). */
  isCleanedUp(pod: Pod): Promise<boolean>;
  /** Node-level reclaim: dead containers of terminated pods. */
  containerGC(): Promise<GcReport>;
  /** Node-level reclaim: unused images. */
  imageGC(): Promise<GcReport>;
}

export interface ClockPort {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A monotonic clock in fractional ms, for timing the loop's phases (absent: phases are not timed). */
  readonly elapsed?: () => number;
}

/** Why the loop woke: the housekeeping timer, or a kernel notification (with when it fired). */
export interface Wake {
  readonly reason: string;
  /** When the loop's thread took the wake in: the first it knew of the crossing. */
  readonly at: number;
  readonly notification: boolean;
  /**
   * When a look at the crossed threshold's figure last saw it below (the working-set poller's),
   * before this wake: the crossing happened between then and {@link at}.
   */
  readonly lastBelowAt?: number;
}

export interface WakePort {
  /** Resolves at the first notification, or with a timer wake after `timeoutMs`. */
  next(timeoutMs: number, signal?: AbortSignal): Promise<Wake>;
  /** Re-arm kernel thresholds from the latest sample (called when the engine asks, ≤ every 10 s). */
  rearm(sample: StatsSample): void;
}

export interface LoggerPort {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  /**
   * The same log with its lines stamped `time` (epoch ms) instead of now: what another thread saw
   * carries that thread's clock, so a line written late (its thread was busy) is not dated late.
   * Absent: lines are stamped when written.
   */
  at?(time: number): LoggerPort;
}

/** The daemon process's own resource use, as the kernel accounts it (every thread). */
export interface ProcessFigures {
  /** CPU time in user mode, in seconds. */
  readonly cpuUserSeconds: number;
  /** CPU time in the kernel on the process's behalf, in seconds. */
  readonly cpuSystemSeconds: number;
  readonly residentBytes: number;
  readonly virtualBytes: number;
  readonly openFds: number;
  /** The soft limit on open files (`RLIMIT_NOFILE`). */
  readonly maxFds: number;
  /** The soft limit on the address space (`RLIMIT_AS`); 2^64 − 1 when there is none. */
  readonly maxVirtualBytes: number;
  /** When the process started, in seconds since the epoch. */
  readonly startTimeSeconds: number;
}

/** The figures now, or undefined if they cannot be read. */
export type ProcessFiguresSource = () => ProcessFigures | undefined;
