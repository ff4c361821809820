/**
 * The node file's KubeletConfiguration beyond eviction: `maxPods` (read, type-checked and
 * validated as the kubelet does; default 110), and one warning for each field set there that a
 * kubelet would act on and `evictd run` does not (`run-kubelet-fields.ts` says which and why).
 * The eviction fields are read by `config/build-eviction-config.ts`, which also reports the
 * config's structure (its type, apiVersion, kind, unknown fields); this reads the same object.
 */
import { OPENSHIFT_KUBELET_CONFIG_API_VERSION } from "../config/kubelet-config-fields.js";
import { type IssueList, pathKey } from "../issues.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";
import { RUN_UNHONOURED_KUBELET_FIELDS } from "./run-kubelet-fields.js";

/** KubeletConfiguration's default `maxPods`. */
export const DEFAULT_MAX_PODS = 110;

export interface NodeKubeletSettings {
  /** Allocatable pods: admission rejects a pod past it (`OutOfpods`). */
  readonly maxPods: number;
}

const INT32_MAX = 2 ** 31 - 1;

/** The KubeletConfiguration inside the config value, and its issue path (an OpenShift KubeletConfig wraps it). */
function body(config: RawObject, path: string): { obj: RawObject; path: string } | undefined {
  if (config["apiVersion"] !== OPENSHIFT_KUBELET_CONFIG_API_VERSION) return { obj: config, path };
  const spec = config["spec"];
  const inner = isRawObject(spec) ? spec["kubeletConfig"] : undefined;
  return isRawObject(inner)
    ? { obj: inner, path: pathKey(pathKey(path, "spec"), "kubeletConfig") }
    : undefined;
}

function readMaxPods(obj: RawObject, path: string, issues: IssueList): number {
  const raw = obj["maxPods"];
  if (raw === undefined || raw === null) return DEFAULT_MAX_PODS;
  const p = pathKey(path, "maxPods");
  const n = typeof raw === "bigint" ? Number(raw) : raw;
  if (typeof n !== "number" || !Number.isInteger(n)) {
    issues.error(p, "wrong-type", `expected an integer number of pods, got ${describeValue(raw)}`);
    return DEFAULT_MAX_PODS;
  }
  if (n < 0) {
    // The kubelet's own validation (ValidateKubeletConfiguration), word for word.
    issues.error(
      p,
      "out-of-range",
      `invalid configuration: maxPods (--max-pods) ${n} must not be a negative number`,
    );
    return DEFAULT_MAX_PODS;
  }
  if (n > INT32_MAX) {
    issues.error(p, "out-of-range", `${describeValue(raw)} does not fit in an int32 (at most ${INT32_MAX})`);
    return DEFAULT_MAX_PODS;
  }
  if (n === 0) issues.warning(p, "no-pods", "maxPods is 0: every pod is rejected (OutOfpods)");
  return n;
}

/**
 * Reads `config` (the node file's KubeletConfiguration, inline or from its file) at `path`. A
 * config that is not an object is build-eviction-config's to report; the defaults stand then.
 */
export function readNodeKubeletSettings(
  config: unknown,
  path: string,
  issues: IssueList,
): NodeKubeletSettings {
  if (!isRawObject(config)) return { maxPods: DEFAULT_MAX_PODS };
  const found = body(config, path);
  if (found === undefined) return { maxPods: DEFAULT_MAX_PODS };
  const { obj } = found;
  for (const [key, value] of Object.entries(obj)) {
    // null decodes to the field's default: nothing for a kubelet to act on.
    if (!Object.hasOwn(RUN_UNHONOURED_KUBELET_FIELDS, key) || value === null) continue;
    const why = RUN_UNHONOURED_KUBELET_FIELDS[key] ?? "";
    issues.warning(pathKey(found.path, key), "not-honoured", `${key} is not honoured by evictd run: ${why}`);
  }
  const enforce = obj["enforceNodeAllocatable"];
  if (Array.isArray(enforce) && !enforce.includes("pods"))
    issues.warning(
      pathKey(found.path, "enforceNodeAllocatable"),
      "not-honoured",
      `enforceNodeAllocatable does not list "pods", and a kubelet would then leave the pods cgroup at capacity: evictd run limits it to allocatable all the same`,
    );
  return { maxPods: readMaxPods(obj, found.path, issues) };
}
