/**
 * `evictd watch --node NAME [--enforce [--use-eviction-api [--eviction-request]]
 * [--[no-]eviction-preflight]]`: the daemon's eviction loop against a
 * Kubernetes node, until SIGINT or SIGTERM. Stats come from the node's kubelet (Summary API),
 * thresholds from its configz (or a file), pods from the API server (list + watch), and evictions go
 * back through the API (enforce mode) or only to the log and /metrics (shadow mode, the default).
 * Serves the same /healthz, /metrics, /status and /stats/summary as `evictd run`; optionally writes
 * the decision log and a replayable trace of exactly what the loop saw. Logs are JSON lines on
 * stdout (pino). The composition root of the verb: the parts come from app/ and the adapters; its
 * options are watch-options.ts, `--stats cgroups` is watch-node-local.ts, `--record` watch-trace.ts.
 */
import { daemonLogger } from "../output/daemon-logger.js";
import { ClusterPods } from "../../app/cluster/cluster-pods.js";
import { apiPodInfo, type ApiPodInfo } from "../../app/cluster/node-local-summary.js";
import { WatchStatsSource } from "../../app/cluster/watch-stats-source.js";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { NodePodSet } from "../../app/cluster/node-pod-set.js";
import { watchCapabilities } from "../../app/cluster/watch-capabilities.js";
import { WatchStatus } from "../../app/cluster/watch-status.js";
import { EvictionLoop } from "../../app/loop/eviction-loop.js";
import { WakeRehearsals } from "../../app/loop/wake-rehearsals.js";
import { scavengeWhenIdle } from "../../daemon/gc/idle-scavenge.js";
import type { ClockPort, LoggerPort } from "../../app/ports.js";
import { IssueList } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { EXIT } from "../../errors.js";
import { cgroupsNeedConfigz } from "./open-kubelet-cgroups.js";
import type { ClusterEvictionSettings } from "../../app/cluster/eviction-settings.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { startHttpServer } from "../../server/http-server.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { ownProcessFigures } from "../../linux/own-process.js";
import { StepJournal } from "../../server/step-journal.js";
import { DecisionLog } from "../../server/decision-log.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { systemClock } from "../../linux/system-clock.js";
import { clusterEvictionSettings, clusterEvictionSettingsOf } from "./cluster-options.js";
import { untilAnswered } from "../../app/cluster/until-answered.js";
import { parseWatchOptions, type WatchChoices, type WatchCliOptions } from "./watch-options.js";
import { openNodeLocalWatch, startOomKillWatch, type NodeLocalWatch } from "./watch-node-local.js";
import { openWatchTrace, type WatchTrace } from "./watch-trace.js";

// The verb's surface as main.ts and the tests know it, wherever each part is defined.
export type { WatchCliOptions } from "./watch-options.js";
export { evictionPreflightFor } from "../../app/cluster/eviction-preflight-default.js";

/** runWatch's input: the operator's choices (watch-options.ts) and what the command wired for them. */
export interface WatchOptions extends WatchChoices {
  readonly api: ClusterNodePort;
  /**
   * The eviction settings, read by the caller (watchCommand reads configz once for them, the
   * kubelet's cgroups and the kernel wakes); absent: read here, from `configFile` or configz.
   */
  readonly settings?: ClusterEvictionSettings;
  readonly logger: LoggerPort;
  readonly signal: AbortSignal;
  readonly clock?: ClockPort;
  readonly onReady?: (info: { url: string }) => void;
  /** `--stats cgroups`: memory from the kubelet's cgroups on this node, kernel notifications as wakes. */
  readonly nodeLocal?: NodeLocalWatch;
}

export async function runWatch(o: WatchOptions): Promise<void> {
  const { api, logger: log } = o;
  const clock = o.clock ?? systemClock;
  // A cluster that does not answer yet is waited for, each try logged; `undefined`: stopped first.
  const startup = { log, clock, signal: o.signal };
  const settings =
    o.settings ??
    (await untilAnswered(
      "reading the kubelet's configuration",
      () => clusterEvictionSettings(api, o.configFile, o.signal),
      startup,
    ));
  if (settings === undefined) return;
  for (const w of settings.warnings) log.warn({ path: w.path, file: w.file }, w.message);

  // A pod new to the node: memory wakes are rehearsed (set once the loop exists, --stats cgroups).
  let rehearsals: WakeRehearsals | undefined;
  const podSet = new NodePodSet({
    api,
    clock,
    log,
    onChange: (_uid, added) => {
      if (added) rehearsals?.poke();
    },
  });
  const local = o.nodeLocal;
  // The active pods' UIDs and container names: what matches a cgroup or an OOM kill to its pod.
  const podInfos = (): ApiPodInfo[] => podSet.active().flatMap((raw) => apiPodInfo(raw) ?? []);
  const source = new WatchStatsSource({
    api,
    ...(local !== undefined ? { memory: local.memory } : {}),
    pods: podInfos,
    intervalMs: o.intervalMs,
    clock,
    log,
    signal: o.signal,
  });
  if (!(await source.ready(startup))) return;
  const stats = source.port;
  // The first sample decides the filesystem layout, as in replay.
  const first = await untilAnswered("reading the first sample", () => stats.collect(), startup);
  if (first === undefined) return;
  const layout = detectFilesystemLayout(first.summary);

  const background = new AbortController();
  const stopBackground = (): void => background.abort();
  o.signal.addEventListener("abort", stopBackground, { once: true });
  const watching = Promise.all([podSet.run(background.signal), source.run(background.signal)]);
  // From here on the background watch runs: every way out (a port already taken, a failed read)
  // goes through the finally that stops it, or the process would never exit.
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let stopOomKillWatch: (() => void) | undefined;
  let trace: WatchTrace | undefined;
  try {
    await Promise.race([
      podSet.waitForSync(),
      new Promise<void>((resolve) => o.signal.addEventListener("abort", () => resolve(), { once: true })),
    ]);

    const capabilities = watchCapabilities({
      source: local === undefined ? api.describe : `${api.describe} (memory: ${local.memory.describe})`,
      thresholdsOrigin: settings.origin,
      layout,
      mode: o.mode,
      intervalMs: o.intervalMs,
      ...(local !== undefined ? { nodeLocal: local.capabilities } : {}),
      preflight: o.preflight === true,
      ...(o.dryRunFirst === true ? { dryRunFirst: true } : {}),
      evictionRequests: o.evictionRequests === true,
    });

    const metrics = new DaemonMetrics({
      process: ownProcessFigures(),
      nodeName: api.nodeName,
      housekeepingIntervalMs: o.intervalMs,
      evictionSignals: settings.config.thresholds.filter((t) => t.operator !== "").map((t) => t.signal),
    });
    const pods = new ClusterPods({
      api,
      pods: podSet,
      mode: o.mode,
      clock,
      log,
      decode: (raw, issues) => decodePod(raw, "pod", issues),
      newIssues: () => new IssueList(),
      ...(o.preflight === true
        ? { preflight: true, onPreflightRefused: () => metrics.recordPreflightRefusal() }
        : {}),
      ...(o.dryRunFirst === true ? { dryRunFirst: true } : {}),
      ...(o.evictionRequests === true ? { evictionRequests: true } : {}),
    });
    const startedAt = clock.now();
    const decisionLog =
      o.decisionLog !== undefined
        ? DecisionLog.open({ file: o.decisionLog, log, namedByOperator: true })
        : undefined;
    const journal = new StepJournal({
      metrics,
      log,
      thresholds: settings.config.thresholds,
      startedAt,
      housekeepingIntervalMs: o.intervalMs,
      ...(decisionLog !== undefined ? { decisionLog } : {}),
      verb: o.mode === "shadow" ? "would evict" : "evicted",
      config: settings.config,
    });
    // With --stats cgroups: the node's memory three ways, read for a page that asks and each traced step.
    const readNodeMemoryViews = local?.memory.readNodeMemoryViews?.bind(local.memory);
    if (o.recordTo !== undefined) {
      trace = await openWatchTrace({
        file: o.recordTo,
        api,
        settings,
        startedAt,
        mode: o.mode,
        pods: podSet.active(),
        fullSummaries: o.fullSummaries === true,
        ...(local?.cgroupVersion !== undefined ? { cgroupVersion: local.cgroupVersion } : {}),
        ...(readNodeMemoryViews !== undefined ? { readNodeMemoryViews } : {}),
        log,
        signal: o.signal,
      });
    }

    const status = new WatchStatus({
      node: { name: api.nodeName, listen: o.listen, eviction: settings.config },
      startedAt,
      clock,
      capabilities,
      layout,
      journal,
      pods: () => podSet.all(),
      podOf: (raw) => pods.podOf(raw),
      conditions: () => loop.engineState.nodeConditions,
      ...(readNodeMemoryViews !== undefined ? { readNodeMemoryViews } : {}),
    });

    const loop: EvictionLoop = new EvictionLoop({
      config: settings.config,
      layout,
      housekeepingIntervalMs: o.intervalMs,
      // Shadow kills change nothing: look again at the next tick, not at once.
      resyncAfterEviction: o.mode !== "shadow",
      stats,
      pods,
      wake: local?.wake ?? new NotificationWakePort({ sources: [], now: () => clock.now() }),
      clock,
      log,
      podMemory: status.podMemory,
      onStep: (step) => {
        status.stepped(step);
        journal.record(step);
        metrics.setPods(status.podViews());
        // Written once the step is decided and its kills made: the trace's reads never delay an eviction.
        trace?.step(step, pods.activeRaw);
        // The step's garbage collected now, while nothing waits, not in the middle of the next wake.
        scavengeWhenIdle();
      },
    });
    if (local !== undefined) {
      // The first wake after a pod starts should find its files open and the path compiled.
      rehearsals = new WakeRehearsals({
        rehearse: () => loop.rehearse(),
        clock,
        log,
        signal: background.signal,
        afterEach: scavengeWhenIdle,
      });
      rehearsals.poke();
    }

    server = await startHttpServer({
      listen: o.listen,
      snapshot: () => status.snapshot(),
      metrics,
      health: () => journal.health(clock.now()),
      busyPortHint:
        "another process holds the port (9090 is Prometheus' default): choose another with --listen HOST:PORT",
    });
    log.info(
      { url: server.url, node: api.nodeName, mode: o.mode, capabilities },
      `evictd watching node ${api.nodeName} (${o.mode}); ${server.url}/status`,
    );
    o.onReady?.({ url: server.url });
    if (local?.oomKills !== undefined)
      stopOomKillWatch = startOomKillWatch({
        counter: local.oomKills,
        pods: podInfos,
        api,
        log,
        postEvents: o.mode !== "shadow",
        count: (container, kills) => metrics.recordOomKill(container, kills),
      });
    await loop.run(o.signal);
  } finally {
    stopOomKillWatch?.();
    background.abort();
    o.signal.removeEventListener("abort", stopBackground);
    await watching.catch(() => undefined);
    await server?.close();
    await trace?.close();
    if (server !== undefined) log.info({ steps: trace?.steps }, "evictd watch stopped");
  }
}

export async function watchCommand(opts: WatchCliOptions): Promise<number> {
  const { connect, choices } = parseWatchOptions(opts);
  const log = daemonLogger();
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  let nodeLocal: NodeLocalWatch | undefined;
  try {
    const startup = { log, clock: systemClock, signal: stop.signal };
    const api = await untilAnswered(
      "connecting to the cluster",
      () =>
        connectClusterNode({
          ...connect,
          onRetry: (n) =>
            log.warn(
              { method: n.method, path: n.path, attempt: n.attempt, retryInMs: n.retryInMs },
              n.message,
            ),
        }),
      startup,
    );
    if (api === undefined) return EXIT.ok;
    // The kubelet's configuration, read once: the loop's thresholds, the kernel wakes armed on them
    // and the cgroups' driver and root all come from this one object. Not read when --config gives
    // the thresholds and --stats cgroups (if asked) has both --cgroup-driver and --cgroup-root.
    let configz: unknown;
    if (opts.config === undefined || cgroupsNeedConfigz(opts)) {
      const read = await untilAnswered(
        "reading the kubelet's configuration",
        () => api.kubeletConfig(stop.signal).then((body) => ({ body })),
        startup,
      );
      if (read === undefined) return EXIT.ok;
      configz = read.body;
    }
    const settings = await clusterEvictionSettingsOf(opts.config, configz, api.nodeName);
    if (opts.stats === "cgroups")
      nodeLocal = openNodeLocalWatch(opts, configz, settings, choices.intervalMs, (name, e) =>
        log.warn({ source: name, err: String(e) }, "wake source failed"),
      );
    await runWatch({
      ...choices,
      ...(nodeLocal !== undefined ? { nodeLocal } : {}),
      api,
      settings,
      logger: log,
      signal: stop.signal,
      clock: systemClock,
    });
    return EXIT.ok;
  } finally {
    stop.dispose();
    await nodeLocal?.close();
  }
}
