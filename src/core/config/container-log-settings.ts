/**
 * The container log rotation fields of a KubeletConfiguration (`containerLogMaxSize`,
 * `containerLogMaxFiles`, `containerLogMonitorInterval`), with the kubelet's defaults (10Mi, 5,
 * 10s) and its validation: `containerLogMaxFiles` greater than 1 and `containerLogMonitorInterval`
 * at least 3s (`ValidateKubeletConfiguration`), `containerLogMaxSize` a quantity that is a whole
 * number of bytes (`parseMaxSize`: `AsInt64`), a negative size turning rotation off
 * (`NewContainerLogManager` then returns its stub). Every problem is collected.
 */
import { pathKey, type IssueList } from "../issues.js";
import { parseQuantity, QuantityError, quantityNanos } from "../quantity.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { DurationError, durationToMs, parseGoDuration } from "../time/duration.js";
import { OPENSHIFT_KUBELET_CONFIG_API_VERSION } from "./kubelet-config-fields.js";

/** How container logs are rotated: the kubelet's `LogRotatePolicy` and its monitor period. */
export interface ContainerLogPolicy {
  /** A live log this large or larger is rotated; negative: never rotated. */
  readonly maxBytes: number;
  /** Log files kept per container, the live one included (so `maxFiles − 1` rotated ones). */
  readonly maxFiles: number;
  /** How often the live logs are looked at (`containerLogMonitorInterval`). */
  readonly monitorIntervalMs: number;
}

/** The kubelet's defaults (`SetDefaults_KubeletConfiguration`). */
export const DEFAULT_CONTAINER_LOG_POLICY: ContainerLogPolicy = {
  maxBytes: 10 * 1024 * 1024,
  maxFiles: 5,
  monitorIntervalMs: 10_000,
};

/** The shortest monitor interval the kubelet's validation accepts. */
const MIN_MONITOR_INTERVAL_MS = 3000;
const MAX_INT64 = (1n << 63n) - 1n;
const NANOS = 1_000_000_000n;
const INT32_MAX = 2 ** 31 - 1;

/**
 * Reads the policy from a decoded KubeletConfiguration (or the OpenShift `KubeletConfig` around
 * one) whose issues are reported under `path`; the kubelet's defaults when the object (or a field)
 * is absent. Type meta and unknown fields are the eviction reader's to report, not this one's.
 */
export function readContainerLogPolicy(raw: unknown, path: string, issues: IssueList): ContainerLogPolicy {
  const body = configBody(raw, path);
  if (body === undefined) return DEFAULT_CONTAINER_LOG_POLICY;
  const { obj, at } = body;
  return {
    maxBytes: readMaxSize(obj, at, issues) ?? DEFAULT_CONTAINER_LOG_POLICY.maxBytes,
    maxFiles: readMaxFiles(obj, at, issues) ?? DEFAULT_CONTAINER_LOG_POLICY.maxFiles,
    monitorIntervalMs: readMonitorInterval(obj, at, issues) ?? DEFAULT_CONTAINER_LOG_POLICY.monitorIntervalMs,
  };
}

/** The object holding the fields and its issue path (`spec.kubeletConfig` inside an OpenShift wrapper). */
function configBody(raw: unknown, path: string): { obj: RawObject; at: string } | undefined {
  if (!isRawObject(raw)) return undefined;
  if (raw["apiVersion"] !== OPENSHIFT_KUBELET_CONFIG_API_VERSION) return { obj: raw, at: path };
  const spec = raw["spec"];
  const inner = isRawObject(spec) ? spec["kubeletConfig"] : undefined;
  return isRawObject(inner) ? { obj: inner, at: pathKey(pathKey(path, "spec"), "kubeletConfig") } : undefined;
}

function readMaxSize(obj: RawObject, path: string, issues: IssueList): number | undefined {
  const raw = obj["containerLogMaxSize"];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, "containerLogMaxSize");
  if (typeof raw !== "string") {
    const quoteHint = typeof raw === "number" ? ` (quote it: "${String(raw)}")` : "";
    issues.error(
      p,
      "wrong-type",
      `expected a quantity string such as "10Mi", got ${describeValue(raw)}${quoteHint}`,
    );
    return undefined;
  }
  let nanos: bigint;
  try {
    nanos = quantityNanos(parseQuantity(raw));
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    issues.error(p, "invalid-quantity", `invalid quantity ${describeValue(raw)}: ${e.message}`);
    return undefined;
  }
  const bytes = nanos / NANOS;
  if (nanos % NANOS !== 0n || bytes > MAX_INT64 || -bytes > MAX_INT64) {
    issues.error(
      p,
      "invalid-quantity",
      `${describeValue(raw)} is not a whole number of bytes (invalid max log size)`,
    );
    return undefined;
  }
  if (bytes < 0n)
    issues.warning(
      p,
      "rotation-off",
      `${describeValue(raw)} is negative: container logs are never rotated (the kubelet's meaning), so one pod's output can fill nodefs`,
    );
  return bytes > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(bytes);
}

function readMaxFiles(obj: RawObject, path: string, issues: IssueList): number | undefined {
  const raw = obj["containerLogMaxFiles"];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, "containerLogMaxFiles");
  const n = typeof raw === "bigint" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    issues.error(p, "wrong-type", `expected an integer number of files, got ${describeValue(raw)}`);
    return undefined;
  }
  if (n > INT32_MAX) {
    issues.error(p, "out-of-range", `${n} does not fit in an int32`);
    return undefined;
  }
  if (n <= 1) {
    issues.error(p, "range", `must be greater than 1 (the live log and at least one rotated one), got ${n}`);
    return undefined;
  }
  return n;
}

function readMonitorInterval(obj: RawObject, path: string, issues: IssueList): number | undefined {
  const raw = obj["containerLogMonitorInterval"];
  if (raw === undefined || raw === null) return undefined;
  const p = pathKey(path, "containerLogMonitorInterval");
  if (typeof raw !== "string") {
    issues.error(p, "wrong-type", `expected a Go duration string such as "10s", got ${describeValue(raw)}`);
    return undefined;
  }
  let ms: number;
  try {
    ms = durationToMs(parseGoDuration(raw));
  } catch (e) {
    if (!(e instanceof DurationError)) throw e;
    issues.error(p, "invalid-duration", e.message);
    return undefined;
  }
  if (ms < MIN_MONITOR_INTERVAL_MS) {
    issues.error(p, "range", `must be at least 3s, got ${describeValue(raw)}`);
    return undefined;
  }
  return ms;
}
