/**
 * `watch --record FILE`: the replayable trace of what the loop acted on. Its header holds the
 * eviction settings, the Node (left out, with a warning, when it cannot be read), the node's
 * environment and the pods listed at the start; each step's line follows the step's kills, so the
 * reads it adds (the node's memory three ways, with --stats cgroups) never delay an eviction.
 */
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import type { EnforceMode } from "../../app/cluster/cluster-pods.js";
import type { ClusterEvictionSettings } from "../../app/cluster/eviction-settings.js";
import { traceEnvironment } from "../../app/cluster/trace-environment.js";
import { TraceRecorder, traceStepOf } from "../../app/cluster/trace-recorder.js";
import type { LoopStep } from "../../app/loop/eviction-loop.js";
import type { LoggerPort } from "../../app/ports.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { createTraceFile } from "../../formats/scenario/compressed-scenario.js";

export interface WatchTraceOptions {
  readonly file: string;
  readonly api: ClusterNodePort;
  readonly settings: ClusterEvictionSettings;
  readonly startedAt: number;
  /** Shadow mode keeps the pods it would have evicted in the trace; the acting modes remove them. */
  readonly mode: EnforceMode;
  /** The pods on the node at the start (the API's objects). */
  readonly pods: readonly unknown[];
  /** Whole Summaries instead of what the engine reads (`--full-summaries`). */
  readonly fullSummaries: boolean;
  /** The node's cgroup API, with --stats cgroups. */
  readonly cgroupVersion?: 1 | 2;
  /** Reads the node's memory three ways, with --stats cgroups. */
  readonly readNodeMemoryViews?: () => NodeMemoryViewsReading | undefined;
  readonly log: LoggerPort;
  readonly signal: AbortSignal;
}

export interface WatchTrace {
  /** Writes the line of a step that read a sample, with the pods active now. */
  step(step: LoopStep, activePods: readonly unknown[]): void;
  /** Lines written after the header. */
  readonly steps: number;
  close(): Promise<void>;
}

/** Reads the Node, creates the file and writes the header. */
export async function openWatchTrace(o: WatchTraceOptions): Promise<WatchTrace> {
  const node = await o.api.node(o.signal).catch((e: unknown) => {
    o.log.warn({ err: String(e) }, "cannot read the Node object for the trace; recording without it");
    return undefined;
  });
  const file = createTraceFile(o.file);
  let recorder: TraceRecorder;
  try {
    recorder = new TraceRecorder(
      {
        start: o.startedAt,
        config: o.settings.document,
        flags: o.settings.flags,
        ...(node !== undefined ? { node } : {}),
        ...traceEnvironment(node, o.settings, o.cgroupVersion),
        evictedPods: o.mode === "shadow" ? "keep" : "remove",
        pods: o.pods,
        summaries: o.fullSummaries ? "full" : "lean",
      },
      (line) => file.write(line),
    );
  } catch (error) {
    // The header could not be written: the file is closed all the same (without a whole line, removed).
    await file.close();
    throw error;
  }
  return {
    step: (step, activePods) => {
      const traced = traceStepOf(step, activePods, o.readNodeMemoryViews);
      if (traced !== undefined) recorder.step(traced);
    },
    get steps() {
      return recorder.steps;
    },
    close: () => file.close(),
  };
}
