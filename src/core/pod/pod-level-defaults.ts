/**
 * API defaulting of pod-level resources (`spec.resources`, PodLevelResources, on by default since
 * 1.34): `defaultHugePagePodLimits` then `defaultPodRequests` from `SetDefaults_Pod`, run after the
 * container-level requests were defaulted from limits.
 */
import type { ResourceRequirements } from "../model.js";
import type { Quantity } from "../quantity.js";
import {
  aggregateContainerLimits,
  aggregateContainerRequests,
  isOvercommitAllowed,
  isSupportedPodLevelResource,
  type PodContainers,
} from "./resources.js";

/**
 * Pod-level hugepages limits default to the containers' aggregated hugepages limits when the pod
 * sets some pod-level resource but neither a request nor a limit for that hugepage size.
 */
function defaultHugePageLimits(
  requests: ReadonlyMap<string, Quantity>,
  limits: Map<string, Quantity>,
  pod: PodContainers,
): void {
  if (requests.size === 0 && limits.size === 0) return;
  for (const [name, q] of aggregateContainerLimits(pod)) {
    if (!name.startsWith("hugepages-") || !isSupportedPodLevelResource(name)) continue;
    if (requests.has(name) || limits.has(name)) continue;
    limits.set(name, q);
  }
}

/**
 * When pod-level limits exist, missing pod-level requests default first to the containers'
 * aggregated requests (cpu, memory), then to the pod-level limit of the same resource.
 */
function defaultRequests(
  requests: Map<string, Quantity>,
  limits: ReadonlyMap<string, Quantity>,
  pod: PodContainers,
): void {
  if (limits.size === 0) return;
  for (const [name, q] of aggregateContainerRequests(pod)) {
    if (!requests.has(name) && isSupportedPodLevelResource(name) && isOvercommitAllowed(name)) {
      requests.set(name, q);
    }
  }
  for (const [name, q] of limits) {
    if (!requests.has(name) && isSupportedPodLevelResource(name)) requests.set(name, q);
  }
}

/**
 * Applies the pod-level defaults to a decoded `spec.resources`. (Defaulting pod-level limits from
 * container limits, kubernetes/kubernetes#137616, is not merged and not applied.)
 */
export function defaultPodLevelResources(
  resources: ResourceRequirements,
  pod: PodContainers,
): ResourceRequirements {
  const requests = new Map(Object.entries(resources.requests));
  const limits = new Map(Object.entries(resources.limits));
  defaultHugePageLimits(requests, limits, pod);
  defaultRequests(requests, limits, pod);
  return { requests: Object.fromEntries(requests), limits: Object.fromEntries(limits) };
}
