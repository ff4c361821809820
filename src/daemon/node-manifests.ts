/**
 * The node's manifest directory as `evictd run` reads it: a pod new to the node goes through
 * admission (runtime/manifest-admission.ts) against the conditions the eviction loop reports now,
 * then into the runtime; the files with problems are shown in /status and counted in /metrics.
 */
import type { LoggerPort } from "../app/ports.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { manifestAdmission, type ManifestPodRuntime } from "../runtime/manifest-admission.js";
import { ManifestSource } from "../runtime/manifest-source.js";
import type { DaemonMetrics } from "../server/metrics.js";
import type { DaemonStatusView } from "./daemon-status-view.js";

export interface NodeManifestsOptions {
  readonly spec: NodeSpec;
  readonly runtime: ManifestPodRuntime;
  /** Where the loop's conditions are read, and the files with problems shown. */
  readonly status: Pick<DaemonStatusView, "conditions" | "manifestProblems">;
  readonly metrics: Pick<DaemonMetrics, "setManifestErrors">;
  readonly log: LoggerPort;
}

/** The manifest source, its reading thread already starting; `start` it once the loop runs. */
export function prepareNodeManifests(o: NodeManifestsOptions): ManifestSource {
  const { spec, status, log } = o;
  const listener = manifestAdmission({
    runtime: o.runtime,
    allocatable: { memoryBytes: spec.allocatableMemoryBytes, pods: spec.maxPods },
    conditions: () => status.conditions(),
    logger: log,
    onManifestProblems: (problems) => {
      status.manifestProblems(problems);
      o.metrics.setManifestErrors(problems.filter((e) => e.errors.length > 0).length);
    },
  });
  const manifests = new ManifestSource({ dir: spec.manifestDir, logger: log, listener });
  // Manifests are read in a worker thread (runtime/manifest-read-thread.ts): started now, it is up
  // by the time the first scan needs it.
  manifests.prepare();
  return manifests;
}
