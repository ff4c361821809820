/**
 * What `evictd watch` can and cannot do against a cluster node, as /status lists it and the start
 * log line says: where stats and thresholds come from, the filesystem layout, the enforce mode, and
 * what only the kubelet on the node can do (kernel notifications, garbage collection).
 */
import type { FilesystemLayout } from "../../core/model.js";
import type { EnforceMode } from "./cluster-pods.js";

export interface WatchCapabilitiesInput {
  /** Where Summary and configz come from (the cluster port's `describe`). */
  readonly source: string;
  /** Where the thresholds come from (configz of the node, or a file). */
  readonly thresholdsOrigin: string;
  readonly layout: FilesystemLayout;
  readonly mode: EnforceMode;
  readonly intervalMs: number;
  /** `--stats cgroups`: what the node-local memory source and its kernel notifications are. */
  readonly nodeLocal?: readonly string[];
  /** A pod its PodDisruptionBudget protects is skipped for the next one. */
  readonly preflight?: boolean;
  /** Eviction API mode: asked with a dry run first all the same. */
  readonly dryRunFirst?: boolean;
  /** Soft-threshold evictions are EvictionRequests where the API serves them. */
  readonly evictionRequests?: boolean;
}

/** One sentence per capability or limit, for /status and the log. */
export function watchCapabilities(o: WatchCapabilitiesInput): string[] {
  return [
    `stats and configuration from ${o.source}; thresholds from ${o.thresholdsOrigin}`,
    `filesystem layout: ${o.layout}`,
    o.mode === "shadow"
      ? "shadow mode: decisions are logged and exported, no pod is touched"
      : o.mode === "eviction-api"
        ? "enforce mode through the Eviction API (PodDisruptionBudgets are honoured)"
        : "enforce mode: evicted pods get the kubelet's DisruptionTarget condition and Evicted event, then are deleted with their grace period",
    ...(o.nodeLocal ?? [
      `no kernel notifications from outside the node: the loop runs every ${o.intervalMs / 1000}s`,
    ]),
    "node-level reclaim (container and image garbage collection) is left to the kubelet",
    ...(o.preflight === true
      ? [
          o.mode === "eviction-api" && o.dryRunFirst !== true
            ? "a pod whose eviction its PodDisruptionBudget refuses is reported and the next pod in the ranking goes, no dry run first: the refusal changes nothing (the kubelet consults no budget)"
            : "each eviction is first sent as a dry run: a pod its PodDisruptionBudget protects is reported and the next pod in the ranking goes (the kubelet consults no budget)",
        ]
      : []),
    ...(o.evictionRequests === true
      ? [
          "soft-threshold evictions are EvictionRequests (lifecycle.k8s.io/v1alpha1) where the API server serves them, else through pods/eviction; hard ones always through pods/eviction",
        ]
      : []),
  ];
}
