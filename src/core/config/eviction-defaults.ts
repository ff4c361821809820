/**
 * The kubelet's eviction defaults: the hard thresholds (`pkg/kubelet/eviction/defaults_linux.go`, v1.30+
 * after kubernetes/kubernetes#121834, which added `imagefs.inodesFree`; evictd models a Linux node) and
 * the v1beta1 defaults of the other eviction fields (`pkg/kubelet/apis/config/v1beta1/defaults.go`).
 */
import type { Signal } from "../model.js";

export const DEFAULT_EVICTION_HARD: Readonly<Partial<Record<Signal, string>>> = {
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%",
  "imagefs.inodesFree": "5%",
};

/** `enforceNodeAllocatable` default (`DefaultNodeAllocatableEnforcement`). */
export const DEFAULT_ENFORCE_NODE_ALLOCATABLE: readonly string[] = ["pods"];

/** `evictionPressureTransitionPeriod` default, also applied to an explicit 0 in a config file. */
export const DEFAULT_PRESSURE_TRANSITION_PERIOD_NS = 5n * 60n * 1_000_000_000n;
