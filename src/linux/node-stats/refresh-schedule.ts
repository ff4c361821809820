/**
 * When the stats collector reads a figure again and when it reuses the last one: the refresh
 * period of the figures only a ranking or a message needs (container memory always, a pod's own
 * memory and PIDs on housekeeping reads), the walk period of the pods' directories, how many pods
 * one housekeeping read refreshes, and whether figures are due. Pure: every instant is passed in
 * (epoch ns), every period in milliseconds.
 *
 * Both periods grow with the node, so that what the refreshes cost per second stays about the same
 * on a large node as on a small one, and neither is ever longer than the kubelet's own: cAdvisor's
 * housekeeping refreshes container figures every 10–15 s, its fs handler and the volume stats'
 * `calcPeriod` disk figures every 60 s.
 */

/** The longest the pods' directory walks are reused for: the kubelet's own disk figures' period. */
export const MAX_WALK_PERIOD_MS = 60_000;

const NS_PER_MS = 1_000_000n;

/** How the periods grow with the node (`LinuxSummaryCollectorOptions` documents each setting). */
export interface RefreshSchedule {
  /** The shortest period of either kind (the option `diskTtlMs`). */
  readonly minRefreshMs: number;
  /** How much longer, per pod, the refresh period lasts. */
  readonly refreshPerPodMs: number;
  /** How much longer, per pod, the walk period lasts, up to {@link MAX_WALK_PERIOD_MS}. */
  readonly walkPerPodMs: number;
}

/** The daemon's schedule: 1 s and 1.5 s at 5 pods, 11 s and 33 s at 110, walks every 60 s from 200 pods on. */
export const DEFAULT_REFRESH_SCHEDULE: RefreshSchedule = {
  minRefreshMs: 1000,
  refreshPerPodMs: 100,
  walkPerPodMs: 300,
};

/**
 * How long container memory figures (and, on housekeeping reads, the pods' own) are reused on a
 * node of `pods` pods: max(minRefreshMs, pods × refreshPerPodMs). The engine ranks memory by the
 * pods' own figures, read fresh whenever a decision may evict; container figures only word an
 * eviction message, and the picked pods' are read again.
 */
export function refreshPeriodMs(schedule: RefreshSchedule, pods: number): number {
  return Math.max(schedule.minRefreshMs, pods * schedule.refreshPerPodMs);
}

/**
 * How long the pods' directory walks are reused on a node of `pods` pods: pods × walkPerPodMs,
 * kept between minRefreshMs and {@link MAX_WALK_PERIOD_MS} (minRefreshMs wins if longer). Disk use
 * moves slowly and a walk is the dearest part of a housekeeping read (its promises and directory
 * handles were much of what the loop thread allocated and kept past young collections, and a
 * longer period took the daemon's memory and CPU down: docs/benchmarks.md, "Figures behind design
 * choices"), so walks keep a period of their own, never longer than the kubelet's and shorter
 * below 200 pods.
 */
export function walkPeriodMs(schedule: RefreshSchedule, pods: number): number {
  return Math.max(schedule.minRefreshMs, Math.min(pods * schedule.walkPerPodMs, MAX_WALK_PERIOD_MS));
}

/**
 * The start of the period of `periodMs` that ends at `nowNs`: figures read after it are reused,
 * figures read at it or before are due.
 */
export function periodStartNs(nowNs: bigint, periodMs: number): bigint {
  return nowNs - BigInt(periodMs) * NS_PER_MS;
}

/** Before any figure's time: a read that reuses figures whatever their age (a memory wake) passes it as the period's start. */
export const REUSE_ANY_AGE = -1n;

/**
 * Whether figures read at `readAtNs` are due for a refresh in a period that started at
 * `periodStart` (see {@link periodStartNs}): never read (undefined), or read at its start or
 * before. For a pod, `readAtNs` is the time of its oldest figure, its own or a container's: a pod
 * is refreshed with its containers.
 */
export function dueForRefresh(readAtNs: bigint | undefined, periodStart: bigint): boolean {
  return readAtNs === undefined || readAtNs <= periodStart;
}

/**
 * How many pods a housekeeping read at `nowNs` refreshes at most: its share of a refresh period,
 * `pods × (time since the last housekeeping read) / period`, rounded up and at least one; every pod
 * on the first housekeeping read (`lastAtNs` undefined). Pods read together (all of them at start)
 * would otherwise come due together, and every period one housekeeping step would re-read the
 * whole node (on the loop thread, where a memory wake waits behind it; docs/benchmarks.md, "Figures
 * behind design choices") while the others read none.
 * With the share, those that came due together are refreshed over the next period (once: the last
 * of them up to a period late), and from then on the refreshes stay spread out, each pod's on the
 * step it comes due.
 */
export function refreshBudget(
  pods: number,
  lastAtNs: bigint | undefined,
  nowNs: bigint,
  refreshMs: number,
): number {
  if (lastAtNs === undefined) return pods;
  const elapsedMs = Number(nowNs - lastAtNs) / 1e6;
  return Math.max(1, Math.ceil((pods * elapsedMs) / refreshMs));
}

/** Whether the pods' directories, last walked at `walkedAtNs`, are due for a walk at `nowNs`. */
export function walkDue(walkedAtNs: bigint, nowNs: bigint, walkMs: number): boolean {
  return nowNs - walkedAtNs >= BigInt(walkMs) * NS_PER_MS;
}

/**
 * Whether the kept-open descriptors, last swept at `sweptAtNs`, are due for a sweep at `nowNs`:
 * full reads touch every file a pod has at least once per refresh period, so a descriptor unread
 * for two belongs to a cgroup that is gone.
 */
export function sweepDue(sweptAtNs: bigint, nowNs: bigint, refreshMs: number): boolean {
  return nowNs - sweptAtNs >= 2n * BigInt(refreshMs) * NS_PER_MS;
}
