/**
 * The rank function of each signal (rankMemoryPressure, rankPIDPressure, rankDiskPressureFunc):
 * builds each candidate's keys from the summary, then sorts with the signal's comparator chain.
 * The sort is stable, so ties keep the caller's (deterministic) active-pod order; upstream's sort
 * is unstable and its tie order arbitrary.
 */
import type { FilesystemLayout, Pod, Signal } from "../model.js";
import { podFacts } from "../pod/pod-facts.js";
import { rankFsStatsFor } from "../engine/signal-tables.js";
import { isMemorySignal } from "../signals.js";
import {
  byPriority,
  byProcessCount,
  byUsageOverRequest,
  exceedsRequests,
  orderedBy,
  type Comparator,
  type RankCandidate,
} from "./comparators.js";
import type { PodStatsLookup } from "./pod-stats-lookup.js";
import { podDiskUsage, podMemoryUsage, podProcessCount, type DiskResource } from "./pod-usage.js";

const NANOS = 1_000_000_000n;

type KeyBuilder = (pod: Pod, lookup: PodStatsLookup) => RankCandidate;

function candidate(
  pod: Pod,
  hasStats: boolean,
  usage: bigint,
  requestNanos: bigint,
  exceedsAgainst: bigint,
  processCount = 0n,
): RankCandidate {
  const usageNanos = usage * NANOS;
  return {
    pod,
    hasStats,
    exceedsRequest: usageNanos > exceedsAgainst,
    usageOverRequestNanos: usageNanos - requestNanos,
    processCount,
    usage,
    requestNanos,
  };
}

const memoryKeys: KeyBuilder = (pod, lookup) => {
  const stats = lookup(pod);
  const request = podFacts(pod).memoryRequestNanos;
  return candidate(
    pod,
    stats !== undefined,
    stats === undefined ? 0n : podMemoryUsage(stats),
    request,
    request,
  );
};

const pidKeys: KeyBuilder = (pod, lookup) => {
  const stats = lookup(pod);
  return candidate(pod, stats !== undefined, 0n, 0n, 0n, stats === undefined ? 0n : podProcessCount(stats));
};

function diskKeys(fsTypes: Parameters<typeof podDiskUsage>[2], resource: DiskResource): KeyBuilder {
  return (pod, lookup) => {
    const stats = lookup(pod);
    const usage = stats === undefined ? 0n : podDiskUsage(pod, stats, fsTypes, resource);
    // "Exceeds" compares against the request for the measured resource (no pod requests inodes),
    // but the ordering subtracts the ephemeral-storage request even for inodes: upstream quirk.
    const storageRequest = podFacts(pod).storageRequestNanos;
    const exceedsAgainst = resource === "inodes" ? 0n : storageRequest;
    return candidate(pod, stats !== undefined, usage, storageRequest, exceedsAgainst);
  };
}

interface RankSpec {
  readonly keys: KeyBuilder;
  readonly order: Comparator;
}

const MEMORY_ORDER = orderedBy(exceedsRequests, byPriority, byUsageOverRequest);
const DISK_ORDER = MEMORY_ORDER;
const PID_ORDER = orderedBy(byPriority, byProcessCount);

function rankSpecFor(signal: Signal, layout: FilesystemLayout): RankSpec | undefined {
  if (isMemorySignal(signal)) {
    return { keys: memoryKeys, order: MEMORY_ORDER };
  }
  if (signal === "pid.available") return { keys: pidKeys, order: PID_ORDER };
  const fsTypes = rankFsStatsFor(signal, layout);
  if (fsTypes === undefined) return undefined;
  const resource: DiskResource = signal.endsWith(".inodesFree") ? "inodes" : "ephemeral-storage";
  return { keys: diskKeys(fsTypes, resource), order: DISK_ORDER };
}

/** Candidates (pods with the keys that ordered them) in eviction order; undefined without a rank function. */
export function rankCandidates(
  signal: Signal,
  layout: FilesystemLayout,
  pods: readonly Pod[],
  lookup: PodStatsLookup,
): RankCandidate[] | undefined {
  const spec = rankSpecFor(signal, layout);
  if (spec === undefined) return undefined;
  return pods.map((p) => spec.keys(p, lookup)).sort(spec.order);
}

/** Pods in eviction order for a signal; undefined when the signal has no rank function. */
export function rankPods(
  signal: Signal,
  layout: FilesystemLayout,
  pods: readonly Pod[],
  lookup: PodStatsLookup,
): Pod[] | undefined {
  return rankCandidates(signal, layout, pods, lookup)?.map((c) => c.pod);
}
