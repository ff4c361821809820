/**
 * Why a pod sits where it does in the eviction order, in words: the keys the kubelet's comparators
 * looked at (stats or not, usage against request, priority, process count) for the signal being
 * reclaimed. Used by the replay table, and by the daemon's /status "who goes next and why".
 */
import type { SyncReport } from "../engine/types.js";
import type { FilesystemLayout, NodeSummary, Pod, Signal } from "../model.js";
import { isCriticalPod } from "../pod/critical.js";
import { requestAllocation, type RequestAllocation } from "../pod/desired-resources.js";
import { formatQuantity, quantityFromInt, quantityFromNanos } from "../quantity.js";
import { SIGNALS } from "../signals.js";
import type { RankCandidate } from "./comparators.js";
import { podStatsLookup, type PodStatsLookup } from "./pod-stats-lookup.js";
import { rankCandidates } from "./rank-pods.js";

export interface RankExplanation {
  readonly pod: Pod;
  /** 1-based place in the eviction order. */
  readonly place: number;
  readonly critical: boolean;
  /** One line: the facts that placed the pod, in comparator order. */
  readonly reason: string;
  /**
   * The request this ranking used, when the kubelet allocated another than the spec asks (an
   * in-place resize not yet allocated): ranked by the allocated one, as the kubelet ranks.
   */
  readonly allocation?: RequestAllocation;
}

/**
 * "memory request 1Gi allocated (spec asks 2Gi, resize Infeasible: <message>)": the request the
 * ranking used and the one the spec asks, with where the resize stands when the status says.
 */
export function describeRequestAllocation(a: RequestAllocation): string {
  const resize =
    a.resize === undefined
      ? ""
      : `, resize ${a.resize.state}${a.resize.message !== undefined ? `: ${a.resize.message}` : ""}`;
  return `${a.resource} request ${formatQuantity(a.allocated)} allocated (spec asks ${formatQuantity(a.desired)}${resize})`;
}

/** The resource whose request orders pods for the signal; none for PIDs (no request counts). */
function rankedRequestResource(signal: Signal): string | undefined {
  const resource = SIGNALS[signal].resource;
  if (resource === "pids") return undefined;
  // Inode rankings subtract the ephemeral-storage request (an upstream quirk, see reasonFor).
  return resource === "inodes" ? "ephemeral-storage" : resource;
}

function reasonFor(signal: Signal, c: RankCandidate): string {
  const priority = `priority ${c.pod.priority}`;
  if (signal === "pid.available") {
    return c.hasStats
      ? `${priority}, ${c.processCount} processes`
      : `${priority}, no stats (ranked first within its priority)`;
  }
  if (!c.hasStats) return "no stats yet: pods the kubelet cannot measure go first";
  const spec = SIGNALS[signal];
  const inodes = spec.resource === "inodes";
  const show = (n: bigint): string => formatQuantity(quantityFromInt(n, inodes ? "DecimalSI" : "BinarySI"));
  const request = formatQuantity(quantityFromNanos(c.requestNanos, inodes ? "DecimalSI" : "BinarySI"));
  if (inodes) {
    // Upstream quirk: inode use always "exceeds" (nobody requests inodes), and the order subtracts
    // the ephemeral-storage request in bytes from the inode count.
    const storage = formatQuantity(quantityFromNanos(c.requestNanos, "BinarySI"));
    return `${show(c.usage)} inodes, ${priority}, ordered by inodes minus its ephemeral-storage request (${storage})`;
  }
  const what = spec.resource === "memory" ? "working set" : "disk";
  const over = c.exceedsRequest ? "over its request" : "within its request";
  return `${what} ${show(c.usage)} against a request of ${request} (${over}), ${priority}`;
}

/** The full eviction order for a signal, each pod with its reason; undefined without a rank function. */
export function explainRanking(
  signal: Signal,
  layout: FilesystemLayout,
  pods: readonly Pod[],
  lookup: PodStatsLookup,
): RankExplanation[] | undefined {
  const resource = rankedRequestResource(signal);
  return rankCandidates(signal, layout, pods, lookup)?.map((c, i) => {
    const critical = isCriticalPod(c.pod);
    const allocation = resource === undefined ? undefined : requestAllocation(c.pod, resource);
    const facts = [
      reasonFor(signal, c),
      ...(allocation !== undefined ? [describeRequestAllocation(allocation)] : []),
      ...(critical ? ["critical: never evicted"] : []),
    ];
    return {
      pod: c.pod,
      place: i + 1,
      critical,
      reason: facts.join("; "),
      ...(allocation !== undefined ? { allocation } : {}),
    };
  });
}

/**
 * "Who goes next": the order for the signal the last synchronize acted on, else the first one it
 * found met, else memory (the order a node is most often asked about). Undefined without stats.
 */
export function currentRanking(
  report: SyncReport | undefined,
  layout: FilesystemLayout,
  pods: readonly Pod[],
  summary: NodeSummary | undefined,
): { readonly signal: Signal; readonly order: RankExplanation[] } | undefined {
  if (summary === undefined) return undefined;
  const signal = report?.actedOn?.signal ?? report?.thresholdsMet[0]?.signal ?? "memory.available";
  const order = explainRanking(signal, layout, pods, podStatsLookup(summary));
  return order === undefined ? undefined : { signal, order };
}
