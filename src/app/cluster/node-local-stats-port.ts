/**
 * `watch --stats cgroups`'s stats port: the Summary API's latest sample with every memory figure
 * read from the kubelet's cgroups the moment the loop asks (node-local-summary.ts). A memory wake
 * reads pods' usage alone, and on a large node only the largest of them, the others bounded by
 * kubepods' usage (`NodeLocalMemory.unread`); the pods a decision picks are then read in full,
 * and naming a pod left unread reads every unread pod's usage too (the `StatsPort.refreshPods`
 * contract), so the decision is a complete read's (app/loop/bounded-memory-pick.ts).
 *
 * The cgroups are read by the UID the kubelet knows each pod by (a mirror pod's static pod's:
 * kubelet-pod-uid.ts); what the loop is handed (the Summary's entries, the pods left unread) and
 * what it names back (the pods to read in full) use the API's UIDs, as the pods it ranks do.
 */
import { isRawObject } from "../../core/raw/raw-object.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import { summaryStatsPort } from "../loop/summary-stats-port.js";
import type { ClockPort, StatsPort } from "../ports.js";
import { kubeletUidOf, PodUids } from "./kubelet-pod-uid.js";
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

/** The kubelet's UIDs of the pods `summary` has an entry for (an entry may carry either UID). */
function podsListed(summary: unknown, uids: PodUids<ApiPodInfo>): ReadonlySet<string> {
  const listed = new Set<string>();
  const pods = isRawObject(summary) ? summary["pods"] : undefined;
  if (!Array.isArray(pods)) return listed;
  for (const p of pods) {
    const ref = isRawObject(p) ? p["podRef"] : undefined;
    const uid = isRawObject(ref) ? ref["uid"] : undefined;
    if (typeof uid !== "string") continue;
    const pod = uids.byEitherUid(uid);
    listed.add(pod === undefined ? uid : kubeletUidOf(pod));
  }
  return listed;
}

/** A stats port over the kubelet's cgroups and its Summary API, as `watch --stats cgroups` reads them. */
export function nodeLocalStatsPort(options: NodeLocalStatsPortOptions): StatsPort {
  const { memory } = options;
  /** The pods each merged Summary left unread (by the API's UIDs), with their bound. */
  const unreadOf = new WeakMap<object, UnreadPods>();
  const unreadIn = (raw: unknown): UnreadPods | undefined =>
    isRawObject(raw) ? unreadOf.get(raw) : undefined;
  return summaryStatsPort({
    read: (scope) => {
      const pods = options.pods();
      const summary = options.summary();
      const uids = new PodUids(pods);
      // A pod may stay unread only where the Summary has an entry for the engine to bound.
      const local = memory.read(scope, pods.map(kubeletUidOf), {
        mayStayUnread: podsListed(summary, uids),
      });
      const raw = withNodeLocalMemory(summary, local, pods);
      if (local.unread !== undefined) {
        const { usageBoundBytes } = local.unread;
        unreadOf.set(raw, {
          uids: new Set([...local.unread.uids].map((u) => uids.toApi(u))),
          usageBoundBytes,
        });
      }
      return Promise.resolve(raw);
    },
    refreshPods: (raw, named) => {
      const pods = options.pods();
      const uids = new PodUids(pods);
      const unread = unreadIn(raw);
      const readsUnread = unread !== undefined && named.some((uid) => unread.uids.has(uid));
      const inFull = memory.readPods(named.map((uid) => uids.toKubelet(uid)));
      const figures = new Map<string, PodMemory>(inFull);
      if (readsUnread) {
        const rest = [...unread.uids].map((uid) => uids.toKubelet(uid)).filter((uid) => !inFull.has(uid));
        for (const [uid, read] of memory.readUsages(rest)) figures.set(uid, read);
      }
      const refreshed = withPodMemory(raw, figures, pods);
      if (unread !== undefined && !readsUnread) unreadOf.set(refreshed, unread);
      return Promise.resolve(refreshed);
    },
    unreadPods: unreadIn,
    source: options.source,
    clock: options.clock,
  });
}
