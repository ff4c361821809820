/**
 * A v1 Pod rebuilt from kube-state-metrics' series: what the eviction engine reads of a pod (its
 * identity, containers' requests and limits, QoS class, priority, phase, and whether it is a static
 * pod) and nothing it would have to guess. What the series do not carry stays out, so the engine
 * applies the API's defaults (a 30 s termination grace period); docs/prometheus-import.md lists it.
 */
import { BUILTIN_PRIORITY_CLASSES } from "../../core/pod/critical.js";

/** Built-in PriorityClasses (kube-apiserver creates them in every cluster): the engine's table. */
export const BUILT_IN_PRIORITY_CLASSES: ReadonlyMap<string, number> = new Map(
  Object.entries(BUILTIN_PRIORITY_CLASSES),
);

export interface PodMetrics {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** kube_pod_info's priority_class label ("" when the pod names none). */
  readonly priorityClass: string;
  /** kube_pod_info's created_by_kind: `Node` for a static pod's mirror. */
  readonly createdByKind: string;
  readonly phase: string | undefined;
  readonly qosClass: string | undefined;
  /** Container names in the order first seen. */
  readonly containers: readonly string[];
  /** container → resource (memory, cpu, ephemeral_storage) → value in the metric's unit. */
  readonly requests: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly limits: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

const RESOURCE_NAMES: Readonly<Record<string, string>> = {
  memory: "memory",
  cpu: "cpu",
  ephemeral_storage: "ephemeral-storage",
};

function quantity(resource: string, value: number): string {
  // kube-state-metrics reports CPU in cores; the API's canonical form is millicores.
  if (resource === "cpu") return `${Math.round(value * 1000)}m`;
  return String(Math.round(value));
}

function resourceList(values: ReadonlyMap<string, number> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [resource, value] of values ?? []) {
    const name = RESOURCE_NAMES[resource];
    if (name !== undefined && Number.isFinite(value)) out[name] = quantity(resource, value);
  }
  return out;
}

/** The Pod object, with `priority` from the class map (unknown classes are the caller's warning). */
export function podFromMetrics(
  m: PodMetrics,
  node: string,
  priorityClasses: ReadonlyMap<string, number>,
): Record<string, unknown> {
  const priority = m.priorityClass === "" ? 0 : (priorityClasses.get(m.priorityClass) ?? 0);
  const containers = m.containers.map((name) => {
    const requests = resourceList(m.requests.get(name));
    const limits = resourceList(m.limits.get(name));
    return {
      name,
      resources: {
        ...(Object.keys(requests).length > 0 ? { requests } : {}),
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
      },
    };
  });
  // A static pod's mirror is owned by its Node: the kubelet never evicts it (IsCriticalPod).
  const mirror = m.createdByKind === "Node";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      ...(mirror
        ? { annotations: { "kubernetes.io/config.source": "file", "kubernetes.io/config.mirror": m.uid } }
        : {}),
    },
    spec: {
      nodeName: node,
      priority,
      ...(m.priorityClass !== "" ? { priorityClassName: m.priorityClass } : {}),
      containers,
    },
    status: {
      phase: m.phase ?? "Running",
      ...(m.qosClass !== undefined ? { qosClass: m.qosClass } : {}),
    },
  };
}
