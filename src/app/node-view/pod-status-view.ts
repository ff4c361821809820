/**
 * A v1 Pod object from the API server as the status views show it: its decoded form plus the
 * status the API reports (phase, reason, message, conditions). The cluster frontends (`watch`'s
 * /status and /metrics, `explain`) see pods this way; `evictd run` builds its views from its own
 * pod records instead.
 */
import type { Pod } from "../../core/model.js";
import { podQos } from "../../core/pod/qos.js";
import { isRawObject } from "../../core/raw/raw-object.js";
import type { PodStatusView } from "./snapshot.js";

type Condition = PodStatusView["conditions"][number];

/** One entry of `status.conditions`, or undefined when it lacks a string type or status. */
function condition(raw: unknown): Condition | undefined {
  if (!isRawObject(raw)) return undefined;
  const { type, status, reason, message } = raw;
  if (typeof type !== "string" || typeof status !== "string") return undefined;
  return {
    type,
    status,
    ...(typeof reason === "string" ? { reason } : {}),
    ...(typeof message === "string" ? { message } : {}),
  };
}

/**
 * The view of `raw` (a v1 Pod) decoded as `pod`. A pod without a phase is `Pending`, as the API
 * server defaults it; malformed conditions are left out. Restart counts are not tracked for cluster
 * pods (the kubelet owns them).
 */
export function podStatusView(raw: unknown, pod: Pod): PodStatusView {
  const status = isRawObject(raw) && isRawObject(raw["status"]) ? raw["status"] : {};
  const { phase, reason, message, conditions } = status;
  return {
    pod,
    phase: typeof phase === "string" ? phase : "Pending",
    ...(typeof reason === "string" ? { reason } : {}),
    ...(typeof message === "string" ? { message } : {}),
    conditions: Array.isArray(conditions)
      ? conditions.map(condition).filter((c): c is Condition => c !== undefined)
      : [],
    qosClass: podQos(pod),
    restarts: {},
  };
}
