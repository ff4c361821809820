/**
 * What the engine derives from a pod's spec, computed once per pod. Pods are immutable values, so
 * memoising on the object is a pure cache: the same pod always has the same facts. It keeps request
 * sums and limit lookups out of every synchronize (a replay runs thousands of them over one pod).
 */
import type { Pod } from "../model.js";
import { isQuantityZero, quantityNanos, type Quantity } from "../quantity.js";
import { podEphemeralStorageLimit, podRequests } from "./resources.js";

export interface PodFacts {
  /** Pod memory request (sidecar-aware, pod-level aware), in nano-units. */
  readonly memoryRequestNanos: bigint;
  /** Pod ephemeral-storage request, in nano-units. */
  readonly storageRequestNanos: bigint;
  /** emptyDir volumes with a positive sizeLimit, in spec order. */
  readonly emptyDirLimits: readonly {
    readonly name: string;
    readonly limit: Quantity;
    readonly limitNanos: bigint;
  }[];
  /** Sum of declared ephemeral-storage limits, when any container declares one. */
  readonly podStorageLimit?: { readonly limit: Quantity; readonly limitNanos: bigint };
  /** Non-zero ephemeral-storage limits of regular and sidecar containers, by name (first wins). */
  readonly containerStorageLimits: ReadonlyMap<
    string,
    { readonly limit: Quantity; readonly limitNanos: bigint }
  >;
  /** Whether any local-storage check can apply to the pod. */
  readonly hasLocalStorageLimits: boolean;
}

const facts = new WeakMap<Pod, PodFacts>();

function compute(pod: Pod): PodFacts {
  const emptyDirLimits = pod.volumes.flatMap((v) => {
    if (v.kind !== "emptyDir" || v.sizeLimit === undefined) return [];
    const limitNanos = quantityNanos(v.sizeLimit);
    return limitNanos > 0n ? [{ name: v.name, limit: v.sizeLimit, limitNanos }] : [];
  });
  const podLimit = podEphemeralStorageLimit(pod);
  const containerStorageLimits = new Map<string, { limit: Quantity; limitNanos: bigint }>();
  // Regular containers and, since 2026, sidecar (restartable init) containers are checked.
  for (const c of [...pod.containers, ...pod.initContainers.filter((i) => i.restartPolicy === "Always")]) {
    const l = c.resources.limits["ephemeral-storage"];
    if (l !== undefined && !isQuantityZero(l) && !containerStorageLimits.has(c.name)) {
      containerStorageLimits.set(c.name, { limit: l, limitNanos: quantityNanos(l) });
    }
  }
  return {
    memoryRequestNanos: quantityNanos(podRequests(pod, "memory")),
    storageRequestNanos: quantityNanos(podRequests(pod, "ephemeral-storage")),
    emptyDirLimits,
    ...(podLimit !== undefined
      ? { podStorageLimit: { limit: podLimit, limitNanos: quantityNanos(podLimit) } }
      : {}),
    containerStorageLimits,
    hasLocalStorageLimits:
      emptyDirLimits.length > 0 || podLimit !== undefined || containerStorageLimits.size > 0,
  };
}

export function podFacts(pod: Pod): PodFacts {
  let f = facts.get(pod);
  if (f === undefined) {
    f = compute(pod);
    facts.set(pod, f);
  }
  return f;
}
