/**
 * The runtime's in-memory record of one pod and its containers, and its conversions: to the
 * persisted status file, back from it, to the daemon's status view, and to the phase inputs.
 */
import type { PodStatusView } from "../app/node-view/snapshot.js";
import type { Container, QosClass } from "../core/model.js";
import type { ContainerCgroup, PodCgroup } from "../linux/cgroups/cgroup-driver.js";
import type { VolumeSetup } from "./emptydir-volumes.js";
import { podPhase, type ContainerPhaseState, type PodPhase } from "./pod-phase.js";
import { PodPaths } from "./pod-paths.js";
import {
  STATUS_FILE_VERSION,
  type ContainerKind,
  type PersistedContainer,
  type PersistedPodStatus,
  type PodCondition,
} from "./pod-status-file.js";
import { podRestartPolicy, type PodRestartPolicy, type RunnablePod } from "./runnable-pod.js";

/**
 * `unstarted`: not created yet. `running`: its main process lives. `waiting`: exited, and will be
 * restarted when its back-off expires. `terminated`: exited, and stays so.
 */
export type ContainerState = "unstarted" | "running" | "waiting" | "terminated";

/** A caller-given final status: eviction (phase Failed, reason Evicted, DisruptionTarget) or rejection. */
export interface GivenPodStatus {
  readonly phase: "Failed";
  readonly reason: string;
  readonly message: string;
  readonly conditions?: readonly PodCondition[];
}

/** A process that outlived SIGKILL, with its /proc state (`D`: uninterruptible sleep, waiting on I/O). */
export interface StuckProcess {
  readonly pid: number;
  readonly state: string;
}

/** A kill in progress: its SIGKILL deadline (a second kill may shorten it) and the status to write. */
export interface PendingKill {
  deadline: number;
  status: GivenPodStatus;
  readonly terminatedAt: number;
  done: Promise<{ ok: boolean; stuck: StuckProcess[] }>;
}

export interface ContainerRecord {
  readonly spec: Container;
  readonly kind: ContainerKind;
  state: ContainerState;
  restarts: number;
  backoffSteps: number;
  cgroup: ContainerCgroup | undefined;
  pid: number | undefined;
  /** The main process's start time in clock ticks after boot (`ProcStat.startTimeTicks`). */
  startTicks: number | undefined;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  exitCode: number | undefined;
  reason: string | undefined;
  /** Bumped at every start: exit reports of an earlier run are ignored. */
  generation: number;
  /** A restart timer (or an adopted process's exit poll) is pending. */
  timerPending: boolean;
  oomKillsAtStart: number | undefined;
  /** Resolves when the current run's process has exited (own children only). */
  exited: Promise<void> | undefined;
}

export interface PodRecord {
  pod: RunnablePod;
  readonly paths: PodPaths;
  readonly qos: QosClass;
  readonly policy: PodRestartPolicy;
  readonly containers: ContainerRecord[];
  cgroup: PodCgroup | undefined;
  volumes: VolumeSetup[];
  phase: PodPhase;
  reason: string | undefined;
  message: string | undefined;
  conditions: PodCondition[];
  startTime: number | undefined;
  /** Nothing of this pod is (re)started again: evicted, rejected, completed or removed. */
  final: boolean;
  /** Phase, reason and message were set by kill or reject and are not recomputed from the containers. */
  statusFixed: boolean;
  /** A kill is in progress: exits are recorded but not acted on. */
  terminating: boolean;
  initialized: boolean;
  /** Cgroups removed and volumes torn down. */
  removed: boolean;
  /** Cancels the pod's restart timers and exit polls. */
  abort: AbortController;
  /** The kill in progress, if any. */
  kill: PendingKill | undefined;
  /** Status writes, in order. */
  writes: Promise<void>;
  /** A write is queued and not started yet: it will carry the latest state. */
  writeQueued: boolean;
  /** The last status write failed; it is being tried again. */
  writeFailing: boolean;
}

function newContainer(spec: Container, kind: ContainerKind): ContainerRecord {
  return {
    spec,
    kind,
    state: "unstarted",
    restarts: 0,
    backoffSteps: 0,
    cgroup: undefined,
    pid: undefined,
    startTicks: undefined,
    startedAt: undefined,
    finishedAt: undefined,
    exitCode: undefined,
    reason: undefined,
    generation: 0,
    timerPending: false,
    oomKillsAtStart: undefined,
    exited: undefined,
  };
}

/** A fresh record: init containers (sidecars marked) in order, then the regular ones. */
export function newPodRecord(pod: RunnablePod, stateDir: string, qos: QosClass): PodRecord {
  return {
    pod,
    paths: new PodPaths(stateDir, pod.uid),
    qos,
    policy: podRestartPolicy(pod),
    containers: [
      ...pod.initContainers.map((c) => newContainer(c, c.restartPolicy === "Always" ? "sidecar" : "init")),
      ...pod.containers.map((c) => newContainer(c, "regular")),
    ],
    cgroup: undefined,
    volumes: [],
    phase: "Pending",
    reason: undefined,
    message: undefined,
    conditions: [],
    startTime: undefined,
    final: false,
    statusFixed: false,
    terminating: false,
    initialized: pod.initContainers.length === 0,
    removed: false,
    abort: new AbortController(),
    kill: undefined,
    writes: Promise.resolve(),
    writeQueued: false,
    writeFailing: false,
  };
}

function phaseState(c: ContainerRecord): ContainerPhaseState | undefined {
  switch (c.state) {
    case "unstarted":
      return undefined;
    case "running":
      return { state: "running" };
    case "waiting":
      return c.exitCode === undefined ? { state: "waiting" } : { state: "waiting", lastExitCode: c.exitCode };
    case "terminated":
      return { state: "terminated", exitCode: c.exitCode ?? 0 };
  }
}

/** The phase by the kubelet's rules, from the containers as they are now. */
export function computePhase(record: PodRecord): PodPhase {
  return podPhase({
    restartPolicy: record.policy,
    initContainers: record.containers
      .filter((c) => c.kind !== "regular")
      .map((c) => ({ sidecar: c.kind === "sidecar", status: phaseState(c) })),
    containers: record.containers.filter((c) => c.kind === "regular").map(phaseState),
    podHasInitialized: record.initialized,
    podIsTerminal: record.final,
  });
}

/** Container name → restart count. */
export function restartCounts(record: PodRecord): Record<string, number> {
  return Object.fromEntries(record.containers.map((c) => [c.spec.name, c.restarts]));
}

/** Replaces conditions of the same type, keeps the others (upstream upserts the DisruptionTarget condition). */
export function upsertConditions(
  current: readonly PodCondition[],
  updates: readonly PodCondition[],
): PodCondition[] {
  const out = current.filter((c) => !updates.some((u) => u.type === c.type));
  return [...out, ...updates];
}

function toPersistedContainer(c: ContainerRecord): PersistedContainer {
  return {
    name: c.spec.name,
    kind: c.kind,
    // `unstarted` persists as waiting without a last run: the next daemon starts it.
    state: c.state === "unstarted" ? "waiting" : c.state,
    restarts: c.restarts,
    backoffSteps: c.backoffSteps,
    ...(c.pid !== undefined && c.state === "running" ? { pid: c.pid } : {}),
    ...(c.startTicks !== undefined && c.state === "running" ? { startTicks: String(c.startTicks) } : {}),
    ...(c.startedAt !== undefined ? { startedAt: c.startedAt } : {}),
    ...(c.finishedAt !== undefined ? { finishedAt: c.finishedAt } : {}),
    ...(c.exitCode !== undefined ? { exitCode: c.exitCode } : {}),
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  };
}

export function toPersisted(record: PodRecord): PersistedPodStatus {
  return {
    version: STATUS_FILE_VERSION,
    uid: record.pod.uid,
    phase: record.phase,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.message !== undefined ? { message: record.message } : {}),
    conditions: record.conditions,
    qosClass: record.qos,
    ...(record.startTime !== undefined ? { startTime: new Date(record.startTime).toISOString() } : {}),
    restarts: restartCounts(record),
    final: record.final,
    statusFixed: record.statusFixed,
    initialized: record.initialized,
    containers: record.containers.map(toPersistedContainer),
    pod: record.pod,
  };
}

/** A record restored from its status file; processes and cgroups are re-attached by the runtime. */
export function fromPersisted(status: PersistedPodStatus, stateDir: string): PodRecord {
  const record = newPodRecord(status.pod, stateDir, status.qosClass);
  record.phase = status.phase;
  record.reason = status.reason;
  record.message = status.message;
  record.conditions = [...status.conditions];
  const start = status.startTime === undefined ? Number.NaN : Date.parse(status.startTime);
  record.startTime = Number.isFinite(start) ? start : undefined;
  record.final = status.final;
  record.statusFixed = status.statusFixed === true;
  record.initialized = status.initialized;
  for (const c of record.containers) {
    const saved = status.containers.find((s) => s.name === c.spec.name);
    if (saved === undefined) continue;
    // Waiting without a last run was never started.
    c.state = saved.state === "waiting" && saved.exitCode === undefined ? "unstarted" : saved.state;
    c.restarts = saved.restarts;
    c.backoffSteps = saved.backoffSteps;
    c.pid = saved.pid;
    // Persisted as a decimal string; one that is not a tick count identifies no process.
    const ticks = saved.startTicks === undefined ? Number.NaN : Number(saved.startTicks);
    c.startTicks = Number.isSafeInteger(ticks) ? ticks : undefined;
    c.startedAt = saved.startedAt;
    c.finishedAt = saved.finishedAt;
    c.exitCode = saved.exitCode;
    c.reason = saved.reason;
  }
  return record;
}

/** The daemon's view of a pod (`PodStatusView`). */
export function toStatusView(record: PodRecord): PodStatusView {
  return {
    pod: record.pod,
    phase: record.phase,
    ...(record.reason !== undefined ? { reason: record.reason } : {}),
    ...(record.message !== undefined ? { message: record.message } : {}),
    conditions: record.conditions,
    qosClass: record.qos,
    restarts: restartCounts(record),
  };
}
