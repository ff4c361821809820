/**
 * v1 Pod objects (as `kubectl get pod -o json|yaml` or the kubelet's /pods print them) to the
 * model's Pod, with the API server's defaults applied: namespace, uid, container requests from
 * limits, pod-level requests, termination grace period, and priority from the built-in classes.
 * Requests are then the ones the kubelet allocated, when the status reports an allocation
 * (in-place resize, allocated-resources.ts). Every problem is collected; fields the engine does
 * not read are ignored without a word (pods carry many, and every release adds some).
 */
import { IssueList, pathIndex, pathKey } from "../issues.js";
import type { Container, Pod, QosClass, ResourceRequirements, Toleration } from "../model.js";
import { BUILTIN_PRIORITY_CLASSES } from "./critical.js";
import {
  decodeReportedAllocation,
  withAllocatedPodRequests,
  withAllocatedRequests,
} from "./allocated-resources.js";
import { decodeContainer, type ContainerKind } from "./decode-container.js";
import { decodeResourceList, decodeResourceRequirements } from "./decode-resources.js";
import { decodeVolumes } from "./decode-volumes.js";
import { defaultPodLevelResources } from "./pod-level-defaults.js";
import { decodeResizeStatus } from "./resize-status.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import {
  readArray,
  readInteger,
  readObject,
  readRequiredString,
  readString,
  readStringMap,
} from "./raw-fields.js";
import { GO_ZERO_TIME_MS, parseRfc3339 } from "../time/rfc3339.js";

/** `v1.DefaultTerminationGracePeriodSeconds`. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;

const INT32 = { min: -2_147_483_648, max: 2_147_483_647 } as const;
const QOS_CLASSES: readonly QosClass[] = ["Guaranteed", "Burstable", "BestEffort"];
const EMPTY: RawObject = {};

function decodeContainers(
  spec: RawObject,
  key: string,
  path: string,
  issues: IssueList,
  kind: ContainerKind,
): Container[] {
  const list = readArray(spec, key, path, issues) ?? [];
  const listPath = pathKey(path, key);
  const out: Container[] = [];
  list.forEach((item, i) => {
    const c = decodeContainer(item, pathIndex(listPath, i), issues, kind);
    if (c !== undefined) out.push(c);
  });
  return out;
}

/** Container names are unique across regular and init containers (API validation). */
function checkUniqueNames(
  containers: readonly Container[],
  initContainers: readonly Container[],
  specPath: string,
  issues: IssueList,
): void {
  const seen = new Set<string>();
  const check = (list: readonly Container[], key: string): void => {
    list.forEach((c, i) => {
      if (seen.has(c.name)) {
        issues.error(
          pathKey(pathIndex(pathKey(specPath, key), i), "name"),
          "duplicate-name",
          `container name ${JSON.stringify(c.name)} is used more than once`,
        );
      }
      seen.add(c.name);
    });
  };
  check(containers, "containers");
  check(initContainers, "initContainers");
}

function decodeTolerations(spec: RawObject, path: string, issues: IssueList): Toleration[] {
  const list = readArray(spec, "tolerations", path, issues) ?? [];
  const listPath = pathKey(path, "tolerations");
  const out: Toleration[] = [];
  list.forEach((item, i) => {
    const at = pathIndex(listPath, i);
    if (!isRawObject(item)) {
      issues.error(at, "invalid-type", `expected a toleration object, got ${describeValue(item)}`);
      return;
    }
    const key = readString(item, "key", at, issues);
    const operator = readString(item, "operator", at, issues);
    const value = readString(item, "value", at, issues);
    const effect = readString(item, "effect", at, issues);
    out.push({
      ...(key !== undefined ? { key } : {}),
      ...(operator !== undefined ? { operator } : {}),
      ...(value !== undefined ? { value } : {}),
      ...(effect !== undefined ? { effect } : {}),
    });
  });
  return out;
}

/**
 * The Priority admission plugin: an explicit spec.priority stands; otherwise a built-in class
 * (`system-node-critical` 2000001000, `system-cluster-critical` 2000000000) supplies it; else 0.
 */
function resolvePriority(
  priority: number | undefined,
  className: string | undefined,
): { priority: number; prioritySet: boolean } {
  if (priority !== undefined) return { priority, prioritySet: true };
  const builtin =
    className !== undefined && Object.hasOwn(BUILTIN_PRIORITY_CLASSES, className)
      ? BUILTIN_PRIORITY_CLASSES[className]
      : undefined;
  return builtin === undefined
    ? { priority: 0, prioritySet: false }
    : { priority: builtin, prioritySet: true };
}

function decodeStatusQos(status: RawObject, path: string, issues: IssueList): QosClass | undefined {
  const qos = readString(status, "qosClass", path, issues);
  if (qos === undefined || qos === "") return undefined;
  if ((QOS_CLASSES as readonly string[]).includes(qos)) return qos as QosClass;
  issues.error(
    pathKey(path, "qosClass"),
    "invalid-value",
    `unknown QoS class ${JSON.stringify(qos)} (expected Guaranteed, Burstable or BestEffort)`,
  );
  return undefined;
}

function decodeCreationTimestamp(meta: RawObject, path: string, issues: IssueList): number | undefined {
  const text = readString(meta, "creationTimestamp", path, issues);
  if (text === undefined) return undefined;
  const parsed = parseRfc3339(text);
  const ms = parsed === "invalid" ? undefined : parsed === "zero" ? GO_ZERO_TIME_MS : parsed;
  if (ms === undefined) {
    issues.error(
      pathKey(path, "creationTimestamp"),
      "invalid-value",
      `${JSON.stringify(text)} is not an RFC 3339 time (e.g. 2025-01-01T00:00:00Z)`,
    );
  }
  return ms;
}

/** metadata, with the API server's defaults for namespace and (here) uid. */
function decodeMetadata(meta: RawObject, path: string, issues: IssueList) {
  const name = readRequiredString(meta, "name", path, issues, "metadata.name");
  const namespace = readString(meta, "namespace", path, issues) || "default";
  return {
    name,
    namespace,
    uid: readString(meta, "uid", path, issues) || (name === undefined ? "" : `${namespace}/${name}`),
    annotations: readStringMap(meta, "annotations", path, issues),
    labels: readStringMap(meta, "labels", path, issues),
    creationTimestamp: decodeCreationTimestamp(meta, path, issues),
    generation: readInteger(meta, "generation", path, issues),
  };
}

function decodePodObject(raw: unknown, path: string, issues: IssueList): Pod | undefined {
  if (!isRawObject(raw)) {
    issues.error(path, "invalid-type", `expected a Pod object, got ${describeValue(raw)}`);
    return undefined;
  }
  const kind = readString(raw, "kind", path, issues);
  if (kind !== undefined && kind !== "Pod") {
    issues.error(pathKey(path, "kind"), "invalid-value", `expected kind Pod, got ${JSON.stringify(kind)}`);
  }
  const { name, namespace, uid, annotations, labels, creationTimestamp, generation } = decodeMetadata(
    readObject(raw, "metadata", path, issues) ?? EMPTY,
    pathKey(path, "metadata"),
    issues,
  );

  const specPath = pathKey(path, "spec");
  const spec = readObject(raw, "spec", path, issues) ?? EMPTY;
  const specContainers = decodeContainers(spec, "containers", specPath, issues, "container");
  const rawContainers = spec["containers"];
  if (
    rawContainers === undefined ||
    rawContainers === null ||
    (Array.isArray(rawContainers) && rawContainers.length === 0)
  ) {
    issues.error(pathKey(specPath, "containers"), "missing-field", "at least one container is required");
  }
  const specInitContainers = decodeContainers(spec, "initContainers", specPath, issues, "initContainer");
  checkUniqueNames(specContainers, specInitContainers, specPath, issues);

  const priorityClassName = readString(spec, "priorityClassName", specPath, issues);
  const { priority, prioritySet } = resolvePriority(
    readInteger(spec, "priority", specPath, issues, INT32),
    priorityClassName,
  );
  const terminationGracePeriodSeconds =
    readInteger(spec, "terminationGracePeriodSeconds", specPath, issues) ??
    DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  const rawOverhead = readObject(spec, "overhead", specPath, issues);
  const overhead =
    rawOverhead === undefined
      ? undefined
      : decodeResourceList(rawOverhead, pathKey(specPath, "overhead"), issues);
  const rawPodResources = readObject(spec, "resources", specPath, issues);
  // API defaulting runs on the spec as written, before any allocation is put in place.
  const specPodResources: ResourceRequirements | undefined =
    rawPodResources === undefined
      ? undefined
      : defaultPodLevelResources(
          decodeResourceRequirements(rawPodResources, pathKey(specPath, "resources"), issues),
          { containers: specContainers, initContainers: specInitContainers },
        );
  const volumes = decodeVolumes(
    readArray(spec, "volumes", specPath, issues) ?? [],
    pathKey(specPath, "volumes"),
    issues,
  );
  const tolerations = decodeTolerations(spec, specPath, issues);

  const statusPath = pathKey(path, "status");
  const status = readObject(raw, "status", path, issues) ?? EMPTY;
  const phase = readString(status, "phase", statusPath, issues);
  const statusQosClass = decodeStatusQos(status, statusPath, issues);
  const allocation = decodeReportedAllocation(status, statusPath, issues);
  const containers = withAllocatedRequests(specContainers, allocation.containers);
  const initContainers = withAllocatedRequests(specInitContainers, allocation.initContainers);
  const { podResources, desiredPodRequests } = withAllocatedPodRequests(specPodResources, allocation.pod);
  const resize = decodeResizeStatus(status, statusPath, issues);

  if (name === undefined) return undefined;
  return {
    uid,
    name,
    namespace,
    key: `${namespace}/${name}`,
    annotations,
    labels,
    ...(creationTimestamp !== undefined ? { creationTimestamp } : {}),
    ...(generation !== undefined ? { generation } : {}),
    priority,
    prioritySet,
    ...(priorityClassName !== undefined && priorityClassName !== "" ? { priorityClassName } : {}),
    terminationGracePeriodSeconds,
    containers,
    initContainers,
    ...(podResources !== undefined ? { podResources } : {}),
    ...(desiredPodRequests !== undefined ? { desiredPodRequests } : {}),
    ...(overhead !== undefined ? { overhead } : {}),
    volumes,
    tolerations,
    ...(phase !== undefined && phase !== "" ? { phase } : {}),
    ...(statusQosClass !== undefined ? { statusQosClass } : {}),
    ...(resize !== undefined ? { resize } : {}),
  };
}

/**
 * Decodes one Pod. Returns undefined when the pod has any error (all of them are added to
 * `issues`, with paths under `path`).
 */
export function decodePod(raw: unknown, path: string, issues: IssueList): Pod | undefined {
  // A per-pod list keeps "did this pod fail?" O(own issues) for lists of hundreds of pods.
  const local = new IssueList();
  const pod = decodePodObject(raw, path, local);
  for (const item of local.items) issues.items.push(item);
  return local.hasErrors ? undefined : pod;
}

const LIST_KINDS = new Set(["PodList", "List"]);

/** Whether a parsed object is a list wrapper (`kind: PodList`, kubectl's `kind: List`, or bare items). */
function isListObject(raw: RawObject): boolean {
  const kind = raw["kind"];
  if (typeof kind === "string") return LIST_KINDS.has(kind);
  return Array.isArray(raw["items"]) && raw["spec"] === undefined;
}

/** A decoded pod and where it was in the input (for issues about it found later). */
export interface LocatedPod {
  readonly pod: Pod;
  readonly path: string;
}

/**
 * {@link decodePodList}, each pod with its path (`pods[2]`, `pods.items[0]`, or `pods` for a single
 * Pod), so that a caller checking more than the decoder does can say where.
 */
export function decodeLocatedPods(raw: unknown, path: string, issues: IssueList): LocatedPod[] {
  let items: readonly unknown[];
  let itemsPath: string;
  if (Array.isArray(raw)) {
    items = raw as readonly unknown[];
    itemsPath = path;
  } else if (isRawObject(raw) && isListObject(raw)) {
    items = readArray(raw, "items", path, issues) ?? [];
    itemsPath = pathKey(path, "items");
  } else {
    const pod = decodePod(raw, path, issues);
    return pod === undefined ? [] : [{ pod, path }];
  }

  const pods: LocatedPod[] = [];
  const byKey = new Map<string, string>();
  const byUid = new Map<string, string>();
  items.forEach((item, i) => {
    const at = pathIndex(itemsPath, i);
    const pod = decodePod(item, at, issues);
    if (pod === undefined) return;
    const sameKey = byKey.get(pod.key);
    const sameUid = byUid.get(pod.uid);
    if (sameKey !== undefined || sameUid !== undefined) {
      const what = sameKey !== undefined ? `pod ${pod.key}` : `uid ${JSON.stringify(pod.uid)}`;
      issues.error(at, "duplicate-pod", `${what} is already defined at ${sameKey ?? sameUid}`);
      return;
    }
    byKey.set(pod.key, at);
    byUid.set(pod.uid, at);
    pods.push({ pod, path: at });
  });
  return pods;
}

/**
 * Decodes a single Pod, an array of Pods, or a v1 PodList/List (`{kind: PodList, items}`). Pods with
 * errors are left out; a second pod with the same namespace/name or uid is reported and dropped.
 */
export function decodePodList(raw: unknown, path: string, issues: IssueList): Pod[] {
  return decodeLocatedPods(raw, path, issues).map((p) => p.pod);
}
