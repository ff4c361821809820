/**
 * The eviction settings a cluster node's kubelet actually runs with, from its configz (the merged
 * result of its config file and flags), and that configuration as a scenario writes it, so a
 * recorded trace replays with the same thresholds. Pure: the configz object in, settings out; a
 * KubeletConfiguration file given instead (`--config`, "what if?") is read by formats/load-eviction-config.
 */
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import type { Issue } from "../../core/issues.js";
import type { EvictionConfig } from "../../core/model.js";
import { isRawObject } from "../../core/raw/raw-object.js";
import { InputError } from "../../errors.js";

/** The settings a cluster frontend runs with, and what a trace header needs to reproduce them. */
export interface ClusterEvictionSettings {
  readonly config: EvictionConfig;
  /** The KubeletConfiguration object for a scenario header. */
  readonly document: unknown;
  /** Flags the scenario needs besides the document (see {@link scenarioConfigFromConfigz}). */
  readonly flags: readonly string[];
  readonly warnings: readonly Issue[];
  /** Where the settings came from, for messages ("configz of node n1", or the file). */
  readonly origin: string;
  /**
   * True when `document` is the kubelet's own configz, what the node runs with: then its feature
   * gates describe the node (a trace's environment reads them); a file given instead says nothing of it.
   */
  readonly fromConfigz?: boolean;
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
  const body: Record<string, unknown> = isRawObject(kubeletconfig) ? { ...kubeletconfig } : {};
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

/**
 * The settings from a node's configz (`kubeletconfig`). configz has no file to point into, so each
 * issue says where it came from instead. Throws {@link InputError} when the kubelet's own
 * configuration is not usable here (e.g. a threshold this engine does not support).
 */
export function evictionSettingsFromConfigz(
  kubeletconfig: unknown,
  nodeName: string,
): ClusterEvictionSettings {
  const origin = `configz of node ${nodeName}`;
  const { document, flags } = scenarioConfigFromConfigz(kubeletconfig);
  const locate = (issues: readonly Issue[]): Issue[] =>
    issues.map((i) => ({ ...i, message: `${i.message} (in the ${origin})` }));
  const built = buildEvictionConfig({ config: document, flags });
  if (!built.ok) throw new InputError(locate(built.issues));
  return {
    config: built.config,
    document,
    flags,
    warnings: locate(built.warnings),
    origin,
    fromConfigz: true,
  };
}
