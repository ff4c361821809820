/**
 * The `environment` a cluster recording's header carries (docs/replay-format.md, "evictd extension:
 * node environment"): the Node's nodeInfo, the stats provider from the kubelet's own configz (never
 * from a configuration file given instead, which says nothing of the node), and the cgroup version
 * when evictd reads the node's cgroups itself. Pure.
 */
import { nodeEnvironment, type NodeEnvironment } from "../../core/node/node-environment.js";
import type { ClusterEvictionSettings } from "./eviction-settings.js";

/** `{ environment }` when anything is known of the node, else `{}` (to spread into a header). */
export function traceEnvironment(
  node: unknown,
  settings: ClusterEvictionSettings,
  cgroupVersion?: 1 | 2,
): { environment?: NodeEnvironment } {
  const environment = nodeEnvironment({
    node,
    ...(settings.fromConfigz === true ? { kubeletConfig: settings.document } : {}),
    ...(cgroupVersion !== undefined ? { cgroupVersion } : {}),
  });
  return environment !== undefined ? { environment } : {};
}
