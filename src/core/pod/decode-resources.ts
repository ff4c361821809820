/**
 * Resource lists and requirements of a v1 Pod, decoded with the API server's treatment: quantities
 * rounded up to milli scale (`SetDefaults_ResourceList`), container requests defaulted from limits
 * (`SetDefaults_Pod`), and the validation that would have refused the object: negative values are
 * errors; a request above its limit is a warning and the pod is simulated as the kubelet runs it.
 */
import { pathKey, type IssueList } from "../issues.js";
import type { ResourceList, ResourceRequirements } from "../model.js";
import {
  cmpQuantity,
  formatQuantity,
  parseQuantity,
  QuantityError,
  quantityFromInt,
  quantityFromNanos,
  quantityNanos,
  quantitySign,
  type Quantity,
} from "../quantity.js";
import { describeValue } from "../raw/describe-value.js";
import type { RawObject } from "../raw/raw-object.js";
import { readObject } from "./raw-fields.js";

const NANOS_PER_MILLI = 1_000_000n;

/**
 * `Quantity.RoundUp(-3)`: values finer than a milli are rounded away from zero to the next milli
 * (the API server stores `100u` as `1m`). Milli-exact values are kept as written.
 */
export function roundUpToMilli(q: Quantity): Quantity {
  const nanos = quantityNanos(q);
  const rem = nanos % NANOS_PER_MILLI;
  if (rem === 0n) return q;
  const truncated = nanos - rem;
  return quantityFromNanos(truncated + (nanos > 0n ? NANOS_PER_MILLI : -NANOS_PER_MILLI), q.format);
}

/**
 * One quantity as `Quantity.UnmarshalJSON` reads it: a string, or a bare JSON number (its text is
 * parsed), `null` reading as zero. Reports unparsable text with apimachinery's message. No
 * rounding: only ResourceList entries are rounded to milli scale.
 */
export function decodeQuantity(raw: unknown, path: string, issues: IssueList): Quantity | undefined {
  if (raw === null) return quantityFromInt(0n, "DecimalSI");
  let text: string;
  if (typeof raw === "string") text = raw.trim();
  else if ((typeof raw === "number" && Number.isFinite(raw)) || typeof raw === "bigint") {
    text = String(raw);
  } else {
    issues.error(path, "invalid-type", `expected a quantity string, got ${describeValue(raw)}`);
    return undefined;
  }
  try {
    return parseQuantity(text);
  } catch (err) {
    if (err instanceof QuantityError) {
      issues.error(path, "invalid-quantity", `invalid quantity ${JSON.stringify(text)}: ${err.message}`);
      return undefined;
    }
    throw err;
  }
}

/**
 * A ResourceList (`{memory: 128Mi, cpu: 100m}`), each entry rounded up to milli scale; negative
 * values are refused as upstream validation does.
 */
export function decodeResourceList(raw: RawObject, path: string, issues: IssueList): ResourceList {
  const entries: [string, Quantity][] = [];
  for (const [name, value] of Object.entries(raw)) {
    const at = pathKey(path, name);
    const parsed = decodeQuantity(value, at, issues);
    if (parsed === undefined) continue;
    const q = roundUpToMilli(parsed);
    if (quantitySign(q) < 0) {
      issues.error(
        at,
        "invalid-value",
        `${JSON.stringify(formatQuantity(q))} must be greater than or equal to 0`,
      );
      continue;
    }
    entries.push([name, q]);
  }
  return Object.fromEntries(entries);
}

/** Reads `obj[key]` as a ResourceList; absent or null is empty. */
export function readResourceList(obj: RawObject, key: string, path: string, issues: IssueList): ResourceList {
  const raw = readObject(obj, key, path, issues);
  return raw === undefined ? {} : decodeResourceList(raw, pathKey(path, key), issues);
}

/** requests and limits of one `resources` object, as written (no defaulting). */
export function decodeResourceRequirements(
  raw: RawObject,
  path: string,
  issues: IssueList,
): ResourceRequirements {
  return {
    requests: readResourceList(raw, "requests", path, issues),
    limits: readResourceList(raw, "limits", path, issues),
  };
}

/**
 * A container's resources after API defaulting: every resource with a limit but no request gets
 * request = limit (so "limits only" for cpu and memory is Guaranteed).
 *
 * A request above its limit is what `ValidateResourceRequirements` refuses ("must be less than or
 * equal to ... limit"), so the API server never stores such a pod; the kubelet, however, does not
 * re-validate what it runs, and upstream's own eviction tests (TestManagerWithLocalStorageCapacity-
 * IsolationOpen: ephemeral-storage request 900Mi and 1Gi over an 800Mi limit) feed it such pods.
 * What the kubelet then does, read from pkg/kubelet/eviction and component-helpers/resource:
 * - requests are read as written, never clamped to the limit: `PodRequests` sums
 *   `container.Resources.Requests` for the memory and ephemeral-storage ranking
 *   (`exceedMemoryRequests`, `exceedDiskRequests`, `memory`/`disk` usage minus request) and for
 *   admission;
 * - limits are read as written too: `localStorageEviction` compares usage with the container's
 *   `Resources.Limits[ephemeral-storage]` and with `PodLimits`, and the emptyDir `sizeLimit`;
 * - QoS (`ComputePodQOS`) only asks whether request and limit are equal, so a memory or cpu
 *   request above its limit makes the container Burstable; ephemeral-storage plays no part.
 * So the pair is kept unchanged and reported as a warning, naming the field and its value.
 */
export function decodeContainerResources(
  raw: RawObject | undefined,
  path: string,
  issues: IssueList,
): ResourceRequirements {
  if (raw === undefined) return { requests: {}, limits: {} };
  const { requests, limits } = decodeResourceRequirements(raw, path, issues);
  const defaulted = new Map(Object.entries(requests));
  for (const [name, limit] of Object.entries(limits)) {
    const request = defaulted.get(name);
    if (request === undefined) {
      defaulted.set(name, limit);
    } else if (cmpQuantity(request, limit) > 0) {
      issues.warning(
        pathKey(pathKey(path, "requests"), name),
        "request-above-limit",
        `${JSON.stringify(formatQuantity(request))} must be less than or equal to ${name} limit of ` +
          `${formatQuantity(limit)}: the API server would reject this pod; simulated as the kubelet ` +
          `runs it, with the request and the limit as written`,
      );
    }
  }
  return { requests: Object.fromEntries(defaulted), limits };
}
