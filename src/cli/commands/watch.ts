/**
 * `evictd watch --node NAME [--enforce] [--use-eviction-api]`: the daemon's eviction loop against a
 * Kubernetes node, until SIGINT or SIGTERM. Stats come from the node's kubelet (Summary API),
 * thresholds from its configz (or a file), pods from the API server (list + watch), and evictions go
 * back through the API (enforce mode) or only to the log and /metrics (shadow mode, the default).
 * Serves the same /healthz, /metrics, /status and /stats/summary as `evictd run`; optionally writes
 * the decision log and a replayable trace of exactly what the loop saw. Logs are JSON lines on
 * stdout (pino). The composition root of the verb: the parts come from app/ and the adapters.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { pino } from "pino";
import { ClusterPods, type EnforceMode } from "../../app/cluster/cluster-pods.js";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { NodePodSet } from "../../app/cluster/node-pod-set.js";
import { TraceRecorder, traceStepOf } from "../../app/cluster/trace-recorder.js";
import { watchCapabilities } from "../../app/cluster/watch-capabilities.js";
import { EvictionLoop, type LoopStep } from "../../app/loop/eviction-loop.js";
import { summaryStatsPort } from "../../app/loop/summary-stats-port.js";
import { podStatusView } from "../../app/node-view/pod-status-view.js";
import type { DaemonSnapshot, PodStatusView } from "../../app/node-view/snapshot.js";
import type { ClockPort, LoggerPort } from "../../app/ports.js";
import { IssueList, type Issue } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import { currentRanking } from "../../core/rank/explain-ranking.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { EXIT, InputError } from "../../errors.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { startHttpServer } from "../../server/http-server.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { StepJournal } from "../../server/step-journal.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { systemClock } from "../system-clock.js";
import {
  clusterEvictionSettings,
  connectOptions,
  durationOption,
  listenOption,
  type ClusterCliOptions,
} from "./cluster-options.js";
export interface WatchOptions {
  readonly api: ClusterNodePort;
  readonly mode: EnforceMode;
  /** The loop's period (the kubelet's housekeeping interval is 10 s). */
  readonly intervalMs: number;
  readonly listen: { readonly host: string; readonly port: number };
  /** A KubeletConfiguration file to use instead of the node's configz. */
  readonly configFile?: string;
  /** Write the decision log (replay step records, one per synchronize) here. */
  readonly decisionLog?: string;
  /** Write a replayable JSONL trace of every sample the loop acted on here. */
  readonly recordTo?: string;
  readonly logger: LoggerPort;
  readonly signal: AbortSignal;
  readonly clock?: ClockPort;
  readonly onReady?: (info: { url: string }) => void;
}

const decode = (raw: unknown, issues: IssueList): ReturnType<typeof decodePod> =>
  decodePod(raw, "pod", issues);

export async function runWatch(o: WatchOptions): Promise<void> {
  const { api, logger: log } = o;
  const clock = o.clock ?? systemClock;
  const settings = await clusterEvictionSettings(api, o.configFile);
  for (const w of settings.warnings) log.warn({ path: w.path, file: w.file }, w.message);

  const stats = summaryStatsPort({ read: () => api.summary(o.signal), source: api.describe, clock });
  // The first sample decides the filesystem layout, as in replay.
  const first = await stats.collect();
  const layout = detectFilesystemLayout(first.summary);

  const podSet = new NodePodSet({ api, clock, log });
  const background = new AbortController();
  const stopBackground = (): void => background.abort();
  o.signal.addEventListener("abort", stopBackground, { once: true });
  const watching = podSet.run(background.signal);
  await Promise.race([
    podSet.waitForSync(),
    new Promise<void>((resolve) => o.signal.addEventListener("abort", () => resolve(), { once: true })),
  ]);

  const pods = new ClusterPods({
    api,
    pods: podSet,
    mode: o.mode,
    clock,
    log,
    decode,
    newIssues: () => new IssueList(),
  });
  const capabilities = watchCapabilities({
    source: api.describe,
    thresholdsOrigin: settings.origin,
    layout,
    mode: o.mode,
    intervalMs: o.intervalMs,
  });

  const metrics = new DaemonMetrics();
  const startedAt = clock.now();
  if (o.decisionLog !== undefined) writeFileSync(o.decisionLog, "");
  const journal = new StepJournal({
    metrics,
    log,
    thresholds: settings.config.thresholds,
    startedAt,
    ...(o.decisionLog !== undefined ? { decisionLog: o.decisionLog } : {}),
    verb: o.mode === "shadow" ? "would evict" : "evicted",
  });

  let recorder: TraceRecorder | undefined;
  if (o.recordTo !== undefined) {
    const file = o.recordTo;
    const node = await api.node(o.signal).catch((e: unknown) => {
      log.warn({ err: String(e) }, "cannot read the Node object for the trace; recording without it");
      return undefined;
    });
    writeFileSync(file, "");
    recorder = new TraceRecorder(
      {
        start: startedAt,
        config: settings.document,
        flags: settings.flags,
        ...(node !== undefined ? { node } : {}),
        evictedPods: o.mode === "shadow" ? "keep" : "remove",
        pods: podSet.active(),
      },
      (line) => appendFileSync(file, line),
    );
  }

  let lastStep: LoopStep | undefined;
  // Decoded through the pods port's cache: each pod object is decoded once, not once per look.
  const podViews = (): PodStatusView[] => {
    const out: PodStatusView[] = [];
    for (const raw of podSet.all()) {
      const pod = pods.podOf(raw);
      if (pod !== undefined) out.push(podStatusView(raw, pod));
    }
    return out;
  };
  const snapshot = (): DaemonSnapshot => {
    const report = lastStep?.report;
    const sample = lastStep?.sample;
    const views = podViews();
    const active = views.filter((v) => !isTerminalPhase(v.phase)).map((v) => v.pod);
    const ranking = currentRanking(report, layout, active, sample?.summary);
    return {
      node: { name: api.nodeName, listen: o.listen, eviction: settings.config },
      startedAt,
      now: clock.now(),
      capabilities,
      conditions: loop.engineState.nodeConditions,
      ...(report !== undefined ? { lastReport: report } : {}),
      ...(sample !== undefined ? { summary: sample.raw } : {}),
      pods: views,
      ...(ranking !== undefined ? { ranking } : {}),
      evictions: journal.evictions,
      evictionCounts: journal.evictionCounts,
    };
  };

  const loop = new EvictionLoop({
    config: settings.config,
    layout,
    housekeepingIntervalMs: o.intervalMs,
    // Shadow kills change nothing: look again at the next tick, not at once.
    resyncAfterEviction: o.mode !== "shadow",
    stats,
    pods,
    wake: new NotificationWakePort({ sources: [], now: () => clock.now() }),
    clock,
    log,
    onStep: (step) => {
      lastStep = step;
      journal.record(step);
      metrics.setPods(podViews());
      const traced = recorder !== undefined ? traceStepOf(step, pods.activeRaw) : undefined;
      if (traced !== undefined) recorder?.step(traced);
    },
  });

  const server = await startHttpServer({ listen: o.listen, snapshot, metrics });
  log.info(
    { url: server.url, node: api.nodeName, mode: o.mode, capabilities },
    `evictd watching node ${api.nodeName} (${o.mode}); ${server.url}/status`,
  );
  o.onReady?.({ url: server.url });
  try {
    await loop.run(o.signal);
  } finally {
    background.abort();
    o.signal.removeEventListener("abort", stopBackground);
    await watching.catch(() => undefined);
    await server.close();
    log.info({ steps: recorder?.steps }, "evictd watch stopped");
  }
}

export interface WatchCliOptions extends ClusterCliOptions {
  readonly enforce: boolean;
  readonly useEvictionApi: boolean;
  readonly interval: string;
  readonly listen: string;
  readonly decisionLog?: string;
  readonly record?: string;
}

export async function watchCommand(opts: WatchCliOptions): Promise<number> {
  const issues: Issue[] = [];
  const connect = connectOptions(opts, issues);
  const intervalMs = durationOption("--interval", opts.interval, issues, 100);
  const listen = listenOption(opts.listen, issues);
  if (opts.useEvictionApi && !opts.enforce)
    issues.push({
      severity: "error",
      path: "--use-eviction-api",
      code: "invalid",
      message: "only means something with --enforce (shadow mode evicts nothing)",
    });
  if (issues.length > 0) throw new InputError(issues);
  const log = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
  const api = await connectClusterNode(connect);
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  try {
    await runWatch({
      api,
      mode: !opts.enforce ? "shadow" : opts.useEvictionApi ? "eviction-api" : "delete",
      intervalMs,
      listen,
      ...(opts.config !== undefined ? { configFile: opts.config } : {}),
      ...(opts.decisionLog !== undefined ? { decisionLog: opts.decisionLog } : {}),
      ...(opts.record !== undefined ? { recordTo: opts.record } : {}),
      logger: log,
      signal: stop.signal,
      clock: systemClock,
    });
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
