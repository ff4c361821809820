/** The Kubernetes adapter: one node of a real cluster behind the ClusterNodePort. */
export {
  connectClusterNode,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ConnectClusterNodeOptions,
} from "./connect-cluster-node.js";
export type { RetryNotice } from "./kube-client.js";
export { KubeApiError, type KubeApiErrorCode, type KubeApiErrorDetails } from "./kube-api-error.js";
export { loadKubeConfig, type KubeConfigSelection, type LoadedKubeConfig } from "./load-kube-config.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry-policy.js";
