/**
 * The process pod runtime of `evictd run`: runs each Pod manifest's containers as host processes in
 * cgroups laid out as the kubelet lays out pods, restarts them per restartPolicy with the kubelet's
 * back-off, kills pods (SIGTERM, SIGKILL after the grace period), persists every pod's status, and
 * collects dead containers. It observes and acts; the pure engine decides.
 *
 * The runtime keeps the pods and orchestrates its parts:
 *
 * - container-supervisor.ts: each container's process: start, exit, restart after the back-off,
 *   adoption after a daemon restart;
 * - pod-reconciler.ts: what to start or restart next (the planner, pod-actions.ts: init containers
 *   in order, sidecars kept running), and a pod's completion;
 * - pod-killer.ts: the kill path (SIGTERM, grace period, SIGKILL, final status) and the stop of a
 *   finished pod's leftovers;
 * - pod-resources.ts: a pod's logs directory, cgroups and emptyDir volumes, set up and released;
 * - pod-removal.ts: whether a pod is cleaned up, its removal, and its deletion;
 * - pod-status-writer.ts and pod-ends.ts: status files written and retried, and every pod's end in
 *   the final-status journal;
 * - pod-restore.ts: the pods of an earlier run, after a daemon restart;
 * - active-pod-targets.ts: what the stats collector is told of the active pods, the same while
 *   unchanged;
 *
 * with a pod's processes found and signalled by pod-processes.ts.
 */
import { resolve } from "node:path";
import type { ClockPort, KillResult, LoggerPort, PodsPort } from "../app/ports.js";
import type { PodStatusView } from "../app/node-view/snapshot.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { podQos } from "../core/pod/qos.js";
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import type { ActivePodInfo } from "../linux/node-stats/active-pod-info.js";
import { ActivePodTargets, podCgroupsOf, type PodCgroups } from "./active-pod-targets.js";
import { collectDeadContainers, type GcReport } from "./container-gc.js";
import { ContainerSupervisor } from "./container-supervisor.js";
import { systemMounter, type Mounter } from "./emptydir-volumes.js";
import type { FinalStatusJournal, JournalRecord } from "./final-status-journal.js";
import { PodEnds } from "./pod-ends.js";
import { PodKiller } from "./pod-killer.js";
import { containerMemoryLimitBytes } from "./pod-memory-limit.js";
import type { PodPaths } from "./pod-paths.js";
import { PodProcesses, type PodSignalTarget } from "./pod-processes.js";
import { PodReconciler } from "./pod-reconciler.js";
import { PodRemoval } from "./pod-removal.js";
import { newPodRecord, toStatusView, type GivenPodStatus, type PodRecord } from "./pod-record.js";
import { PodResources } from "./pod-resources.js";
import { podRuntimeCapabilities } from "./pod-runtime-capabilities.js";
import { PodRestorer } from "./pod-restore.js";
import type { StatusFileError } from "./pod-status-file.js";
import { PodStatusWriter } from "./pod-status-writer.js";
import { KUBELET_BACKOFF, type BackoffPolicy } from "./restart-backoff.js";
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

/** Runs pods as processes; see the module comment. */
export class ProcessPodRuntime implements PodsPort {
  /** What this runtime can and cannot do here, one sentence each (for /status). */
  readonly capabilities: readonly string[];
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  readonly #stateDir: string;
  readonly #processes: PodProcesses;
  readonly #supervisor: ContainerSupervisor;
  readonly #pods = new Map<string, PodRecord>();
  readonly #statsTargets = new ActivePodTargets((pod) => this.podProcesses(pod));
  readonly #closing = new AbortController();
  readonly #onPodsChanged: () => void;
  readonly #status: PodStatusWriter;
  readonly #ends: PodEnds;
  readonly #resources: PodResources;
  readonly #killer: PodKiller;
  readonly #reconciler: PodReconciler;
  readonly #restorer: PodRestorer;
  readonly #removal: PodRemoval;

  constructor(options: ProcessPodRuntimeOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    const canMount = options.canMount ?? process.geteuid?.() === 0;
    this.#stateDir = resolve(options.node.stateDir);
    this.#processes = new PodProcesses(options.cgroups, options.clock);
    const takeInKills = options.takeInKills ?? (() => {});
    this.#onPodsChanged = options.onPodsChanged ?? (() => {});
    this.#status = new PodStatusWriter({
      logger: options.logger,
      changed: this.#onPodsChanged,
      isCurrent: (record) => this.#pods.get(record.pod.uid) === record,
    });
    this.#ends = new PodEnds({
      clock: options.clock,
      logger: options.logger,
      ...(options.journal !== undefined ? { journal: options.journal } : {}),
    });
    this.#resources = new PodResources({
      cgroups: options.cgroups,
      mounter: options.mounter ?? systemMounter,
      canMount,
      logger: options.logger,
    });
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
        refresh: (record) => this.#reconciler.refresh(record),
        persist: (record) => this.#status.persist(record),
        exited: (record) => {
          takeInKills();
          if (record.terminating) this.#status.persist(record);
          else this.#reconciler.reconcile(record);
        },
        catchUp: () => takeInKills(),
        oomKilled: (record, c) =>
          options.onOomKill?.({
            namespace: record.pod.namespace,
            pod: record.pod.name,
            container: c.spec.name,
            limitBytes: containerMemoryLimitBytes(c.spec),
          }),
      },
    });
    this.#killer = new PodKiller({
      stateDir: this.#stateDir,
      pods: this.#pods,
      processes: this.#processes,
      clock: options.clock,
      logger: options.logger,
      killTimeoutMs: options.killTimeoutMs ?? 2000,
      ends: this.#ends,
      status: this.#status,
      sleep: (ms) => this.#supervisor.sleep(ms),
      onPodsChanged: this.#onPodsChanged,
    });
    this.#reconciler = new PodReconciler({
      closing: this.#closing.signal,
      supervisor: this.#supervisor,
      status: this.#status,
      ends: this.#ends,
      killer: this.#killer,
      logger: options.logger,
    });
    this.#restorer = new PodRestorer({
      stateDir: this.#stateDir,
      cgroups: options.cgroups,
      pods: this.#pods,
      processes: this.#processes,
      supervisor: this.#supervisor,
      resources: this.#resources,
      reconciler: this.#reconciler,
      ends: this.#ends,
      status: this.#status,
      clock: options.clock,
      logger: options.logger,
    });
    this.#removal = new PodRemoval({
      cgroups: options.cgroups,
      pods: this.#pods,
      processes: this.#processes,
      resources: this.#resources,
      killer: this.#killer,
      ends: this.#ends,
      status: this.#status,
      logger: options.logger,
      onPodsChanged: this.#onPodsChanged,
    });
    this.capabilities = podRuntimeCapabilities({
      cgroups: options.cgroups,
      canMount,
      stateDir: this.#stateDir,
    });
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
    return this.#restorer.unreadable;
  }

  /** The pod's cgroups (for the stats adapter), when it runs in cgroups. */
  podCgroups(uid: string): PodCgroups | undefined {
    const record = this.#pods.get(uid);
    const pod = record?.cgroup;
    if (record === undefined || pod === undefined) return undefined;
    return podCgroupsOf(record, pod);
  }

  /**
   * What the stats collector measures for each active pod: the directories the pod really uses,
   * the start times recorded here, and its cgroups (or, without cgroups, its containers' processes).
   * A pod in cgroups is described by the same object until one of its containers (re)starts
   * (active-pod-targets.ts).
   */
  async statsTargets(): Promise<ActivePodInfo[]> {
    return this.#statsTargets.describe(this.#pods.values());
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
    const ended = this.#ends.endedBefore(pod.uid);
    if (ended !== undefined) return this.#restorer.restoreEnded(pod, ended);
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    record.startTime = this.#clock.now();
    this.#pods.set(pod.uid, record);
    try {
      await this.#resources.setUp(record);
    } catch (error) {
      record.message = `cannot set up the pod: ${error instanceof Error ? error.message : String(error)}`;
      this.#logger.error({ pod: pod.key, uid: pod.uid, error: String(error) }, "pod setup failed");
      await this.#status.persistNow(record);
      throw error;
    }
    this.#logger.info(
      { pod: pod.key, uid: pod.uid, qos: record.qos, restartPolicy: record.policy },
      "pod started",
    );
    this.#reconciler.reconcile(record);
    await this.#status.persistNow(record);
  }

  /** Records an admission rejection: the status is written and nothing is started. */
  async reject(pod: RunnablePod, status: GivenPodStatus): Promise<void> {
    if (this.#pods.has(pod.uid)) {
      this.#logger.warn({ pod: pod.key, uid: pod.uid }, "reject ignored: the pod is already known");
      return;
    }
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    record.startTime = this.#clock.now();
    this.#ends.fix(record, status);
    this.#pods.set(pod.uid, record);
    await this.#status.persistNow(record);
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
    return this.#killer.kill(pod, gracePeriodSeconds, status);
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
    return this.#killer.signalled(pod, gracePeriodSeconds, status, signalled);
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
    return this.#removal.isCleanedUp(pod);
  }

  /**
   * Node teardown (`--cleanup-on-exit`): once the node's processes are killed, unmount and delete
   * every pod's volumes and stop supervising, so no tmpfs or directory outlives the daemon.
   */
  async releaseAll(): Promise<void> {
    for (const record of this.#pods.values()) {
      record.abort.abort();
      try {
        await this.#resources.releaseVolumes(record);
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
    return this.#removal.remove(pod);
  }

  /**
   * Removes the pod and deletes everything kept of it (status, logs): the API's deletion. What of a
   * finished pod still runs (a kill leaves a finished pod alone) is stopped first, within the pod's
   * grace period.
   */
  async forget(pod: RunnablePod): Promise<void> {
    return this.#removal.forget(pod);
  }

  /**
   * Restores every persisted pod after a daemon restart. Completed, evicted and rejected pods stay
   * as they were and are never started; for the others, containers whose process is still alive
   * (same pid and start time, in its cgroup) are adopted, not started twice, and dead ones are
   * restarted per restartPolicy. Create the node cgroup first. Returns the restored pods' statuses.
   */
  async loadPersisted(): Promise<PodStatusView[]> {
    return (await this.#restorer.restoreAll()).map(toStatusView);
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
    // A write still failing (the state filesystem full) is tried once more, then said out loud.
    await this.#status.close(this.#pods.values(), this.#ends.keepsJournal);
  }

  /** Resolves when every status write queued so far is on disk. */
  async flush(): Promise<void> {
    await this.#status.flush(this.#pods.values());
  }
}
