/**
 * `evictd watch --node NAME [--enforce [--use-eviction-api [--eviction-request]]
 * [--[no-]eviction-preflight]]`: the daemon's eviction loop against a
 * Kubernetes node, until SIGINT or SIGTERM. Stats come from the node's kubelet (Summary API),
 * thresholds from its configz (or a file), pods from the API server (list + watch), and evictions go
 * back through the API (enforce mode) or only to the log and /metrics (shadow mode, the default).
 * Serves the same /healthz, /metrics, /status and /stats/summary as `evictd run`; optionally writes
 * the decision log and a replayable trace of exactly what the loop saw. Logs are JSON lines on
 * stdout (pino). The composition root of the verb: the parts come from app/ and the adapters.
 */
import { notArmedCapability } from "../../app/node-view/wake-capability.js";
import { daemonLogger } from "../output/daemon-logger.js";
import { ClusterPods, type EnforceMode } from "../../app/cluster/cluster-pods.js";
import { LatestSummary } from "../../app/cluster/latest-summary.js";
import { apiPodInfo, type ApiPodInfo } from "../../app/cluster/node-local-summary.js";
import { nodeLocalStatsPort } from "../../app/cluster/node-local-stats-port.js";
import type { NodeMemoryPort } from "../../app/cluster/node-memory-port.js";
import type { ClusterNodePort } from "../../app/cluster/cluster-node-port.js";
import { NodePodSet } from "../../app/cluster/node-pod-set.js";
import { TraceRecorder, traceStepOf } from "../../app/cluster/trace-recorder.js";
import { traceEnvironment } from "../../app/cluster/trace-environment.js";
import { createTraceFile, type TraceFile } from "../../formats/scenario/compressed-scenario.js";
import { watchCapabilities } from "../../app/cluster/watch-capabilities.js";
import { EvictionLoop, type LoopStep } from "../../app/loop/eviction-loop.js";
import { WakeRehearsals } from "../../app/loop/wake-rehearsals.js";
import { scavengeWhenIdle } from "../../daemon/gc/idle-scavenge.js";
import { summaryStatsPort } from "../../app/loop/summary-stats-port.js";
import { podStatusView } from "../../app/node-view/pod-status-view.js";
import type { DaemonSnapshot, PodStatusView } from "../../app/node-view/snapshot.js";
import { LastPodMemory } from "../../app/node-view/last-pod-memory.js";
import { buildDaemonSnapshot } from "../../app/node-view/build-daemon-snapshot.js";
import type { ClockPort, LoggerPort, WakePort } from "../../app/ports.js";
import { IssueList, type Issue } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { EXIT, InputError } from "../../errors.js";
import { checkNodeLocalOptions, type NodeLocalCliOptions } from "./node-local-options.js";
import { cgroupsNeedConfigz, openKubeletCgroups } from "./open-kubelet-cgroups.js";
import type { ClusterEvictionSettings } from "../../app/cluster/eviction-settings.js";
import { KubeletOomKillCounter } from "../../linux/kubelet-cgroups/kubelet-oom-kills.js";
import {
  OOM_KILL_EVENT_REASON,
  oomKillReports,
  type OomKillReport,
  type OomKillSeen,
} from "../../app/cluster/oom-kill-report.js";

/** How often the kubelet's cgroups are looked at for kernel OOM kills (v2: one file when none happened). */
const OOM_SCAN_MS = 1000;
import { EVICTION_LOOP_NICE, setCurrentThreadNice } from "../../linux/thread-priority.js";
import { connectClusterNode } from "../../kubernetes/index.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { planWakeSources } from "../../linux/notify/plan-wake-sources.js";
import { startHttpServer } from "../../server/http-server.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { ownProcessFigures } from "../../linux/own-process.js";
import { StepJournal } from "../../server/step-journal.js";
import { DecisionLog } from "../../server/decision-log.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { systemClock } from "../../linux/system-clock.js";
import { TIMER_MAX_MS } from "../../core/time/timer-limit.js";
import {
  clusterEvictionSettings,
  clusterEvictionSettingsOf,
  connectOptions,
  durationOption,
  listenOption,
  outputPathIssue,
  type ClusterCliOptions,
} from "./cluster-options.js";
import { untilAnswered } from "../../app/cluster/until-answered.js";
export interface WatchOptions {
  readonly api: ClusterNodePort;
  readonly mode: EnforceMode;
  /**
   * Enforce modes: a pod its budget protects is skipped for the next one (the eviction's refusal
   * says so through the Eviction API, a dry run first with deletion).
   */
  readonly preflight?: boolean;
  /** Eviction API mode with the preflight: a dry run before every pressure eviction all the same. */
  readonly dryRunFirst?: boolean;
  /** Eviction API mode: soft-threshold evictions as EvictionRequests where the API serves them. */
  readonly evictionRequests?: boolean;
  /** The loop's period (the kubelet's housekeeping interval is 10 s). */
  readonly intervalMs: number;
  readonly listen: { readonly host: string; readonly port: number };
  /** A KubeletConfiguration file to use instead of the node's configz. */
  readonly configFile?: string;
  /**
   * The eviction settings, read by the caller (watchCommand reads configz once for them, the
   * kubelet's cgroups and the kernel wakes); absent: read here, from `configFile` or configz.
   */
  readonly settings?: ClusterEvictionSettings;
  /** Write the decision log (replay step records, one per synchronize) here. */
  readonly decisionLog?: string;
  /** Write a replayable JSONL trace of every sample the loop acted on here. */
  readonly recordTo?: string;
  /** The trace keeps whole Summaries instead of what the engine reads (`--full-summaries`). */
  readonly fullSummaries?: boolean;
  readonly logger: LoggerPort;
  readonly signal: AbortSignal;
  readonly clock?: ClockPort;
  readonly onReady?: (info: { url: string }) => void;
  /**
   * `--stats cgroups`: memory read from the kubelet's own cgroups on this node at every wake, the
   * kernel's notifications on them as wakes; disk, inode and PID figures still from the Summary API,
   * every interval, in the background.
   */
  readonly nodeLocal?: {
    readonly memory: NodeMemoryPort;
    readonly wake: WakePort;
    readonly capabilities: readonly string[];
    /** Kernel OOM kills in the kubelet's cgroups since the last call (the first call learns the counts). */
    readonly oomKills?: { scan(): OomKillSeen[] };
    /** The cgroup API of the node, as its cgroup tree was found (a recorded trace's environment). */
    readonly cgroupVersion?: 1 | 2;
    /** Stops the wake sources and closes the files (the caller's, after runWatch). */
    close(): Promise<void>;
  };
}

const decode = (raw: unknown, issues: IssueList): ReturnType<typeof decodePod> =>
  decodePod(raw, "pod", issues);

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
  const latest = new LatestSummary({
    read: (signal) => api.summary(signal),
    intervalMs: o.intervalMs,
    clock,
    log,
  });
  const podInfos = (): ApiPodInfo[] => {
    const out: ApiPodInfo[] = [];
    for (const raw of podSet.active()) {
      const info = apiPodInfo(raw);
      if (info !== undefined) out.push(info);
    }
    return out;
  };
  const stats =
    local === undefined
      ? summaryStatsPort({ read: () => api.summary(o.signal), source: api.describe, clock })
      : nodeLocalStatsPort({
          memory: local.memory,
          summary: () => latest.value,
          pods: podInfos,
          source: `${local.memory.describe} and the Summary API (${api.describe})`,
          clock,
        });
  if (local !== undefined) {
    const read = await untilAnswered(
      "reading the Summary API",
      () => latest.refresh(o.signal).then(() => true),
      startup,
    );
    if (read === undefined) return;
  }
  // The first sample decides the filesystem layout, as in replay.
  const first = await untilAnswered("reading the first sample", () => stats.collect(), startup);
  if (first === undefined) return;
  const layout = detectFilesystemLayout(first.summary);

  const background = new AbortController();
  const stopBackground = (): void => background.abort();
  o.signal.addEventListener("abort", stopBackground, { once: true });
  const watching = Promise.all([
    podSet.run(background.signal),
    local !== undefined ? latest.run(background.signal) : Promise.resolve(),
  ]);
  // From here on the background watch runs: every way out (a port already taken, a failed read)
  // goes through the finally that stops it, or the process would never exit.
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let oomTimer: NodeJS.Timeout | undefined;
  let recorder: TraceRecorder | undefined;
  let traceFile: TraceFile | undefined;
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
      decode,
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

    if (o.recordTo !== undefined) {
      const file = o.recordTo;
      const node = await api.node(o.signal).catch((e: unknown) => {
        log.warn({ err: String(e) }, "cannot read the Node object for the trace; recording without it");
        return undefined;
      });
      const trace = createTraceFile(file);
      traceFile = trace;
      recorder = new TraceRecorder(
        {
          start: startedAt,
          config: settings.document,
          flags: settings.flags,
          ...(node !== undefined ? { node } : {}),
          ...traceEnvironment(node, settings, local?.cgroupVersion),
          evictedPods: o.mode === "shadow" ? "keep" : "remove",
          pods: podSet.active(),
          summaries: o.fullSummaries === true ? "full" : "lean",
        },
        (line) => trace.write(line),
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
    // Each pod's last working set read, kept across steps: a memory wake reads most pods' usage alone.
    const podMemory = new LastPodMemory();
    const snapshot = (): DaemonSnapshot => {
      const report = lastStep?.report;
      const sample = lastStep?.sample;
      const views = podViews();
      // With --stats cgroups: the node's memory three ways, read now for the page that asks.
      const nodeMemoryViews = local?.memory.readNodeMemoryViews?.();
      return buildDaemonSnapshot({
        node: { name: api.nodeName, listen: o.listen, eviction: settings.config },
        startedAt,
        now: clock.now(),
        capabilities,
        conditions: loop.engineState.nodeConditions,
        layout,
        ...(report !== undefined ? { lastReport: report } : {}),
        ...(sample !== undefined
          ? { rawSummary: sample.raw, summary: sample.summary, podMemory: podMemory.figures() }
          : {}),
        pods: views,
        activePods: views.filter((v) => !isTerminalPhase(v.phase)).map((v) => v.pod),
        ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
        journal,
      });
    };

    const loop = new EvictionLoop({
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
      podMemory,
      onStep: (step) => {
        lastStep = step;
        journal.record(step);
        metrics.setPods(podViews());
        // With --stats cgroups the line carries the node's memory three ways, read here: the step
        // is decided and its kills made, so the read never delays an eviction.
        const readViews = local?.memory.readNodeMemoryViews?.bind(local.memory);
        const traced = recorder !== undefined ? traceStepOf(step, pods.activeRaw, readViews) : undefined;
        if (traced !== undefined) recorder?.step(traced);
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

    // Kernel OOM kills, looked for every OOM_SCAN_MS: counted, logged, and (acting modes) an Event
    // on the pod. A failed scan or write is logged and the next scan goes on.
    const watchOomKills = (counter: { scan(): OomKillSeen[] }): NodeJS.Timeout => {
      counter.scan();
      const timer = setInterval(() => {
        let reports: OomKillReport[];
        try {
          reports = oomKillReports(counter.scan(), podInfos());
        } catch (error) {
          log.warn({ err: String(error) }, "cannot read the kubelet cgroups' OOM kill counts");
          return;
        }
        for (const r of reports) {
          metrics.recordOomKill(
            { namespace: r.pod.namespace, pod: r.pod.name, container: r.container },
            r.kills,
          );
          log.warn(
            { pod: `${r.pod.namespace}/${r.pod.name}`, container: r.container, kills: r.kills },
            r.message,
          );
          if (o.mode === "shadow") continue;
          void api
            .createPodEvent(r.pod, { type: "Warning", reason: OOM_KILL_EVENT_REASON, message: r.message })
            .then((outcome) => {
              if (outcome.kind === "refused")
                log.warn(
                  { pod: `${r.pod.namespace}/${r.pod.name}`, status: outcome.status },
                  `the OOMKilled event was refused: ${outcome.message}`,
                );
            })
            .catch((error: unknown) => log.warn({ err: String(error) }, "cannot record the OOMKilled event"));
        }
      }, OOM_SCAN_MS);
      timer.unref();
      return timer;
    };

    server = await startHttpServer({
      listen: o.listen,
      snapshot,
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
    if (local?.oomKills !== undefined) oomTimer = watchOomKills(local.oomKills);
    await loop.run(o.signal);
  } finally {
    if (oomTimer !== undefined) clearInterval(oomTimer);
    background.abort();
    o.signal.removeEventListener("abort", stopBackground);
    await watching.catch(() => undefined);
    await server?.close();
    await traceFile?.close();
    if (server !== undefined) log.info({ steps: recorder?.steps }, "evictd watch stopped");
  }
}

export interface WatchCliOptions extends ClusterCliOptions, NodeLocalCliOptions {
  readonly enforce: boolean;
  readonly useEvictionApi: boolean;
  /** `--eviction-preflight` / `--no-eviction-preflight`; undefined: the mode's default. */
  readonly evictionPreflight?: boolean;
  /** `--eviction-dry-run`. */
  readonly evictionDryRun?: boolean;
  readonly evictionRequest?: boolean;
  readonly interval: string;
  readonly listen: string;
  readonly decisionLog?: string;
  readonly record?: string;
  readonly fullSummaries?: boolean;
}

export async function watchCommand(opts: WatchCliOptions): Promise<number> {
  const issues: Issue[] = [];
  const connect = connectOptions(opts, issues);
  const intervalMs = durationOption("--interval", opts.interval, issues, 100, TIMER_MAX_MS);
  const listen = listenOption(opts.listen, issues);
  if (opts.useEvictionApi && !opts.enforce)
    issues.push({
      severity: "error",
      path: "--use-eviction-api",
      code: "invalid",
      message: "only means something with --enforce (shadow mode evicts nothing)",
    });
  if (opts.evictionPreflight !== undefined && !opts.enforce)
    issues.push({
      severity: "error",
      path: opts.evictionPreflight ? "--eviction-preflight" : "--no-eviction-preflight",
      code: "invalid",
      message: "only means something with --enforce (shadow mode evicts nothing)",
    });
  if (
    opts.evictionDryRun === true &&
    !(opts.enforce && opts.useEvictionApi && opts.evictionPreflight !== false)
  )
    issues.push({
      severity: "error",
      path: "--eviction-dry-run",
      code: "invalid",
      message:
        "needs --enforce --use-eviction-api with the preflight (deletion always asks with a dry run; without the preflight nothing is asked)",
    });
  if (opts.evictionRequest === true && !(opts.enforce && opts.useEvictionApi))
    issues.push({
      severity: "error",
      path: "--eviction-request",
      code: "invalid",
      message:
        "needs --enforce --use-eviction-api: an EvictionRequest ends in the Eviction API, and hard evictions and the fallback go through it",
    });
  checkNodeLocalOptions(opts, issues);
  if (opts.decisionLog !== undefined) outputPathIssue("--decision-log", opts.decisionLog, issues);
  if (opts.record !== undefined) outputPathIssue("--record", opts.record, issues);
  if (issues.length > 0) throw new InputError(issues);
  const log = daemonLogger();
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  let nodeLocal: NonNullable<WatchOptions["nodeLocal"]> | undefined;
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
      nodeLocal = nodeLocalStats(opts, configz, settings, intervalMs, (name, e) =>
        log.warn({ source: name, err: String(e) }, "wake source failed"),
      );
    const mode: EnforceMode = !opts.enforce ? "shadow" : opts.useEvictionApi ? "eviction-api" : "delete";
    await runWatch({
      ...(nodeLocal !== undefined ? { nodeLocal } : {}),
      api,
      mode,
      preflight: evictionPreflightFor(mode, opts.evictionPreflight),
      ...(opts.evictionDryRun === true ? { dryRunFirst: true } : {}),
      ...(opts.evictionRequest === true ? { evictionRequests: true } : {}),
      intervalMs,
      listen,
      ...(opts.config !== undefined ? { configFile: opts.config } : {}),
      settings,
      ...(opts.decisionLog !== undefined ? { decisionLog: opts.decisionLog } : {}),
      ...(opts.record !== undefined ? { recordTo: opts.record } : {}),
      ...(opts.fullSummaries === true ? { fullSummaries: true } : {}),
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

/**
 * Whether a pod a budget protects is skipped for the next one. On by default through the Eviction
 * API: the API server refuses a pod its PodDisruptionBudget protects whatever evictd does, and
 * unless that refusal is taken as the answer it costs the step (retried, then a failed kill) and
 * every step after it while the pod ranks first; with it, the next pod goes. Off by default with deletion,
 * which is the kubelet's own way and consults no budget: skipping protected pods there changes
 * which pod goes, a choice the operator makes with --eviction-preflight. Never in shadow mode.
 */
export function evictionPreflightFor(mode: EnforceMode, asked: boolean | undefined): boolean {
  if (mode === "shadow") return false;
  return asked ?? mode === "eviction-api";
}

/**
 * `--stats cgroups`: the kubelet's pod cgroups on this node (driver and cgroupRoot from its configz
 * unless given), read through a memory reader, and the kernel notifications on them, armed at the
 * thresholds the loop decides on (`settings`, from the same configz or the --config file).
 */
function nodeLocalStats(
  opts: WatchCliOptions,
  configz: unknown,
  settings: ClusterEvictionSettings,
  intervalMs: number,
  onError: (source: string, error: unknown) => void,
): NonNullable<WatchOptions["nodeLocal"]> {
  const { tree, memory } = openKubeletCgroups(opts, configz);
  let plan;
  try {
    plan = planWakeSources({
      target: {
        api: tree.api,
        nodeDir: tree.nodeDir,
        podsDir: tree.kubepodsDir,
        nodeIsRoot: tree.nodeIsRoot,
        where: " on the kubelet's cgroups",
      },
      thresholds: settings.config.thresholds,
      housekeepingIntervalMs: intervalMs,
    });
  } catch (error) {
    memory.close();
    throw error;
  }
  const wake = new NotificationWakePort({
    sources: plan.thresholds,
    others: plan.others,
    now: () => systemClock.now(),
    onError,
  });
  // The wake's way to the Eviction API call runs on this thread: it must not wait for the CPU behind
  // the pod that is filling the node (the loop thread of `evictd run` is raised the same way).
  const priority = setCurrentThreadNice(
    EVICTION_LOOP_NICE,
    "the eviction loop's thread (watch's event loop)",
  );
  const capabilities = [...plan.capabilities, priority.note];
  for (const r of wake.refused) capabilities.push(notArmedCapability(r.reason));
  return {
    memory,
    wake,
    capabilities: [
      ...capabilities,
      `kernel OOM kills counted per container from the kubelet's cgroups every ${OOM_SCAN_MS / 1000} s (${tree.api === "v2" ? "memory.events" : "memory.oom_control"} oom_kill)`,
    ],
    oomKills: new KubeletOomKillCounter(tree),
    cgroupVersion: tree.api === "v2" ? 2 : 1,
    close: async () => {
      await wake.stop();
      memory.close();
    },
  };
}
