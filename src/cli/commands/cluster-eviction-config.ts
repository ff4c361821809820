/**
 * The eviction settings a cluster node's kubelet actually runs with: its configz (the merged result
 * of its config file and flags), or a KubeletConfiguration file given instead to ask "what if".
 * Also returns that configuration as a scenario writes it, so a recorded trace replays with the
 * same thresholds.
 */
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { loadKubeletConfigFile } from "../../formats/load-kubelet-config-file.js";
import { locateIssues } from "../../formats/position-lookup.js";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import type { Issue } from "../../core/issues.js";
import type { EvictionConfig } from "../../core/model.js";
import { InputError } from "../../errors.js";

export interface ClusterEvictionConfig {
  readonly config: EvictionConfig;
  /** The KubeletConfiguration object for a scenario header. */
  readonly document: unknown;
  /** Flags the scenario needs besides the document (see {@link scenarioConfigFromConfigz}). */
  readonly flags: readonly string[];
  readonly warnings: readonly Issue[];
  /** Where the settings came from, for messages. */
  readonly origin: string;
}

/**
 * configz as a scenario's `config` (+ `flags`). configz shows values after defaulting, and a file
 * with a zero `evictionPressureTransitionPeriod` would be defaulted to 5m again, whereas the kubelet
 * only ends up with 0 through its flag; so a 0 goes out as that flag.
 */
export function scenarioConfigFromConfigz(kubeletconfig: unknown): {
  document: Record<string, unknown>;
  flags: string[];
} {
  const body =
    kubeletconfig !== null && typeof kubeletconfig === "object"
      ? { ...(kubeletconfig as Record<string, unknown>) }
      : {};
  const flags: string[] = [];
  const period = body["evictionPressureTransitionPeriod"];
  if (typeof period === "string" && /^0+(\.0*)?[a-zµμ]*$/.test(period)) {
    delete body["evictionPressureTransitionPeriod"];
    flags.push("--eviction-pressure-transition-period=0s");
  }
  return {
    document: { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", ...body },
    flags,
  };
}

export async function clusterEvictionConfig(
  api: ClusterNodePort,
  configFile: string | undefined,
): Promise<ClusterEvictionConfig> {
  let document: unknown;
  let flags: string[] = [];
  let origin: string;
  let locate = (issues: readonly Issue[]): Issue[] =>
    issues.map((i) => ({ ...i, message: `${i.message} (in the ${origin})` }));
  const warnings: Issue[] = [];
  if (configFile !== undefined) {
    const loaded = await loadKubeletConfigFile(configFile);
    if (!loaded.ok) throw new InputError(loaded.issues);
    warnings.push(...loaded.warnings);
    document = loaded.value;
    origin = configFile;
    locate = (issues) => locateIssues(issues, "config", loaded.positions, configFile);
  } else {
    const fromConfigz = scenarioConfigFromConfigz(await api.kubeletConfig());
    document = fromConfigz.document;
    flags = fromConfigz.flags;
    origin = `configz of node ${api.nodeName}`;
  }
  const built = buildEvictionConfig({ config: document, flags });
  if (!built.ok) throw new InputError(locate(built.issues));
  warnings.push(...locate(built.warnings));
  return { config: built.config, document, flags, warnings, origin };
}
