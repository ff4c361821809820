/**
 * `evictd record --node NAME`: samples a cluster node's Summary every interval for a duration and
 * writes a replay scenario (JSONL, docs/replay-format.md): the kubelet's configuration from
 * configz, the Node, the pods at the start, then one step per sample with the pods that arrived
 * and left. Every line is appended whole, so the file is a valid scenario whenever it is read,
 * also after an interrupt.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { NodePodSet } from "../../app/cluster/node-pod-set.js";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { TraceRecorder } from "../../app/cluster/trace-recorder.js";
import type { ClockPort, LoggerPort } from "../../app/ports.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { clusterEvictionSettings } from "./cluster-options.js";

export interface RecordOptions {
  readonly api: ClusterNodePort;
  readonly output: string;
  readonly durationMs: number;
  readonly intervalMs: number;
  readonly configFile?: string;
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

export async function runRecord(o: RecordOptions): Promise<RecordResult> {
  const { api, clock, log } = o;
  const settings = await clusterEvictionSettings(api, o.configFile);
  for (const w of settings.warnings) log.warn({ path: w.path, file: w.file }, w.message);
  const node = await api.node(o.signal);

  const podSet = new NodePodSet({ api, clock, log });
  const background = new AbortController();
  const watching = podSet.run(background.signal);
  try {
    await podSet.list(o.signal);
    const start = clock.now();
    // Truncate first: an earlier file of that name would otherwise mix with this recording.
    writeFileSync(o.output, "");
    const recorder = new TraceRecorder(
      {
        start,
        config: settings.document,
        flags: settings.flags,
        node,
        evictedPods: "remove",
        pods: podSet.active(),
      },
      (line) => appendFileSync(o.output, line),
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
