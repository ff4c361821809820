/**
 * Engine state, inputs and reports. The engine is `synchronize(config, state, input) → result`:
 * everything the kubelet's eviction manager keeps between runs is in `EngineState`, everything it
 * reads in a run is in `SyncInput`, and everything it decides is data in `SyncReport`.
 */
import type {
  EpochMs,
  FilesystemLayout,
  NodeCondition,
  NodeSummary,
  Pod,
  Signal,
  Threshold,
} from "../model.js";

/** One signal's observation: available and capacity (bytes or counts) and the stats time. */
export interface Observation {
  readonly available: bigint;
  readonly capacity: bigint;
  /** Undefined is Go's zero time (the stats carried no timestamp). */
  readonly time?: EpochMs;
}

export type Observations = ReadonlyMap<Signal, Observation>;

/** Node-level reclaim functions, in the order the kubelet runs them. */
export type ReclaimFunction = "containers" | "images";

export interface EngineState {
  /** Threshold id → when it was first seen met (cleared as soon as a run sees it unmet). */
  readonly thresholdsFirstObservedAt: ReadonlyMap<string, EpochMs>;
  /** Condition → last run that observed it (entries are never removed, as upstream). */
  readonly nodeConditionsLastObservedAt: ReadonlyMap<NodeCondition, EpochMs>;
  /** Conditions reported after the last run (transition period applied). */
  readonly nodeConditions: readonly NodeCondition[];
  /** Thresholds that had satisfied their grace period in the last run (min-reclaim hysteresis). */
  readonly thresholdsMet: readonly Threshold[];
  /** Observations of the last run, for the fresh-stats rule. */
  readonly lastObservations?: Observations;
  /** Set at the first synchronize: the layout and the threshold list with containerfs copies. */
  readonly layout?: FilesystemLayout;
  readonly thresholds?: readonly Threshold[];
  /** When memory threshold notifiers were last re-armed (refreshed at most every 10 s). */
  readonly notifiersUpdatedAt?: EpochMs;
}

export const INITIAL_STATE: EngineState = {
  thresholdsFirstObservedAt: new Map(),
  nodeConditionsLastObservedAt: new Map(),
  nodeConditions: [],
  thresholdsMet: [],
};

export interface SyncInput {
  readonly now: EpochMs;
  /** The summary read at the start of the run; undefined when reading it failed. */
  readonly summary: NodeSummary | undefined;
  /** Active pods in a deterministic order (ties in ranking keep this order). */
  readonly activePods: readonly Pod[];
  /** The node's filesystem layout; only the value at the first synchronize is used. */
  readonly layout: FilesystemLayout;
}

/** What node-level reclaim produced: the summary read afterwards and any function errors. */
export interface ReclaimOutcome {
  /** Undefined when the post-reclaim summary could not be read (counts as insufficient). */
  readonly summary: NodeSummary | undefined;
  readonly errors?: Partial<Record<ReclaimFunction, string>>;
}

export type EvictionKind = "pressure" | "localStorage";

export interface DisruptionCondition {
  readonly type: "DisruptionTarget";
  readonly status: "True";
  readonly reason: "TerminationByKubelet";
  readonly message: string;
}

/** A decision to evict one pod, with everything the kubelet writes for it. */
export interface Eviction {
  readonly pod: Pod;
  readonly kind: EvictionKind;
  /** `kubelet_evictions` label: the signal, or emptydirfs.limit / ephemeralpodfs.limit / ephemeralcontainerfs.limit. */
  readonly signal: string;
  /** The grace-period override the eviction manager requests. */
  readonly gracePeriodSeconds: number;
  readonly message: string;
  /** Event annotations; empty for pods without stats and for local-storage evictions. */
  readonly annotations: Readonly<Record<string, string>>;
  readonly condition?: DisruptionCondition;
}

export type RefusalReason = "critical";

export interface Refusal {
  readonly pod: Pod;
  readonly reason: RefusalReason;
  readonly kind: EvictionKind;
}

export interface ReclaimReport {
  readonly ran: readonly ReclaimFunction[];
  readonly sufficient: boolean;
  readonly errors?: Partial<Record<ReclaimFunction, string>>;
}

/** Everything one synchronize decided and saw; logs, events and metrics derive from it. */
export interface SyncReport {
  readonly now: EpochMs;
  /** False when the run did nothing (no thresholds and no local-storage isolation, or no stats). */
  readonly ran: boolean;
  readonly statsUnavailable: boolean;
  readonly observations: Observations;
  /** Thresholds met ignoring grace periods (including those kept met by minimum reclaim). */
  readonly thresholdsMet: readonly Threshold[];
  /** Met thresholds still inside their grace period. */
  readonly awaitingGrace: readonly { readonly threshold: Threshold; readonly since: EpochMs }[];
  /** Grace-satisfied thresholds dropped because their stats were not updated since the last run. */
  readonly staleStats: readonly Threshold[];
  readonly conditions: readonly NodeCondition[];
  readonly actedOn?: Threshold;
  readonly reclaim?: ReclaimReport;
  readonly evictions: readonly Eviction[];
  readonly refused: readonly Refusal[];
  /** The full eviction order computed in this run (absent when no ranking happened). */
  readonly ranking?: readonly Pod[];
  /**
   * `kubelet_eviction_stats_age_seconds` observations of this run: the age at `now`, and the time
   * the figures were sampled at (epoch ms), so that a daemon can take their age when it observes
   * it, as upstream does (`time.Since`): a run's `now` is taken before its read.
   */
  readonly statsAge: readonly { readonly signal: Signal; readonly seconds: number; readonly time: number }[];
  /** A node event (`EvictionThresholdMet`), emitted once per acting run. */
  readonly nodeEvent?: { readonly reason: "EvictionThresholdMet"; readonly message: string };
  /** True when memory threshold notifiers should be re-armed from this run's summary. */
  readonly updateNotifiers: boolean;
  /** Why the run ended where it did, in upstream's log wording. */
  readonly outcome: string;
}

/** A run either finishes, or stops to let the caller run node-level reclaim and then resumes. */
export type SyncResult =
  | { readonly kind: "done"; readonly state: EngineState; readonly report: SyncReport }
  | {
      readonly kind: "reclaim";
      readonly state: EngineState;
      readonly functions: readonly ReclaimFunction[];
      readonly resume: (outcome: ReclaimOutcome) => { state: EngineState; report: SyncReport };
    };
