/**
 * A Pod as the process runtime runs it: the model's Pod plus `spec.restartPolicy`, which the engine
 * never needs (so the model does not carry it) but the runtime does, and a stable UID for manifests
 * that set none.
 */
import { isRawObject } from "../core/raw/raw-object.js";
import { createHash } from "node:crypto";
import { pathKey, type IssueList } from "../core/issues.js";
import type { Pod } from "../core/model.js";

export type PodRestartPolicy = "Always" | "OnFailure" | "Never";

const RESTART_POLICIES: readonly PodRestartPolicy[] = ["Always", "OnFailure", "Never"];

/**
 * The model's Pod with the pod-level restart policy. Structural: any Pod is a RunnablePod (the
 * policy then defaults to Always, as the API server defaults it), and a future `restartPolicy` on
 * the model's Pod fits without change.
 */
export type RunnablePod = Pod & { readonly restartPolicy?: string };

/** The pod's restart policy: Always unless the manifest said OnFailure or Never. */
export function podRestartPolicy(pod: RunnablePod): PodRestartPolicy {
  const p = pod.restartPolicy;
  return p === "OnFailure" || p === "Never" ? p : "Always";
}

/**
 * Reads `spec.restartPolicy` from a raw Pod object: absent or empty → Always (API defaulting);
 * anything else but the three values is an error (API validation).
 */
export function readPodRestartPolicy(raw: unknown, path: string, issues: IssueList): PodRestartPolicy {
  const spec = isRawObject(raw) ? raw["spec"] : undefined;
  const value = isRawObject(spec) ? spec["restartPolicy"] : undefined;
  if (value === undefined || value === null || value === "") return "Always";
  if (typeof value === "string" && (RESTART_POLICIES as readonly string[]).includes(value))
    return value as PodRestartPolicy;
  issues.error(
    pathKey(pathKey(path, "spec"), "restartPolicy"),
    "invalid-value",
    `unsupported restart policy ${JSON.stringify(value)}: expected Always, OnFailure or Never`,
  );
  return "Always";
}

/** Whether a raw Pod object sets `metadata.uid`. */
export function hasExplicitUid(raw: unknown): boolean {
  const meta = isRawObject(raw) ? raw["metadata"] : undefined;
  const uid = isRawObject(meta) ? meta["uid"] : undefined;
  return typeof uid === "string" && uid !== "";
}

/**
 * A UID for a manifest pod without one, derived from `namespace/name` so that it is the same on
 * every read and after a daemon restart (the kubelet hashes static pods too). Shaped like a UUID,
 * so it is a valid cgroup and directory name, unlike the decoder's `namespace/name` fallback.
 */
export function derivedPodUid(key: string): string {
  const h = createHash("sha256").update(`evictd-manifest-pod:${key}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
