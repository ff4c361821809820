/**
 * The pods of an earlier run, known again after a daemon restart: every status file read back, with
 * the final-status journal winning over a file that still says a pod runs; finished pods (completed,
 * evicted, rejected) stay as they were and are never started, and what a daemon that died mid-kill
 * left of them is killed; the others are resumed: a container whose process still lives (same pid
 * and start time, in its cgroup) is adopted, not started twice, and a dead one is swept and
 * restarted per restartPolicy. A pod whose end the journal holds but whose status file was never
 * written is known again as it ended, and never started.
 */
import type { ClockPort, LoggerPort } from "../app/ports.js";
import { podQos } from "../core/pod/qos.js";
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import { readProcStat } from "../linux/procfs.js";
import { UNKNOWN_EXIT, type ContainerSupervisor } from "./container-supervisor.js";
import type { FinalStatus } from "./final-status-journal.js";
import { attachCgroups } from "./pod-cgroups.js";
import type { PodEnds } from "./pod-ends.js";
import type { PodProcesses } from "./pod-processes.js";
import { fromPersisted, newPodRecord, type PodRecord } from "./pod-record.js";
import type { PodReconciler } from "./pod-reconciler.js";
import type { PodResources } from "./pod-resources.js";
import { readStatusFiles, type StatusFileError } from "./pod-status-file.js";
import type { PodStatusWriter } from "./pod-status-writer.js";
import type { RunnablePod } from "./runnable-pod.js";

export interface PodRestorerOptions {
  readonly stateDir: string;
  /** The cgroup driver with the node already created, or undefined to run without cgroups. */
  readonly cgroups: CgroupDriver | undefined;
  /** The runtime's pods by UID: a restored pod is put there before anything of it is started. */
  readonly pods: Map<string, PodRecord>;
  readonly processes: PodProcesses;
  readonly supervisor: ContainerSupervisor;
  readonly resources: PodResources;
  readonly reconciler: PodReconciler;
  readonly ends: PodEnds;
  readonly status: PodStatusWriter;
  readonly clock: ClockPort;
  readonly logger: LoggerPort;
}

/** A restored record the journal says ended: final with the journal's status, its containers done. */
function endAsJournalled(record: PodRecord, status: FinalStatus, now: number): void {
  record.final = true;
  record.statusFixed = status.statusFixed;
  record.phase = status.phase;
  record.reason = status.reason;
  record.message = status.message;
  record.conditions = [...status.conditions];
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

/** Restores the runtime's pods from the state directory; see the module comment. */
export class PodRestorer {
  readonly #stateDir: string;
  readonly #cgroups: CgroupDriver | undefined;
  readonly #pods: Map<string, PodRecord>;
  readonly #processes: PodProcesses;
  readonly #supervisor: ContainerSupervisor;
  readonly #resources: PodResources;
  readonly #reconciler: PodReconciler;
  readonly #ends: PodEnds;
  readonly #status: PodStatusWriter;
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  #unreadable: readonly StatusFileError[] = [];

  constructor(options: PodRestorerOptions) {
    this.#stateDir = options.stateDir;
    this.#cgroups = options.cgroups;
    this.#pods = options.pods;
    this.#processes = options.processes;
    this.#supervisor = options.supervisor;
    this.#resources = options.resources;
    this.#reconciler = options.reconciler;
    this.#ends = options.ends;
    this.#status = options.status;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  /** Status files that {@link restoreAll} could not read back. */
  get unreadable(): readonly StatusFileError[] {
    return this.#unreadable;
  }

  /** Restores every persisted pod the runtime does not know yet; returns their records. */
  async restoreAll(): Promise<PodRecord[]> {
    const { statuses, errors } = await readStatusFiles(`${this.#stateDir}/pods`);
    this.#unreadable = errors;
    for (const e of errors)
      this.#logger.warn({ file: e.file, error: e.message }, "cannot restore a pod status file");
    const restored: PodRecord[] = [];
    for (const status of statuses) {
      if (this.#pods.has(status.uid)) continue;
      const record = fromPersisted(status, this.#stateDir);
      this.#pods.set(status.uid, record);
      restored.push(record);
      if (this.#cgroups !== undefined && !record.removed) attachCgroups(this.#cgroups, record);
      const ended = this.#ends.endedBefore(status.uid);
      if (!record.final && ended !== undefined) {
        endAsJournalled(record, ended, this.#clock.now());
        this.#logger.warn(
          { pod: record.pod.key, uid: record.pod.uid, phase: record.phase, reason: record.reason },
          "the pod ended before the daemon stopped, but its status file could not say so: restored from the final-status journal, not started again",
        );
        this.#status.persist(record);
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
    return restored;
  }

  /**
   * A pod whose end the journal holds but whose status file never got written (its first write hit
   * a full filesystem): known again as it ended, and never started.
   */
  async restoreEnded(pod: RunnablePod, status: FinalStatus): Promise<void> {
    const record = newPodRecord(pod, this.#stateDir, podQos(pod));
    endAsJournalled(record, status, this.#clock.now());
    this.#pods.set(pod.uid, record);
    this.#logger.warn(
      { pod: pod.key, uid: pod.uid, phase: record.phase, reason: record.reason },
      "the pod ended in an earlier run, before its status file could be written: restored from the final-status journal, not started",
    );
    await this.#status.persistNow(record);
  }

  /** Adopts live containers and restarts dead ones of a pod that was running when the daemon stopped. */
  async #resume(record: PodRecord): Promise<void> {
    try {
      await this.#resources.setUp(record);
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
    this.#reconciler.reconcile(record);
  }
}
