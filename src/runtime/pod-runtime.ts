/**
 * The process pod runtime of `evictd run`: runs each Pod manifest's containers as host processes in
 * cgroups laid out as the kubelet lays out pods, restarts them per restartPolicy with the kubelet's
 * back-off, kills pods (SIGTERM, SIGKILL after the grace period), persists every pod's status, and
 * collects dead containers. It observes and acts; the pure engine decides.
 */
import { mkdir, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { ClockPort, KillResult, LoggerPort, PodsPort } from "../app/ports.js";
import type { PodStatusView } from "../app/node-view/snapshot.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { podQos } from "../core/pod/qos.js";
import { AdapterError } from "../errors.js";
import type { CgroupDriver, ContainerCgroup, PodCgroup } from "../linux/cgroups/cgroup-driver.js";
import { containerLayout } from "../linux/cgroups/cgroup-layout.js";
import type { ActivePodInfo } from "../linux/node-stats/active-pod-info.js";
import { collectDeadContainers, type GcReport } from "./container-gc.js";
import { ContainerSupervisor, UNKNOWN_EXIT } from "./container-supervisor.js";
import { setUpVolumes, systemMounter, tearDownVolumes, type Mounter } from "./emptydir-volumes.js";
import { computePodActions } from "./pod-actions.js";
import { attachCgroups, ensurePodCgroup } from "./pod-cgroups.js";
import { containerMemoryLimitBytes } from "./pod-memory-limit.js";
import { podMemoryLimitBytes } from "./pod-memory-limit.js";
import type { PodPaths } from "./pod-paths.js";
import {
  computePhase,
  fromPersisted,
  newPodRecord,
  toPersisted,
  toStatusView,
  upsertConditions,
  type GivenPodStatus,
  type PendingKill,
  type PodRecord,
  type StuckProcess,
} from "./pod-record.js";
import { PodProcesses, type PodSignalTarget } from "./pod-processes.js";
import { encodeStatus, readStatusFiles, type StatusFileError } from "./pod-status-file.js";
import { writeFileAtomic } from "../formats/write-file-atomic.js";
import type { FinalStatus, FinalStatusJournal, JournalRecord } from "./final-status-journal.js";
import { readProcStat } from "../linux/procfs.js";
import { KUBELET_BACKOFF, type BackoffPolicy } from "./restart-backoff.js";
import { statsTarget } from "./stats-targets.js";
import type { RunnablePod } from "./runnable-pod.js";

export type { GcReport } from "./container-gc.js";
export type { GivenPodStatus, StuckProcess } from "./pod-record.js";

export interface ProcessPodRuntimeOptions {
  /** The cgroup driver with the node already created, or undefined to run without cgroups. */
  readonly cgroups: CgroupDriver | undefined;
  readonly node: NodeSpec;
  readonly clock: ClockPort;
  readonly logger: LoggerPort;
  /** Restart back-off (kubelet: 10 s doubling to 5 min); tests shorten it. */
  readonly backoff?: BackoffPolicy;
  /** How often an adopted process (not a child of this daemon) is checked for exit (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /** How long to wait after SIGKILL before reporting processes as stuck (default 2000 ms). */
  readonly killTimeoutMs?: number;
  readonly mounter?: Mounter;
  /** Whether tmpfs can be mounted (default: running as root). */
  readonly canMount?: boolean;
  /**
   * Takes in kills another thread has sent SIGTERM for (the daemon's loop thread signals a pod's
   * cgroups itself, then tells this runtime through {@link killSignalled}). Called, synchronously,
   * before every decision such a kill changes (a container's exit, a restart): the pod's processes
   * may exit before the message reaches this thread's event loop, and a pod being evicted must
   * never be restarted.
   */
  readonly takeInKills?: () => void;
  /** Called when the active pods, or what describes them to the stats collector, may have changed. */
  readonly onPodsChanged?: () => void;
  /** Called for each container the kernel OOM-killed (after its exit is recorded and logged). */
  readonly onOomKill?: (kill: OomKill) => void;
  /**
   * The final-status journal (final-status-journal.ts): every pod that ends is recorded there
   * before anything can undo it, and at start the records found there win over status files that
   * a full filesystem kept from being rewritten. Without it, status files alone are the record.
   */
  readonly journal?: {
    readonly writer: FinalStatusJournal;
    /** The latest record of each UID, as the journal was found at start. */
    readonly found: ReadonlyMap<string, JournalRecord>;
  };
}

/** A kernel OOM kill of a container's main process. */
export interface OomKill {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The container's own memory limit; undefined when it has none (the pods' or the node's limit was hit). */
  readonly limitBytes: bigint | undefined;
}

/** The processes of a pod, per container (for /proc measurement without cgroups). */
export interface ContainerProcesses {
  readonly container: string;
  readonly pids: readonly number[];
}

/**
 * Whether the pod has finished (Succeeded or Failed: completed, evicted, rejected) and no kill is
 * under way: nothing of it runs again, and its status is what it ended with.
 */
function hasFinished(record: PodRecord): boolean {
  return record.final && !record.terminating;
}

/** Bounded wait for the exit reports of our own children once their processes are gone. */
const EXIT_REPORT_WAIT_MS = 1000;
/** How often a status write that failed is tried again. */
const STATUS_RETRY_MS = 1000;

/** Runs pods as processes; see the module comment. */
export class ProcessPodRuntime implements PodsPort {
  /** What this runtime can and cannot do here, one sentence each (for /status). */
  readonly capabilities: readonly string[];
  readonly #cgroups: CgroupDriver | undefined;
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  readonly #killTimeoutMs: number;
  readonly #mounter: Mounter;
  readonly #canMount: boolean;
  readonly #stateDir: string;
  readonly #processes: PodProcesses;
  readonly #supervisor: ContainerSupervisor;
  readonly #pods = new Map<string, PodRecord>();
  /** The last stats description of each pod in cgroups, with what it was built from. */
  readonly #statsTargets = new WeakMap<
    PodRecord,
    {
      readonly pod: PodCgroup;
      readonly startTime: number | undefined;
      readonly containers: readonly {
        readonly cgroup: ContainerCgroup | undefined;
        readonly startedAt: number | undefined;
      }[];
      readonly target: ActivePodInfo;
    }
  >();
  readonly #closing = new AbortController();
  /** {@link close} has run: failed status writes are no longer retried. */
  #closed = false;
  #persistErrors: readonly StatusFileError[] = [];
  readonly #takeInKills: () => void;
  readonly #onPodsChanged: () => void;
  readonly #journal: FinalStatusJournal | undefined;
  /** Pods the journal says ended (or were deleted) before this start, by UID. */
  readonly #journalFound: Map<string, JournalRecord>;
  /** Pods whose end is in the journal already (one record per end: the journal's slots are few). */
  readonly #journalled = new Set<string>();

  constructor(options: ProcessPodRuntimeOptions) {
    this.#cgroups = options.cgroups;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#killTimeoutMs = options.killTimeoutMs ?? 2000;
    this.#mounter = options.mounter ?? systemMounter;
    this.#canMount = options.canMount ?? process.geteuid?.() === 0;
    this.#stateDir = resolve(options.node.stateDir);
    this.#processes = new PodProcesses(options.cgroups, options.clock);
    this.#takeInKills = options.takeInKills ?? (() => {});
    this.#onPodsChanged = options.onPodsChanged ?? (() => {});
    this.#journal = options.journal?.writer;
    this.#journalFound = new Map(options.journal?.found ?? []);
    this.#supervisor = new ContainerSupervisor({
      cgroups: options.cgroups,
      node: options.node,
      clock: options.clock,
      logger: options.logger,
      backoff: options.backoff ?? KUBELET_BACKOFF,
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      processes: this.#processes,
      closing: this.#closing.signal,
      events: {
        refresh: (record) => this.#refresh(record),
        persist: (record) => this.#persist(record),
        exited: (record) => {
          this.#takeInKills();
          if (record.terminating) this.#persist(record);
          else this.#reconcile(record);
        },
        catchUp: () => this.#takeInKills(),
        oomKilled: (record, c) =>
          options.onOomKill?.({
            namespace: record.pod.namespace,
            pod: record.pod.name,
            container: c.spec.name,
            limitBytes: containerMemoryLimitBytes(c.spec),
          }),
      },
    });
    const driver = this.#cgroups;
    this.capabilities = [
      driver === undefined
        ? "no cgroups: pod processes run without memory limits, each container in a process group of its own, and are measured through /proc"
        : `pods run in cgroup ${driver.api} cgroups laid out as the kubelet's cgroupfs driver does (QoS tiers, pod and container cgroups), with per-container memory limits` +
          (driver.hasPids ? "" : "; no pids controller: no per-pod pid counts"),
      "oom_score_adj is set for each container before its command runs (a second shim stage)",
      this.#canMount
        ? "emptyDir volumes with medium Memory are tmpfs mounts"
        : "tmpfs cannot be mounted (not root): emptyDir volumes with medium Memory are plain directories on nodefs",
      "no container images: image garbage collection frees nothing",
      `container output is appended to ${this.#stateDir}/pods/<pod>/logs/<container>.log`,
    ];
  }

  // ---------------------------------------------------------------------------------------------
  // Queries

  /** Every known pod's status (running, completed, evicted, rejected), in the order first seen. */
  statusViews(): PodStatusView[] {
    return [...this.#pods.values()].map(toStatusView);
  }

  /** One pod's status, or undefined when the runtime does not know the UID. */
  status(uid: string): PodStatusView | undefined {
    const record = this.#pods.get(uid);
    return record === undefined ? undefined : toStatusView(record);
  }

  /** Every pod the runtime knows (running, completed, evicted, rejected, being killed). */
  knownPods(): RunnablePod[] {
    return [...this.#pods.values()].map((r) => r.pod);
  }

  /** Pods that are running or will run again: not terminated, not being killed. */
  activePods(): RunnablePod[] {
    return [...this.#pods.values()].filter((r) => !r.final && !r.terminating).map((r) => r.pod);
  }

  /**
   * Pods that have not terminated: the active ones and those being killed, whose processes still
   * hold what they were admitted with. What the kubelet's admission counts a new pod against
   * (`filterOutInactivePods`: a pod whose termination was requested counts until it is over).
   */
  nonTerminatedPods(): RunnablePod[] {
    return [...this.#pods.values()].filter((r) => !r.final || r.kill !== undefined).map((r) => r.pod);
  }

  /** Status files that {@link loadPersisted} could not read back. */
  persistErrors(): readonly StatusFileError[] {
    return this.#persistErrors;
  }

  /** The pod's cgroups (for the stats adapter), when it runs in cgroups. */
  podCgroups(
    uid: string,
  ): { readonly pod: PodCgroup; readonly containers: ReadonlyMap<string, ContainerCgroup> } | undefined {
    const record = this.#pods.get(uid);
    const pod = record?.cgroup;
    if (record === undefined || pod === undefined) return undefined;
    const containers = new Map<string, ContainerCgroup>();
    for (const c of record.containers)
      containers.set(c.spec.name, c.cgroup ?? containerLayout(pod, c.spec.name));
    return { pod, containers };
  }

  /**
   * What the stats collector measures for each active pod: the directories the pod really uses,
   * the start times recorded here, and its cgroups (or, without cgroups, its containers' processes).
   */
  async statsTargets(): Promise<ActivePodInfo[]> {
    const out: ActivePodInfo[] = [];
    for (const record of this.#pods.values()) {
      if (record.final || record.terminating) continue;
      if (record.cgroup !== undefined) {
        out.push(this.#cgroupStatsTarget(record, record.cgroup));
        continue;
      }
      const processes = await this.podProcesses(record.pod);
      out.push(statsTarget(record, { pids: new Map(processes.map((p) => [p.container, p.pids])) }));
    }
    return out;
  }

  /**
   * A pod in cgroups is described the same way until one of its containers (re)starts: the same
   * object is handed out again, so a memory wake on a 110-pod node builds no description and the
   * collector's per-cgroup memo (keyed by the cgroup objects) keeps hitting.
   */
  #cgroupStatsTarget(record: PodRecord, pod: PodCgroup): ActivePodInfo {
    const known = this.#statsTargets.get(record);
    if (
      known !== undefined &&
      known.pod === pod &&
      known.startTime === record.startTime &&
      known.containers.length === record.containers.length &&
      record.containers.every(
        (c, i) => c.cgroup === known.containers[i]?.cgroup && c.startedAt === known.containers[i]?.startedAt,
      )
    )
      return known.target;
    const containers = new Map<string, ContainerCgroup>();
    for (const c of record.containers)
      containers.set(c.spec.name, c.cgroup ?? containerLayout(pod, c.spec.name));
    const target = statsTarget(record, { cgroups: { pod, containers } });
    this.#statsTargets.set(record, {
      pod,
      startTime: record.startTime,
      containers: record.containers.map((c) => ({ cgroup: c.cgroup, startedAt: c.startedAt })),
      target,
    });
    return target;
  }

  /**
   * Where each active pod's processes are, for a thread that signals them itself (the loop thread's
   * kill: {@link podPidsNow}, then {@link killSignalled}); empty without cgroups, where finding a
   * pod's processes takes a /proc scan that only {@link kill} does.
   */
  signalTargets(): PodSignalTarget[] {
    const out: PodSignalTarget[] = [];
    for (const record of this.#pods.values()) {
      if (record.final || record.terminating) continue;
      const target = this.#processes.signalTarget(record);
      if (target !== undefined) out.push(target);
    }
    return out;
  }

  /** Where the pod's logs, writable directories and volumes are. */
  podPaths(uid: string): PodPaths | undefined {
    return this.#pods.get(uid)?.paths;
  }

  /** Live processes of each container (its cgroup, or without cgroups its process group). */
  async podProcesses(pod: RunnablePod): Promise<ContainerProcesses[]> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined) return [];
    const out: ContainerProcesses[] = [];
    for (const c of record.containers)
      out.push({ container: c.spec.name, pids: await this.#processes.ofContainer(record, c) });
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Starts a pod: pod and container cgroups, emptyDir volumes, then init containers in order (each
   * to completion; sidecars keep running), then the regular containers. A pod the runtime already
   * knows (running, completed, evicted, rejected, or restored by {@link loadPersisted}) is left as
   * it is: a changed manifest is a new pod only after {@link forget}.
   */
  async start(pod: RunnablePod): Promise<void> {
    if (this.#pods.has(pod.uid)) return;
    const ended = this.#journalFound.get(pod.uid);
    if (ended?.kind === "final") return this.#restoreEnded(pod, ended.status);
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    record.startTime = this.#clock.now();
    this.#pods.set(pod.uid, record);
    try {
      await mkdir(record.paths.logsDir, { recursive: true });
      if (this.#cgroups !== undefined) await ensurePodCgroup(this.#cgroups, record);
      await this.#setUpVolumes(record);
    } catch (error) {
      record.message = `cannot set up the pod: ${error instanceof Error ? error.message : String(error)}`;
      this.#logger.error({ pod: pod.key, uid: pod.uid, error: String(error) }, "pod setup failed");
      await this.#persistNow(record);
      throw error;
    }
    this.#logger.info(
      { pod: pod.key, uid: pod.uid, qos: record.qos, restartPolicy: record.policy },
      "pod started",
    );
    this.#reconcile(record);
    await this.#persistNow(record);
  }

  /** Records an admission rejection: the status is written and nothing is started. */
  async reject(pod: RunnablePod, status: GivenPodStatus): Promise<void> {
    if (this.#pods.has(pod.uid)) {
      this.#logger.warn({ pod: pod.key, uid: pod.uid }, "reject ignored: the pod is already known");
      return;
    }
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    record.startTime = this.#clock.now();
    this.#fix(record, status);
    this.#pods.set(pod.uid, record);
    await this.#persistNow(record);
  }

  /**
   * Kills a pod: SIGTERM to every process in its cgroups (or process groups) now, SIGKILL to what
   * is left after `gracePeriodSeconds`, then the final status (phase, reason, message, conditions
   * as given). The pod is never restarted. `done` lists processes still present after SIGKILL and
   * a bounded wait, with their state. A second kill of a terminating pod can only shorten the grace
   * period, as upstream. A pod that has already finished (Succeeded or Failed: completed, evicted,
   * rejected) is left as it is, as the kubelet ignores a kill of a terminated pod: nothing to do.
   */
  async kill(pod: RunnablePod, gracePeriodSeconds: number, status: GivenPodStatus): Promise<KillResult> {
    const record = this.#pods.get(pod.uid);
    if (record !== undefined && hasFinished(record)) return this.#nothingToKill(record);
    if (record === undefined || record.kill !== undefined) {
      const result = this.killSignalled(pod, gracePeriodSeconds, status, {
        pids: [],
        terminatedAt: this.#clock.now(),
      });
      // A pod never started here has only its status to write: written when this returns.
      if (record === undefined) await result.done;
      return result;
    }
    record.final = true;
    record.terminating = true;
    // On record before the signal: a daemon killed from here on never starts the pod again.
    this.#journalEnd(record, { ...status, conditions: status.conditions ?? [], statusFixed: true });
    let pids = this.#processes.ofPodNow(record);
    if (pids === undefined) {
      // Finding the processes takes a /proc scan: no restart may start meanwhile.
      record.abort.abort();
      pids = await this.#processes.ofPod(record);
    }
    this.#processes.signal(record.containers, pids, "SIGTERM");
    return this.#killUnderway(record, gracePeriodSeconds, status, { pids, terminatedAt: this.#clock.now() });
  }

  /**
   * A kill whose SIGTERM was sent elsewhere, to `signalled.pids` at `signalled.terminatedAt` (the
   * loop thread signals a pod's cgroups itself the moment it decides): from here on it is
   * {@link kill}'s, with the same grace period, SIGKILL and final status, and like it leaves a pod
   * that has already finished as it is. Synchronous, so it can be taken in from within an exit
   * handler ({@link ProcessPodRuntimeOptions.takeInKills}).
   */
  killSignalled(
    pod: RunnablePod,
    gracePeriodSeconds: number,
    status: GivenPodStatus,
    signalled: { readonly pids: readonly number[]; readonly terminatedAt: number },
  ): KillResult {
    const graceMs = Math.max(0, gracePeriodSeconds) * 1000;
    let record = this.#pods.get(pod.uid);
    if (record === undefined) {
      // Never started here: only the status to write.
      record = newPodRecord(pod, this.#stateDir, podQos(pod));
      this.#pods.set(pod.uid, record);
      this.#fix(record, status);
      this.#persist(record);
      const written = record.writes.then(() => ({ ok: true, stuck: [] }));
      return { terminatedAt: signalled.terminatedAt, done: written };
    }
    if (hasFinished(record)) return this.#nothingToKill(record);
    const pending = record.kill;
    if (pending !== undefined) {
      pending.deadline = Math.min(pending.deadline, this.#clock.now() + graceMs);
      pending.status = status;
      return { terminatedAt: pending.terminatedAt, done: pending.done };
    }
    record.final = true;
    record.terminating = true;
    // The thread that signalled it put its end on record first.
    this.#journalled.add(record.pod.uid);
    return this.#killUnderway(record, gracePeriodSeconds, status, signalled);
  }

  /**
   * A kill of a pod that has already finished: its status stays what it was and nothing is left to
   * wait for (the same answer as a dry run's kill). What of it may still run (sidecars being
   * stopped, processes that outlived an earlier kill) is its completion's, or its deletion's
   * ({@link forget}), to stop.
   */
  #nothingToKill(record: PodRecord): KillResult {
    this.#logger.info(
      { pod: record.pod.key, uid: record.pod.uid, phase: record.phase, reason: record.reason },
      "kill ignored: the pod has already finished",
    );
    return { terminatedAt: this.#clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
  }

  /** After SIGTERM: no restart, the grace period, SIGKILL, then the final status. */
  #killUnderway(
    record: PodRecord,
    gracePeriodSeconds: number,
    status: GivenPodStatus,
    signalled: { readonly pids: readonly number[]; readonly terminatedAt: number },
  ): KillResult {
    // After SIGTERM, so the supervisor's abort listeners (restart timers, polls) do not delay it. No
    // exit is handled in between: a child's exit reaches this process in a later turn of the loop.
    record.abort.abort();
    const { pids, terminatedAt } = signalled;
    this.#logger.info(
      { pod: record.pod.key, uid: record.pod.uid, pids, gracePeriodSeconds },
      "pod killing: SIGTERM sent",
    );
    const kill: PendingKill = {
      deadline: terminatedAt + Math.max(0, gracePeriodSeconds) * 1000,
      status,
      terminatedAt,
      done: Promise.resolve({ ok: true, stuck: [] }),
    };
    record.kill = kill;
    kill.done = this.#finishKill(record, kill);
    this.#onPodsChanged();
    return { terminatedAt, done: kill.done };
  }

  /** The status a pending kill of `pod` writes when it ends, replaced (a message from fresher figures). */
  restate(pod: RunnablePod, status: GivenPodStatus): void {
    const pending = this.#pods.get(pod.uid)?.kill;
    if (pending !== undefined) pending.status = status;
  }

  /**
   * Whether the pod is gone as the kubelet means it: no process left in its cgroups (or process
   * groups), no task still charged to its pids cgroup (orphaned zombies hold PIDs until reaped), and,
   * for a killed pod, its resources released (cgroups removed, emptyDirs deleted, tmpfs unmounted),
   * so that the next look at the node sees what the eviction freed. Unknown pods are cleaned up.
   */
  async isCleanedUp(pod: RunnablePod): Promise<boolean> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined) return true;
    if ((await this.#processes.ofPod(record)).length > 0) return false;
    const driver = this.#cgroups;
    if (record.cgroup !== undefined && driver?.hasPids === true) {
      try {
        if ((await driver.pids(record.cgroup)).current > 0) return false;
      } catch {
        // The cgroup is already gone: nothing is charged to it.
      }
    }
    // A kill in progress finishes (status written) before its resources go.
    if (record.kill !== undefined) await record.kill.done;
    if (record.statusFixed && !record.removed) await this.remove(pod);
    return true;
  }

  /**
   * Node teardown (`--cleanup-on-exit`): once the node's processes are killed, unmount and delete
   * every pod's volumes and stop supervising, so no tmpfs or directory outlives the daemon.
   */
  async releaseAll(): Promise<void> {
    for (const record of this.#pods.values()) {
      record.abort.abort();
      try {
        await tearDownVolumes(record.pod, record.paths, this.#mounter);
        record.volumes = [];
      } catch (error) {
        this.#logger.warn({ pod: record.pod.key, err: String(error) }, "cannot release pod volumes");
      }
    }
  }

  /**
   * After cleanup: removes the pod's cgroups and its emptyDir volumes (unmounting tmpfs), as the
   * kubelet tears down a terminated pod's resources. Logs, writable directories (until container
   * GC) and the status stay. Fails with `pod-busy` while processes remain.
   */
  async remove(pod: RunnablePod): Promise<void> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined || record.removed) return;
    const left = await this.#processes.ofPod(record);
    if (left.length > 0) {
      throw new AdapterError(
        "pod-busy",
        `cannot remove pod ${pod.key}: processes ${left.join(", ")} still run`,
        {
          hint: "kill the pod and wait until isCleanedUp",
        },
      );
    }
    record.abort.abort();
    if (!record.final) {
      record.final = true;
      if (!record.statusFixed) record.phase = computePhase(record);
    }
    if (record.cgroup !== undefined && this.#cgroups !== undefined) {
      try {
        await this.#cgroups.remove(record.cgroup);
      } catch (error) {
        const gone =
          error instanceof AdapterError &&
          (error.code === "cgroup-not-found" || error.code === "cgroup-no-node");
        if (!gone) throw error;
      }
    }
    record.cgroup = undefined;
    for (const c of record.containers) c.cgroup = undefined;
    await tearDownVolumes(record.pod, record.paths, this.#mounter);
    record.volumes = [];
    record.removed = true;
    this.#logger.info({ pod: pod.key, uid: pod.uid }, "pod removed: cgroups and volumes released");
    await this.#persistNow(record);
  }

  /**
   * Removes the pod and deletes everything kept of it (status, logs): the API's deletion. What of a
   * finished pod still runs (a kill leaves a finished pod alone) is stopped first, within the pod's
   * grace period.
   */
  async forget(pod: RunnablePod): Promise<void> {
    const record = this.#pods.get(pod.uid);
    if (record === undefined) return;
    if (hasFinished(record)) await this.#stopLeftovers(record, "before the pod was deleted");
    await this.remove(pod);
    await record.writes;
    this.#pods.delete(pod.uid);
    this.#journalFound.delete(pod.uid);
    this.#journalled.delete(pod.uid);
    const failed = this.#journal?.recordForgotten(pod.uid, this.#clock.now());
    if (failed !== undefined)
      this.#logger.error(
        { pod: pod.key, err: String(failed) },
        "cannot record the pod's deletion in the final-status journal",
      );
    this.#onPodsChanged();
    await rm(record.paths.dir, { recursive: true, force: true });
  }

  /**
   * Restores every persisted pod after a daemon restart. Completed, evicted and rejected pods stay
   * as they were and are never started; for the others, containers whose process is still alive
   * (same pid and start time, in its cgroup) are adopted, not started twice, and dead ones are
   * restarted per restartPolicy. Create the node cgroup first. Returns the restored pods' statuses.
   */
  async loadPersisted(): Promise<PodStatusView[]> {
    const { statuses, errors } = await readStatusFiles(`${this.#stateDir}/pods`);
    this.#persistErrors = errors;
    for (const e of errors)
      this.#logger.warn({ file: e.file, error: e.message }, "cannot restore a pod status file");
    const restored: PodRecord[] = [];
    for (const status of statuses) {
      if (this.#pods.has(status.uid)) continue;
      const record = fromPersisted(status, this.#stateDir);
      this.#pods.set(status.uid, record);
      restored.push(record);
      if (this.#cgroups !== undefined && !record.removed) attachCgroups(this.#cgroups, record);
      const ended = this.#journalFound.get(status.uid);
      if (!record.final && ended?.kind === "final") {
        this.#endAsJournalled(record, ended.status);
        this.#logger.warn(
          { pod: record.pod.key, uid: record.pod.uid, phase: record.phase, reason: record.reason },
          "the pod ended before the daemon stopped, but its status file could not say so: restored from the final-status journal, not started again",
        );
        this.#persist(record);
      }
      if (!record.final) {
        await this.#resume(record);
        continue;
      }
      // A daemon that died mid-kill may have left processes of a finished pod: finish the job.
      const left = await this.#processes.ofPod(record);
      if (left.length > 0) {
        this.#processes.signal(record.containers, left, "SIGKILL");
        this.#logger.warn(
          { pod: record.pod.key, pids: left },
          "killed leftover processes of a terminated pod",
        );
      }
    }
    return restored.map(toStatusView);
  }

  /**
   * Container GC ("delete all unused containers"): the writable directories and logs of the dead
   * containers of terminated pods (Succeeded or Failed, no process left).
   */
  async containerGC(): Promise<GcReport> {
    const report = await collectDeadContainers(
      this.#pods.values(),
      async (record) => (await this.#processes.ofPod(record)).length > 0,
    );
    if (report.removed.length > 0)
      this.#logger.info({ freedBytes: report.freedBytes, removed: report.removed.length }, "container GC");
    return report;
  }

  /** Image GC: there are no images here, so it frees nothing. */
  imageGC(): Promise<GcReport> {
    return Promise.resolve({
      freedBytes: 0,
      removed: [],
      note: "no container images: pods run host commands, so there is nothing to free",
    });
  }

  /**
   * The node is being torn down: containers that exit from now on are not restarted (and no
   * back-off is announced for them). Part of {@link close}; called first when the daemon kills
   * every pod on its way out.
   */
  stopRestarts(): void {
    this.#closing.abort();
  }

  /**
   * Stops timers and polls and flushes status writes; processes keep running (the next daemon
   * adopts them). The runtime must not be used afterwards.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    for (const record of this.#pods.values()) record.abort.abort();
    await this.flush();
    // A write still failing (the state filesystem full) is tried once more, then said out loud:
    // the operator must know what the next start will and will not find.
    for (const record of this.#pods.values()) {
      if (!record.writeFailing) continue;
      await this.#persistNow(record);
      if (!record.writeFailing) continue;
      const kept =
        record.final && this.#journal !== undefined
          ? `its end (${record.phase}${record.reason !== undefined ? `, ${record.reason}` : ""}) is kept in the final-status journal, so the next start will not run it again`
          : record.final
            ? "without a journal, the next start may run it again"
            : "its container states since the last good write are lost; the next start adopts its processes";
      this.#logger.error(
        { pod: record.pod.key, file: record.paths.statusFile },
        `stopping with the pod's status file not written: ${kept}`,
      );
    }
    this.#closed = true;
  }

  /** Resolves when every status write queued so far is on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.#pods.values()].map((r) => r.writes));
  }

  // ---------------------------------------------------------------------------------------------
  // Reconciliation: the planner decides, this applies

  /** Applies the planned actions after any change, then refreshes the phase and persists. */
  #reconcile(record: PodRecord): void {
    if (this.#closing.signal.aborted || record.terminating || record.removed) return;
    if (!record.final) {
      const actions = computePodActions(
        record.policy,
        record.containers.map((c) => ({
          name: c.spec.name,
          kind: c.kind,
          state: c.state,
          exitCode: c.exitCode,
          timerPending: c.timerPending,
        })),
        record.initialized,
      );
      if (actions.complete) return this.#complete(record);
      record.initialized = actions.initialized;
      for (const c of record.containers) {
        if (actions.backOff.includes(c.spec.name)) this.#supervisor.scheduleRestart(record, c);
        else if (actions.start.includes(c.spec.name)) this.#supervisor.launch(record, c);
      }
    }
    this.#refresh(record);
  }

  /** The pod ran to its end: nothing restarts, sidecars are stopped, the phase becomes Succeeded or Failed. */
  #complete(record: PodRecord): void {
    record.final = true;
    record.abort.abort();
    this.#refresh(record);
    this.#journalEnd(record, this.#finalStatus(record));
    this.#logger.info({ pod: record.pod.key, uid: record.pod.uid, phase: record.phase }, "pod completed");
    if (!record.containers.some((c) => c.state === "running")) return;
    // Sidecars (and anything else still running) are stopped within the pod's grace period.
    void (async () => {
      await this.#stopLeftovers(record, "after the pod completed");
      this.#refresh(record);
    })();
  }

  /**
   * SIGTERM to whatever of a finished pod still runs, SIGKILL after the pod's grace period; resolves
   * once none is left, or with what survived SIGKILL logged (`when` says when it happened).
   */
  async #stopLeftovers(record: PodRecord, when: string): Promise<void> {
    const left = await this.#processes.ofPod(record);
    if (left.length === 0) return;
    this.#processes.signal(record.containers, left, "SIGTERM");
    const deadline = this.#clock.now() + record.pod.terminationGracePeriodSeconds * 1000;
    const stuck = await this.#processes.waitGone(record, { deadline }, this.#killTimeoutMs);
    if (stuck.length > 0)
      this.#logger.warn({ pod: record.pod.key, stuck }, `processes survived SIGKILL ${when}`);
  }

  /** Recomputes the phase (unless a caller fixed it) and persists. */
  #refresh(record: PodRecord): void {
    if (!record.statusFixed) record.phase = computePhase(record);
    this.#persist(record);
  }

  // ---------------------------------------------------------------------------------------------
  // Container processes

  async #finishKill(record: PodRecord, kill: PendingKill): Promise<{ ok: boolean; stuck: StuckProcess[] }> {
    const stuck = await this.#processes.waitGone(record, kill, this.#killTimeoutMs);
    // Give our own children's exit reports a moment to arrive, so exit codes are the real ones.
    const reports = record.containers.flatMap((c) =>
      c.state === "running" && c.exited !== undefined ? [c.exited] : [],
    );
    if (reports.length > 0)
      await Promise.race([Promise.all(reports), this.#supervisor.sleep(EXIT_REPORT_WAIT_MS)]);
    const now = this.#clock.now();
    for (const c of record.containers) {
      if (c.state === "running" && stuck.length === 0) {
        c.state = "terminated";
        c.exitCode = UNKNOWN_EXIT;
        c.reason = "Error";
        c.finishedAt = now;
        c.pid = undefined;
      } else if (c.state === "waiting") c.state = "terminated";
    }
    this.#fix(record, kill.status);
    record.terminating = false;
    record.kill = undefined;
    await this.#persistNow(record);
    if (stuck.length === 0) {
      this.#logger.info(
        { pod: record.pod.key, uid: record.pod.uid, reason: kill.status.reason },
        "pod killed",
      );
      return { ok: true, stuck };
    }
    const inD = stuck.filter((s) => s.state === "D").map((s) => s.pid);
    this.#logger.warn(
      { pod: record.pod.key, stuck, uninterruptible: inD },
      inD.length > 0
        ? "processes survived SIGKILL in uninterruptible sleep (state D): they die once their I/O completes"
        : "processes survived SIGKILL",
    );
    return { ok: false, stuck };
  }

  // ---------------------------------------------------------------------------------------------
  // Restore after a daemon restart

  /** Adopts live containers and restarts dead ones of a pod that was running when the daemon stopped. */
  async #resume(record: PodRecord): Promise<void> {
    try {
      await mkdir(record.paths.logsDir, { recursive: true });
      if (this.#cgroups !== undefined) await ensurePodCgroup(this.#cgroups, record);
      await this.#setUpVolumes(record);
    } catch (error) {
      this.#logger.error(
        { pod: record.pod.key, error: String(error) },
        "cannot restore the pod's cgroups or volumes",
      );
    }
    for (const c of record.containers) {
      if (c.state !== "running") continue;
      const pid = c.pid;
      const mine = pid === undefined ? [] : await this.#processes.ofContainer(record, c);
      // The same process (pid and start time: ofContainer checks both), not a reused pid.
      if (pid !== undefined && mine.includes(pid)) {
        c.generation++;
        this.#logger.info(
          { pod: record.pod.key, container: c.spec.name, containerPid: pid },
          "container adopted",
        );
        this.#supervisor.watchAdopted(record, c);
        continue;
      }
      // Sweep what the dead main process left. A pid now used by another process is never touched;
      // a dead leader's process group still holds only this container's processes (the kernel does
      // not reuse a pid while its group exists).
      if (pid !== undefined && (await readProcStat(pid)) !== undefined) c.pid = undefined;
      this.#processes.signal([c], await this.#processes.ofContainer(record, c), "SIGKILL");
      c.pid = undefined;
      c.startTicks = undefined;
      c.state = "terminated";
      c.exitCode = UNKNOWN_EXIT;
      c.reason = "ContainerStatusUnknown";
      c.finishedAt = this.#clock.now();
      this.#logger.info(
        { pod: record.pod.key, container: c.spec.name },
        "container gone after the daemon restart",
      );
    }
    this.#reconcile(record);
  }

  // ---------------------------------------------------------------------------------------------
  // Volumes, status

  async #setUpVolumes(record: PodRecord): Promise<void> {
    const { volumes, skipped, warnings } = await setUpVolumes(
      record.pod,
      record.paths,
      podMemoryLimitBytes(record.pod),
      this.#mounter,
      this.#canMount,
    );
    record.volumes = volumes;
    if (skipped.length > 0)
      this.#logger.warn(
        { pod: record.pod.key, volumes: skipped },
        "volumes other than emptyDir have no source here",
      );
    for (const w of warnings) this.#logger.warn({ pod: record.pod.key }, w);
  }

  /** Sets a caller-given final status (eviction, rejection). */
  #fix(record: PodRecord, status: GivenPodStatus): void {
    const wasFinal = record.final && record.statusFixed;
    record.final = true;
    record.statusFixed = true;
    record.phase = status.phase;
    record.reason = status.reason;
    record.message = status.message;
    record.conditions = upsertConditions(record.conditions, status.conditions ?? []);
    if (!wasFinal) this.#journalEnd(record, this.#finalStatus(record));
  }

  #finalStatus(record: PodRecord): FinalStatus {
    return {
      phase: record.phase,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      ...(record.message !== undefined ? { message: record.message } : {}),
      conditions: record.conditions,
      statusFixed: record.statusFixed,
    };
  }

  /** Records in the journal that the pod ended; a failed write is logged, never in the way. */
  #journalEnd(record: PodRecord, status: FinalStatus): void {
    if (this.#journal === undefined || this.#journalled.has(record.pod.uid)) return;
    this.#journalled.add(record.pod.uid);
    const failed = this.#journal?.recordFinal(record.pod.uid, record.pod.key, status, this.#clock.now());
    if (failed !== undefined)
      this.#logger.error(
        { pod: record.pod.key, err: String(failed) },
        "cannot record the pod's end in the final-status journal",
      );
  }

  /** A restored record the journal says ended: final with the journal's status, its containers done. */
  #endAsJournalled(record: PodRecord, status: FinalStatus): void {
    record.final = true;
    record.statusFixed = status.statusFixed;
    record.phase = status.phase;
    record.reason = status.reason;
    record.message = status.message;
    record.conditions = [...status.conditions];
    const now = this.#clock.now();
    for (const c of record.containers) {
      if (c.state === "terminated") continue;
      if (c.state === "running" || c.state === "waiting") {
        c.exitCode ??= UNKNOWN_EXIT;
        c.reason ??= "ContainerStatusUnknown";
        c.finishedAt ??= now;
      }
      c.state = "terminated";
      c.pid = undefined;
      c.startTicks = undefined;
    }
  }

  /**
   * A pod whose end the journal holds but whose status file never got written (its first write hit
   * a full filesystem): known again as it ended, and never started.
   */
  async #restoreEnded(pod: RunnablePod, status: FinalStatus): Promise<void> {
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    this.#endAsJournalled(record, status);
    this.#pods.set(pod.uid, record);
    this.#logger.warn(
      { pod: pod.key, uid: pod.uid, phase: record.phase, reason: record.reason },
      "the pod ended in an earlier run, before its status file could be written: restored from the final-status journal, not started",
    );
    await this.#persistNow(record);
  }

  /**
   * Queues a status write (coalesced: one pending write carries the latest state). A write that
   * fails (the state filesystem full) is tried again every {@link STATUS_RETRY_MS} until it succeeds:
   * the file must come to say what happened (an evicted pod's says Failed), or a restart would
   * bring back a pod the daemon already stopped.
   */
  #persist(record: PodRecord): void {
    // Every change worth a status write may change what the stats collector or the loop is told.
    this.#onPodsChanged();
    if (record.writeQueued) return;
    record.writeQueued = true;
    record.writes = record.writes.then(async () => {
      record.writeQueued = false;
      try {
        await writeFileAtomic(record.paths.statusFile, encodeStatus(toPersisted(record)));
        if (record.writeFailing) {
          record.writeFailing = false;
          this.#logger.info(
            { pod: record.pod.key, file: record.paths.statusFile },
            "pod status written again",
          );
        }
      } catch (error) {
        if (!record.writeFailing) {
          const fields = { pod: record.pod.key, file: record.paths.statusFile, error: String(error) };
          this.#logger.error(fields, `cannot write the pod status: trying again every ${STATUS_RETRY_MS} ms`);
        }
        record.writeFailing = true;
        const retry = setTimeout(() => {
          if (!this.#closed && this.#pods.get(record.pod.uid) === record) this.#persist(record);
        }, STATUS_RETRY_MS);
        retry.unref();
      }
    });
  }

  /** Writes the status and waits for it. */
  async #persistNow(record: PodRecord): Promise<void> {
    this.#persist(record);
    await record.writes;
  }
}
