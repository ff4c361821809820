/**
 * Pod resource arithmetic as the kubelet does it: sidecar-aware aggregation of container requests
 * and limits (component-helpers `AggregateContainerRequests`/`Limits`), pod-level resources, and
 * pod overhead (`GetResourceRequestQuantity`, `PodLimits`).
 */
import type { Container, Pod, ResourceList } from "../model.js";
import { addQuantity, cmpQuantity, isQuantityZero, quantityFromInt, type Quantity } from "../quantity.js";

/** The part of a pod the aggregation reads (decode-pod calls it before the Pod exists). */
export type PodContainers = Pick<Pod, "containers" | "initContainers">;

const HUGEPAGES_PREFIX = "hugepages-";

/** cpu, memory and hugepages-* can be set at pod level (PodLevelResources). */
export function isSupportedPodLevelResource(name: string): boolean {
  return name === "cpu" || name === "memory" || name.startsWith(HUGEPAGES_PREFIX);
}

/** Overcommittable resources: native ones that are not hugepages (only cpu/memory matter here). */
export function isOvercommitAllowed(name: string): boolean {
  return !name.startsWith(HUGEPAGES_PREFIX);
}

/** `IsPodLevelResourcesSet`: spec.resources requests or limits name a supported resource. */
export function isPodLevelResourcesSet(pod: Pick<Pod, "podResources">): boolean {
  const r = pod.podResources;
  if (r === undefined) return false;
  return (
    Object.keys(r.requests).some(isSupportedPodLevelResource) ||
    Object.keys(r.limits).some(isSupportedPodLevelResource)
  );
}

/** `IsPodLevelRequestsSet`: spec.resources requests name a supported resource. */
export function isPodLevelRequestsSet(pod: Pick<Pod, "podResources">): boolean {
  const r = pod.podResources;
  return r !== undefined && Object.keys(r.requests).some(isSupportedPodLevelResource);
}

/** A sidecar: an init container with `restartPolicy: Always`. */
export function isRestartableInitContainer(container: Container): boolean {
  return container.restartPolicy === "Always";
}

function addInto(list: Map<string, Quantity>, add: ResourceList): void {
  for (const [name, q] of Object.entries(add)) {
    const cur = list.get(name);
    list.set(name, cur === undefined ? q : addQuantity(cur, q));
  }
}

/** maxResourceList: keep the larger; a tie keeps the existing entry. */
function maxInto(list: Map<string, Quantity>, other: ReadonlyMap<string, Quantity>): void {
  for (const [name, q] of other) {
    const cur = list.get(name);
    if (cur === undefined || cmpQuantity(q, cur) > 0) list.set(name, q);
  }
}

/**
 * Sidecar-aware aggregation (KEP-753): regular containers are summed; walking init containers in
 * order, a sidecar adds to the pod total and to a running sidecar sum; a regular init container
 * needs its own value plus the sidecars started before it. The result is the per-resource maximum
 * of the running total and every init container's in-flight value.
 */
function aggregate(pod: PodContainers, pick: (c: Container) => ResourceList): Map<string, Quantity> {
  const result = new Map<string, Quantity>();
  for (const c of pod.containers) addInto(result, pick(c));
  const sidecars = new Map<string, Quantity>();
  const initPeak = new Map<string, Quantity>();
  for (const c of pod.initContainers) {
    const own = pick(c);
    if (isRestartableInitContainer(c)) {
      addInto(result, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const inFlight = new Map<string, Quantity>();
      addInto(inFlight, own);
      for (const [name, q] of sidecars) {
        const cur = inFlight.get(name);
        inFlight.set(name, cur === undefined ? q : addQuantity(cur, q));
      }
      maxInto(initPeak, inFlight);
    }
  }
  maxInto(result, initPeak);
  return result;
}

/** `AggregateContainerRequests` over the spec (no in-place resize status). */
export function aggregateContainerRequests(pod: PodContainers): Map<string, Quantity> {
  return aggregate(pod, (c) => c.resources.requests);
}

/** `AggregateContainerLimits` over the spec. */
export function aggregateContainerLimits(pod: PodContainers): Map<string, Quantity> {
  return aggregate(pod, (c) => c.resources.limits);
}

/** The zero a request sum starts from upstream: BinarySI for byte resources, DecimalSI otherwise. */
function zeroFor(resourceName: string): Quantity {
  const bytes =
    resourceName === "memory" || resourceName === "storage" || resourceName === "ephemeral-storage";
  return quantityFromInt(0n, bytes ? "BinarySI" : "DecimalSI");
}

/**
 * `GetResourceRequestQuantity`: the pod's effective request for one resource, as ranking and the
 * eviction messages use it. When the pod sets pod-level resources (requests or limits) for a
 * supported resource, container requests are skipped entirely and only pod-level requests count
 * (so ephemeral-storage is then 0). Overhead is added only to a non-zero total.
 */
export function podRequests(pod: Pod, resourceName: string): Quantity {
  const reqs = isPodLevelResourcesSet(pod) ? new Map<string, Quantity>() : aggregateContainerRequests(pod);
  if (isPodLevelRequestsSet(pod)) {
    for (const [name, q] of Object.entries(pod.podResources?.requests ?? {})) {
      if (isSupportedPodLevelResource(name)) reqs.set(name, q);
    }
  }
  const found = reqs.get(resourceName);
  let total = found === undefined ? zeroFor(resourceName) : addQuantity(zeroFor(resourceName), found);
  const overhead = pod.overhead?.[resourceName];
  if (overhead !== undefined && !isQuantityZero(total)) total = addQuantity(total, overhead);
  return total;
}

/**
 * The pod ephemeral-storage limit the local-storage check compares against (`PodLimits`): the
 * sidecar-aware aggregate of the containers' declared limits, plus overhead when non-zero.
 * Undefined when no container declares one (the check is then skipped); a declared 0 counts.
 * ephemeral-storage is not a pod-level resource, so spec.resources never replaces it.
 */
export function podEphemeralStorageLimit(pod: Pod): Quantity | undefined {
  const limit = aggregateContainerLimits(pod).get("ephemeral-storage");
  if (limit === undefined) return undefined;
  const overhead = pod.overhead?.["ephemeral-storage"];
  return overhead !== undefined && !isQuantityZero(limit) ? addQuantity(limit, overhead) : limit;
}

/** A container's request for a resource; absent is `0` (as a missing map entry reads upstream). */
export function containerRequest(container: Container, resourceName: string): Quantity {
  return container.resources.requests[resourceName] ?? quantityFromInt(0n, "DecimalSI");
}
