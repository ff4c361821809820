/**
 * The kubelet's resource-fit admission (`lifecycle.NewPredicateAdmitHandler`, the scheduler's
 * `noderesources.Fits` run again on the node): a pod whose memory request does not fit in what the
 * node's allocatable leaves after the requests of the pods already admitted is rejected, reason
 * `OutOfmemory`, with `InsufficientResourceError`'s message. The kubelet runs it after the eviction
 * manager's handler (`admission.ts`). Memory is the resource evictd knows the node's allocatable
 * of; a pod asking 1Ei of it is refused here instead of started.
 */
import type { Pod } from "./model.js";
import { podRequests } from "./pod/resources.js";
import { quantityValue } from "./quantity.js";

export interface ResourceFitRejection {
  readonly admit: false;
  /** `OutOf<resource>`, as the kubelet words it (`OutOfmemory`). */
  readonly reason: string;
  readonly message: string;
}

export type ResourceFit = { readonly admit: true } | ResourceFitRejection;

/** Whether `pod` fits next to `admitted` on a node with `allocatableMemoryBytes` of memory. */
export function fitsNodeResources(
  pod: Pod,
  admitted: readonly Pod[],
  allocatableMemoryBytes: bigint,
): ResourceFit {
  const requested = quantityValue(podRequests(pod, "memory"));
  if (requested <= 0n) return { admit: true };
  const used = admitted
    .filter((p) => p.uid !== pod.uid)
    .reduce((sum, p) => sum + quantityValue(podRequests(p, "memory")), 0n);
  if (requested <= allocatableMemoryBytes - used) return { admit: true };
  return {
    admit: false,
    reason: "OutOfmemory",
    message: `Node didn't have enough resource: memory, requested: ${requested}, used: ${used}, capacity: ${allocatableMemoryBytes}`,
  };
}
