/**
 * Recording a cluster node (`evictd record`): samples its Summary every interval for a duration and
 * writes a replay scenario (JSONL, docs/replay-format.md): the kubelet's configuration, the Node,
 * the pods at the start, then one step per sample with the pods that arrived and left. Lines go to
 * a sink whole, one call each, so a file appended to is a valid scenario whenever it is read, also
 * after an interrupt. A sample that cannot be read is skipped and counted, not fatal; a line that
 * cannot be written (a full disk) ends the recording with the sink's error.
 */
import { formatDurationMs } from "../../core/time/duration.js";
import type { ClockPort, LoggerPort } from "../ports.js";
import type { ClusterNodePort } from "./cluster-node-port.js";
import type { ClusterEvictionSettings } from "./eviction-settings.js";
import { NodePodSet } from "./node-pod-set.js";
import { traceEnvironment } from "./trace-environment.js";
import { TraceRecorder } from "./trace-recorder.js";

export interface RecordOptions {
  readonly api: ClusterNodePort;
  /** The settings the header records (configz, or a file given instead); their warnings are not logged here. */
  readonly settings: ClusterEvictionSettings;
  /** Where the trace goes, for progress lines. */
  readonly output: string;
  /** Whole Summaries, or what the engine reads (the default; see TraceHeader.summaries). */
  readonly summaries?: "lean" | "full";
  /** Starts the trace afresh (an earlier file of that name would otherwise mix with this recording). */
  readonly truncate: () => void;
  /** Appends one whole JSONL line; a throw (the file cannot take it) ends the recording with that error. */
  readonly append: (line: string) => void;
  readonly durationMs: number;
  readonly intervalMs: number;
  readonly log: LoggerPort;
  readonly signal: AbortSignal;
  /** One line of progress (stderr on a terminal). */
  readonly progress?: (line: string) => void;
  readonly clock: ClockPort;
}

export interface RecordResult {
  readonly steps: number;
  readonly failedSamples: number;
  readonly interrupted: boolean;
}

/** Records until the duration is over or `signal` aborts; resolves with what was written. */
export async function recordTrace(o: RecordOptions): Promise<RecordResult> {
  // The settings' warnings are the caller's to print (record prints them as explain does).
  const { api, clock, log, settings } = o;
  const node = await api.node(o.signal);

  const podSet = new NodePodSet({ api, clock, log });
  // A sample that cannot be read is skipped; a line that cannot be written ends the recording.
  let writeFailure: { error: unknown } | undefined;
  const append = (line: string): void => {
    try {
      o.append(line);
    } catch (error) {
      writeFailure = { error };
      throw error;
    }
  };
  const background = new AbortController();
  const watching = podSet.run(background.signal);
  try {
    await podSet.list(o.signal);
    const start = clock.now();
    o.truncate();
    const recorder = new TraceRecorder(
      {
        start,
        config: settings.document,
        flags: settings.flags,
        node,
        ...traceEnvironment(node, settings),
        evictedPods: "remove",
        pods: podSet.active(),
        summaries: o.summaries ?? "lean",
      },
      append,
    );
    let failedSamples = 0;
    const total = Math.floor(o.durationMs / o.intervalMs) + 1;
    for (let i = 0; i < total && !o.signal.aborted; i++) {
      const due = start + i * o.intervalMs;
      if (clock.now() < due) await clock.sleep(due - clock.now(), o.signal);
      if (o.signal.aborted) break;
      const now = clock.now();
      try {
        const summary = await api.summary(o.signal);
        recorder.step({ now, summary, activePods: podSet.active() });
      } catch (e) {
        if (writeFailure !== undefined) throw writeFailure.error;
        if (o.signal.aborted) break;
        failedSamples++;
        log.warn({ err: String(e) }, `sample ${i + 1} failed; the trace skips it`);
      }
      o.progress?.(
        `recorded ${recorder.steps}/${total} samples (${formatDurationMs(now - start)} of ${formatDurationMs(o.durationMs)}) to ${o.output}${failedSamples > 0 ? `, ${failedSamples} failed` : ""}`,
      );
    }
    return { steps: recorder.steps, failedSamples, interrupted: o.signal.aborted };
  } finally {
    background.abort();
    await watching.catch(() => undefined);
  }
}
