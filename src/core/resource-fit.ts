/**
 * The kubelet's resource-fit admission (`lifecycle.NewPredicateAdmitHandler`, the scheduler's
 * `noderesources.Fits` run again on the node), for the two resources evictd knows the node's
 * allocatable of. Pods first, as `fitsRequest` checks them: one pod more than allocatable pods
 * (`maxPods`) is rejected `OutOfpods`, whatever it requests; then memory: a pod whose memory
 * request does not fit in what allocatable leaves after the requests of the pods already admitted
 * is rejected `OutOfmemory`. Both with `InsufficientResourceError`'s message; when both fail the
 * kubelet reports the first, pods. The kubelet runs this after the eviction manager's handler
 * (`admission.ts`). A pod asking 1Ei of memory, or the 111th pod of a default node, is refused
 * here instead of started.
 */
import type { Pod } from "./model.js";
import { podRequests } from "./pod/resources.js";
import { quantityValue } from "./quantity.js";

/** What the node offers pods: allocatable memory and allocatable pods (the kubelet's `maxPods`). */
export interface NodeAllocatable {
  readonly memoryBytes: bigint;
  readonly pods: number;
}

export interface ResourceFitRejection {
  readonly admit: false;
  /** `OutOf<resource>`, as the kubelet words it (`OutOfpods`, `OutOfmemory`). */
  readonly reason: string;
  readonly message: string;
}

export type ResourceFit = { readonly admit: true } | ResourceFitRejection;

/** `InsufficientResourceError` as the kubelet reports it. */
function insufficient(
  resource: "pods" | "memory",
  requested: bigint | number,
  used: bigint | number,
  capacity: bigint | number,
): ResourceFitRejection {
  return {
    admit: false,
    reason: `OutOf${resource}`,
    message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  };
}

/**
 * Whether `pod` fits next to `admitted` (the pods not yet terminated, the kubelet's active pods;
 * `pod` itself is never counted) on a node with `allocatable`.
 */
export function fitsNodeResources(
  pod: Pod,
  admitted: readonly Pod[],
  allocatable: NodeAllocatable,
): ResourceFit {
  const others = admitted.filter((p) => p.uid !== pod.uid);
  if (others.length + 1 > allocatable.pods) return insufficient("pods", 1, others.length, allocatable.pods);
  const requested = quantityValue(podRequests(pod, "memory"));
  if (requested <= 0n) return { admit: true };
  const used = others.reduce((sum, p) => sum + quantityValue(podRequests(p, "memory")), 0n);
  if (requested <= allocatable.memoryBytes - used) return { admit: true };
  return insufficient("memory", requested, used, allocatable.memoryBytes);
}
