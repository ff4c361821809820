/**
 * Finds a pod's stats in a summary: by UID as upstream does, falling back to namespace/name so that
 * hand-written scenarios and recorded traces whose UIDs differ still match.
 */
import type { NodeSummary, Pod, PodStats } from "../model.js";

export type PodStatsLookup = (pod: Pod) => PodStats | undefined;

export function podStatsLookup(summary: NodeSummary): PodStatsLookup {
  const find = summary.findPod;
  if (find !== undefined) return (pod) => find(pod.uid, pod.key);
  const byUid = new Map<string, PodStats>();
  const byKey = new Map<string, PodStats>();
  for (const s of summary.pods) {
    if (!byUid.has(s.podRef.uid)) byUid.set(s.podRef.uid, s);
    const key = `${s.podRef.namespace}/${s.podRef.name}`;
    if (!byKey.has(key)) byKey.set(key, s);
  }
  return (pod) => byUid.get(pod.uid) ?? byKey.get(pod.key);
}
