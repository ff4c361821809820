/**
 * What of a raw v1 Pod decides the requests the engine ranks it by, as one string: two versions of
 * a pod with the same fingerprint rank alike. It covers what an in-place resize changes (the spec's
 * container and pod-level resources, the allocation and actual resources the kubelet reports, where
 * the resize stands) and nothing else: a pod's object changes all the time (resourceVersion,
 * probe and transition times, restart counts), and a trace that wrote it again at each of those
 * would repeat the same pod for nothing.
 */
import { toExactJson } from "../../core/summary/to-exact-json.js";

type Fields = Record<string, unknown>;

const RESIZE_CONDITIONS = new Set(["PodResizePending", "PodResizeInProgress"]);

function fields(value: unknown): Fields | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** The listed members of `value`, when it is an object (absent members stay absent). */
function pick(value: unknown, keys: readonly string[]): Fields | undefined {
  const f = fields(value);
  if (f === undefined) return undefined;
  return Object.fromEntries(keys.filter((k) => f[k] !== undefined).map((k) => [k, f[k]]));
}

/** The parts of a pod an in-place resize changes; restartPolicy marks a sidecar, whose requests count. */
function allocationView(raw: unknown): Fields {
  const spec = fields(fields(raw)?.["spec"]);
  const status = fields(fields(raw)?.["status"]);
  const specContainer = (c: unknown) => pick(c, ["name", "resources", "restartPolicy"]);
  const containerStatus = (c: unknown) => pick(c, ["name", "allocatedResources", "resources"]);
  return {
    containers: list(spec?.["containers"]).map(specContainer),
    initContainers: list(spec?.["initContainers"]).map(specContainer),
    resources: spec?.["resources"],
    containerStatuses: list(status?.["containerStatuses"]).map(containerStatus),
    initContainerStatuses: list(status?.["initContainerStatuses"]).map(containerStatus),
    allocatedResources: status?.["allocatedResources"],
    statusResources: status?.["resources"],
    resize: status?.["resize"],
    // Their times and observed generation change without the resize changing.
    resizeConditions: list(status?.["conditions"])
      .filter((c) => RESIZE_CONDITIONS.has(String(fields(c)?.["type"])))
      .map((c) => pick(c, ["type", "status", "reason", "message"])),
  };
}

/** The fingerprint of a raw pod's allocation-relevant content. */
export function podAllocationFingerprint(raw: unknown): string {
  return toExactJson(allocationView(raw));
}
