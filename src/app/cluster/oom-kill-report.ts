/**
 * What an operator is told about a kernel OOM kill on a Kubernetes node: the pod and container (from
 * the API's pod objects, by the cgroup's UID and container id), how many kills, and whose limit
 * was hit, as one line for the log and the message of the Warning Event on the pod. The kubelet
 * shows such a kill only as the container's last state (kubernetes#69676): a container that keeps
 * running while one of its processes is killed shows nothing at all.
 */
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import type { PodRef } from "./cluster-node-port.js";
import { kubeletUidOf } from "./kubelet-pod-uid.js";
import type { ApiPodInfo } from "./node-local-summary.js";

/** One container's kills since the last look (the kernel layer's count). */
export interface OomKillSeen {
  readonly podUid: string;
  /** "" when the container's cgroup was gone before it was read. */
  readonly containerId: string;
  readonly kills: number;
  readonly limitHit: "container" | "pod" | "node" | "unknown";
  readonly limitBytes: bigint | undefined;
  readonly peakBytes: bigint | undefined;
}

export interface OomKillReport {
  readonly pod: PodRef;
  /** The container's name ("" when it cannot be told). */
  readonly container: string;
  readonly kills: number;
  /** The Event's message (and the log line's). */
  readonly message: string;
}

/** The Event's reason: the container status reason the kubelet gives such a container. */
export const OOM_KILL_EVENT_REASON = "OOMKilled";

const bytes = (n: bigint): string => formatQuantity(quantityFromInt(n, "BinarySI"));

/**
 * Reports for the kills whose pod is known (a pod the API no longer lists cannot get an Event). A
 * kill's pod UID is the cgroup's, the kubelet's: a static pod's kill is reported on its mirror.
 */
export function oomKillReports(kills: readonly OomKillSeen[], pods: readonly ApiPodInfo[]): OomKillReport[] {
  const byUid = new Map(pods.map((p) => [kubeletUidOf(p), p]));
  const out: OomKillReport[] = [];
  for (const k of kills) {
    const pod = byUid.get(k.podUid);
    if (pod === undefined) continue;
    const container = k.containerId === "" ? "" : (pod.containerNames.get(k.containerId) ?? "");
    const who = container === "" ? "A container" : `Container ${container}`;
    const times = k.kills === 1 ? "" : ` (${k.kills} processes)`;
    const peak = k.peakBytes !== undefined ? `; its peak usage was ${bytes(k.peakBytes)}` : "";
    const limit =
      k.limitBytes !== undefined ? `its memory limit is ${bytes(k.limitBytes)}` : "it has no memory limit";
    const why =
      k.limitHit === "container"
        ? `it reached its own memory limit ${k.limitBytes !== undefined ? bytes(k.limitBytes) : ""}`.trimEnd()
        : k.limitHit === "pod"
          ? `its pod reached the pod's memory limit (${limit})`
          : k.limitHit === "node"
            ? `the node ran out of memory before eviction could reclaim it (${limit})`
            : "its cgroup was gone before evictd could read which limit was hit";
    out.push({
      pod: { namespace: pod.namespace, name: pod.name, uid: pod.uid },
      container,
      kills: k.kills,
      message: `${who} was OOM-killed by the kernel${times}: ${why}${peak}.`,
    });
  }
  return out;
}
