/**
 * The kill of a pod, as the kubelet's `killPodNow`: SIGTERM to every process of the pod (sent here,
 * or by another thread that says so), no restart from then on, SIGKILL to what is left after the
 * grace period, then the final status as given. A second kill of a terminating pod can only shorten
 * the grace period; a kill of a pod that has already finished changes nothing, and one of a pod
 * never started here only writes its status. And the stop of what of a finished pod still runs (its
 * sidecars once it completed, its leftovers before its deletion): SIGTERM, SIGKILL after the pod's
 * grace period.
 */
import type { ClockPort, KillResult, LoggerPort } from "../app/ports.js";
import { podQos } from "../core/pod/qos.js";
import { UNKNOWN_EXIT } from "./container-supervisor.js";
import type { PodEnds } from "./pod-ends.js";
import type { PodProcesses } from "./pod-processes.js";
import {
  newPodRecord,
  type GivenPodStatus,
  type PendingKill,
  type PodRecord,
  type StuckProcess,
} from "./pod-record.js";
import type { PodStatusWriter } from "./pod-status-writer.js";
import type { RunnablePod } from "./runnable-pod.js";

/** Bounded wait for the exit reports of our own children once their processes are gone. */
const EXIT_REPORT_WAIT_MS = 1000;

/** Where and when SIGTERM was sent. */
export interface SentSigterm {
  readonly pids: readonly number[];
  readonly terminatedAt: number;
}

export interface PodKillerOptions {
  readonly stateDir: string;
  /** The runtime's pods by UID: a kill of a pod never started here adds it, with its final status. */
  readonly pods: Map<string, PodRecord>;
  readonly processes: PodProcesses;
  readonly clock: ClockPort;
  readonly logger: LoggerPort;
  /** How long to wait after SIGKILL before reporting processes as stuck. */
  readonly killTimeoutMs: number;
  readonly ends: PodEnds;
  readonly status: PodStatusWriter;
  /** Sleeps on the runtime's clock (a bounded wait: never aborted). */
  readonly sleep: (ms: number) => Promise<unknown>;
  /** Called when a pod stops being active (what the stats collector and the loop are told changes). */
  readonly onPodsChanged: () => void;
}

/**
 * Whether the pod has finished (Succeeded or Failed: completed, evicted, rejected) and no kill is
 * under way: nothing of it runs again, and its status is what it ended with.
 */
export function hasFinished(record: PodRecord): boolean {
  return record.final && !record.terminating;
}

/** Kills pods and stops finished pods' leftovers; see the module comment. */
export class PodKiller {
  readonly #stateDir: string;
  readonly #pods: Map<string, PodRecord>;
  readonly #processes: PodProcesses;
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  readonly #killTimeoutMs: number;
  readonly #ends: PodEnds;
  readonly #status: PodStatusWriter;
  readonly #sleep: (ms: number) => Promise<unknown>;
  readonly #onPodsChanged: () => void;

  constructor(options: PodKillerOptions) {
    this.#stateDir = options.stateDir;
    this.#pods = options.pods;
    this.#processes = options.processes;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#killTimeoutMs = options.killTimeoutMs;
    this.#ends = options.ends;
    this.#status = options.status;
    this.#sleep = options.sleep;
    this.#onPodsChanged = options.onPodsChanged;
  }

  /** Kills the pod, sending SIGTERM from here (see `ProcessPodRuntime.kill`). */
  async kill(pod: RunnablePod, gracePeriodSeconds: number, status: GivenPodStatus): Promise<KillResult> {
    const record = this.#pods.get(pod.uid);
    if (record !== undefined && hasFinished(record)) return this.#nothingToKill(record);
    if (record === undefined || record.kill !== undefined) {
      const result = this.signalled(pod, gracePeriodSeconds, status, {
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
    this.#ends.record(record, { ...status, conditions: status.conditions ?? [], statusFixed: true });
    let pids = this.#processes.ofPodNow(record);
    if (pids === undefined) {
      // Finding the processes takes a /proc scan: no restart may start meanwhile.
      record.abort.abort();
      pids = await this.#processes.ofPod(record);
    }
    this.#processes.signal(record.containers, pids, "SIGTERM");
    return this.#underway(record, gracePeriodSeconds, status, { pids, terminatedAt: this.#clock.now() });
  }

  /**
   * Takes in a kill whose SIGTERM was sent elsewhere (see `ProcessPodRuntime.killSignalled`).
   * Synchronous, so it can be taken in from within an exit handler.
   */
  signalled(
    pod: RunnablePod,
    gracePeriodSeconds: number,
    status: GivenPodStatus,
    sent: SentSigterm,
  ): KillResult {
    const graceMs = Math.max(0, gracePeriodSeconds) * 1000;
    let record = this.#pods.get(pod.uid);
    if (record === undefined) {
      // Never started here: only the status to write.
      record = newPodRecord(pod, this.#stateDir, podQos(pod));
      this.#pods.set(pod.uid, record);
      this.#ends.fix(record, status);
      this.#status.persist(record);
      const written = record.writes.then(() => ({ ok: true, stuck: [] }));
      return { terminatedAt: sent.terminatedAt, done: written };
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
    this.#ends.recordedElsewhere(record.pod.uid);
    return this.#underway(record, gracePeriodSeconds, status, sent);
  }

  /**
   * SIGTERM to whatever of a finished pod still runs, SIGKILL after the pod's grace period; resolves
   * once none is left, or with what survived SIGKILL logged (`when` says when it happened).
   */
  async stopLeftovers(record: PodRecord, when: string): Promise<void> {
    const left = await this.#processes.ofPod(record);
    if (left.length === 0) return;
    this.#processes.signal(record.containers, left, "SIGTERM");
    const deadline = this.#clock.now() + record.pod.terminationGracePeriodSeconds * 1000;
    const stuck = await this.#processes.waitGone(record, { deadline }, this.#killTimeoutMs);
    if (stuck.length > 0)
      this.#logger.warn({ pod: record.pod.key, stuck }, `processes survived SIGKILL ${when}`);
  }

  /**
   * A kill of a pod that has already finished: its status stays what it was and nothing is left to
   * wait for (the same answer as a dry run's kill). What of it may still run (sidecars being
   * stopped, processes that outlived an earlier kill) is its completion's, or its deletion's
   * (`ProcessPodRuntime.forget`), to stop.
   */
  #nothingToKill(record: PodRecord): KillResult {
    this.#logger.info(
      { pod: record.pod.key, uid: record.pod.uid, phase: record.phase, reason: record.reason },
      "kill ignored: the pod has already finished",
    );
    return { terminatedAt: this.#clock.now(), done: Promise.resolve({ ok: true, stuck: [] }) };
  }

  /** After SIGTERM: no restart, the grace period, SIGKILL, then the final status. */
  #underway(
    record: PodRecord,
    gracePeriodSeconds: number,
    status: GivenPodStatus,
    sent: SentSigterm,
  ): KillResult {
    // After SIGTERM, so the supervisor's abort listeners (restart timers, polls) do not delay it. No
    // exit is handled in between: a child's exit reaches this process in a later turn of the loop.
    record.abort.abort();
    const { pids, terminatedAt } = sent;
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
    kill.done = this.#finish(record, kill);
    this.#onPodsChanged();
    return { terminatedAt, done: kill.done };
  }

  /** Waits for the pod's processes to go (SIGKILL past the deadline), then writes the final status. */
  async #finish(record: PodRecord, kill: PendingKill): Promise<{ ok: boolean; stuck: StuckProcess[] }> {
    const stuck = await this.#processes.waitGone(record, kill, this.#killTimeoutMs);
    // Give our own children's exit reports a moment to arrive, so exit codes are the real ones.
    const reports = record.containers.flatMap((c) =>
      c.state === "running" && c.exited !== undefined ? [c.exited] : [],
    );
    if (reports.length > 0) await Promise.race([Promise.all(reports), this.#sleep(EXIT_REPORT_WAIT_MS)]);
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
    this.#ends.fix(record, kill.status);
    record.terminating = false;
    record.kill = undefined;
    await this.#status.persistNow(record);
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
}
