/**
 * A pod as its spec asks, beside the pod as the kubelet allocated it (allocated-resources.ts): what
 * QoS is computed from, and what explanations show next to the allocated requests when an in-place
 * resize has not been allocated (pending, deferred, infeasible).
 */
import type { Container, Pod, PodResize, ResourceRequirements } from "../model.js";
import { cmpQuantity, type Quantity } from "../quantity.js";
import { podRequests } from "./resources.js";

/** A container's resources as its spec asks: the desired requests where they differ, its limits. */
export function specContainerResources(container: Container): ResourceRequirements {
  const desired = container.desiredRequests;
  return desired === undefined
    ? container.resources
    : { requests: desired, limits: container.resources.limits };
}

/** The pod-level resources as the spec asks them; undefined when the spec sets none. */
export function specPodResources(pod: Pod): ResourceRequirements | undefined {
  const r = pod.podResources;
  const desired = pod.desiredPodRequests;
  return r === undefined || desired === undefined ? r : { requests: desired, limits: r.limits };
}

/** Whether some request the spec asks differs from what the kubelet allocated. */
export function isAllocationBehindSpec(pod: Pod): boolean {
  return (
    pod.desiredPodRequests !== undefined ||
    pod.containers.some((c) => c.desiredRequests !== undefined) ||
    pod.initContainers.some((c) => c.desiredRequests !== undefined)
  );
}

function asSpecAsks(container: Container): Container {
  if (container.desiredRequests === undefined) return container;
  const { desiredRequests: _allocatedAside, ...rest } = container;
  return { ...rest, resources: specContainerResources(container) };
}

/** The pod with the spec's requests in place of the allocated ones (the same pod when they agree). */
export function desiredPod(pod: Pod): Pod {
  if (!isAllocationBehindSpec(pod)) return pod;
  const { desiredPodRequests: _allocatedAside, podResources: _allocated, ...rest } = pod;
  const podResources = specPodResources(pod);
  return {
    ...rest,
    containers: pod.containers.map(asSpecAsks),
    initContainers: pod.initContainers.map(asSpecAsks),
    ...(podResources !== undefined ? { podResources } : {}),
  };
}

/** One resource's pod request as allocated and as the spec asks, when the two differ. */
export interface RequestAllocation {
  readonly resource: string;
  /** What ranking and messages use (`GetResourceRequestQuantity` over the allocated pod). */
  readonly allocated: Quantity;
  /** The same sum over the spec. */
  readonly desired: Quantity;
  readonly resize?: PodResize;
}

/** The pod's request for `resource` allocated against desired; undefined when they agree. */
export function requestAllocation(pod: Pod, resource: string): RequestAllocation | undefined {
  if (!isAllocationBehindSpec(pod)) return undefined;
  const allocated = podRequests(pod, resource);
  const desired = podRequests(desiredPod(pod), resource);
  if (cmpQuantity(allocated, desired) === 0) return undefined;
  return { resource, allocated, desired, ...(pod.resize !== undefined ? { resize: pod.resize } : {}) };
}
