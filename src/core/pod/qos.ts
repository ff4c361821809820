/**
 * Pod QoS class (`pkg/apis/core/v1/helper/qos`): status.qosClass when the pod carries one,
 * otherwise the per-container rule over cpu and memory, or the pod-level rule when spec.resources
 * is set (PodLevelResources, on by default since 1.34).
 *
 * The class is computed from the spec's requests and limits, not the allocated requests: a resize
 * cannot change a pod's class (API validation), and the API shows allocated requests but not
 * allocated limits, so pairing allocated requests with the spec's limits while a resize waits
 * (a Guaranteed pod asking for more of both) would read as Burstable.
 */
import type { Pod, QosClass, ResourceRequirements } from "../model.js";
import { specContainerResources, specPodResources } from "./desired-resources.js";
import { cmpQuantity, isQuantityZero, type Quantity } from "../quantity.js";

/** Only cpu and memory decide QoS; ephemeral-storage, hugepages and extended resources do not. */
const QOS_COMPUTE_RESOURCES = ["cpu", "memory"] as const;

function isZero(q: Quantity | undefined): boolean {
  return q === undefined || isQuantityZero(q);
}

function equalOrBothMissing(a: Quantity | undefined, b: Quantity | undefined): boolean {
  if (a === undefined || b === undefined) return isZero(a) && isZero(b);
  return cmpQuantity(a, b) === 0;
}

/**
 * `resourceQOS`: no requests and no limits at all → BestEffort. Otherwise cpu and memory must each
 * have request == limit (missing = 0), else Burstable; both zero for both → BestEffort; both set
 * for both → Guaranteed; one set and the other zero → Burstable.
 */
export function resourceQos(resources: ResourceRequirements): QosClass {
  if (Object.keys(resources.requests).length === 0 && Object.keys(resources.limits).length === 0) {
    return "BestEffort";
  }
  let qos: QosClass | undefined;
  for (const name of QOS_COMPUTE_RESOURCES) {
    const req = resources.requests[name];
    const lim = resources.limits[name];
    if (!equalOrBothMissing(req, lim)) return "Burstable";
    const bestEffort = isZero(req) && isZero(lim);
    if (qos === undefined) qos = bestEffort ? "BestEffort" : "Guaranteed";
    else if (bestEffort !== (qos === "BestEffort")) return "Burstable";
  }
  return qos ?? "BestEffort";
}

/**
 * `ComputePodQOS`, ignoring status.qosClass. Regular and init containers (sidecars included) are
 * considered: any Burstable → Burstable; all the same class → that class; BestEffort mixed with
 * Guaranteed → Burstable.
 */
export function computePodQos(pod: Pod): QosClass {
  const podResources = specPodResources(pod);
  if (podResources !== undefined) return resourceQos(podResources);
  let podQos: QosClass | undefined;
  for (const container of [...pod.initContainers, ...pod.containers]) {
    const qos = resourceQos(specContainerResources(container));
    if (qos === "Burstable") return qos;
    if (podQos === undefined) podQos = qos;
    else if (podQos !== qos) return "Burstable";
  }
  return podQos ?? "BestEffort";
}

/** `GetPodQOS`: the class the object already carries wins. */
export function podQos(pod: Pod): QosClass {
  return pod.statusQosClass ?? computePodQos(pod);
}
