/**
 * The kubelet's admission of a pod arriving at the node, in its handlers' order: the eviction
 * manager's (`admission.ts`: node conditions), then resource fit (`resource-fit.ts`: the memory
 * requests against allocatable). The first rejection is the answer.
 */
import { admitPod } from "./admission.js";
import type { NodeCondition, Pod } from "./model.js";
import { fitsNodeResources } from "./resource-fit.js";

export type NodeAdmission =
  { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string };

export function admitPodToNode(
  pod: Pod,
  conditions: readonly NodeCondition[],
  admitted: readonly Pod[],
  allocatableMemoryBytes: bigint,
): NodeAdmission {
  const underPressure = admitPod(pod, conditions);
  if (!underPressure.admit) return underPressure;
  return fitsNodeResources(pod, admitted, allocatableMemoryBytes);
}
