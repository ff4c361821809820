/**
 * `evictd record --node NAME --duration 1h --interval 10s -o trace.jsonl`: a replayable trace of a
 * cluster node (see app/cluster/record-trace), appended line by line to the file. Progress goes to
 * stderr; Ctrl-C stops the recording and leaves a valid file.
 */
import { createTraceFile, type TraceFile } from "../../formats/scenario/compressed-scenario.js";
import { destination, pino } from "pino";
import { recordTrace } from "../../app/cluster/record-trace.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import type { Issue } from "../../core/issues.js";
import { EXIT, InputError } from "../../errors.js";
import {
  clusterEvictionSettings,
  connectOptions,
  durationOption,
  outputPathIssue,
  type ClusterCliOptions,
} from "./cluster-options.js";
import { systemClock } from "../system-clock.js";
import { TIMER_MAX_MS } from "../../core/time/timer-limit.js";
import { stopOnSignals } from "../stop-on-signals.js";

export async function recordCommand(
  opts: ClusterCliOptions & { duration: string; interval: string; output: string; fullSummaries?: boolean },
): Promise<number> {
  const issues: Issue[] = [];
  const connect = connectOptions(opts, issues);
  const durationMs = durationOption("--duration", opts.duration, issues, 0);
  const intervalMs = durationOption("--interval", opts.interval, issues, 100, TIMER_MAX_MS);
  if (opts.output.trim() === "")
    issues.push({ severity: "error", path: "--output", code: "invalid", message: "expected a file name" });
  else outputPathIssue("--output", opts.output, issues);
  if (issues.length > 0) throw new InputError(issues);
  const log = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime }, destination(2));
  const api = await connectClusterNode({
    ...connect,
    onRetry: (n) =>
      log.warn({ method: n.method, path: n.path, attempt: n.attempt, retryInMs: n.retryInMs }, n.message),
  });
  const settings = await clusterEvictionSettings(api, opts.config);
  const stop = stopOnSignals();
  const tty = process.stderr.isTTY;
  let file: TraceFile | undefined;
  try {
    const r = await recordTrace({
      api,
      settings,
      output: opts.output,
      summaries: opts.fullSummaries === true ? "full" : "lean",
      truncate: () => {
        file = createTraceFile(opts.output);
      },
      append: (line) => file?.write(line),
      durationMs,
      intervalMs,
      log,
      signal: stop.signal,
      clock: systemClock,
      progress: (line) => process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`),
    });
    process.stderr.write(
      `${tty ? "\n" : ""}${r.interrupted ? "interrupted: " : ""}${r.steps} sample(s) written to ${opts.output}; replay with: evictd replay ${opts.output}\n`,
    );
    return EXIT.ok;
  } finally {
    stop.dispose();
    await file?.close();
  }
}
