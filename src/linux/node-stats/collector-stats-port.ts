/**
 * The Linux collector as the eviction loop's {@link StatsPort}: one wiring for the daemon, the
 * benchmarks and the tests. Every hook the collector offers is wired here, together: a port that
 * forgot `unreadPods` would have the engine rank the pods a memory wake left unread at their stale
 * figures instead of the pods cgroup's bound, and one that forgot `refreshPods` would decide from
 * usage where the engine needs working sets.
 */
import { summaryStatsPort } from "../../app/loop/summary-stats-port.js";
import type { ClockPort, StatsPort, StatsScope } from "../../app/ports.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import type { CollectOptions, LinuxSummaryCollector } from "./summary-collector.js";
import type { RawSummaryJson } from "./summary-json.js";

export interface CollectorStatsPortOptions {
  /** The pods to read, asked before each read; a refresh reads among the pods of the read before it. */
  readonly targets: () => readonly ActivePodInfo[] | Promise<readonly ActivePodInfo[]>;
  /** The time a sample is decoded at. */
  readonly clock: Pick<ClockPort, "now">;
  /** Where the Summary comes from, for messages (default: the node's stats collector). */
  readonly source?: string;
}

/** How fresh a collection is for each scope the loop asks for. */
function collectOptions(scope: StatsScope): CollectOptions {
  return { memoryOnly: scope === "memory", reusePods: scope === "node" };
}

/** A stats port reading `collector`: scoped reads, pods read in full on demand, unread pods named. */
export function collectorStatsPort(
  collector: LinuxSummaryCollector,
  options: CollectorStatsPortOptions,
): StatsPort {
  let lastTargets: readonly ActivePodInfo[] = [];
  return summaryStatsPort({
    read: async (scope) => {
      lastTargets = await options.targets();
      return collector.collect(lastTargets, collectOptions(scope));
    },
    refreshPods: (raw, uids) =>
      Promise.resolve(collector.refreshPods(raw as RawSummaryJson, lastTargets, uids)),
    unreadPods: (raw) => collector.unreadPods(raw as RawSummaryJson),
    // The collector hands out the same entry objects while a pod's figures stand still.
    sharesEntries: true,
    source: options.source ?? "the node's stats collector",
    clock: options.clock,
    hint: "the collector built a Summary the engine cannot read: a bug in evictd; please report it with the node file",
  });
}
