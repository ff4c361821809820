/**
 * The EvictionRequest evictd creates for a soft-threshold eviction with `--eviction-request`: the
 * declarative eviction of KEP-4563, alpha in Kubernetes 1.37 as `lifecycle.k8s.io/v1alpha1`
 * (staging/src/k8s.io/api/lifecycle/v1alpha1/types.go and register.go), namespaced, resource
 * `evictionrequests` (pkg/registry/lifecycle/rest/storage_coordination.go), served only when the
 * API server runs with the `EvictionRequestAPI` feature gate and that version enabled. A requester
 * names the pod (name and uid), itself and its intent; the evictionrequest controller turns it into
 * an Eviction that the pod's responders, and last the imperative evictor (pods/eviction, so
 * PodDisruptionBudgets hold), act on.
 */
import type { PodRef } from "../app/cluster/cluster-node-port.js";

export const EVICTION_REQUEST_GROUP = "lifecycle.k8s.io";
export const EVICTION_REQUEST_API_VERSION = `${EVICTION_REQUEST_GROUP}/v1alpha1`;

/**
 * Who asks, as `spec.requester` must say it: a domain-prefixed key (`*.k8s.io` and
 * `*.kubernetes.io` are reserved), under evictd's own API domain (the node file's group).
 */
export const EVICTD_REQUESTER = "evictd.io/node-pressure";

/** `/apis/lifecycle.k8s.io/v1alpha1/namespaces/NS/evictionrequests`, with `/NAME` when named. */
export function evictionRequestsPath(namespace: string, name?: string): string {
  const collection = `/apis/${EVICTION_REQUEST_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/evictionrequests`;
  return name === undefined ? collection : `${collection}/${encodeURIComponent(name)}`;
}

/**
 * One request per pod incarnation, under a name derived from its uid (a DNS subdomain, as the
 * API validates `metadata.name`): a create whose answer got lost and is sent again finds its own
 * object (AlreadyExists), and the request can be deleted without being looked up.
 */
export function evictionRequestName(pod: Pick<PodRef, "uid">): string {
  return `evictd-${pod.uid.toLowerCase()}`;
}

/** The EvictionRequest POSTed for `pod`: intent Eviction, target the pod by name and uid. */
export function evictionRequestBody(pod: PodRef): unknown {
  return {
    apiVersion: EVICTION_REQUEST_API_VERSION,
    kind: "EvictionRequest",
    metadata: { name: evictionRequestName(pod), namespace: pod.namespace },
    spec: {
      target: { pod: { name: pod.name, uid: pod.uid } },
      requester: EVICTD_REQUESTER,
      intent: "Eviction",
    },
  };
}
