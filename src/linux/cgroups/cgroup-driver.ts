/** The cgroup port: lay out a node's pods as the kubelet does (cgroupfs driver), limit them, read them, tear down. */
import type { QosClass } from "../../core/model.js";

/** Which cgroup interface a driver speaks. */
export type CgroupApi = "v1" | "v2";

/**
 * Limits written when a cgroup is created. Absent means unlimited (v1 `-1`, v2 `max`), which is
 * also what the kernel gives a new cgroup.
 */
export interface CgroupLimits {
  /** Hard memory limit in bytes (v1 `memory.limit_in_bytes`, v2 `memory.max`); the kernel rounds it down to a page. */
  readonly memoryLimitBytes?: bigint;
  /** Maximum number of tasks (processes and threads) in the subtree (`pids.max`). */
  readonly pidsMax?: number;
}

/** What {@link CgroupDriver.createNode} builds. */
export interface NodeSpec extends CgroupLimits {
  /** Directory name of the node under the daemon's own cgroup: `[A-Za-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  /**
   * Limits of `<node>/pods`, the allocatable cgroup. Upstream sets its memory limit to
   * capacity − kube-reserved − system-reserved (hard eviction thresholds are not subtracted).
   */
  readonly pods?: CgroupLimits;
  /**
   * Re-attach to the node subtree an earlier daemon left, when it exists, instead of failing:
   * its pods' processes keep running and are adopted (the limits written then stay in force).
   */
  readonly adopt?: boolean;
  /**
   * One manager per node: hold an exclusive flock(2) on the node's directory for as long as this
   * driver manages it, taken before anything is adopted or written, and fail with `cgroup-locked`
   * (naming the holder) when another process holds it. The kernel drops the lock with its holder.
   */
  readonly exclusive?: boolean;
}

/** Where a cgroup sits in the kubelet's layout. */
export type CgroupKind = "node" | "pods" | "qos" | "pod" | "container";

/**
 * A cgroup of the node subtree. `path` is relative to the daemon's own cgroup, `/`-separated
 * (`node-a/pods/burstable/pod1234/app`). Drivers re-derive directories from `path` and refuse
 * any path outside the current node, so a handle cannot point anywhere else.
 */
export interface CgroupRef {
  readonly kind: CgroupKind;
  readonly path: string;
}

/** A pod cgroup: `pods/pod<uid>` (Guaranteed), `pods/burstable/pod<uid>` or `pods/besteffort/pod<uid>`. */
export interface PodCgroup extends CgroupRef {
  readonly kind: "pod";
  readonly uid: string;
  readonly qos: QosClass;
}

/** A container cgroup, a leaf: `<pod>/<container name>`. Only leaves hold processes. */
export interface ContainerCgroup extends CgroupRef {
  readonly kind: "container";
  readonly name: string;
  readonly pod: PodCgroup;
}

/** The node subtree as created, mirroring the kubelet's `kubepods` hierarchy (here named `pods`). */
export interface NodeCgroups {
  readonly name: string;
  /** `<own>/<name>`: the node; its memory limit plays the machine's capacity. */
  readonly node: CgroupRef;
  /** `<name>/pods`: allocatable; Guaranteed pods live directly below it. */
  readonly pods: CgroupRef;
  /** `<name>/pods/burstable`. */
  readonly burstable: CgroupRef;
  /** `<name>/pods/besteffort`. */
  readonly besteffort: CgroupRef;
  /** Set by {@link CgroupDriver.createNode} when it adopted a node an earlier run left, rather than creating it. */
  readonly adopted?: boolean;
}

/** Absolute directories of one cgroup, per controller (the same directory twice on v2). */
export interface CgroupDirectories {
  readonly memory: string;
  /** Undefined when the pids controller is not available. */
  readonly pids: string | undefined;
  /**
   * The cgroup2 directory with the PSI files (`memory.pressure`): the same directory on v2; on a
   * hybrid host, the v1 driver's mirror of the node in the unified hierarchy; otherwise undefined.
   */
  readonly unified: string | undefined;
}

/** One memory reading, as cAdvisor computes it for the kubelet's summary. */
export interface MemoryReading {
  /** v1 `memory.usage_in_bytes`, v2 `memory.current`: everything charged, page cache included. */
  readonly usageBytes: bigint;
  /** v1 `total_inactive_file`, v2 `inactive_file` from `memory.stat` (both hierarchical). */
  readonly inactiveFileBytes: bigint;
  /** usage − inactive_file, clamped at 0: the figure eviction compares against thresholds. */
  readonly workingSetBytes: bigint;
  /** The hard limit, or undefined when unlimited. */
  readonly limitBytes: bigint | undefined;
  /** Times usage hit the limit: v1 `memory.failcnt`, v2 `max` in `memory.events`. */
  readonly limitHits: number;
  /** Kernel OOM kills of processes in this subtree (see {@link CgroupDriver.oomKills}). */
  readonly oomKills: number;
}

/** One pids reading. */
export interface PidsReading {
  /** `pids.current`: tasks (processes and threads) in the subtree. */
  readonly current: number;
  /** `pids.max`, or undefined when `max`. */
  readonly max: number | undefined;
  /** Forks refused because of this cgroup's limit: `max` in `pids.events`. */
  readonly limitHits: number;
}

/** Options of {@link CgroupDriver.procs}. */
export interface ProcsOptions {
  /** Include every descendant cgroup (default false: this cgroup's own `cgroup.procs`). */
  readonly recursive?: boolean;
}

/** What {@link CgroupDriver.destroyNode} did. */
export interface DestroyReport {
  /** Processes that were still running and got SIGKILL. */
  readonly killed: readonly number[];
  /** Directories removed, deepest first. */
  readonly removed: readonly string[];
}

/**
 * Creates and manages one node subtree under the daemon's own cgroup, in the kubelet's cgroupfs
 * layout:
 *
 * ```
 * <own>/<node>/                        node capacity (memory limit)
 * <own>/<node>/pods/                   allocatable (capacity − reservations)
 * <own>/<node>/pods/pod<uid>/<c>/      Guaranteed pods
 * <own>/<node>/pods/burstable/pod<uid>/<c>/
 * <own>/<node>/pods/besteffort/pod<uid>/<c>/
 * ```
 *
 * Nothing is ever created, written or removed outside `<own>/<node>` (v2 adds one leaf,
 * `<own>/evictd-daemon`, for the daemon itself; see the v2 driver). Every failure is an
 * `AdapterError` whose message names the file and the reason.
 */
export interface CgroupDriver {
  /** The interface spoken: v1 (one hierarchy per controller) or v2 (unified). */
  readonly api: CgroupApi;
  /** Whether pids limits and readings are available (the pids controller is mounted / delegated). */
  readonly hasPids: boolean;
  /** The node created by {@link createNode}, or undefined before it or after {@link destroyNode}. */
  readonly current: NodeCgroups | undefined;

  /**
   * Creates `<own>/<name>`, `pods`, `pods/burstable`, `pods/besteffort` and writes the limits.
   * Fails with `cgroup-exists` when `<own>/<name>` is already there (a previous run that was not
   * torn down: pass its name to {@link destroyNode}), with `cgroup-busy` when a node is already
   * managed by this driver, and with `cgroup-locked` when {@link NodeSpec.exclusive} and another
   * process manages the node. On failure, whatever was created is removed again.
   */
  createNode(spec: NodeSpec): Promise<NodeCgroups>;

  /**
   * Creates the pod cgroup `pod<uid>` in the tier of its QoS class. `limits` is the pod-level
   * limit upstream writes when every container has one (the sum of the containers' limits).
   */
  createPod(uid: string, qos: QosClass, limits?: CgroupLimits): Promise<PodCgroup>;

  /** Creates the leaf `<pod>/<name>` for one container and writes its limits. */
  createContainer(pod: PodCgroup, name: string, limits?: CgroupLimits): Promise<ContainerCgroup>;

  /**
   * Moves a running process into a container cgroup (every controller's `cgroup.procs`). Memory
   * already charged stays with the old cgroup (v1 without `move_charge_at_immigrate`, and always
   * on v2), which is why new processes should be started with `spawnInCgroups` and
   * {@link procFiles} instead. Refuses the daemon's own pid.
   */
  addProcess(cgroup: ContainerCgroup, pid: number): Promise<void>;

  /** The `cgroup.procs` files a new process must write its pid to, one per hierarchy (for `spawnInCgroups`). */
  procFiles(cgroup: ContainerCgroup): string[];

  /** Absolute directories of a cgroup, per controller. */
  directories(cgroup: CgroupRef): CgroupDirectories;

  /** Process ids in a cgroup (or its whole subtree), ascending, without duplicates. */
  procs(cgroup: CgroupRef, options?: ProcsOptions): Promise<number[]>;

  /** Reads usage, working set (usage − inactive_file, clamped at 0), limit and event counters. */
  memory(cgroup: CgroupRef): Promise<MemoryReading>;

  /** Reads the task count and limit. Fails with `cgroup-controller-missing` when {@link hasPids} is false. */
  pids(cgroup: CgroupRef): Promise<PidsReading>;

  /**
   * Kernel OOM kills of processes in this subtree. v2: `oom_kill` in `memory.events` (the kernel
   * propagates it to ancestors). v1: `oom_kill` in `memory.oom_control` counts only the victim's own
   * cgroup, so the driver sums it over the subtree to give the same meaning.
   */
  oomKills(cgroup: CgroupRef): Promise<number>;

  /**
   * Removes a cgroup and its descendants, deepest first. Refuses (`cgroup-busy`, listing the pids)
   * while any process remains in the subtree. Removing the node itself ends the driver's node.
   */
  remove(cgroup: CgroupRef): Promise<void>;

  /**
   * Tears the node down for shutdown and tests: SIGKILLs every process left in the subtree (and
   * any that joins meanwhile), waits until the kernel reports it empty, then removes every
   * directory deepest first. Exits take as long as the machine needs: `timeoutMs` (default 5000)
   * is how long the wait goes on with no process nearer its end (none left, lost a thread or used
   * CPU), or with processes still joining after the first SIGKILL, before it fails with
   * `cgroup-not-empty` naming each process and its threads' states. Without a node this is a
   * no-op; `name` tears down a leftover `<own>/<name>` from an earlier run instead, and refuses
   * (`cgroup-locked`) one that a live process manages exclusively.
   */
  destroyNode(options?: { readonly name?: string; readonly timeoutMs?: number }): Promise<DestroyReport>;

  /**
   * Stops managing the node and leaves it as it is (processes running, directories in place), its
   * {@link NodeSpec.exclusive} lock released: what a daemon stopping without teardown does.
   */
  release(): void;
}
