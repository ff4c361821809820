/**
 * Paths and JSON bodies of the pod writes, shaped as the kubelet and kubectl send them: the status
 * patch, DeleteOptions with a uid precondition, and the policy/v1 Eviction.
 */
import type { PodRef, PodStatusPatch } from "../app/cluster/cluster-node-port.js";

/** `/api/v1/namespaces/NS/pods/NAME`, segments escaped. */
export function podPath(pod: Pick<PodRef, "namespace" | "name">): string {
  return `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}`;
}

/** The `/api/v1/pods` list or watch of the pods bound to `nodeName`. */
export function nodePodsPath(
  nodeName: string,
  watch?: { resourceVersion: string; timeoutSeconds: number },
): string {
  const query = new URLSearchParams({ fieldSelector: `spec.nodeName=${nodeName}` });
  if (watch !== undefined) {
    query.set("watch", "1");
    query.set("resourceVersion", watch.resourceVersion);
    query.set("allowWatchBookmarks", "true");
    // The server ends the watch after this long; the caller watches again from where it was. A
    // bounded watch also bounds how long a silently dead connection can go unnoticed.
    query.set("timeoutSeconds", String(watch.timeoutSeconds));
  }
  return `/api/v1/pods?${query.toString()}`;
}

/**
 * The strategic-merge patch of pods/NAME/status. Like the kubelet's status manager
 * (`statusutil.PatchPodStatus`), the pod's uid goes into `metadata` so the patch cannot land on a
 * re-created pod of the same name; conditions merge by `type` and get their transition time.
 */
export function statusPatchBody(pod: PodRef, status: PodStatusPatch, nowMs: number): unknown {
  const time = apiTime(nowMs);
  return {
    metadata: { uid: pod.uid },
    status: {
      ...(status.phase !== undefined ? { phase: status.phase } : {}),
      ...(status.reason !== undefined ? { reason: status.reason } : {}),
      ...(status.message !== undefined ? { message: status.message } : {}),
      conditions: status.conditions.map((c) => ({ ...c, lastTransitionTime: time })),
    },
  };
}

/** DeleteOptions for DELETE pods/NAME: this incarnation only, with this grace period. */
export function deleteOptionsBody(pod: PodRef, gracePeriodSeconds: number): unknown {
  return {
    kind: "DeleteOptions",
    apiVersion: "v1",
    gracePeriodSeconds,
    preconditions: { uid: pod.uid },
  };
}

/**
 * The policy/v1 Eviction POSTed to pods/NAME/eviction. A dry run carries `dryRun: ["All"]` in its
 * DeleteOptions: the eviction subresource then checks the pod's PodDisruptionBudget as for a real
 * eviction but neither records the disruption in the budget nor deletes the pod (`checkAndDecrement`
 * returns before its status update, `addConditionAndDeletePod` adds no condition, and the store
 * does not persist a dry-run delete; pkg/registry/core/pod/storage/eviction.go).
 */
export function evictionBody(pod: PodRef, gracePeriodSeconds: number, dryRun = false): unknown {
  return {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: pod.name, namespace: pod.namespace },
    deleteOptions: {
      gracePeriodSeconds,
      preconditions: { uid: pod.uid },
      ...(dryRun ? { dryRun: ["All"] } : {}),
    },
  };
}

/** meta/v1 Time: RFC 3339 in UTC with whole seconds, as the API serialises it. */
export function apiTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
