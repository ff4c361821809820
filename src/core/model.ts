/**
 * Readonly domain types shared by the whole engine: the decoded Summary API object, the normalised
 * Pod, and eviction thresholds. Decoders (summary/, pod/, config/) produce these; nothing in the
 * engine mutates them.
 */
import type { Quantity } from "./quantity.js";

/** Eviction signals, exactly as the kubelet spells them. */
export type Signal =
  | "memory.available"
  | "allocatableMemory.available"
  | "nodefs.available"
  | "nodefs.inodesFree"
  | "imagefs.available"
  | "imagefs.inodesFree"
  | "containerfs.available"
  | "containerfs.inodesFree"
  | "pid.available";

/** Node conditions the eviction manager reports, in the order the replay output lists them. */
export type NodeCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";

/** Resource names as they appear in messages, events and the starved_resource annotation. */
export type StarvedResource = "memory" | "ephemeral-storage" | "inodes" | "pids";

/** Filesystem layouts: (A) single, (B) dedicated imagefs, (C) split image/container fs. */
export type FilesystemLayout = "single" | "dedicated" | "split";

/** Time instants are epoch milliseconds (fractions allowed, microsecond precision). */
export type EpochMs = number;

// ---------------------------------------------------------------------------------------------
// Summary API (stats/v1alpha1), decoded. Counters are bigint (uint64 upstream). A missing field is
// `undefined` ("not reported"). `time` undefined means Go's zero time. The cpu, io and swap blocks
// and every `psi` are decoded for people (reports) only: the eviction manager reads none of them.

export interface MemoryStats {
  readonly time?: EpochMs;
  readonly availableBytes?: bigint;
  readonly workingSetBytes?: bigint;
  readonly usageBytes?: bigint;
  /** Memory pressure (KubeletPSI): data only, the eviction manager never reads it. */
  readonly psi?: PsiStats;
}

/**
 * One line of a cgroup's pressure file (`some` or `full`). `total` is the cumulative stall time as
 * the kernel counts it, in microseconds (the API documents nanoseconds, but the kubelet copies the
 * kernel's figure unchanged); the averages are percentages of wall time, 0 to 100.
 */
export interface PsiData {
  readonly total?: bigint;
  readonly avg10?: number;
  readonly avg60?: number;
  readonly avg300?: number;
}

/** Pressure stall information of one resource: some tasks stalled, or all of them (`full`). */
export interface PsiStats {
  readonly some?: PsiData;
  readonly full?: PsiData;
}

/** CPU stats as far as evictd decodes them: the pressure only (nothing reads CPU usage). */
export interface CpuStats {
  readonly psi?: PsiStats;
}

/** IO stats: the block holds nothing but the pressure and its time. */
export interface IoStats {
  readonly time?: EpochMs;
  readonly psi?: PsiStats;
}

export interface SwapStats {
  readonly time?: EpochMs;
  readonly swapAvailableBytes?: bigint;
  readonly swapUsageBytes?: bigint;
}

export interface FsStats {
  readonly time?: EpochMs;
  readonly availableBytes?: bigint;
  readonly capacityBytes?: bigint;
  readonly usedBytes?: bigint;
  readonly inodesFree?: bigint;
  readonly inodes?: bigint;
  readonly inodesUsed?: bigint;
}

export interface RlimitStats {
  readonly time?: EpochMs;
  readonly maxpid?: bigint;
  readonly curproc?: bigint;
}

export interface SystemContainerStats {
  readonly name: string;
  readonly memory?: MemoryStats;
  readonly cpu?: CpuStats;
  readonly io?: IoStats;
  readonly swap?: SwapStats;
}

export interface NodeStats {
  readonly nodeName?: string;
  readonly memory?: MemoryStats;
  readonly systemContainers: readonly SystemContainerStats[];
  readonly fs?: FsStats;
  readonly runtime?: { readonly imageFs?: FsStats; readonly containerFs?: FsStats };
  readonly rlimit?: RlimitStats;
  readonly cpu?: CpuStats;
  readonly io?: IoStats;
  readonly swap?: SwapStats;
}

export interface ContainerStats {
  readonly name: string;
  readonly memory?: MemoryStats;
  readonly rootfs?: FsStats;
  readonly logs?: FsStats;
  readonly cpu?: CpuStats;
  readonly io?: IoStats;
  readonly swap?: SwapStats;
}

export interface VolumeStats {
  readonly name: string;
  readonly usedBytes?: bigint;
  readonly inodesUsed?: bigint;
  readonly pvcRef?: { readonly name: string; readonly namespace: string };
}

export interface PodReference {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

export interface PodStats {
  readonly podRef: PodReference;
  readonly memory?: MemoryStats;
  readonly containers: readonly ContainerStats[];
  readonly volumes: readonly VolumeStats[];
  readonly ephemeralStorage?: FsStats;
  readonly processCount?: bigint;
  readonly cpu?: CpuStats | undefined;
  readonly io?: IoStats | undefined;
  readonly swap?: SwapStats | undefined;
}

export interface NodeSummary {
  readonly node: NodeStats;
  readonly pods: readonly PodStats[];
  /**
   * Optional fast path a decoder may provide: one pod's stats by UID, else by `namespace/name`
   * (the first match, as a scan of `pods` would find), without building every pod's stats.
   */
  readonly findPod?: (uid: string, key: string) => PodStats | undefined;
  /**
   * Optional fast path: whether the pod's own entry is there, without building any pod's stats: one
   * with its UID, else one with its `namespace/name` that carries no UID (or, for a pod given
   * without a UID, whose UID is its `namespace/name`, any entry of that name).
   */
  readonly hasPod?: (uid: string, key: string) => boolean;
}

// ---------------------------------------------------------------------------------------------
// Pods, normalised as the API server stores them (defaults applied by pod/decode-pod.ts).

/** Resource name → quantity (`memory`, `cpu`, `ephemeral-storage`, `hugepages-2Mi`, ...). */
export type ResourceList = Readonly<Record<string, Quantity>>;

export interface ResourceRequirements {
  readonly requests: ResourceList;
  readonly limits: ResourceList;
}

export interface Container {
  readonly name: string;
  /**
   * What the kubelet runs the container with: requests are the allocated ones when the Pod object
   * reports an allocation (`status.containerStatuses[].allocatedResources`, in-place resize),
   * else the spec's (API defaults applied); limits are always the spec's (the API shows no
   * allocated limits). Everything that ranks, messages or admits reads these.
   */
  readonly resources: ResourceRequirements;
  /**
   * The spec's requests, kept only when they differ from the allocated `resources.requests` (a
   * resize not yet allocated: pending, deferred or infeasible).
   */
  readonly desiredRequests?: ResourceList;
  /** Only init containers carry one; `Always` marks a sidecar (restartable init container). */
  readonly restartPolicy?: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly { readonly name: string; readonly value?: string }[];
}

/** The volume source kinds the eviction code distinguishes; everything else is "other". */
export type VolumeKind =
  | "emptyDir"
  | "hostPath"
  | "gitRepo"
  | "configMap"
  | "secret"
  | "projected"
  | "downwardAPI"
  | "persistentVolumeClaim"
  | "other";

export interface Volume {
  readonly name: string;
  readonly kind: VolumeKind;
  /** emptyDir only: `Memory` for tmpfs-backed, "" for the node's disk. */
  readonly medium?: string;
  /** emptyDir only. */
  readonly sizeLimit?: Quantity;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

export type QosClass = "Guaranteed" | "Burstable" | "BestEffort";

/**
 * An in-place resize's state, in the vocabulary of the deprecated `status.resize` field:
 * `Deferred` and `Infeasible` are the `PodResizePending` condition's reasons (`Pending` when it
 * gives another or none), `InProgress` the `PodResizeInProgress` condition, `Proposed` only ever
 * read from `status.resize` (clusters before 1.33).
 */
export type ResizeState = "Proposed" | "Pending" | "Deferred" | "Infeasible" | "InProgress";

export interface PodResize {
  readonly state: ResizeState;
  /** The condition's message (why it is deferred or infeasible, or the error of one in progress). */
  readonly message?: string;
}

export interface Pod {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  /** `namespace/name`, the identifier the replay output uses. */
  readonly key: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly creationTimestamp?: EpochMs;
  readonly generation?: number;
  /** `spec.priority` after API defaulting (0 when neither it nor a built-in class gives one). */
  readonly priority: number;
  /** Whether spec.priority (or a built-in class) set it; critical-pod detection needs "set". */
  readonly prioritySet: boolean;
  readonly priorityClassName?: string;
  readonly terminationGracePeriodSeconds: number;
  readonly containers: readonly Container[];
  readonly initContainers: readonly Container[];
  /**
   * Pod-level resources (`spec.resources`, PodLevelResources); its requests are the allocated ones
   * (`status.allocatedResources`) when the Pod object reports them, as for containers.
   */
  readonly podResources?: ResourceRequirements;
  /** The spec's pod-level requests, kept only when they differ from the allocated ones. */
  readonly desiredPodRequests?: ResourceList;
  /** Where an in-place resize stands, when the Pod's status says (conditions or `status.resize`). */
  readonly resize?: PodResize;
  readonly overhead?: ResourceList;
  readonly volumes: readonly Volume[];
  readonly tolerations: readonly Toleration[];
  readonly phase?: string;
  /** `status.qosClass` when the object already carries one (GetPodQOS returns it as is). */
  readonly statusQosClass?: QosClass;
}

// ---------------------------------------------------------------------------------------------
// Thresholds (output of ParseThresholdConfig).

export type ThresholdValue =
  | { readonly kind: "quantity"; readonly quantity: Quantity }
  /** `percentage` is the float32 fraction (10% → Math.fround(Math.fround(10) / 100)). */
  | { readonly kind: "percentage"; readonly percentage: number; readonly text: string };

export type ThresholdOrigin = "hard" | "soft" | "allocatable" | "containerfs";

export interface Threshold {
  /** Stable identity (configuration slot), e.g. `hard/memory.available`. State maps key on it. */
  readonly id: string;
  readonly signal: Signal;
  /** `LessThan`, or "" for an inert derived copy (upstream's empty containerfs threshold). */
  readonly operator: "LessThan" | "";
  /** Absent only for inert derived copies. */
  readonly value?: ThresholdValue;
  /** Grace period in milliseconds; 0 means hard. */
  readonly gracePeriodMs: number;
  readonly minReclaim?: ThresholdValue;
  readonly origin: ThresholdOrigin;
  /** For derived thresholds (allocatable and containerfs copies): the signal copied from. */
  readonly derivedFrom?: Signal;
}

/** The eviction settings the engine runs with (kubelet's eviction manager Config). */
export interface EvictionConfig {
  readonly thresholds: readonly Threshold[];
  readonly maxPodGracePeriodSeconds: number;
  readonly pressureTransitionPeriodMs: number;
  readonly localStorageCapacityIsolation: boolean;
  readonly kernelMemcgNotification: boolean;
  readonly enforceNodeAllocatable: readonly string[];
}
