/**
 * What `evictd run`'s two threads say to each other. The loop thread runs the eviction loop (stats,
 * kernel wake-ups, the engine) and sends SIGTERM itself; the main thread runs the pods (the process
 * runtime, manifests), HTTP, metrics, the decision log and the log. Everything here is plain,
 * structured-clonable data.
 */
import type { MessagePort } from "node:worker_threads";
import type { LoopStepData } from "../../app/loop/loop-step-data.js";
import type { FailedPodStatus } from "../../app/ports.js";
import type { PodMemoryFigures } from "../../app/node-view/pod-memory-figures.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import type { FilesystemLayout } from "../../core/model.js";
import type { NodeSpec } from "../../core/node/node-spec.js";
import { AdapterError } from "../../errors.js";
import type { CgroupDetection } from "../../linux/cgroups/detect-cgroups.js";
import type { ActivePodInfo } from "../../linux/node-stats/active-pod-info.js";
import type { PodSignalTarget } from "../../runtime/pod-processes.js";
import type { RunnablePod } from "../../runtime/runnable-pod.js";
import type { JournalShare } from "../../runtime/final-status-journal.js";

/** The pods the loop decides about, and where they are. Sent at spawn and whenever they change. */
export interface PodsUpdate {
  /** The active pods, in the runtime's stable order (ties in a ranking keep it). */
  readonly active: readonly RunnablePod[];
  /**
   * What the stats collector measures for each active pod; absent without cgroups, where a pod's
   * processes are found by a /proc scan at each read (the loop thread asks for them then).
   */
  readonly targets?: readonly ActivePodInfo[];
  /** Where each active pod's processes are, so that the loop thread can signal them itself. */
  readonly signal: readonly PodSignalTarget[];
}

/** Handed to the loop thread at spawn (`workerData`). */
export interface LoopThreadInit {
  readonly node: NodeSpec;
  readonly layout: FilesystemLayout;
  readonly dryRun: boolean;
  /**
   * The node's cgroup subtree, created by the main thread (the loop thread attaches to it), and the
   * cgroups the daemon was started in, as the main thread found them before it created the node (on
   * cgroup v2 creating it may move the daemon to a leaf of its own cgroup, where detecting again
   * would place the node wrong); absent without cgroups.
   */
  readonly cgroups?: { readonly nodeName: string; readonly detection: CgroupDetection };
  readonly pods: PodsUpdate;
  /** The final-status journal, where the loop records an eviction before its SIGTERM; absent in a dry run. */
  readonly journal?: JournalShare;
  /**
   * Kill notices travel on this port of their own (transferred), so the main thread can take them
   * in synchronously, and only them, before it handles a container's exit.
   */
  readonly kills: MessagePort;
}

/** Main → loop thread. */
export type ToLoopThread =
  | ({ readonly type: "pods" } & PodsUpdate)
  | { readonly type: "reply"; readonly id: number; readonly value?: unknown; readonly error?: ErrorData }
  /** The end of a kill the loop thread asked for: the pod is gone, or processes survived SIGKILL. */
  | {
      readonly type: "killDone";
      readonly id: number;
      readonly ok: boolean;
      readonly stuck: readonly { readonly pid: number; readonly state: string }[];
    }
  /** The Summary API object the last step decided from is wanted (for /status and /stats/summary). */
  | { readonly type: "summaryWanted"; readonly id: number }
  | { readonly type: "stop" };

/** What the loop thread asks the main thread to do and waits for. */
export type LoopRequest =
  | { readonly op: "isCleanedUp"; readonly uid: string }
  | { readonly op: "containerGC" }
  | { readonly op: "imageGC" }
  /** The stats collector's pod descriptions, without cgroups (found through /proc at each read). */
  | { readonly op: "statsTargets" };

/** Loop thread → main. */
export type FromLoopThread =
  | { readonly type: "ready"; readonly capabilities: readonly string[] }
  | {
      readonly type: "log";
      readonly level: "info" | "warn" | "error";
      readonly fields: Record<string, unknown>;
      readonly message: string;
      /** When the loop thread said it (its clock): the line is dated then, however late it is written. */
      readonly at: number;
    }
  /**
   * One synchronize, numbered. The Summary API object it decided from stays here until asked for
   * (`summaryWanted`): a 110-pod Summary copied to the main thread every second would cost both
   * threads more than the step itself, and only an HTTP request reads it.
   */
  | { readonly type: "step"; readonly seq: number; readonly step: LoopStepData }
  /** The answer to `summaryWanted`: the Summary of step `seq` (undefined before the first step). */
  | ({ readonly type: "summary"; readonly id: number } & LastSummary)
  | { readonly type: "request"; readonly id: number; readonly request: LoopRequest }
  /** The status a pod being killed is to be left with, worded again from fresher figures. */
  | { readonly type: "restate"; readonly uid: string; readonly status: FailedPodStatus }
  /** The loop could not start or ended on an error; the thread ends. */
  | { readonly type: "failed"; readonly error: ErrorData }
  /** The loop stopped as asked and released what it held (wake sources, descriptors). */
  | { readonly type: "stopped" };

/** The answer to `summaryWanted`, as the main thread keeps it. */
export interface LastSummary {
  readonly seq: number;
  readonly raw: unknown;
  /**
   * The node's memory three ways (the kubelet's formula, MemAvailable, with kernel memory), read
   * when the thread answered: evictd's additions for /status, never a decision's input. Absent
   * without cgroups or when they could not be read.
   */
  readonly nodeMemoryViews?: NodeMemoryViewsReading;
  /** Each pod's last working set read, as of step `seq` (app/node-view/last-pod-memory.ts). */
  readonly podMemory?: PodMemoryFigures;
}

/** Loop thread → main, on the kills port: a pod the loop evicts. Answered by a `reply` (`{terminatedAt}`), then `killDone`. */
export interface KillNotice {
  readonly id: number;
  /** The pod as the loop knows it (the runtime's own record of it is used when it has one). */
  readonly pod: RunnablePod;
  readonly gracePeriodSeconds: number;
  readonly status: FailedPodStatus;
  /**
   * Present when SIGTERM is sent by the loop thread (pods in cgroups): to these processes, at this
   * time; the notice is posted just before the signal, so it is there to take in when they exit.
   * Absent: the main thread's runtime kills the pod (no cgroups; or nothing at all in a dry run).
   */
  readonly signalled?: { readonly pids: readonly number[]; readonly terminatedAt: number };
}

/** An error as data, for the other side to throw again. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly hint?: string;
  readonly stack?: string;
}

export function errorData(error: unknown): ErrorData {
  if (error instanceof AdapterError)
    return {
      name: error.name,
      message: error.message,
      code: error.code,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      ...(error.stack !== undefined ? { stack: error.stack } : {}),
    };
  if (error instanceof Error)
    return {
      name: error.name,
      message: error.message,
      ...(error.stack !== undefined ? { stack: error.stack } : {}),
    };
  return { name: "Error", message: String(error) };
}

/** The error again: an `AdapterError` stays one (exit 3 with its hint); anything else is a plain Error (a bug). */
export function errorFromData(data: ErrorData): Error {
  const error =
    data.code !== undefined
      ? new AdapterError(data.code, data.message, data.hint !== undefined ? { hint: data.hint } : {})
      : Object.assign(new Error(data.message), { name: data.name });
  if (data.stack !== undefined) error.stack = data.stack;
  return error;
}
