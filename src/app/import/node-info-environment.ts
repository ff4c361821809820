/**
 * What an import knows of the node's environment (docs/replay-format.md, "evictd extension: node
 * environment"): kube-state-metrics' `kube_node_info` carries the Node's nodeInfo as labels. A field
 * is set only when the range shows one value for it; a node upgraded within the range shows two, and
 * the field is left out (named in `ambiguous`) rather than one of them picked. The stats provider and
 * the cgroup version are not in Prometheus' series: an import never sets them.
 */
import type { NodeEnvironment } from "../../core/node/node-environment.js";

/** kube_node_info's label for each nodeInfo field. */
const LABELS = {
  kubeletVersion: "kubelet_version",
  kernelVersion: "kernel_version",
  osImage: "os_image",
  containerRuntimeVersion: "container_runtime_version",
} as const;

export interface NodeInfoEnvironment {
  readonly environment?: NodeEnvironment;
  /** Fields left out because the range shows several values: label → the values, sorted. */
  readonly ambiguous: readonly { readonly label: string; readonly values: readonly string[] }[];
}

/** The environment the label sets of the node's `kube_node_info` series say, over the range. */
export function nodeInfoEnvironment(
  labelSets: readonly Readonly<Record<string, string>>[],
): NodeInfoEnvironment {
  const env: { -readonly [K in keyof NodeEnvironment]: NodeEnvironment[K] } = {};
  const ambiguous: { label: string; values: string[] }[] = [];
  for (const [field, label] of Object.entries(LABELS) as [keyof typeof LABELS, string][]) {
    const values = new Set<string>();
    for (const l of labelSets) {
      const value = l[label];
      if (value !== undefined && value !== "") values.add(value);
    }
    const [only] = values;
    if (values.size === 1 && only !== undefined) env[field] = only;
    else if (values.size > 1) ambiguous.push({ label, values: [...values].sort() });
  }
  return { ...(Object.keys(env).length > 0 ? { environment: env } : {}), ambiguous };
}
