/**
 * Ranking comparators and their composition (orderedBy / cmpBool upstream). Each comparator says
 * which of two candidates is evicted first: negative means `a` first. Candidates carry precomputed
 * keys so that ranking 10,000 pods does no quantity arithmetic inside the sort.
 */
import type { Pod } from "../model.js";

/** A pod with the keys the comparators read; `hasStats` false means "pod without stats". */
export interface RankCandidate {
  readonly pod: Pod;
  readonly hasStats: boolean;
  /** Usage strictly above the request for the resource being reclaimed. */
  readonly exceedsRequest: boolean;
  /** Usage minus request, in nano-units so fractional requests (`500m`) stay exact. */
  readonly usageOverRequestNanos: bigint;
  readonly processCount: bigint;
  /** What was measured (bytes or inodes; 0 without stats) and the request it is held against. */
  readonly usage: bigint;
  readonly requestNanos: bigint;
}

export type Comparator = (a: RankCandidate, b: RankCandidate) => number;

/** cmpBool: 0 when equal, otherwise the side that is true goes first. */
export function cmpBool(a: boolean, b: boolean): number {
  if (a === b) return 0;
  return a ? -1 : 1;
}

/**
 * Every usage comparator puts a pod without stats first (and ties two such pods), before looking at
 * usage: a pod the kubelet cannot measure is presumed the culprit.
 */
function withStatsFirst(compare: Comparator): Comparator {
  return (a, b) => (a.hasStats && b.hasStats ? compare(a, b) : cmpBool(!a.hasStats, !b.hasStats));
}

/** Pods whose usage exceeds their request come first. */
export const exceedsRequests: Comparator = withStatsFirst((a, b) =>
  cmpBool(a.exceedsRequest, b.exceedsRequest),
);

/** Lower spec.priority comes first. */
export const byPriority: Comparator = (a, b) => {
  const pa = a.pod.priority;
  const pb = b.pod.priority;
  return pa === pb ? 0 : pa < pb ? -1 : 1;
};

function cmpBigDesc(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

/** Larger usage above request comes first (negative values allowed). */
export const byUsageOverRequest: Comparator = withStatsFirst((a, b) =>
  cmpBigDesc(a.usageOverRequestNanos, b.usageOverRequestNanos),
);

/** More processes come first. */
export const byProcessCount: Comparator = withStatsFirst((a, b) =>
  cmpBigDesc(a.processCount, b.processCount),
);

/** Chains comparators: the first non-zero answer decides. */
export function orderedBy(...comparators: readonly Comparator[]): Comparator {
  return (a, b) => {
    for (const c of comparators) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}
