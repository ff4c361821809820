/**
 * The processes of a pod's containers: start one (cgroup, writable directory, environment, argv,
 * oom_score_adj, log file), restart it after the back-off, notice its exit (as the parent, or by
 * polling a process adopted after a daemon restart), and sweep what an exited main process left.
 * The runtime decides what to start; this carries it out and reports back.
 */
import { appendFile, mkdir } from "node:fs/promises";
import type { ClockPort, LoggerPort } from "../app/ports.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { containerOomScoreAdj } from "../core/pod/oom-score-adj.js";
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import { containerArgv, containerEnv } from "./container-launch.js";
import { START_FAILED_EXIT, startContainerProcess, type ProcessExit } from "./container-process.js";
import { ensureContainerCgroup } from "./pod-cgroups.js";
import { volumeEnvName } from "./pod-paths.js";
import type { PodProcesses } from "./pod-processes.js";
import type { ContainerRecord, PodRecord } from "./pod-record.js";
import { readProcStat } from "../linux/procfs.js";
import { isSameProcessAlive } from "./proc-processes.js";
import { backoffStepsAfterRun, restartDelayMs, type BackoffPolicy } from "./restart-backoff.js";

/** Exit code reported for a container whose process vanished untracked (SIGKILL's 137, as the kubelet reports it). */
export const UNKNOWN_EXIT = 137;

/** What the supervisor tells the runtime. */
export interface SupervisorEvents {
  /** A container's state changed: recompute the phase and persist. */
  refresh(record: PodRecord): void;
  /** Persist only (a pid became known). */
  persist(record: PodRecord): void;
  /** A container exited and its state is recorded: decide what comes next. */
  exited(record: PodRecord): void;
  /** The kernel OOM-killed a container's main process (its cgroup's oom_kill count rose). */
  oomKilled(record: PodRecord, container: ContainerRecord): void;
  /**
   * About to decide something a kill would change (a restart after its back-off): kills sent from
   * elsewhere are taken in first (see `ProcessPodRuntimeOptions.takeInKills`).
   */
  catchUp(): void;
}

export interface SupervisorOptions {
  readonly cgroups: CgroupDriver | undefined;
  readonly node: NodeSpec;
  readonly clock: ClockPort;
  readonly logger: LoggerPort;
  readonly backoff: BackoffPolicy;
  readonly pollIntervalMs: number;
  readonly processes: PodProcesses;
  /** Aborted when the runtime closes: nothing is started or reported afterwards. */
  readonly closing: AbortSignal;
  readonly events: SupervisorEvents;
}

/** Read through a function so the compiler does not narrow it across an await. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

export class ContainerSupervisor {
  readonly #cgroups: CgroupDriver | undefined;
  readonly #node: NodeSpec;
  readonly #clock: ClockPort;
  readonly #logger: LoggerPort;
  readonly #backoff: BackoffPolicy;
  readonly #pollMs: number;
  readonly #processes: PodProcesses;
  readonly #closing: AbortSignal;
  readonly #events: SupervisorEvents;

  constructor(options: SupervisorOptions) {
    this.#cgroups = options.cgroups;
    this.#node = options.node;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#backoff = options.backoff;
    this.#pollMs = options.pollIntervalMs;
    this.#processes = options.processes;
    this.#closing = options.closing;
    this.#events = options.events;
  }

  /** Waits out the back-off, then starts the container again. */
  scheduleRestart(record: PodRecord, c: ContainerRecord): void {
    const now = this.#clock.now();
    const delay = restartDelayMs(this.#backoff, c.backoffSteps);
    const wait = Math.max(0, (c.finishedAt ?? now) + delay - now);
    c.state = "waiting";
    c.reason = "CrashLoopBackOff";
    c.timerPending = true;
    const generation = c.generation;
    this.#logger.info(
      { pod: record.pod.key, container: c.spec.name, delayMs: wait, restarts: c.restarts },
      "container back-off before restart",
    );
    void this.sleep(wait, record.abort.signal).then((completed) => {
      c.timerPending = false;
      this.#events.catchUp();
      if (
        !completed ||
        record.final ||
        record.terminating ||
        c.generation !== generation ||
        c.state !== "waiting"
      )
        return;
      c.backoffSteps++;
      c.restarts++;
      this.launch(record, c);
      this.#events.refresh(record);
    });
  }

  /** Starts one container (asynchronously: cgroup, directories, spawn); failing to start is an exit with StartError. */
  launch(record: PodRecord, c: ContainerRecord): void {
    const generation = ++c.generation;
    const previous = { state: c.state, reason: c.reason };
    c.state = "running";
    c.reason = undefined;
    c.pid = undefined;
    c.startTicks = undefined;
    c.startedAt = this.#clock.now();
    const { paths, pod } = record;
    const name = c.spec.name;
    void (async () => {
      try {
        const rootfs = paths.rootfs(name);
        await mkdir(rootfs, { recursive: true, mode: 0o755 });
        await mkdir(paths.logsDir, { recursive: true });
        const cgroup =
          this.#cgroups === undefined ? undefined : await ensureContainerCgroup(this.#cgroups, record, c);
        const volumeDirs = new Map(record.volumes.map((v) => [volumeEnvName(v.name), v.dir]));
        const env = containerEnv(pod, c.spec, rootfs, volumeDirs);
        const argv = containerArgv(c.spec, env);
        if ("error" in argv) {
          await appendFile(paths.log(name), `evictd: ${argv.error}\n`);
          void this.#exited(
            record,
            c,
            generation,
            { exitCode: START_FAILED_EXIT, signal: undefined },
            "StartError",
          );
          return;
        }
        const oomKillsAtStart =
          cgroup === undefined ? undefined : await this.#cgroups?.oomKills(cgroup).catch(() => undefined);
        // Checked right before spawning: a kill that began meanwhile must not race a new process.
        if (record.final || record.terminating || c.generation !== generation || this.#closing.aborted) {
          if (c.generation === generation) {
            c.state = previous.state === "unstarted" ? "unstarted" : "terminated";
            c.reason = previous.reason;
            this.#events.refresh(record);
          }
          return;
        }
        const capacity = this.#node.capacity.memoryBytes > 0n ? this.#node.capacity.memoryBytes : 1n;
        const started = startContainerProcess({
          argv,
          env,
          cwd: rootfs,
          procFiles:
            cgroup === undefined || this.#cgroups === undefined ? [] : this.#cgroups.procFiles(cgroup),
          oomScoreAdj: containerOomScoreAdj(pod, c.spec, capacity),
          logFile: paths.log(name),
        });
        c.pid = started.pid > 0 ? started.pid : undefined;
        c.oomKillsAtStart = oomKillsAtStart;
        // Resolves once the exit is recorded, not merely reported: a kill waiting on it then finds
        // the real exit code (137, not unknown), however slow the OOM-kill count is to read.
        c.exited = started.exited.then((exit) => this.#exited(record, c, generation, exit));
        if (c.pid !== undefined) c.startTicks = (await readProcStat(c.pid))?.startTimeTicks;
        this.#logger.info(
          { pod: pod.key, container: name, containerPid: c.pid, restarts: c.restarts },
          "container started",
        );
        this.#events.persist(record);
      } catch (error) {
        this.#logger.error(
          { pod: pod.key, container: name, error: String(error) },
          "container failed to start",
        );
        await appendFile(paths.log(name), `evictd: cannot start: ${String(error)}\n`).catch(() => undefined);
        void this.#exited(
          record,
          c,
          generation,
          { exitCode: START_FAILED_EXIT, signal: undefined },
          "StartError",
        );
      }
    })();
  }

  /**
   * Records an exit, kills what the main process left in the container, and reconciles; resolves
   * once the exit is recorded (never rejects).
   */
  #exited(
    record: PodRecord,
    c: ContainerRecord,
    generation: number,
    exit: ProcessExit,
    forcedReason?: string,
  ): Promise<void> {
    if (c.generation !== generation || c.state !== "running") return Promise.resolve();
    return (async () => {
      let reason = forcedReason ?? (exit.exitCode === 0 ? "Completed" : "Error");
      const cgroup = c.cgroup;
      if (
        forcedReason === undefined &&
        exit.signal === "SIGKILL" &&
        cgroup !== undefined &&
        c.oomKillsAtStart !== undefined
      ) {
        const kills = await this.#cgroups?.oomKills(cgroup).catch(() => undefined);
        if (kills !== undefined && kills > c.oomKillsAtStart) reason = "OOMKilled";
      }
      if (c.generation !== generation || c.state !== "running") return;
      // As a runtime tears down a container's pid namespace: nothing outlives its main process.
      const leftovers = await this.#processes.ofContainer(record, c);
      this.#processes.signal([c], leftovers, "SIGKILL");
      const now = this.#clock.now();
      c.state = "terminated";
      c.exitCode = exit.exitCode;
      c.reason = reason;
      c.finishedAt = now;
      c.backoffSteps = backoffStepsAfterRun(this.#backoff, c.backoffSteps, c.startedAt ?? now, now);
      c.pid = undefined;
      c.startTicks = undefined;
      this.#logger.info(
        { pod: record.pod.key, container: c.spec.name, exitCode: exit.exitCode, reason, leftovers },
        "container exited",
      );
      if (reason === "OOMKilled") this.#events.oomKilled(record, c);
      if (this.#closing.aborted) return;
      this.#events.exited(record);
    })().catch((error: unknown) => {
      this.#logger.warn(
        { pod: record.pod.key, container: c.spec.name, err: String(error) },
        "recording an exit failed",
      );
    });
  }

  /** Watches a process this daemon did not start (adopted after a restart) until it exits. */
  watchAdopted(record: PodRecord, c: ContainerRecord): void {
    const generation = c.generation;
    const pid = c.pid;
    if (pid === undefined) return;
    void (async () => {
      for (;;) {
        if (!(await this.sleep(this.#pollMs, this.#closing))) return;
        if (c.generation !== generation || c.state !== "running") return;
        if (!(await isSameProcessAlive(pid, c.startTicks))) {
          // Not our child: its exit status is lost, as the kubelet's is for a container it cannot find.
          const unknown = { exitCode: UNKNOWN_EXIT, signal: undefined };
          void this.#exited(record, c, generation, unknown, "ContainerStatusUnknown");
          return;
        }
      }
    })();
  }

  /** Sleeps on the clock; false when aborted. */
  async sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (isAborted(signal)) return false;
    try {
      await this.#clock.sleep(ms, signal);
    } catch {
      return false;
    }
    return !isAborted(signal);
  }
}
