/**
 * A replay scenario, decoded and validated: the effective eviction configuration, the pods, and the
 * steps with their (already validated, still raw) summaries. See docs/replay-format.md.
 */
import type { Issue } from "../../core/issues.js";
import type { EpochMs, EvictionConfig, FilesystemLayout, Pod } from "../../core/model.js";
import type { ReclaimFunction } from "../../core/engine/types.js";
import type { NodeEnvironment } from "../../core/node/node-environment.js";
import type { RecordedNodeMemoryViews } from "../../core/memory/node-memory-views-record.js";

/** A summary as it appears in the scenario: validated raw data, decoded per step (time defaults). */
export interface RawSummary {
  readonly raw: unknown;
  /** Where it came from, for messages: `steps[3].summary` or a file path. */
  readonly path: string;
}

export interface ScenarioStep {
  readonly index: number;
  /** Milliseconds since start. */
  readonly atMs: number;
  readonly summary?: RawSummary;
  readonly afterReclaim?: RawSummary;
  readonly reclaimErrors: Partial<Record<ReclaimFunction, string>>;
  /** Pod keys (`namespace/name`) or UIDs whose kill fails at this step. */
  readonly killFailures: readonly string[];
  readonly addPods: readonly Pod[];
  /**
   * New versions of pods already active (evictd's `updatePods`, an in-place resize seen while
   * recording): each replaces the active pod with its UID before this step's sync.
   */
  readonly updatePods: readonly Pod[];
  readonly removePods: readonly string[];
  readonly admit: readonly Pod[];
  /**
   * The node's memory three ways as the recorder read them after this step was decided (evictd's
   * `nodeMemoryViews`, `watch --stats cgroups --record`). Informational: shown in reports, read by
   * no decision.
   */
  readonly nodeMemoryViews?: RecordedNodeMemoryViews;
}

/**
 * Everything a scenario says besides its steps: known before the first step is read, so a long
 * trace can be replayed while it streams in (docs/replay-format.md, "JSONL scenarios").
 */
export interface ScenarioHeader {
  readonly start: EpochMs;
  readonly config: EvictionConfig;
  /**
   * What `config` was built from: the KubeletConfiguration (absent: the kubelet's defaults) and the
   * kubelet flags over it. A what-if replay builds its variants from them.
   */
  readonly configSource?: { readonly document: unknown; readonly flags: readonly string[] };
  /** When absent, derived from the first summary. */
  readonly filesystems?: FilesystemLayout;
  readonly evictedPods: "remove" | "keep";
  /** `node.status.capacity.memory` in bytes, for oom_score_adj. */
  readonly nodeMemoryCapacity?: bigint;
  readonly pods: readonly Pod[];
  /**
   * An imported trace's `source.figures` (docs/replay-format.md): per signal or pod field, whether
   * its figures are exact, approximate or missing, and from what. Informational: shown in reports.
   */
  readonly figureSources?: Readonly<Record<string, string>>;
  /**
   * Where the trace was recorded (docs/replay-format.md, "node environment"): kubelet, kernel, OS,
   * runtime, cgroup version, stats provider. Informational: shown in reports, read by no decision.
   */
  readonly environment?: NodeEnvironment;
}

export interface Scenario extends ScenarioHeader {
  readonly steps: readonly ScenarioStep[];
  readonly warnings: readonly Issue[];
}
