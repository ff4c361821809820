/**
 * The next pod when an eviction would be refused. The kubelet evicts node-pressure victims itself
 * and consults no PodDisruptionBudget, so its eviction manager never meets a refusal. An eviction
 * through the API does: the eviction subresource refuses a pod whose budget allows no disruption.
 * The refusal is learnt either by asking first (a dry run: the pods port's preflight) or from the
 * eviction itself, which the API server refuses before it changes anything (the pod is not
 * deleted, not marked, its budget not spent), so asking first costs a round trip the answer
 * already carries. Either way a refused pod is left out and the engine decides again, from the same
 * prior state and the same sample (it is pure), so the pod that goes is the next one in the
 * engine's own ranking for the same threshold, with its own message and grace period, instead of
 * the step being lost on a refusal.
 */
import type { Eviction, SyncReport } from "../../core/engine/types.js";
import type { EvictionPreflight } from "../ports.js";

/** A pod the engine picked whose eviction a preflight, or the eviction itself, refused. */
export interface RefusedEviction {
  readonly eviction: Eviction;
  /** What the refusal said (the PodDisruptionBudget's words). */
  readonly reason: string;
}

/** One eviction sent: its outcome, and the refusal's words when it was refused and changed nothing. */
export interface SentEviction<O> {
  readonly outcome: O;
  readonly blocked?: string;
}

export interface EvictFirstAllowedOptions<O> {
  /** Asks whether `eviction` would be refused now; absent, nothing is asked first. */
  readonly preflight?: (eviction: Eviction) => Promise<EvictionPreflight>;
  /** Sends `eviction`. */
  readonly evict: (eviction: Eviction) => Promise<SentEviction<O>>;
  /** The engine's decision again with the pods of `refused` (uids) left out of the active pods. */
  readonly decideWithout: (refused: ReadonlySet<string>) => Promise<SyncReport>;
}

/**
 * Sends `report`'s evictions, or those of the decision that replaces it once every pod refused on
 * the way is left out; returns the decision acted on, the pods refused (in ranking order) and the
 * outcomes of the evictions sent. Only a lone pressure eviction can be replaced: it is one pod of a
 * ranking, and the next pod relieves the same pressure. A local-storage eviction is about a pod
 * over its own limit, for which no other pod can stand in; its refusal stays a failed kill. Each
 * round leaves one more pod out, so it ends within the ranking.
 */
export async function evictFirstAllowed<O>(
  report: SyncReport,
  o: EvictFirstAllowedOptions<O>,
): Promise<{
  readonly report: SyncReport;
  readonly refused: readonly RefusedEviction[];
  readonly outcomes: readonly O[];
}> {
  const refused: RefusedEviction[] = [];
  const leftOut = new Set<string>();
  let current = report;
  const refuse = async (eviction: Eviction, reason: string): Promise<void> => {
    refused.push({ eviction, reason });
    leftOut.add(eviction.pod.uid);
    current = await o.decideWithout(leftOut);
  };
  for (;;) {
    const [first, ...others] = current.evictions;
    const replaceable = first !== undefined && others.length === 0 && first.kind === "pressure";
    if (replaceable && o.preflight !== undefined) {
      const answer = await o.preflight(first);
      if (answer.verdict === "refused") {
        await refuse(first, answer.reason);
        continue;
      }
    }
    const outcomes: O[] = [];
    let blocked: string | undefined;
    for (const eviction of current.evictions) {
      const sent = await o.evict(eviction);
      outcomes.push(sent.outcome);
      blocked = sent.blocked;
    }
    if (replaceable && blocked !== undefined) {
      await refuse(first, blocked);
      continue;
    }
    return { report: current, refused, outcomes };
  }
}
