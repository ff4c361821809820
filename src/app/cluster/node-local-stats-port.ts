/**
 * `watch --stats cgroups`'s stats port: the Summary API's latest sample with every memory figure
 * read from the kubelet's cgroups the moment the loop asks (node-local-summary.ts). A memory wake
 * reads pods' usage alone, and on a large node only the largest of them, the others bounded by
 * kubepods' usage (`NodeLocalMemory.unread`); the pods a decision picks are then read in full,
 * and naming a pod left unread reads every unread pod's usage too (the `StatsPort.refreshPods`
 * contract), so the decision is a complete read's (app/loop/bounded-memory-pick.ts).
 */
import { isRawObject } from "../../core/raw/raw-object.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import { summaryStatsPort } from "../loop/summary-stats-port.js";
import type { ClockPort, StatsPort } from "../ports.js";
import type { NodeMemoryPort, PodMemory } from "./node-memory-port.js";
import { withNodeLocalMemory, withPodMemory, type ApiPodInfo } from "./node-local-summary.js";

export interface NodeLocalStatsPortOptions {
  readonly memory: NodeMemoryPort;
  /** The Summary API's latest sample (undefined before the first). */
  readonly summary: () => unknown;
  /** The API's pods on this node. */
  readonly pods: () => readonly ApiPodInfo[];
  /** Where the Summary comes from, for messages. */
  readonly source: string;
  readonly clock: Pick<ClockPort, "now">;
}

/** The UIDs of the pods `summary` has an entry for. */
function podsListed(summary: unknown): ReadonlySet<string> {
  const uids = new Set<string>();
  const pods = isRawObject(summary) ? summary["pods"] : undefined;
  if (!Array.isArray(pods)) return uids;
  for (const p of pods) {
    const ref = isRawObject(p) ? p["podRef"] : undefined;
    const uid = isRawObject(ref) ? ref["uid"] : undefined;
    if (typeof uid === "string") uids.add(uid);
  }
  return uids;
}

/** A stats port over the kubelet's cgroups and its Summary API, as `watch --stats cgroups` reads them. */
export function nodeLocalStatsPort(options: NodeLocalStatsPortOptions): StatsPort {
  const { memory } = options;
  /** The pods each merged Summary left unread, with their bound. */
  const unreadOf = new WeakMap<object, UnreadPods>();
  const unreadIn = (raw: unknown): UnreadPods | undefined =>
    isRawObject(raw) ? unreadOf.get(raw) : undefined;
  return summaryStatsPort({
    read: (scope) => {
      const pods = options.pods();
      const summary = options.summary();
      // A pod may stay unread only where the Summary has an entry for the engine to bound.
      const local = memory.read(
        scope,
        pods.map((p) => p.uid),
        { mayStayUnread: podsListed(summary) },
      );
      const raw = withNodeLocalMemory(summary, local, pods);
      if (local.unread !== undefined) unreadOf.set(raw, local.unread);
      return Promise.resolve(raw);
    },
    refreshPods: (raw, uids) => {
      const unread = unreadIn(raw);
      const readsUnread = unread !== undefined && uids.some((uid) => unread.uids.has(uid));
      const inFull = memory.readPods(uids);
      const figures = new Map<string, PodMemory>(inFull);
      if (readsUnread) {
        const rest = [...unread.uids].filter((uid) => !inFull.has(uid));
        for (const [uid, read] of memory.readUsages(rest)) figures.set(uid, read);
      }
      const refreshed = withPodMemory(raw, figures, options.pods());
      if (unread !== undefined && !readsUnread) unreadOf.set(refreshed, unread);
      return Promise.resolve(refreshed);
    },
    unreadPods: unreadIn,
    source: options.source,
    clock: options.clock,
  });
}
