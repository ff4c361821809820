/**
 * Local storage capacity isolation (localStorageEviction upstream): every run, independent of node
 * pressure, pods exceeding an emptyDir sizeLimit, their pod-level ephemeral-storage limit or a
 * container's ephemeral-storage limit are evicted with a 1 s grace, no annotations and no
 * DisruptionTarget condition. Unlike pressure evictions, several pods may go in one run.
 */
import type { FilesystemLayout, Pod, PodStats } from "../model.js";
import { goQuote } from "../go-quote.js";
import { isCriticalPod } from "../pod/critical.js";
import { podFacts, type PodFacts } from "../pod/pod-facts.js";
import { formatQuantity } from "../quantity.js";
import type { PodStatsLookup } from "../rank/pod-stats-lookup.js";
import { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS } from "./grace-period.js";
import type { Eviction, Refusal } from "./types.js";

const NANOS = 1_000_000_000n;

interface Violation {
  readonly signal: "emptydirfs.limit" | "ephemeralpodfs.limit" | "ephemeralcontainerfs.limit";
  readonly message: string;
}

/** usage > limit, exactly (limits may be fractional quantities, so compare in nano-units). */
function over(usage: bigint, limitNanos: bigint): boolean {
  return usage * NANOS > limitNanos;
}

/** The first emptyDir (spec order, any medium) whose usage exceeds its sizeLimit. */
function emptyDirViolation(facts: PodFacts, stats: PodStats): Violation | undefined {
  for (const v of facts.emptyDirLimits) {
    const used = stats.volumes.find((s) => s.name === v.name)?.usedBytes;
    // A stats entry without usedBytes crashes upstream; it is treated as absent here.
    if (used !== undefined && over(used, v.limitNanos)) {
      return {
        signal: "emptydirfs.limit",
        message: `Usage of EmptyDir volume ${goQuote(v.name)} exceeds the limit ${goQuote(formatQuantity(v.limit))}. `,
      };
    }
  }
  return undefined;
}

function podLimitViolation(facts: PodFacts, stats: PodStats): Violation | undefined {
  const limit = facts.podStorageLimit;
  if (limit === undefined) return undefined;
  const used = stats.ephemeralStorage?.usedBytes ?? 0n;
  if (!over(used, limit.limitNanos)) return undefined;
  return {
    signal: "ephemeralpodfs.limit",
    message: `Pod ephemeral local storage usage exceeds the total limit of containers ${formatQuantity(limit.limit)}. `,
  };
}

function containerLimitViolation(
  facts: PodFacts,
  stats: PodStats,
  layout: FilesystemLayout,
): Violation | undefined {
  const limits = facts.containerStorageLimits;
  if (limits.size === 0) return undefined;
  for (const cs of stats.containers) {
    const limit = limits.get(cs.name);
    if (limit === undefined) continue;
    let used = cs.logs?.usedBytes ?? 0n;
    // The writable layer counts only when it lives on the node's filesystem (no dedicated imagefs).
    if (layout === "single") used += cs.rootfs?.usedBytes ?? 0n;
    if (over(used, limit.limitNanos)) {
      return {
        signal: "ephemeralcontainerfs.limit",
        message: `Container ${cs.name} exceeded its local ephemeral storage limit ${goQuote(formatQuantity(limit.limit))}. `,
      };
    }
  }
  return undefined;
}

export interface LocalStorageResult {
  readonly evictions: Eviction[];
  readonly refused: Refusal[];
}

/** Runs the three checks per pod, in active-pod order; the first check that evicts ends the pod's checks. */
export function localStorageEvictions(
  pods: readonly Pod[],
  lookup: PodStatsLookup,
  layout: FilesystemLayout,
): LocalStorageResult {
  const evictions: Eviction[] = [];
  const refused: Refusal[] = [];
  for (const pod of pods) {
    const stats = lookup(pod);
    if (stats === undefined) continue;
    const facts = podFacts(pod);
    // The three checks in upstream's order, each run only if the previous one evicted nothing.
    for (let check = 0; check < 3; check++) {
      const v =
        check === 0
          ? emptyDirViolation(facts, stats)
          : check === 1
            ? podLimitViolation(facts, stats)
            : containerLimitViolation(facts, stats, layout);
      if (v === undefined) continue;
      if (isCriticalPod(pod)) {
        // A refused eviction reports "not evicted" and the next check runs, as upstream.
        refused.push({ pod, reason: "critical", kind: "localStorage" });
        continue;
      }
      evictions.push({
        pod,
        kind: "localStorage",
        signal: v.signal,
        gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
        message: v.message,
        annotations: {},
      });
      break;
    }
  }
  return { evictions, refused };
}
