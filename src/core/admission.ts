/**
 * The eviction manager's pod admission handler (`managerImpl.Admit`): whether a pod arriving at the
 * node is accepted under the node conditions currently reported, and the status a rejected pod gets.
 */
import type { NodeCondition, Pod } from "./model.js";
import { isCriticalPod } from "./pod/critical.js";
import { podQos } from "./pod/qos.js";
import { toleratesTaint, type Taint } from "./pod/tolerations.js";

export type AdmitResult =
  { readonly admit: true } | { readonly admit: false; readonly reason: "Evicted"; readonly message: string };

export type RejectedAdmitResult = Extract<AdmitResult, { admit: false }>;

/** What the kubelet writes into a rejected pod's status (`rejectPod`); the QoS class is kept. */
export interface RejectedPodStatus {
  readonly phase: "Failed";
  /** `Evicted` from this handler, `OutOf<resource>` from resource fit (`resource-fit.ts`). */
  readonly reason: string;
  readonly message: string;
}

/** The taint the node lifecycle controller puts on a node under memory pressure. */
export const MEMORY_PRESSURE_TAINT: Taint = {
  key: "node.kubernetes.io/memory-pressure",
  effect: "NoSchedule",
};

const ADMITTED: AdmitResult = { admit: true };

/**
 * Rules in upstream order:
 * 1. no reported condition → admit;
 * 2. critical pods are admitted whatever the conditions (kubernetes/kubernetes#40573);
 * 3. when MemoryPressure is the ONLY condition, non-BestEffort pods are admitted, and BestEffort
 *    pods tolerating the memory-pressure NoSchedule taint too;
 * 4. everything else is rejected (DiskPressure, PIDPressure, or memory pressure with anything).
 */
export function admitPod(pod: Pod, conditions: readonly NodeCondition[]): AdmitResult {
  if (conditions.length === 0) return ADMITTED;
  if (isCriticalPod(pod)) return ADMITTED;
  const onlyMemoryPressure = conditions.length === 1 && conditions[0] === "MemoryPressure";
  if (onlyMemoryPressure) {
    if (podQos(pod) !== "BestEffort") return ADMITTED;
    if (toleratesTaint(pod.tolerations, MEMORY_PRESSURE_TAINT)) return ADMITTED;
  }
  // Go renders the condition slice with %v: `[MemoryPressure DiskPressure]`; note the trailing space.
  return {
    admit: false,
    reason: "Evicted",
    message: `The node had condition: [${conditions.join(" ")}]. `,
  };
}

/** The pod status after a rejection (by any admission handler): phase Failed, its reason, `Pod was rejected: ` + message. */
export function rejectedPodStatus(result: {
  readonly reason: string;
  readonly message: string;
}): RejectedPodStatus {
  return { phase: "Failed", reason: result.reason, message: `Pod was rejected: ${result.message}` };
}
