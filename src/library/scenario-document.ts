/**
 * The in-memory form of a replay scenario (docs/replay-format.md, "Input"): the object a scenario
 * file holds once parsed. Typed for the library's callers, yet checked field by field all the same
 * (a JavaScript caller can pass anything), with every problem reported.
 */
import type { FilesystemLayout } from "../core/model.js";

/** One step: one run of the eviction manager's synchronize at `start + at`. */
export interface ScenarioDocumentStep {
  /** A Go duration since the start (`"30s"`); strictly increasing from step to step. */
  readonly at: string;
  /** A kubelet Summary API response (stats/v1alpha1); absent: the previous one, unchanged. */
  readonly summary?: unknown;
  /** The Summary seen after node-level reclaim runs at this step; absent: unchanged. */
  readonly afterReclaim?: unknown;
  /** Node-level reclaim functions that fail at this step, with their error messages. */
  readonly reclaimErrors?: { readonly images?: string; readonly containers?: string };
  /** Pods (`namespace/name` or UID) whose kill fails at this step. */
  readonly killFailures?: readonly string[];
  /** v1 Pods (a list, a PodList or one Pod) that become active before this step's run. */
  readonly addPods?: unknown;
  /**
   * New versions of pods already defined (in `pods` or an earlier or this step's `addPods`), as v1
   * Pods: each replaces the active pod with its UID before this step's run (an in-place resize).
   */
  readonly updatePods?: unknown;
  /** Pods (`namespace/name` or UID) that stop being active before this step's run. */
  readonly removePods?: readonly string[];
  /** v1 Pods submitted for admission after this step's run. */
  readonly admit?: unknown;
  /**
   * evictd's node memory views as `watch --stats cgroups --record` writes them (docs/replay-format.md,
   * "node memory views"): checked, shown in reports, never decided on.
   */
  readonly nodeMemoryViews?: unknown;
}

/**
 * A replay scenario. String values of `config`, `pods`, `summary` and `afterReclaim` are paths to
 * files, as in a scenario file; give objects to keep everything in memory.
 */
export interface ScenarioDocument {
  /** RFC 3339 wall time of `at: 0s`; default the Unix epoch. */
  readonly start?: string;
  /** A KubeletConfiguration object (apiVersion and kind optional here). */
  readonly config?: unknown;
  /** Kubelet command-line flags applied over `config`, e.g. `--eviction-hard=memory.available<1Gi`. */
  readonly flags?: readonly string[];
  /** A v1 Node; only `status.capacity.memory` is read (for oom_score_adj). */
  readonly node?: unknown;
  /** The node's filesystem layout; absent: derived from the first summary. */
  readonly filesystems?: FilesystemLayout;
  /** Whether an evicted pod leaves the active set (`remove`, the default) or stays (`keep`). */
  readonly evictedPods?: "remove" | "keep";
  /** The active pods at the start: v1 Pods, as a list, a PodList or one Pod. */
  readonly pods?: unknown;
  readonly steps: readonly ScenarioDocumentStep[];
}
