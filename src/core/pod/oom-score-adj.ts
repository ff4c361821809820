/**
 * oom_score_adj per container (`pkg/kubelet/qos/policy.go` GetContainerOOMScoreAdjust): what the
 * kernel's OOM killer sees, independent of the eviction manager but reported beside it.
 */
import type { Container, Pod } from "../model.js";
import { quantityValue } from "../quantity.js";
import { isNodeCriticalPod } from "./critical.js";
import { podQos } from "./qos.js";
import { aggregateContainerRequests, isPodLevelRequestsSet } from "./resources.js";

export const GUARANTEED_OOM_SCORE_ADJ = -997;
export const BEST_EFFORT_OOM_SCORE_ADJ = 1000;

/** Go int64 arithmetic wraps; keep every intermediate in that domain. */
function int64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

/** `Requests.Memory().Value()`: the request in bytes, rounded up; 0 when absent. */
function memoryRequestBytes(container: Container): bigint {
  const q = container.resources.requests["memory"];
  return q === undefined ? 0n : quantityValue(q);
}

/**
 * `remainingPodMemReqPerContainer`: the pod-level memory request not claimed by containers,
 * shared equally (truncating division) among regular and init containers. 0 when the pod-level
 * memory request is absent or zero.
 */
function remainingPodMemoryPerContainer(pod: Pod): bigint {
  const podMemory = pod.podResources?.requests["memory"];
  const podBytes = podMemory === undefined ? 0n : quantityValue(podMemory);
  if (podBytes === 0n) return 0n;
  const aggregated = aggregateContainerRequests(pod).get("memory");
  const containerBytes = aggregated === undefined ? 0n : quantityValue(aggregated);
  const count = BigInt(pod.containers.length + pod.initContainers.length);
  return int64(podBytes - containerBytes) / count;
}

/** 1000 − (1000 × request) ÷ capacity, integer division as Go does it. */
function linearAdj(requestBytes: bigint, capacity: bigint): bigint {
  return int64(1000n - int64(int64(1000n * requestBytes) / capacity));
}

function isSidecar(pod: Pod, container: Container): boolean {
  return container.restartPolicy === "Always" && pod.initContainers.some((c) => c.name === container.name);
}

/**
 * The adjustment for one container of the pod. Node-critical and Guaranteed pods get −997,
 * BestEffort 1000. Burstable: 1000 − 1000·request/capacity (plus the pod-level share when the pod
 * sets pod-level requests); a sidecar never scores above the most killable regular container;
 * finally clamped to 3..999 so Burstable stays between the other two classes.
 * `memoryCapacityBytes` must be positive (upstream divides by it).
 */
export function containerOomScoreAdj(pod: Pod, container: Container, memoryCapacityBytes: bigint): number {
  if (memoryCapacityBytes <= 0n) {
    throw new RangeError(`memory capacity must be positive, got ${memoryCapacityBytes}`);
  }
  if (isNodeCriticalPod(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = podQos(pod);
  if (qos === "Guaranteed") return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === "BestEffort") return BEST_EFFORT_OOM_SCORE_ADJ;

  const podLevel = isPodLevelRequestsSet(pod);
  const share = podLevel ? remainingPodMemoryPerContainer(pod) : 0n;
  let adj = linearAdj(int64(memoryRequestBytes(container) + share), memoryCapacityBytes);

  // Upstream indexes the first regular container unguarded; a pod without one cannot pass API
  // validation, so the sidecar rule is simply skipped here.
  if (isSidecar(pod, container) && pod.containers.length > 0) {
    let minRequest = memoryRequestBytes(pod.containers[0]!);
    for (const c of pod.containers) {
      const r = memoryRequestBytes(c);
      if (r < minRequest) minRequest = r;
    }
    const minAdj = linearAdj(int64(minRequest + share), memoryCapacityBytes);
    if (adj > minAdj) adj = minAdj;
  }

  const floor = BigInt(1000 + GUARANTEED_OOM_SCORE_ADJ);
  if (adj < floor) return Number(floor);
  if (adj === BigInt(BEST_EFFORT_OOM_SCORE_ADJ)) return BEST_EFFORT_OOM_SCORE_ADJ - 1;
  return Number(adj);
}

/** Container name → adjustment, regular containers then init containers (sidecars included). */
export function podOomScoreAdjustments(pod: Pod, memoryCapacityBytes: bigint): Record<string, number> {
  return Object.fromEntries(
    [...pod.containers, ...pod.initContainers].map((c) => [
      c.name,
      containerOomScoreAdj(pod, c, memoryCapacityBytes),
    ]),
  );
}
