/** The pod cgroup's memory limit as the kubelet computes it (`ResourceConfigForPod`). */
import type { Pod } from "../core/model.js";
import { quantityValue } from "../core/quantity.js";
import { aggregateContainerLimits } from "../core/pod/resources.js";

/**
 * A pod-level `spec.resources.limits.memory` wins; otherwise the pod is limited only when every
 * container (init containers and sidecars included) declares a memory limit: the sidecar-aware
 * aggregate plus overhead. Undefined means unlimited (the QoS tier's limit applies).
 */
export function podMemoryLimitBytes(pod: Pod): bigint | undefined {
  const podLevel = pod.podResources?.limits["memory"];
  if (podLevel !== undefined) return quantityValue(podLevel);
  const all = [...pod.initContainers, ...pod.containers];
  if (all.length === 0 || !all.every((c) => c.resources.limits["memory"] !== undefined)) return undefined;
  const aggregate = aggregateContainerLimits(pod).get("memory");
  if (aggregate === undefined) return undefined;
  const overhead = pod.overhead?.["memory"];
  const bytes = quantityValue(aggregate) + (overhead === undefined ? 0n : quantityValue(overhead));
  return bytes > 0n ? bytes : undefined;
}

/** A container's `limits.memory` in bytes, when set and positive. */
export function containerMemoryLimitBytes(container: Pod["containers"][number]): bigint | undefined {
  const q = container.resources.limits["memory"];
  if (q === undefined) return undefined;
  const bytes = quantityValue(q);
  return bytes > 0n ? bytes : undefined;
}
