/**
 * `evictd import prometheus --url URL --node NAME --from T1 [--to T2] [--step 10s] -o trace.jsonl.br`:
 * a node's past rebuilt from Prometheus as the trace `evictd record` writes (app/import). The trace
 * is written to a hidden file beside the output and renamed over it when complete, so an error or
 * an interrupt leaves nothing half-written. Wiring only: options checked (every problem at once,
 * before any query), the HTTP adapter, the importer.
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { importPrometheus } from "../../app/import/import-prometheus.js";
import type { Issue } from "../../core/issues.js";
import { BUILTIN_PRIORITY_CLASSES } from "../../core/pod/critical.js";
import { parseRfc3339 } from "../../core/time/rfc3339.js";
import { durationToMs, parseGoDuration } from "../../core/time/duration.js";
import { EXIT, InputError } from "../../errors.js";
import { loadKubeletConfigFile } from "../../formats/load-kubelet-config-file.js";
import { createTraceFile, type TraceFile } from "../../formats/scenario/compressed-scenario.js";
import { connectPrometheus, redactedUrl } from "../../prometheus/prometheus-http-api.js";
import { durationOption, outputPathIssue } from "./cluster-options.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { systemClock } from "../../linux/system-clock.js";
import { count } from "../../app/plural.js";

export interface ImportPrometheusCliOptions {
  readonly url: string;
  readonly node: string;
  readonly from: string;
  readonly to: string;
  readonly step: string;
  readonly output: string;
  readonly config?: string;
  readonly priorityClass: readonly string[];
  readonly nodeLabel: string;
  readonly nodeExporterLabel: string;
  readonly nodefsMountpoint: string;
  readonly imagefsMountpoint: string;
  readonly lookback?: string;
  readonly chunk: string;
  readonly bearerTokenFile?: string;
  readonly caFile?: string;
  readonly requestTimeout: string;
}

/** The shell's code for a command ended by SIGINT: an interrupted import writes nothing. */
const EXIT_INTERRUPTED = 130;

const issue = (path: string, message: string): Issue => ({
  severity: "error",
  path,
  code: "option",
  message,
});

/** RFC 3339, `now`, or `now-DURATION` (a Go duration: `now-168h`). */
function timeOption(name: string, value: string, now: number, issues: Issue[]): number {
  const v = value.trim();
  if (v === "now") return now;
  const rel = /^now-(.+)$/.exec(v);
  if (rel !== null) {
    try {
      return now - durationToMs(parseGoDuration(rel[1] as string));
    } catch {
      // falls through to the error below
    }
  } else {
    const t = parseRfc3339(v);
    if (typeof t === "number") return t;
  }
  issues.push(
    issue(
      name,
      `expected an RFC 3339 time (2026-11-20T08:00:00Z), now or now-DURATION (now-24h), got ${JSON.stringify(value)}`,
    ),
  );
  return now;
}

/** No PriorityClass is above the highest built-in one, system-node-critical. */
const HIGHEST_PRIORITY = Math.max(...Object.values(BUILTIN_PRIORITY_CLASSES));

function priorityClassOption(values: readonly string[], issues: Issue[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of values) {
    const m = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?)=(-?\d+)$/.exec(v);
    const value = m === null ? NaN : Number(m[3]);
    if (m === null || !Number.isSafeInteger(value) || value > HIGHEST_PRIORITY || value < -2_147_483_648)
      issues.push(
        issue(
          "--priority-class",
          `expected NAME=VALUE (a PriorityClass name and its integer value), got ${JSON.stringify(v)}`,
        ),
      );
    else out.set(m[1] as string, value);
  }
  return out;
}

export async function importPrometheusCommand(opts: ImportPrometheusCliOptions): Promise<number> {
  const issues: Issue[] = [];
  const now = systemClock.now();
  const fromMs = timeOption("--from", opts.from, now, issues);
  const toMs = timeOption("--to", opts.to, now, issues);
  if (issues.length === 0 && toMs <= fromMs)
    issues.push(issue("--to", `must be after --from (${opts.from} .. ${opts.to})`));
  const stepMs = durationOption("--step", opts.step, issues, 1000);
  const chunkMs = durationOption("--chunk", opts.chunk, issues, 60_000);
  const requestTimeoutMs = durationOption("--request-timeout", opts.requestTimeout, issues, 1000);
  const lookbackMs =
    opts.lookback !== undefined ? durationOption("--lookback", opts.lookback, issues, 1000) : undefined;
  if (opts.node.trim() === "") issues.push(issue("--node", "expected a node name"));
  const priorityClasses = priorityClassOption(opts.priorityClass, issues);
  // Label names go into the selectors as they are: only Prometheus' label name syntax is taken.
  for (const [name, value] of [
    ["--node-label", opts.nodeLabel],
    ["--node-exporter-label", opts.nodeExporterLabel],
  ] as const)
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(value))
      issues.push(
        issue(
          name,
          `expected a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), got ${JSON.stringify(value)}`,
        ),
      );
  if (opts.output.trim() === "") issues.push(issue("--output", "expected a file name"));
  else outputPathIssue("--output", opts.output, issues);
  for (const [name, file] of [
    ["--bearer-token-file", opts.bearerTokenFile],
    ["--ca-file", opts.caFile],
  ] as const)
    if (file !== undefined && !existsSync(file))
      issues.push(issue(name, `${JSON.stringify(file)} does not exist`));
  let config: unknown = { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration" };
  if (opts.config !== undefined) {
    const loaded = await loadKubeletConfigFile(opts.config, { issuePath: "--config" });
    if (loaded.ok) config = loaded.value;
    else issues.push(...loaded.issues);
  }
  let prometheus: ReturnType<typeof connectPrometheus> | undefined;
  if (issues.length === 0)
    try {
      prometheus = connectPrometheus({
        url: opts.url,
        requestTimeoutMs,
        ...(opts.bearerTokenFile !== undefined ? { bearerTokenFile: opts.bearerTokenFile } : {}),
        ...(opts.caFile !== undefined ? { caFile: opts.caFile } : {}),
        onRetry: (n) =>
          process.stderr.write(
            `retrying ${n.what} in ${n.retryInMs} ms (attempt ${n.attempt}): ${n.message}\n`,
          ),
      });
    } catch (error) {
      if (!(error instanceof Error && "code" in error && String(error.code).startsWith("prometheus-")))
        throw error;
      issues.push(issue("--url", error.message));
    }
  if (issues.length > 0 || prometheus === undefined) throw new InputError(issues);

  const partial = join(
    dirname(opts.output),
    `.${basename(opts.output)}.partial-${process.pid}${extensionOf(opts.output)}`,
  );
  const stop = stopOnSignals();
  const tty = process.stderr.isTTY;
  let file: TraceFile | undefined;
  let done = false;
  try {
    const importing = importPrometheus({
      prometheus,
      node: opts.node,
      fromMs,
      toMs,
      stepMs,
      chunkMs,
      ...(lookbackMs !== undefined ? { lookbackMs } : {}),
      priorityClasses,
      config,
      sourceUrl: redactedUrl(opts.url),
      nodeLabel: opts.nodeLabel,
      nodeExporterLabel: opts.nodeExporterLabel,
      nodefsMountpoint: opts.nodefsMountpoint,
      imagefsMountpoint: opts.imagefsMountpoint,
      begin: () => {
        file = createTraceFile(partial);
      },
      append: (line) => file?.write(line),
      warn: (message) => process.stderr.write(`${tty ? "\r\x1b[K" : ""}warning: ${message}\n`),
      progress: (line) => process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`),
      signal: stop.signal,
    });
    const r = await importing.catch((error: unknown) => {
      if (stop.signal.aborted) return undefined;
      throw error;
    });
    if (r === undefined) {
      process.stderr.write(`${tty ? "\n" : ""}interrupted: nothing written to ${opts.output}\n`);
      return EXIT_INTERRUPTED;
    }
    await file?.close();
    file = undefined;
    renameSync(partial, opts.output);
    done = true;
    process.stderr.write(
      `${tty ? "\n" : ""}${count(r.steps, "step")} of ${count(r.pods, "pod")} written to ${opts.output}` +
        `${r.skippedSteps > 0 ? ` (${count(r.skippedSteps, "step")} without node memory left out, in ${count(r.gaps, "gap")})` : ""}` +
        `; replay with: evictd replay ${opts.output}\n`,
    );
    return EXIT.ok;
  } finally {
    stop.dispose();
    prometheus.close();
    if (!done) {
      await file?.close().catch(() => {});
      rmSync(partial, { force: true });
    }
  }
}

/** The compression suffix createTraceFile goes by, kept on the hidden file. */
function extensionOf(file: string): string {
  return /\.(br|gz)$/.exec(file)?.[0] ?? "";
}
