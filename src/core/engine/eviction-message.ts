/**
 * evictionMessage: the text and event annotations the kubelet writes for a pressure eviction,
 * character for character (every fragment ends with ". ", trailing space included).
 */
import type { Pod, PodStats, StarvedResource, Threshold } from "../model.js";
import { containerRequest } from "../pod/resources.js";
import { cmpQuantity, formatQuantity, quantityFromInt, type Quantity } from "../quantity.js";
import { SIGNALS } from "../signals.js";
import { thresholdQuantity } from "./threshold-quantity.js";
import type { Observations } from "./types.js";

export interface EvictionText {
  readonly message: string;
  readonly annotations: Readonly<Record<string, string>>;
}

/** "Threshold quantity: q, available: a. " from the first threshold on the same resource. */
function thresholdMetInfo(
  resource: StarvedResource,
  thresholds: readonly Threshold[],
  observations: Observations,
): string {
  for (const t of thresholds) {
    if (SIGNALS[t.signal].resource !== resource || t.value === undefined) continue;
    const o = observations.get(t.signal);
    if (o === undefined) continue;
    const q = thresholdQuantity(t.value, o.capacity);
    const format = SIGNALS[t.signal].unit === "bytes" ? "BinarySI" : "DecimalSI";
    return `Threshold quantity: ${formatQuantity(q)}, available: ${formatQuantity(quantityFromInt(o.available, format))}. `;
  }
  return "";
}

/** Pod-level resources set on the pod (PodLevelResources, on by default since 1.34). */
function podLevelMemoryRequest(pod: Pod): Quantity | undefined {
  const res = pod.podResources;
  if (res === undefined) return undefined;
  if (Object.keys(res.requests).length === 0 && Object.keys(res.limits).length === 0) return undefined;
  return res.requests["memory"];
}

function containerUsage(resource: StarvedResource, c: PodStats["containers"][number]): Quantity | undefined {
  if (resource === "memory") {
    const ws = c.memory?.workingSetBytes;
    return ws === undefined ? undefined : quantityFromInt(ws, "BinarySI");
  }
  if (resource === "ephemeral-storage") {
    // Writable layer plus logs, only when both are reported, whatever the filesystem layout.
    const root = c.rootfs?.usedBytes;
    const logs = c.logs?.usedBytes;
    return root === undefined || logs === undefined ? undefined : quantityFromInt(root + logs, "BinarySI");
  }
  return undefined; // inodes and pids have no per-container usage upstream
}

export function evictionMessage(
  resource: StarvedResource,
  pod: Pod,
  stats: PodStats | undefined,
  thresholds: readonly Threshold[],
  observations: Observations,
): EvictionText {
  let message =
    `The node was low on resource: ${resource}. ` + thresholdMetInfo(resource, thresholds, observations);
  if (stats === undefined) return { message, annotations: {} };

  const annotations: Record<string, string> = {};
  const podRequest = podLevelMemoryRequest(pod);
  if (resource === "memory" && podRequest !== undefined && stats.memory !== undefined) {
    // Upstream appends this line without checking that usage exceeds the request, and only asks for
    // a memory block: a missing working set reads as 0 (memoryUsage).
    const usage = formatQuantity(quantityFromInt(stats.memory.workingSetBytes ?? 0n, "BinarySI"));
    message += `Pod ${pod.name} was using ${usage}, request is ${formatQuantity(podRequest)}, has larger consumption of memory. `;
    annotations["offending_pod"] = pod.name;
    annotations["offending_pod_usage"] = usage;
  }

  const names: string[] = [];
  const usages: string[] = [];
  const specContainers = [...pod.containers, ...pod.initContainers];
  for (const cs of stats.containers) {
    const spec = specContainers.find((c) => c.name === cs.name);
    if (spec === undefined) continue;
    const usage = containerUsage(resource, cs);
    if (usage === undefined) continue;
    const request = containerRequest(spec, resource);
    if (cmpQuantity(usage, request) > 0) {
      const used = formatQuantity(usage);
      message += `Container ${cs.name} was using ${used}, request is ${formatQuantity(request)}, has larger consumption of ${resource}. `;
      names.push(cs.name);
      usages.push(used);
    }
  }
  annotations["offending_containers"] = names.join(",");
  annotations["offending_containers_usage"] = usages.join(",");
  annotations["starved_resource"] = resource;
  return { message, annotations };
}
