/**
 * The shapes of the replay output records (docs/replay-format.md, "Output"): what `evictd replay
 * --output jsonl` prints one per line, what the library's `replay()` yields, and what the daemon's
 * decision log writes per step. Plain JSON data (strings, numbers, booleans, null), so that a record
 * yielded in memory equals the line the CLI prints, parsed. Type aliases, not interfaces, so that a
 * record still passes where a `Record<string, unknown>` is expected.
 */
import type { EvictionKind, ReclaimFunction, RefusalReason } from "../../core/engine/types.js";
import type { FilesystemLayout, NodeCondition, QosClass, Signal } from "../../core/model.js";

/** A threshold in the config record: values as canonical quantities or percentages. */
export type ThresholdRecord = {
  readonly signal: Signal;
  /** `LessThan` (inert containerfs copies of absent thresholds are left out of the record). */
  readonly operator: "LessThan" | "";
  /** A quantity in canonical form (`"100Mi"`) or a percentage (`"10%"`). */
  readonly value: string;
  /** A Go duration (`"0s"` for a hard threshold). */
  readonly gracePeriod: string;
  readonly minReclaim: string;
  readonly hard: boolean;
  /** For thresholds the engine derived (allocatable and containerfs copies): the signal copied. */
  readonly derivedFrom?: Signal;
};

/** A pod of the scenario in the config record. */
export type PodRecord = {
  /** `namespace/name`. */
  readonly pod: string;
  readonly qosClass: QosClass;
  readonly critical: boolean;
  /** Container name → oom_score_adj; present when the node's memory capacity is known. */
  readonly oomScoreAdj?: Readonly<Record<string, number>>;
};

/** The first record: the effective configuration and every pod of the scenario. */
export type ReplayConfigRecord = {
  readonly type: "config";
  readonly thresholds: readonly ThresholdRecord[];
  readonly evictionMaxPodGracePeriod: number;
  readonly evictionPressureTransitionPeriod: string;
  readonly filesystems: FilesystemLayout;
  readonly localStorageCapacityIsolation: boolean;
  readonly pods: readonly PodRecord[];
  /** Present (true) in a what-if replay: observations are the counterfactual figures. */
  readonly whatIf?: true;
};

/** A threshold as a step record names it (met, or acted on). */
export type ThresholdRef = {
  readonly signal: Signal;
  readonly value: string;
  readonly gracePeriod: string;
};

/** One signal's observation at a step: quantities (bytes for `*.available`, else counts). */
export type ObservationRecord = {
  readonly available: string;
  readonly capacity: string;
  /** RFC 3339; absent when the stats carried Go's zero time. */
  readonly time?: string;
};

/** A pod evicted at a step, with everything the kubelet writes for it. */
export type EvictionRecord = {
  readonly pod: string;
  readonly uid: string;
  readonly kind: EvictionKind;
  /** The signal, or emptydirfs.limit / ephemeralpodfs.limit / ephemeralcontainerfs.limit. */
  readonly signal: string;
  /** The grace-period override the eviction manager requests. */
  readonly gracePeriodSeconds: number;
  /** What the pod gets once the pod worker applies the override. */
  readonly effectiveGracePeriodSeconds: number;
  readonly killFailed: boolean;
  readonly message: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly condition?: {
    readonly type: "DisruptionTarget";
    readonly status: "True";
    readonly reason: "TerminationByKubelet";
    readonly message: string;
  };
};

/** One admission request judged after a step's synchronize. */
export type AdmissionRecord =
  | { readonly pod: string; readonly admit: true }
  | { readonly pod: string; readonly admit: false; readonly reason: "Evicted"; readonly message: string };

/** What a what-if replay adds to a step record (docs/replay-format.md, "what-if replay"). */
export type WhatIfRecord = {
  /** Pods (`namespace/name`) whose usage left the node's figures first in this step's sample. */
  readonly left: readonly string[];
  /** Active pods the recording no longer reports that this configuration kept. */
  readonly diverged: readonly string[];
  /** Pods arriving at this step (`addPods`) that this configuration's conditions refused. */
  readonly refusedOnArrival: readonly {
    readonly pod: string;
    readonly reason: string;
    readonly message: string;
  }[];
};

/** One record per step: what the eviction manager saw and decided in that run. */
export type ReplayStepRecord = {
  readonly type: "step";
  /** Time since the scenario's start, as a Go duration. */
  readonly at: string;
  /** Wall time of the step, RFC 3339. */
  readonly time: string;
  readonly observations: Readonly<Partial<Record<Signal, ObservationRecord>>>;
  readonly thresholdsMet: readonly ThresholdRef[];
  readonly conditions: readonly NodeCondition[];
  readonly actedOn: ThresholdRef | null;
  readonly reclaim: {
    readonly ran: readonly ReclaimFunction[];
    readonly sufficient: boolean;
    readonly errors?: Readonly<Partial<Record<ReclaimFunction, string>>>;
  } | null;
  readonly evictions: readonly EvictionRecord[];
  readonly refused: readonly {
    readonly pod: string;
    readonly reason: RefusalReason;
    readonly kind: EvictionKind;
  }[];
  /** The full eviction order computed at this step; absent when no ranking happened. */
  readonly ranking?: readonly string[];
  readonly admission: readonly AdmissionRecord[];
  /** Why the run ended where it did, in upstream's log wording. */
  readonly outcome: string;
  /** Present in a what-if replay only. */
  readonly whatIf?: WhatIfRecord;
};

/** Any record of a replay: the config record first, then one step record per step. */
export type ReplayRecord = ReplayConfigRecord | ReplayStepRecord;
