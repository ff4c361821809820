/**
 * The core/v1 Event the kubelet records about a pod, as client-go's `tools/record` builds it:
 * named `<pod>.<unix nanoseconds in hex>`, first and last timestamp now, count 1, source and
 * reporting component `kubelet` on the node.
 */
import type { PodEventContent, PodRef } from "../app/cluster/cluster-node-port.js";
import { apiTime } from "./pod-requests.js";

export type { PodEventContent };

/**
 * Event names from the clock, strictly increasing per instance: the clock here has millisecond
 * resolution where client-go's has nanoseconds, and two events about one pod within a millisecond
 * must not collide (a second create of the same name is refused as AlreadyExists).
 */
export class EventNamer {
  #lastNanos = 0n;

  /** `<pod name>.<hex nanoseconds>` for an event recorded at `nowMs`. */
  next(podName: string, nowMs: number): string {
    let nanos = BigInt(Math.trunc(nowMs)) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return `${podName}.${nanos.toString(16)}`;
  }
}

/** The Event object to POST to /api/v1/namespaces/NS/events. */
export function podEventBody(
  pod: PodRef,
  content: PodEventContent,
  nodeName: string,
  name: string,
  nowMs: number,
): unknown {
  const time = apiTime(nowMs);
  return {
    apiVersion: "v1",
    kind: "Event",
    // AnnotatedEventf: the annotations go on the Event object itself.
    metadata: {
      name,
      namespace: pod.namespace,
      ...(content.annotations !== undefined && Object.keys(content.annotations).length > 0
        ? { annotations: { ...content.annotations } }
        : {}),
    },
    involvedObject: { kind: "Pod", namespace: pod.namespace, name: pod.name, uid: pod.uid, apiVersion: "v1" },
    reason: content.reason,
    message: content.message,
    source: { component: "kubelet", host: nodeName },
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
    type: content.type,
    // Legacy core/v1 events leave eventTime unset; the reporting fields mirror the source.
    eventTime: null,
    reportingComponent: "kubelet",
    reportingInstance: nodeName,
  };
}

/** Path of the events collection in the pod's namespace. */
export function eventsPath(pod: Pick<PodRef, "namespace">): string {
  return `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/events`;
}
