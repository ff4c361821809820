/**
 * `evictd record --node NAME --duration 1h --interval 10s -o trace.jsonl`: a replayable trace of a
 * cluster node (see app/cluster/record-trace), appended line by line to the file. Progress goes to
 * stderr; warnings and retries too, as plain lines (as `explain` prints them; `watch`, a daemon,
 * logs JSON lines instead); Ctrl-C stops the recording and leaves a valid file.
 */
import { createTraceFile, type TraceFile } from "../../formats/scenario/compressed-scenario.js";
import { recordTrace } from "../../app/cluster/record-trace.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import { formatIssue, type Issue } from "../../core/issues.js";
import type { LoggerPort } from "../../app/ports.js";
import { EXIT, InputError } from "../../errors.js";
import {
  clusterEvictionSettings,
  connectOptions,
  durationOption,
  outputPathIssue,
  type ClusterCliOptions,
} from "./cluster-options.js";
import { systemClock } from "../../linux/system-clock.js";
import { TIMER_MAX_MS } from "../../core/time/timer-limit.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { terminalSafe } from "../output/terminal-text.js";
import { count } from "../../app/plural.js";

/**
 * Writes one plain line on stderr, made safe for a terminal (it may quote the API server); on a
 * terminal the progress line it would land on is cleared first (the next sample redraws it).
 */
function stderrLine(tty: boolean): (text: string) => void {
  return (text) => process.stderr.write(`${tty ? "\r\x1b[K" : ""}${terminalSafe(text)}\n`);
}

/**
 * record's log for the person who started it: a line each, `warning: ` before warnings, the
 * fields after the message in parentheses (`warning: sample 3 failed; the trace skips it (err: ...)`).
 */
function plainLog(line: (text: string) => void): LoggerPort {
  const at =
    (prefix: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      const details = Object.entries(fields)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
        .join(", ");
      line(`${prefix}${message}${details !== "" ? ` (${details})` : ""}`);
    };
  return { info: at(""), warn: at("warning: "), error: at("error: ") };
}

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
  const tty = process.stderr.isTTY;
  const line = stderrLine(tty);
  const log = plainLog(line);
  // Every retry is said as it happens, as explain says it.
  const api = await connectClusterNode({ ...connect, onRetry: (n) => line(`evictd: ${n.message}`) });
  const settings = await clusterEvictionSettings(api, opts.config);
  for (const w of settings.warnings) line(formatIssue(w));
  const stop = stopOnSignals();
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
      `${tty ? "\n" : ""}${r.interrupted ? "interrupted: " : ""}${count(r.steps, "sample")} written to ${opts.output}; replay with: evictd replay ${opts.output}\n`,
    );
    return EXIT.ok;
  } finally {
    stop.dispose();
    await file?.close();
  }
}
