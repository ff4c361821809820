/**
 * evictd as a library: the kubelet's node-pressure eviction manager as pure functions. Build the
 * eviction configuration from a KubeletConfiguration and kubelet flags, decode a Summary API
 * response and the node's pods, and ask `synchronize` what the kubelet would do; or replay a whole
 * scenario and read the records `evictd replay --output jsonl` prints.
 *
 * @example
 * ```js
 * import { buildEvictionConfig, decodePodList, decodeSummary, detectFilesystemLayout, formatIssue,
 *   INITIAL_STATE, IssueList, parseJsonExact, synchronize } from "evictd";
 *
 * const built = buildEvictionConfig({
 *   config: { kind: "KubeletConfiguration", apiVersion: "kubelet.config.k8s.io/v1beta1",
 *             evictionHard: { "memory.available": "500Mi" } },
 *   flags: ["--eviction-max-pod-grace-period=30"],
 * });
 * if (!built.ok) throw new Error(built.issues.map(formatIssue).join("\n"));
 * const now = Date.now();
 * const issues = new IssueList();
 * const summary = decodeSummary(parseJsonExact(summaryJsonText), "summary", now, issues);
 * const pods = decodePodList(podListObject, "pods", issues);
 * if (summary === undefined || issues.hasErrors) throw new Error(issues.errors.map(formatIssue).join("\n"));
 * const layout = detectFilesystemLayout(summary);
 * const result = synchronize(built.config, INITIAL_STATE, { now, summary, activePods: pods, layout });
 * if (result.kind === "done")
 *   for (const e of result.report.evictions) console.log(e.pod.key, e.signal, e.message);
 * ```
 *
 * Everything here is a re-export; see examples/library.mjs for a complete program.
 */

// --- The engine: one run of the eviction manager, as a pure function -------------------------
export {
  /** One run of the eviction manager: (config, state, input) → next state and a report of every decision. */
  synchronize,
} from "./core/engine/synchronize.js";
export {
  /** The state before the first run: nothing observed, no condition reported. */
  INITIAL_STATE,
} from "./core/engine/types.js";
export type {
  /** The DisruptionTarget condition the kubelet sets on a pod it evicts for node pressure. */
  DisruptionCondition,
  /** What the eviction manager keeps between runs; pass each result's `state` to the next run. */
  EngineState,
  /** A decision to evict one pod, with the message, annotations and grace the kubelet uses. */
  Eviction,
  /** `pressure` (a node threshold) or `localStorage` (a pod over its ephemeral-storage limits). */
  EvictionKind,
  /** One signal's observation: available and capacity, and the stats time. */
  Observation,
  /** Every signal observed in a run, by signal. */
  Observations,
  /** A node-level reclaim function (`containers`, `images`), in the order the kubelet runs them. */
  ReclaimFunction,
  /** What node-level reclaim produced, handed to `resume`: the summary read afterwards, errors. */
  ReclaimOutcome,
  /** Which reclaim functions ran in a run and whether they relieved the pressure. */
  ReclaimReport,
  /** A ranked pod the engine would not evict (a critical pod), and why. */
  Refusal,
  /** Why a ranked pod was skipped: `critical`. */
  RefusalReason,
  /** What one run reads: the time, the summary, the active pods and the filesystem layout. */
  SyncInput,
  /** Everything one run saw and decided: observations, thresholds, conditions, evictions. */
  SyncReport,
  /** A finished run, or a run stopped for node-level reclaim with a `resume` continuation. */
  SyncResult,
} from "./core/engine/types.js";
export {
  /** The grace period a pod actually gets once the kubelet's pod worker applies an override. */
  effectiveGracePeriod,
} from "./core/engine/grace-period.js";

// --- Configuration: a KubeletConfiguration object and kubelet flags → EvictionConfig ----------
export {
  /** The eviction configuration the kubelet would run with, or every reason it would not start. */
  buildEvictionConfig,
} from "./core/config/build-eviction-config.js";
export type {
  /** A decoded KubeletConfiguration (optional) and kubelet command-line flags. */
  EvictionConfigInput,
  /** `{ ok: true, config, warnings }`, or `{ ok: false, issues }` with every error and warning. */
  EvictionConfigResult,
} from "./core/config/build-eviction-config.js";
export type {
  /** The eviction settings the engine runs with (the kubelet eviction manager's Config). */
  EvictionConfig,
  /** `single` disk, `dedicated` image filesystem, or `split` image and container filesystems. */
  FilesystemLayout,
  /** `MemoryPressure`, `DiskPressure` or `PIDPressure`. */
  NodeCondition,
  /** An eviction signal as the kubelet spells it (`memory.available`, `nodefs.inodesFree`, ...). */
  Signal,
  /** One eviction threshold: signal, value, grace period, minimum reclaim. */
  Threshold,
  /** Where a threshold came from: `hard`, `soft`, or derived (`allocatable`, `containerfs`). */
  ThresholdOrigin,
  /** A threshold value: a quantity, or a percentage of capacity. */
  ThresholdValue,
} from "./core/model.js";

// --- Problems in the input: collected, never thrown -------------------------------------------
export {
  /** The accumulator decoders report problems into (`decodeSummary`, `decodePod`, ...). */
  IssueList,
  /** One issue as one line: `path: message`, with file:line:column when known. */
  formatIssue,
} from "./core/issues.js";
export type {
  /** One problem in the input: severity, path into the input, message and a short code. */
  Issue,
  /** `error` (the input cannot be used) or `warning`. */
  IssueSeverity,
} from "./core/issues.js";
export {
  /** Thrown by `replay` when a scenario cannot be used; `issues` lists every problem. */
  InputError,
} from "./errors.js";

// --- Summary API responses (stats/v1alpha1) -----------------------------------------------------
export {
  /** A Summary API object → `NodeSummary`, with exact uint64 counters, or every problem reported. */
  decodeSummary,
} from "./core/summary/decode-summary.js";
export type {
  /** Options of `decodeSummary`. */
  DecodeSummaryOptions,
} from "./core/summary/decode-summary.js";
export {
  /** The filesystem layout a summary shows (single, dedicated imagefs, split), as replay derives it. */
  detectFilesystemLayout,
} from "./core/summary/detect-layout.js";
export {
  /** `JSON.parse` that keeps integers above 2^53 exact (Summary counters are uint64). */
  parseJsonExact,
  /** Reads a number from `parseJsonExact` output as a bigint (exact however large). */
  exactInteger,
  /** The syntax error `parseJsonExact` throws, with line and column. */
  JsonSyntaxError,
} from "./formats/json/parse-json-exact.js";
export type {
  /** A container's stats in a pod's summary. */
  ContainerStats,
  /** CPU stats as decoded: the pressure (PSI) only. */
  CpuStats,
  /** A point in time in epoch milliseconds (fractions carry microseconds). */
  EpochMs,
  /** A filesystem's stats: bytes and inodes, available, capacity, used. */
  FsStats,
  /** IO stats: the pressure (PSI) and its time. */
  IoStats,
  /** Memory stats: available, working set, usage, pressure. */
  MemoryStats,
  /** The node's part of a summary: memory, filesystems, runtime filesystems, process limits. */
  NodeStats,
  /** A decoded Summary API response (counters are bigint; a missing field means "not reported"). */
  NodeSummary,
  /** A pod's name, namespace and UID as a summary names it. */
  PodReference,
  /** A pod's stats in a summary: memory, containers, volumes, ephemeral storage, processes. */
  PodStats,
  /** One line of a pressure file: the cumulative stall (kernel microseconds) and its averages (%). */
  PsiData,
  /** Pressure stall information of one resource: `some` and `full`. No decision reads it. */
  PsiStats,
  /** The node's process limits: maximum PIDs and processes running. */
  RlimitStats,
  /** Swap stats: available and used bytes. */
  SwapStats,
  /** A system container's stats (`pods`, the node allocatable cgroup, among others). */
  SystemContainerStats,
  /** A volume's stats in a pod's summary. */
  VolumeStats,
} from "./core/model.js";

// --- Pods (v1 Pod, PodList) ---------------------------------------------------------------------
export {
  /** One v1 Pod object → `Pod` with the API server's defaults, or undefined with every problem reported. */
  decodePod,
  /** One Pod, a list of Pods, or a v1 PodList → `Pod[]`; pods with errors are left out and reported. */
  decodePodList,
} from "./core/pod/decode-pod.js";
export {
  /** A pod's QoS class (Guaranteed, Burstable, BestEffort), as the kubelet computes it. */
  podQos,
} from "./core/pod/qos.js";
export {
  /** Whether the kubelet treats a pod as critical (never evicted for node pressure). */
  isCriticalPod,
} from "./core/pod/critical.js";
export type {
  /** A container of a decoded pod: name and resources. */
  Container,
  /** A decoded v1 Pod: what the eviction manager reads of it. */
  Pod,
  /** Where a pod's in-place resize stands, as its status reports it. */
  PodResize,
  /** `Guaranteed`, `Burstable` or `BestEffort`. */
  QosClass,
  /** `Proposed`, `Pending`, `Deferred`, `Infeasible` or `InProgress`. */
  ResizeState,
  /** Resource name → quantity. */
  ResourceList,
  /** Requests and limits. */
  ResourceRequirements,
  /** A pod's toleration of a node taint. */
  Toleration,
  /** A pod volume, by the kinds the eviction code distinguishes. */
  Volume,
  /** The volume source kinds the eviction code distinguishes. */
  VolumeKind,
} from "./core/model.js";
export {
  /** Renders a quantity in the API server's canonical form (`"512Mi"`). */
  formatQuantity,
  /** Parses a Kubernetes quantity (`"1.5Gi"`, `"100m"`) exactly as the API machinery does. */
  parseQuantity,
  /** What `parseQuantity` throws, with upstream's message. */
  QuantityError,
} from "./core/quantity.js";
export type {
  /** An exact Kubernetes quantity. */
  Quantity,
  /** `BinarySI`, `DecimalSI` or `DecimalExponent`. */
  QuantityFormat,
} from "./core/quantity.js";

// --- Admission: would a pod be accepted under the node's conditions -----------------------------
export {
  /** Whether the eviction manager admits a pod under the node conditions reported. */
  admitPod,
  /** The status a rejected pod gets: phase Failed, reason Evicted. */
  rejectedPodStatus,
} from "./core/admission.js";
export type {
  /** `{ admit: true }`, or `{ admit: false, reason, message }`. */
  AdmitResult,
  /** The rejecting half of `AdmitResult`. */
  RejectedAdmitResult,
  /** What the kubelet writes into a rejected pod's status. */
  RejectedPodStatus,
} from "./core/admission.js";

// --- Ranking: the eviction order and why each pod sits where it does ---------------------------
export {
  /** The pods in eviction order for a signal, as the kubelet ranks them. */
  rankPods,
} from "./core/rank/rank-pods.js";
export {
  /** The eviction order for a signal, each pod with its place and the reason, in words. */
  explainRanking,
  /** "Who goes next": the order for the signal a run acted on (else met, else memory), explained. */
  currentRanking,
} from "./core/rank/explain-ranking.js";
export type {
  /** A pod's place in the eviction order and why it is there. */
  RankExplanation,
} from "./core/rank/explain-ranking.js";
export {
  /** Finds each pod's stats in a summary, by UID and then by namespace/name. */
  podStatsLookup,
} from "./core/rank/pod-stats-lookup.js";
export type {
  /** A pod → its stats in a summary, or undefined. */
  PodStatsLookup,
} from "./core/rank/pod-stats-lookup.js";

// --- Replay: a whole scenario in memory → the records `evictd replay --output jsonl` prints ----
export {
  /** Replays a scenario held in memory and yields its config record, then one record per step. */
  replay,
} from "./library/replay.js";
export type {
  /** Options of `replay`: where file references resolve, and a warning callback. */
  ReplayOptions,
} from "./library/replay.js";
export type {
  /** A replay scenario as an object: start, config, flags, node, pods, steps (docs/replay-format.md). */
  ScenarioDocument,
  /** One step of a scenario: its time, summary, pod changes, failures and admission requests. */
  ScenarioDocumentStep,
} from "./library/scenario-document.js";
export type {
  /** One admission request's outcome in a step record. */
  AdmissionRecord,
  /** One eviction in a step record. */
  EvictionRecord,
  /** One signal's observation in a step record. */
  ObservationRecord,
  /** One pod of the scenario in the config record. */
  PodRecord,
  /** The first record of a replay: the effective configuration and every pod. */
  ReplayConfigRecord,
  /** A config record or a step record. */
  ReplayRecord,
  /** One step's record: observations, thresholds met, conditions, evictions, ranking, admission. */
  ReplayStepRecord,
  /** A threshold in the config record. */
  ThresholdRecord,
  /** A threshold as a step record names it. */
  ThresholdRef,
} from "./app/replay/record-types.js";
