/**
 * The node a trace was recorded on, as far as it is known (docs/replay-format.md, "evictd extension:
 * node environment"): its kubelet, kernel, OS image and container runtime, the cgroup version, and
 * which stats provider wrote its Summaries. Informational: a report shows it, no decision reads it.
 * Every field is set only from where it is known and left out otherwise, never guessed. Pure.
 */
import { isRawObject } from "../raw/raw-object.js";

export interface NodeEnvironment {
  /**
   * Who computes the pods' and containers' figures: `cri` when the kubelet runs with the feature
   * gate `PodAndContainerStatsFromCRI` (the runtime does; some fields are then absent), `cadvisor`
   * when it does not (cAdvisor does, directly or through the CRI provider's cAdvisor fill-in).
   */
  readonly statsProvider?: "cadvisor" | "cri";
  /** The v1 Node's `status.nodeInfo.kubeletVersion` (`v1.35.0`). */
  readonly kubeletVersion?: string;
  /** `status.nodeInfo.kernelVersion`. */
  readonly kernelVersion?: string;
  /** `status.nodeInfo.osImage`. */
  readonly osImage?: string;
  /** `status.nodeInfo.containerRuntimeVersion` (`containerd://2.1.1`). */
  readonly containerRuntimeVersion?: string;
  /** The cgroup API of the node, when evictd read the node's cgroups itself. */
  readonly cgroupVersion?: 1 | 2;
}

/** The string fields of a NodeEnvironment, and where a v1 Node's `status.nodeInfo` holds each. */
export const NODE_INFO_FIELDS = [
  "kubeletVersion",
  "kernelVersion",
  "osImage",
  "containerRuntimeVersion",
] as const;

/**
 * The last minor release of Kubernetes 1 known to leave `PodAndContainerStatsFromCRI` off by
 * default (alpha from 1.23, off in every release through 1.37). A kubelet past it that does not set
 * the gate is not said to use either provider: its default is not known here.
 */
const LAST_MINOR_KNOWN_GATE_OFF = 37;

export interface NodeEnvironmentSources {
  /** The v1 Node object (its `status.nodeInfo`). */
  readonly node?: unknown;
  /**
   * The configuration the kubelet runs with (its configz), for its feature gates; not a file given
   * instead, whose gates say nothing of the node.
   */
  readonly kubeletConfig?: unknown;
  readonly cgroupVersion?: 1 | 2;
}

/** What the sources say of the node; `undefined` when they say nothing. */
export function nodeEnvironment(sources: NodeEnvironmentSources): NodeEnvironment | undefined {
  const env: { -readonly [K in keyof NodeEnvironment]: NodeEnvironment[K] } = {};
  const status = isRawObject(sources.node) ? sources.node["status"] : undefined;
  const info = isRawObject(status) ? status["nodeInfo"] : undefined;
  if (isRawObject(info)) {
    for (const field of NODE_INFO_FIELDS) {
      const value = info[field];
      if (typeof value === "string" && value !== "") env[field] = value;
    }
  }
  const provider = statsProviderOf(sources.kubeletConfig, env.kubeletVersion);
  if (provider !== undefined) env.statsProvider = provider;
  if (sources.cgroupVersion !== undefined) env.cgroupVersion = sources.cgroupVersion;
  return Object.keys(env).length > 0 ? env : undefined;
}

/**
 * The stats provider a kubelet configuration selects: the gate as set, else the kubelet's default
 * (off) when its version is one whose default is known.
 */
export function statsProviderOf(
  kubeletConfig: unknown,
  kubeletVersion: string | undefined,
): "cadvisor" | "cri" | undefined {
  if (!isRawObject(kubeletConfig)) return undefined;
  const gates = kubeletConfig["featureGates"];
  const gate = isRawObject(gates) ? gates["PodAndContainerStatsFromCRI"] : undefined;
  if (gate === true) return "cri";
  if (gate === false) return "cadvisor";
  const minor = /^v?1\.(\d+)(?:\D|$)/.exec(kubeletVersion ?? "")?.[1];
  return minor !== undefined && Number(minor) <= LAST_MINOR_KNOWN_GATE_OFF ? "cadvisor" : undefined;
}
