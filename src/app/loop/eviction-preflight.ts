/**
 * The next pod when an eviction would be refused. The kubelet evicts node-pressure victims itself
 * and consults no PodDisruptionBudget, so its eviction manager never meets a refusal. An eviction
 * through the API does: the eviction subresource refuses a pod whose budget allows no disruption.
 * When the pods port can ask first (a dry run), a refused pod is left out and the engine decides
 * again, from the same prior state and the same sample (it is pure), so the pod that goes is the
 * next one in the engine's own ranking for the same threshold, with its own message and grace
 * period, instead of the step being lost on a refusal.
 */
import type { Eviction, SyncReport } from "../../core/engine/types.js";
import type { EvictionPreflight } from "../ports.js";

/** A pod the engine picked whose eviction a preflight said would be refused. */
export interface RefusedEviction {
  readonly eviction: Eviction;
  /** What the preflight said (the PodDisruptionBudget's words). */
  readonly reason: string;
}

export interface PreflightOptions {
  /** Asks whether `eviction` would be refused now. */
  readonly preflight: (eviction: Eviction) => Promise<EvictionPreflight>;
  /** The engine's decision again with the pods of `refused` (uids) left out of the active pods. */
  readonly decideWithout: (refused: ReadonlySet<string>) => Promise<SyncReport>;
}

/**
 * `report`, or the decision that replaces it once every pod a preflight refused is left out, with
 * the pods refused on the way (in ranking order). Only a pressure eviction is asked about: it is
 * one pod of a ranking, and the next pod relieves the same pressure. A local-storage eviction is
 * about a pod over its own limit, for which no other pod can stand in. Each round leaves one more
 * pod out, so it ends within the ranking.
 */
export async function firstEvictionAllowed(
  report: SyncReport,
  o: PreflightOptions,
): Promise<{ readonly report: SyncReport; readonly refused: readonly RefusedEviction[] }> {
  const refused: RefusedEviction[] = [];
  const leftOut = new Set<string>();
  let current = report;
  for (;;) {
    const [eviction, ...others] = current.evictions;
    if (eviction === undefined || others.length > 0 || eviction.kind !== "pressure")
      return { report: current, refused };
    const answer = await o.preflight(eviction);
    if (answer.verdict === "allowed") return { report: current, refused };
    refused.push({ eviction, reason: answer.reason });
    leftOut.add(eviction.pod.uid);
    current = await o.decideWithout(leftOut);
  }
}
