/**
 * In-place pod resize (GA in 1.35): the kubelet ranks, messages and admits pods by the resources it
 * allocated to them, not by what their spec asks. It starts its eviction manager with
 * `getAllocatedPods`, which puts each container's checkpointed allocation in place of the spec's
 * `resources` wherever the two differ (the allocation manager's `updatePodFromAllocation`), and
 * the pod-level `spec.resources` likewise (KEP-5419).
 *
 * evictd cannot read the kubelet's checkpoint; it reads what the kubelet publishes of it in the
 * Pod's status: `containerStatuses[].allocatedResources` and `initContainerStatuses[]
 * .allocatedResources` (the allocated requests, matched to containers by name) and, at pod level,
 * `status.allocatedResources`. Those hold requests only: the API shows no allocated limits, so
 * limits stay the spec's. Ranking and messages read requests alone, and a resize cannot change a
 * pod's QoS class (API validation), so nothing the engine decides depends on the limits' side.
 */
import { pathIndex, pathKey, type IssueList } from "../issues.js";
import type { Container, ResourceList, ResourceRequirements } from "../model.js";
import { cmpQuantity } from "../quantity.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { decodeResourceList } from "./decode-resources.js";
import { readArray, readObject, readString } from "./raw-fields.js";
import { isPodLevelResourcesSet } from "./resources.js";

/** The allocated requests a Pod's status reports, by container name and at pod level. */
export interface ReportedAllocation {
  readonly containers: ReadonlyMap<string, ResourceList>;
  readonly initContainers: ReadonlyMap<string, ResourceList>;
  /** `status.allocatedResources`: the pod-level allocation, or the containers' aggregate. */
  readonly pod?: ResourceList;
}

/** Same resources, each the same quantity (`1Gi` equals `1024Mi`), as Semantic.DeepEqual sees it. */
export function sameResourceList(a: ResourceList, b: ResourceList): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => {
    const other = b[name];
    const own = a[name];
    return own !== undefined && other !== undefined && cmpQuantity(own, other) === 0;
  });
}

/**
 * `allocatedResources` of each entry of one container status list. The kubelet writes it with
 * `omitempty`, so an empty list never reaches the API: an empty one is read as no report. Its
 * values are what the kubelet checkpointed at admission or resize, API defaults already applied,
 * so none are defaulted here; a bad quantity is an error with its path, as anywhere in a Pod.
 */
function decodeStatusList(
  status: RawObject,
  key: "containerStatuses" | "initContainerStatuses",
  statusPath: string,
  issues: IssueList,
): Map<string, ResourceList> {
  const out = new Map<string, ResourceList>();
  const list = readArray(status, key, statusPath, issues) ?? [];
  const listPath = pathKey(statusPath, key);
  list.forEach((item, i) => {
    const at = pathIndex(listPath, i);
    if (!isRawObject(item)) {
      issues.error(at, "invalid-type", `expected a container status object, got ${describeValue(item)}`);
      return;
    }
    const name = readString(item, "name", at, issues);
    const raw = readObject(item, "allocatedResources", at, issues);
    if (raw === undefined) return;
    const requests = decodeResourceList(raw, pathKey(at, "allocatedResources"), issues);
    if (name === undefined || name === "") {
      issues.warning(
        pathKey(at, "name"),
        "missing-field",
        "a container status needs its container's name: its allocatedResources are ignored",
      );
      return;
    }
    // The kubelet writes one status per container; should a list name one twice, the first counts.
    if (Object.keys(requests).length > 0 && !out.has(name)) out.set(name, requests);
  });
  return out;
}

/** Reads the allocation the kubelet reports in `status` (empty maps when it reports none). */
export function decodeReportedAllocation(
  status: RawObject,
  statusPath: string,
  issues: IssueList,
): ReportedAllocation {
  const containers = decodeStatusList(status, "containerStatuses", statusPath, issues);
  const initContainers = decodeStatusList(status, "initContainerStatuses", statusPath, issues);
  const rawPod = readObject(status, "allocatedResources", statusPath, issues);
  const pod =
    rawPod === undefined
      ? undefined
      : decodeResourceList(rawPod, pathKey(statusPath, "allocatedResources"), issues);
  return { containers, initContainers, ...(pod !== undefined && Object.keys(pod).length > 0 ? { pod } : {}) };
}

/**
 * The containers as the kubelet runs them: a container with an allocation that differs from its
 * spec's requests gets the allocated requests wholesale (the kubelet replaces the whole
 * `Resources`, so a resource the allocation lacks is not requested) and keeps the spec's limits
 * and, as `desiredRequests`, what the spec asks.
 *
 * A status entry whose name no container of the list has is ignored: statuses are written by the
 * kubelet after it reads the spec, so one can name a container of an earlier version of the pod
 * (a static pod's manifest changed under the same UID), and an allocation for a container that is
 * not there changes no request sum. It is no problem of the input, so it is not reported either.
 */
export function withAllocatedRequests(
  containers: readonly Container[],
  allocated: ReadonlyMap<string, ResourceList>,
): Container[] {
  return containers.map((c) => {
    const requests = allocated.get(c.name);
    if (requests === undefined || sameResourceList(requests, c.resources.requests)) return c;
    return {
      ...c,
      resources: { requests, limits: c.resources.limits },
      desiredRequests: c.resources.requests,
    };
  });
}

/**
 * Pod-level resources as the kubelet runs them. `status.allocatedResources` is the pod-level
 * allocation only when the spec sets pod-level resources: otherwise the kubelet reports there the
 * containers' aggregate, which must not turn into pod-level requests (it would switch the pod to
 * the pod-level rules). Requests are replaced wholesale, limits stay the spec's.
 */
export function withAllocatedPodRequests(
  podResources: ResourceRequirements | undefined,
  allocated: ResourceList | undefined,
): { readonly podResources?: ResourceRequirements; readonly desiredPodRequests?: ResourceList } {
  if (podResources === undefined) return {};
  if (
    allocated === undefined ||
    !isPodLevelResourcesSet({ podResources }) ||
    sameResourceList(allocated, podResources.requests)
  ) {
    return { podResources };
  }
  return {
    podResources: { requests: allocated, limits: podResources.limits },
    desiredPodRequests: podResources.requests,
  };
}
