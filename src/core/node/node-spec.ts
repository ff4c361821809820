/**
 * The node file of `evictd run`: what the machine offers (capacity), what is held back for the
 * system and the node agent (reservations, giving allocatable as the kubelet computes it), where
 * state, images and pod manifests live, the eviction settings, and the loop and HTTP settings.
 * Parsing is pure and collects every problem; reading files is the adapters' job.
 */
import { parseListenAddress } from "./listen-address.js";
import { readNodeKubeletSettings } from "./read-node-kubelet-settings.js";
import { readDecisionLogBounds, type DecisionLogBounds } from "./decision-log-bounds.js";
import { buildEvictionConfig } from "../config/build-eviction-config.js";
import { readContainerLogPolicy, type ContainerLogPolicy } from "../config/container-log-settings.js";
import { DurationError, durationToMs, parseGoDuration } from "../time/duration.js";
import { TIMER_MAX_MS, TIMER_MAX_TEXT } from "../time/timer-limit.js";
import { IssueList, pathKey, type Issue } from "../issues.js";
import type { EvictionConfig } from "../model.js";
import { thresholdQuantity } from "../engine/threshold-quantity.js";
import { parseQuantity, QuantityError, quantityValue } from "../quantity.js";
import { describeValue } from "../raw/describe-value.js";
import { isRawObject, type RawObject } from "../raw/raw-object.js";

export const NODE_FILE_KIND = "EvictdNode";
export const NODE_FILE_API_VERSION = "evictd.io/v1alpha1";

/** Memory and PID amounts of the node, in bytes and counts. */
export interface NodeResources {
  readonly memoryBytes?: bigint;
  readonly pids?: bigint;
}

export interface NodeSpec {
  readonly name: string;
  /** The node's memory and PID capacity (memory is the node cgroup's limit). */
  readonly capacity: { readonly memoryBytes: bigint; readonly pids?: bigint };
  readonly systemReserved: NodeResources;
  readonly kubeReserved: NodeResources;
  /** Memory limit of the pods (allocatable) cgroup: capacity − system − kube reserved. */
  readonly podsMemoryLimitBytes: bigint;
  /** PID limit of the pods cgroup, when capacity.pids is given. */
  readonly podsPidsLimit?: bigint;
  /** Allocatable memory the node reports: the pods limit minus the hard memory.available threshold. */
  readonly allocatableMemoryBytes: bigint;
  /** Allocatable pods (the KubeletConfiguration's maxPods, default 110): a pod past it is rejected OutOfpods. */
  readonly maxPods: number;
  /** Its filesystem is nodefs: pod logs, emptyDirs, writable directories, pod status. */
  readonly stateDir: string;
  /** A separate image filesystem, when the node has one. */
  readonly imagefsDir?: string;
  /** Pod manifests (YAML), watched for changes. */
  readonly manifestDir: string;
  readonly eviction: EvictionConfig;
  /** Housekeeping interval in ms: the loop runs at least this often (kubelet: 10 s). */
  readonly housekeepingIntervalMs: number;
  /** HTTP listen address and port. */
  readonly listen: { readonly host: string; readonly port: number };
  /** Use kernel notifications (memcg thresholds, PSI) to wake the loop between housekeeping runs. */
  readonly notifications: boolean;
  /** Rotation of `<stateDir>/decisions.jsonl` (the node file's `decisionLog`). */
  readonly decisionLog: DecisionLogBounds;
  /** Rotation of the containers' logs (the KubeletConfiguration's `containerLog*` fields). */
  readonly containerLogs: ContainerLogPolicy;
}

export interface NodeSpecInput {
  readonly raw: unknown;
  /** The KubeletConfiguration when `config` named a file (already read by the caller). */
  readonly configFromFile?: unknown;
  /** Host name, the default node name. */
  readonly hostname: string;
}

export type NodeSpecResult = { ok: true; spec: NodeSpec; warnings: Issue[] } | { ok: false; issues: Issue[] };

const KNOWN = new Set([
  "apiVersion",
  "kind",
  "name",
  "capacity",
  "systemReserved",
  "kubeReserved",
  "stateDir",
  "imagefsDir",
  "manifestDir",
  "config",
  "flags",
  "housekeepingInterval",
  "listen",
  "notifications",
  "decisionLog",
]);

function quantityField(
  obj: RawObject,
  key: string,
  path: string,
  issues: IssueList,
  unit: "bytes" | "count",
): bigint | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  const p = pathKey(path, key);
  if (typeof v !== "string" && typeof v !== "number" && typeof v !== "bigint") {
    issues.error(
      p,
      "type",
      `expected a quantity such as ${unit === "bytes" ? "2Gi" : "4096"}, got ${describeValue(v)}`,
    );
    return undefined;
  }
  try {
    const n = quantityValue(parseQuantity(String(v)));
    if (n < 0n) {
      issues.error(p, "negative", `must not be negative, got ${describeValue(v)}`);
      return undefined;
    }
    return n;
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    issues.error(p, "invalid-quantity", `invalid quantity ${describeValue(v)}: ${e.message}`);
    return undefined;
  }
}

function resources(raw: unknown, path: string, issues: IssueList): NodeResources {
  if (raw === undefined) return {};
  if (!isRawObject(raw)) {
    issues.error(path, "type", `expected {memory: ..., pids: ...}, got ${describeValue(raw)}`);
    return {};
  }
  for (const k of Object.keys(raw)) {
    if (k !== "memory" && k !== "pids" && k !== "cpu" && k !== "ephemeral-storage") {
      issues.warning(
        pathKey(path, k),
        "unknown-field",
        `unknown resource ${JSON.stringify(k)} (ignored; evictd manages memory and pids)`,
      );
    }
  }
  const memoryBytes = quantityField(raw, "memory", path, issues, "bytes");
  const pids = quantityField(raw, "pids", path, issues, "count");
  return { ...(memoryBytes !== undefined ? { memoryBytes } : {}), ...(pids !== undefined ? { pids } : {}) };
}

function stringField(
  obj: RawObject,
  key: string,
  issues: IssueList,
  required: boolean,
  example: string,
): string | undefined {
  const v = obj[key];
  if (v === undefined) {
    if (required) issues.error(key, "required", `missing: expected ${example}`);
    return undefined;
  }
  if (typeof v !== "string" || v === "") {
    issues.error(key, "type", `expected ${example}, got ${describeValue(v)}`);
    return undefined;
  }
  return v;
}

function parseListen(v: unknown, issues: IssueList): { host: string; port: number } {
  const fallback = { host: "127.0.0.1", port: 10255 };
  if (v === undefined) return fallback;
  if (typeof v !== "string") {
    issues.error("listen", "type", `expected "host:port" such as "127.0.0.1:10255", got ${describeValue(v)}`);
    return fallback;
  }
  const parsed = parseListenAddress(v);
  if ("error" in parsed) {
    issues.error("listen", "invalid", parsed.error);
    return fallback;
  }
  return parsed;
}

export function parseNodeSpec(input: NodeSpecInput): NodeSpecResult {
  const issues = new IssueList();
  const raw = input.raw;
  if (!isRawObject(raw))
    return {
      ok: false,
      issues: [
        {
          severity: "error",
          path: "node",
          code: "type",
          message: `expected a mapping, got ${describeValue(raw)}`,
        },
      ],
    };
  for (const k of Object.keys(raw)) {
    if (!KNOWN.has(k))
      issues.warning(pathKey("", k), "unknown-field", `unknown field ${JSON.stringify(k)} (ignored)`);
  }
  if (raw["kind"] !== undefined && raw["kind"] !== NODE_FILE_KIND) {
    issues.error("kind", "kind", `expected ${NODE_FILE_KIND}, got ${describeValue(raw["kind"])}`);
  }
  if (raw["apiVersion"] !== undefined && raw["apiVersion"] !== NODE_FILE_API_VERSION) {
    issues.error(
      "apiVersion",
      "version",
      `expected ${NODE_FILE_API_VERSION}, got ${describeValue(raw["apiVersion"])}`,
    );
  }
  const name = stringField(raw, "name", issues, false, "a node name") ?? input.hostname;

  const capacity = resources(raw["capacity"], "capacity", issues);
  if (
    raw["capacity"] === undefined ||
    (isRawObject(raw["capacity"]) && raw["capacity"]["memory"] === undefined)
  ) {
    issues.error(
      "capacity.memory",
      "required",
      "missing: the node's memory capacity, such as 2Gi (the node cgroup's limit)",
    );
  }
  const systemReserved = resources(raw["systemReserved"], "systemReserved", issues);
  const kubeReserved = resources(raw["kubeReserved"], "kubeReserved", issues);

  const stateDir = stringField(
    raw,
    "stateDir",
    issues,
    true,
    "a directory, such as /var/lib/evictd (its filesystem is nodefs)",
  );
  const imagefsDir = stringField(raw, "imagefsDir", issues, false, "a directory on the image filesystem");
  const manifestDir = stringField(
    raw,
    "manifestDir",
    issues,
    true,
    "a directory of pod manifests, such as /etc/evictd/pods",
  );

  let housekeepingIntervalMs = 10_000;
  if (raw["housekeepingInterval"] !== undefined) {
    const v = raw["housekeepingInterval"];
    try {
      if (typeof v !== "string")
        throw new DurationError(
          `expected a Go duration such as "10s", got ${describeValue(v)}`,
          describeValue(v),
        );
      const ms = durationToMs(parseGoDuration(v));
      if (ms <= 0) issues.error("housekeepingInterval", "range", `must be positive, got ${describeValue(v)}`);
      else if (ms > TIMER_MAX_MS)
        issues.error(
          "housekeepingInterval",
          "range",
          `must be at most ${TIMER_MAX_TEXT} (the longest a timer holds), got ${describeValue(v)}`,
        );
      else housekeepingIntervalMs = ms;
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      issues.error("housekeepingInterval", "invalid-duration", e.message);
    }
  }
  const listen = parseListen(raw["listen"], issues);
  let notifications = true;
  if (raw["notifications"] !== undefined) {
    if (typeof raw["notifications"] !== "boolean")
      issues.error(
        "notifications",
        "type",
        `expected true or false, got ${describeValue(raw["notifications"])}`,
      );
    else notifications = raw["notifications"];
  }

  let flags: string[] = [];
  if (raw["flags"] !== undefined) {
    const f = raw["flags"];
    if (!Array.isArray(f) || !f.every((x) => typeof x === "string"))
      issues.error("flags", "type", `expected a list of kubelet flags, got ${describeValue(f)}`);
    else flags = f;
  }
  const configRaw = typeof raw["config"] === "string" ? input.configFromFile : raw["config"];
  const config =
    isRawObject(configRaw) && configRaw["apiVersion"] === undefined && configRaw["kind"] === undefined
      ? { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", ...configRaw }
      : configRaw;
  const built = buildEvictionConfig({
    ...(config !== undefined && config !== null ? { config } : {}),
    configPath: "config",
    flags,
    flagsPath: "flags",
  });
  issues.items.push(...(built.ok ? built.warnings : built.issues));
  const { maxPods } = readNodeKubeletSettings(config, "config", issues);
  const containerLogs = readContainerLogPolicy(config, "config", issues);
  const decisionLog = readDecisionLogBounds(raw["decisionLog"], "decisionLog", issues);

  const mem = capacity.memoryBytes ?? 0n;
  const reserved = (systemReserved.memoryBytes ?? 0n) + (kubeReserved.memoryBytes ?? 0n);
  if (capacity.memoryBytes !== undefined && reserved >= mem) {
    issues.error(
      "systemReserved",
      "range",
      `system and kube reservations (${reserved} bytes) leave no memory for pods out of ${mem} bytes`,
    );
  }
  const podsMemoryLimitBytes = mem - reserved;
  let podsPidsLimit: bigint | undefined;
  if (capacity.pids !== undefined)
    podsPidsLimit = capacity.pids - (systemReserved.pids ?? 0n) - (kubeReserved.pids ?? 0n);

  if (issues.hasErrors || !built.ok || stateDir === undefined || manifestDir === undefined) {
    return { ok: false, issues: issues.items };
  }
  // The node reports allocatable minus the hard memory.available threshold (node allocatable
  // accounting), though the pods cgroup limit itself is not lowered by it.
  const hard = built.config.thresholds.find((t) => t.signal === "memory.available" && t.origin === "hard");
  const hardBytes = hard?.value === undefined ? 0n : quantityValue(thresholdQuantity(hard.value, mem));
  return {
    ok: true,
    warnings: issues.items,
    spec: {
      name,
      capacity: { memoryBytes: mem, ...(capacity.pids !== undefined ? { pids: capacity.pids } : {}) },
      systemReserved,
      kubeReserved,
      podsMemoryLimitBytes,
      ...(podsPidsLimit !== undefined ? { podsPidsLimit } : {}),
      allocatableMemoryBytes: podsMemoryLimitBytes - hardBytes,
      maxPods,
      stateDir,
      ...(imagefsDir !== undefined ? { imagefsDir } : {}),
      manifestDir,
      eviction: built.config,
      housekeepingIntervalMs,
      listen,
      notifications,
      decisionLog,
      containerLogs,
    },
  };
}
