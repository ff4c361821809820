/**
 * Critical pods (`pkg/kubelet/types/pod_update.go`): static, mirror, or system priority. The
 * eviction manager never evicts them and always admits them; node-critical ones get the lowest
 * oom_score_adj.
 */
import type { Pod } from "../model.js";

/** `scheduling.SystemCriticalPriority` (2 × HighestUserDefinablePriority). */
export const SystemCriticalPriority = 2_000_000_000;

export const SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical";
export const SYSTEM_NODE_CRITICAL = "system-node-critical";

/** The built-in PriorityClasses the API server resolves `priorityClassName` against. */
export const BUILTIN_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  [SYSTEM_CLUSTER_CRITICAL]: SystemCriticalPriority,
  [SYSTEM_NODE_CRITICAL]: SystemCriticalPriority + 1000,
};

/** Where the kubelet got a pod from: `file`, `http` (static pods) or `api`. */
export const CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source";
/** On a mirror pod: the config hash of the static pod it stands for (the kubelet's UID of that pod). */
export const CONFIG_MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
/** On a static pod (and copied to its mirror): its config hash, which is also its UID on the node. */
export const CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash";
const API_SERVER_SOURCE = "api";

function hasAnnotation(pod: Pod, key: string): boolean {
  return Object.hasOwn(pod.annotations, key);
}

/** A static pod: its config source annotation is present and is not the API server (file, http). */
export function isStaticPod(pod: Pod): boolean {
  return (
    hasAnnotation(pod, CONFIG_SOURCE_ANNOTATION) &&
    pod.annotations[CONFIG_SOURCE_ANNOTATION] !== API_SERVER_SOURCE
  );
}

/** A mirror pod: the API object standing for a static pod carries the mirror annotation. */
export function isMirrorPod(pod: Pod): boolean {
  return hasAnnotation(pod, CONFIG_MIRROR_ANNOTATION);
}

/**
 * Static, mirror, or a set priority ≥ SystemCriticalPriority. Namespace and the legacy
 * critical-pod annotation no longer matter upstream.
 */
export function isCriticalPod(pod: Pod): boolean {
  if (isStaticPod(pod) || isMirrorPod(pod)) return true;
  return pod.prioritySet && pod.priority >= SystemCriticalPriority;
}

/** Critical and of class `system-node-critical` (what oom_score_adj keys on). */
export function isNodeCriticalPod(pod: Pod): boolean {
  return isCriticalPod(pod) && pod.priorityClassName === SYSTEM_NODE_CRITICAL;
}
