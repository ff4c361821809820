/**
 * evictd's pod as deploy/daemonset.yaml makes it on a node: read from the manifest itself (so the
 * cluster reaction bench measures what is deployed, and follows the manifest when it changes), the
 * DaemonSet's namespace and name, the pod's priority class, grace period and labels, and its one
 * container's name, requests, limits and the environment given as literal values.
 */
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { parseQuantity, quantityNanos, quantityValue } from "../src/core/quantity.js";

/** The value the API server gives `spec.priority` for the built-in priority classes. */
const BUILT_IN_PRIORITY: Readonly<Record<string, number>> = {
  "system-node-critical": 2_000_001_000,
  "system-cluster-critical": 2_000_000_000,
};

export interface EvictdDaemonSetPod {
  readonly namespace: string;
  /** The DaemonSet's name: its pods are `<name>-<5 characters>`. */
  readonly daemonSet: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly priorityClassName: string | undefined;
  readonly priority: number | undefined;
  readonly terminationGracePeriodSeconds: number;
  readonly containerName: string;
  /** The container's resources as the manifest spells them (they go into the API pod verbatim). */
  readonly resources: {
    readonly requests: Readonly<Record<string, string>>;
    readonly limits: Readonly<Record<string, string>>;
  };
  readonly qos: "Guaranteed" | "Burstable" | "BestEffort";
  readonly cpuRequestMilli: number;
  /** The memory limit in bytes, if any (the container's and, its only container, the pod's cgroup limit). */
  readonly memoryLimitBytes: number | undefined;
  /** Environment variables with a literal `value` (those from `valueFrom` need a kubelet). */
  readonly env: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function stringMap(v: unknown, where: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new Error(`${where}: a map expected`);
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => {
      if (typeof x !== "string")
        throw new Error(`${where}.${k}: a string expected, got ${JSON.stringify(x)}`);
      return [k, x];
    }),
  );
}

/** Reads the DaemonSet of `file` (deploy/daemonset.yaml); errors name the file and the field. */
export function readEvictdDaemonSetPod(file: string): EvictdDaemonSetPod {
  const docs = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS() as unknown);
  const ds = docs.find((d): d is Json => isObject(d) && d["kind"] === "DaemonSet");
  if (ds === undefined) throw new Error(`${file}: no DaemonSet`);
  const at = (path: string): unknown =>
    path.split(".").reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), ds);
  const text = (path: string): string => {
    const v = at(path);
    if (typeof v !== "string" || v === "") throw new Error(`${file}: DaemonSet ${path}: a string expected`);
    return v;
  };
  const podSpec = at("spec.template.spec");
  if (!isObject(podSpec)) throw new Error(`${file}: DaemonSet spec.template.spec missing`);
  const containers = podSpec["containers"];
  if (!Array.isArray(containers) || containers.length !== 1 || !isObject(containers[0]))
    throw new Error(`${file}: DaemonSet spec.template.spec.containers: exactly one container expected`);
  const container = containers[0];
  const where = `${file}: DaemonSet container`;
  const resources = isObject(container["resources"]) ? container["resources"] : {};
  const requests = stringMap(resources["requests"], `${where} resources.requests`);
  const limits = stringMap(resources["limits"], `${where} resources.limits`);
  const bytes = (q: string | undefined): number | undefined =>
    q === undefined ? undefined : Number(quantityValue(parseQuantity(q)));
  const milli = (q: string | undefined): number =>
    q === undefined ? 0 : Number(quantityNanos(parseQuantity(q)) / 1_000_000n);
  // Requests default to limits (an API default); Guaranteed: cpu and memory limited, requests equal.
  const request = (r: string): string | undefined => requests[r] ?? limits[r];
  const guaranteed = ["cpu", "memory"].every(
    (r) => limits[r] !== undefined && milli(request(r)) === milli(limits[r]),
  );
  const qos =
    Object.keys(requests).length === 0 && Object.keys(limits).length === 0
      ? "BestEffort"
      : guaranteed
        ? "Guaranteed"
        : "Burstable";
  const env: Record<string, string> = {};
  for (const e of Array.isArray(container["env"]) ? container["env"] : []) {
    if (isObject(e) && typeof e["name"] === "string" && typeof e["value"] === "string")
      env[e["name"]] = e["value"];
  }
  const priorityClassName =
    typeof podSpec["priorityClassName"] === "string" ? podSpec["priorityClassName"] : undefined;
  const grace = podSpec["terminationGracePeriodSeconds"];
  return {
    namespace: text("metadata.namespace"),
    daemonSet: text("metadata.name"),
    labels: stringMap(
      at("spec.template.metadata.labels"),
      `${file}: DaemonSet spec.template.metadata.labels`,
    ),
    priorityClassName,
    priority: priorityClassName === undefined ? undefined : BUILT_IN_PRIORITY[priorityClassName],
    terminationGracePeriodSeconds: typeof grace === "number" ? grace : 30,
    containerName: typeof container["name"] === "string" ? container["name"] : "evictd",
    resources: { requests, limits },
    qos,
    cpuRequestMilli: milli(request("cpu")),
    memoryLimitBytes: bytes(limits["memory"]),
    env,
  };
}
