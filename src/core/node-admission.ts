/**
 * The kubelet's admission of a pod arriving at the node, in its handlers' order: the eviction
 * manager's (`admission.ts`: node conditions), then resource fit (`resource-fit.ts`: the pod count
 * against maxPods, then the memory requests against allocatable). The first rejection is the answer.
 */
import { admitPod } from "./admission.js";
import type { NodeCondition, Pod } from "./model.js";
import { fitsNodeResources, type NodeAllocatable } from "./resource-fit.js";

export type NodeAdmission =
  { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string };

/** `admitted`: the pods not yet terminated (running, starting, or being killed). */
export function admitPodToNode(
  pod: Pod,
  conditions: readonly NodeCondition[],
  admitted: readonly Pod[],
  allocatable: NodeAllocatable,
): NodeAdmission {
  const underPressure = admitPod(pod, conditions);
  if (!underPressure.admit) return underPressure;
  return fitsNodeResources(pod, admitted, allocatable);
}
