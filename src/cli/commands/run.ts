/**
 * `evictd run --node FILE [--dry-run]`: the node daemon, until SIGINT or SIGTERM, and its
 * composition root. It reads the node file, builds the node's cgroup subtree, the pod runtime, the
 * stats collector, the wake sources, the HTTP surface and the decision log, and runs the eviction
 * loop until stopped. Decisions come from the pure engine; this file only wires adapters to ports.
 * Logs are JSON lines on stdout (pino); every eviction's `msg` is a one-line human summary.
 */
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { EvictionLoop, type LoopStep } from "../../app/loop/eviction-loop.js";
import type { LoggerPort, PodsPort, StatsPort, StatsSample } from "../../app/ports.js";
import { systemClock } from "../system-clock.js";
import { manifestProblem, type DaemonSnapshot, type ManifestProblem } from "../../app/node-view/snapshot.js";
import { loadNodeSpec } from "../../formats/node-file.js";
import { createCgroupDriver } from "../../linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../../linux/cgroups/detect-cgroups.js";
import type { CgroupDriver, NodeCgroups } from "../../linux/cgroups/cgroup-driver.js";
import { ManifestSource, type ManifestListener } from "../../runtime/manifest-source.js";
import { DryRunPods } from "../../runtime/dry-run-pods.js";
import { ProcessPodRuntime } from "../../runtime/pod-runtime.js";
import type { RunnablePod } from "../../runtime/runnable-pod.js";
import {
  LinuxSummaryCollector,
  type ActivePodInfo,
  type RawSummaryJson,
} from "../../linux/node-stats/index.js";
import { rejectedPodStatus } from "../../core/admission.js";
import { admitPodToNode } from "../../core/node-admission.js";
import type { FilesystemLayout } from "../../core/model.js";
import { currentRanking } from "../../core/rank/explain-ranking.js";
import { summaryStatsPort } from "../../app/loop/summary-stats-port.js";
import { AdapterError, errnoCode, EXIT } from "../../errors.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { startHttpServer, type DaemonHttpServer } from "../../server/http-server.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { planWakeSources } from "../../linux/notify/plan-wake-sources.js";
import { StepJournal } from "../../server/step-journal.js";
import { stopOnSignals } from "../stop-on-signals.js";

/** Memory wakes rehearsed (acted on by nothing) after pods start, so the first real wake runs compiled code. */
const PREPARE_READS = 10;
/** The pause between two rehearsals. */
const PREPARE_SPACING_MS = 25;
/** Problems of one bad manifest file shown in its log line (all of them are in /status). */
const MANIFEST_LOG_PROBLEMS = 3;

export interface RunOptions {
  readonly nodeFile: string;
  readonly dryRun: boolean;
  readonly logger: LoggerPort;
  /** Stops the daemon (SIGINT/SIGTERM in the CLI). */
  readonly signal: AbortSignal;
  /** Tear down the node (kill every pod, remove cgroups) on exit, as the demo does. */
  readonly cleanupOnExit?: boolean;
  /** Called once the HTTP server listens (tests read the port from it). */
  readonly onReady?: (info: { url: string; nodeCgroup: string | undefined }) => void;
}

/**
 * The node's two directories, checked before anything starts. stateDir is the daemon's own: created
 * when missing, refused when it is not a writable directory. manifestDir is the operator's: it must
 * exist (a mistyped path silently created would run no pods and say nothing).
 */
function prepareDirectories(spec: { readonly stateDir: string; readonly manifestDir: string }): void {
  try {
    mkdirSync(spec.stateDir, { recursive: true });
    if (!statSync(spec.stateDir).isDirectory())
      throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    accessSync(spec.stateDir, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = errnoCode(e);
    throw new AdapterError("state-dir", `cannot use stateDir ${spec.stateDir}: ${code ?? String(e)}`, {
      hint:
        code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "run as a user that may write there (the daemon needs root for cgroups), or set stateDir in the node file to a writable directory"
          : "set stateDir in the node file to a directory (it is created when missing)",
    });
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(spec.manifestDir).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) {
    throw new AdapterError("manifest-dir", `manifestDir ${spec.manifestDir} is not a directory`, {
      hint: `create it (mkdir -p ${spec.manifestDir}) or correct manifestDir in the node file`,
    });
  }
}

/** Runs the daemon until `options.signal` aborts. */
export async function runDaemon(options: RunOptions): Promise<void> {
  const { logger: log } = options;
  const { spec, warnings } = await loadNodeSpec(options.nodeFile);
  for (const w of warnings) log.warn({ path: w.path, file: w.file }, w.message);
  prepareDirectories(spec);

  const capabilities: string[] = [];
  let driver: CgroupDriver | undefined;
  let nodeCgroups: NodeCgroups | undefined;
  const created = createCgroupDriver(await detectOwnCgroups());
  const nodeName = `evictd-${spec.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 50)}`;
  if (created.ok) {
    driver = created.driver;
    capabilities.push(...created.limitations);
    // A node left behind by a previous run is adopted: its pods' processes keep running.
    nodeCgroups = await driver.createNode({
      name: nodeName,
      adopt: true,
      memoryLimitBytes: spec.capacity.memoryBytes,
      ...(spec.capacity.pids !== undefined ? { pidsMax: Number(spec.capacity.pids) } : {}),
      pods: {
        memoryLimitBytes: spec.podsMemoryLimitBytes,
        ...(spec.podsPidsLimit !== undefined ? { pidsMax: Number(spec.podsPidsLimit) } : {}),
      },
    });
    capabilities.push(
      `cgroup ${driver.api}: node at ${driver.directories(nodeCgroups.node).memory ?? nodeName}`,
    );
  } else {
    capabilities.push(
      `no cgroups (${created.reason}): processes are measured through /proc, limits are not enforced, and memory is watched by polling`,
    );
  }

  const runtime = new ProcessPodRuntime({ cgroups: driver, node: spec, clock: systemClock, logger: log });
  await runtime.loadPersisted();
  capabilities.push(...runtime.capabilities);

  const collector = new LinuxSummaryCollector({
    node: spec,
    ...(driver && nodeCgroups ? { cgroups: { driver, node: nodeCgroups } } : {}),
  });
  let lastTargets: ActivePodInfo[] = [];
  const decoded = summaryStatsPort({
    read: async (scope) => {
      lastTargets = await runtime.statsTargets();
      return collector.collect(lastTargets, { memoryOnly: scope === "memory", reusePods: scope === "node" });
    },
    refreshPods: (raw, uids) =>
      Promise.resolve(collector.refreshPods(raw as RawSummaryJson, lastTargets, uids)),
    source: "the node's stats collector",
    clock: systemClock,
    hint: "the collector built a Summary the engine cannot read: a bug in evictd; please report it with the node file",
  });
  let lastSample: StatsSample | undefined;
  const stats: StatsPort = {
    collect: async (scope) => (lastSample = await decoded.collect(scope)),
    refreshPods: async (sample, uids) =>
      (lastSample = await (decoded.refreshPods?.(sample, uids) ?? Promise.resolve(sample))),
  };

  const pods: PodsPort = options.dryRun
    ? new DryRunPods({ pods: runtime, clock: systemClock, logger: log })
    : runtime;
  if (options.dryRun) capabilities.push("dry run: decisions are logged and exported, no pod is killed");

  // Kernel notifications: memcg thresholds on v1, PSI and memory.events on v2.
  const plan = planWakeSources({
    notifications: spec.notifications,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    thresholds: spec.eviction.thresholds,
    cgroups: driver && nodeCgroups ? { driver, node: nodeCgroups } : undefined,
  });
  capabilities.push(...plan.capabilities);
  const wake = new NotificationWakePort({
    sources: plan.thresholds,
    others: plan.others,
    now: () => systemClock.now(),
    onError: (name, e) => log.warn({ source: name, err: String(e) }, "wake source failed"),
  });

  const metrics = new DaemonMetrics();
  const startedAt = systemClock.now();
  const journal = new StepJournal({
    metrics,
    log,
    thresholds: spec.eviction.thresholds,
    startedAt,
    decisionLog: join(spec.stateDir, "decisions.jsonl"),
  });
  const layout: FilesystemLayout = spec.imagefsDir !== undefined ? "split" : "single";
  let lastStep: LoopStep | undefined;

  let manifestErrors: readonly ManifestProblem[] = [];
  const snapshot = (): DaemonSnapshot => {
    const report = lastStep?.report;
    const ranking = currentRanking(report, layout, runtime.activePods(), lastSample?.summary);
    return {
      node: spec,
      startedAt,
      now: systemClock.now(),
      capabilities,
      conditions: loop.engineState.nodeConditions,
      ...(report !== undefined ? { lastReport: report } : {}),
      ...(lastSample !== undefined ? { summary: lastSample.raw } : {}),
      pods: runtime.statusViews(),
      ...(ranking !== undefined ? { ranking } : {}),
      evictions: journal.evictions,
      evictionCounts: journal.evictionCounts,
      manifestErrors,
    };
  };

  const loop = new EvictionLoop({
    config: spec.eviction,
    layout,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    resyncAfterEviction: !options.dryRun,
    stats,
    pods,
    wake,
    clock: systemClock,
    log,
    onStep: (step) => {
      lastStep = step;
      journal.record(step);
      metrics.setPods(runtime.statusViews());
    },
  });

  // The first memory wake after pods start should read kept-open files, not open them on its way to
  // a kill: once a burst of starts settles, a few rehearsed wakes (a memory read and a decision,
  // acted on by nothing: EvictionLoop.rehearse) open the new pods' files, learn their limits and get
  // the wake's read and decision path compiled by V8. On a 110-pod node the first wake after a
  // start otherwise opened ~770 files and took 20–30 ms to read, not 5–10.
  let prepareTimer: NodeJS.Timeout | undefined;
  const prepareStats = (): void => {
    if (prepareTimer !== undefined) return;
    prepareTimer = setTimeout(() => {
      prepareTimer = undefined;
      const prepare = async (): Promise<void> => {
        for (let i = 0; i < PREPARE_READS && !options.signal.aborted; i++) {
          await loop.rehearse();
          // Spread out, so a real wake that comes meanwhile waits for one rehearsal at most.
          await sleep(PREPARE_SPACING_MS, undefined, { signal: options.signal, ref: false });
        }
      };
      prepare().catch((e: unknown) => {
        if (!options.signal.aborted) log.warn({ err: String(e) }, "cannot prepare the stats of new pods");
      });
    }, 100);
    prepareTimer.unref();
  };

  /** Stops a pod whose manifest went away or changed (its own grace period), then deletes what is kept of it. */
  const stopAndForget = async (pod: RunnablePod, reason: string, message: string): Promise<void> => {
    const kill = await runtime.kill(pod, pod.terminationGracePeriodSeconds, {
      phase: "Failed",
      reason,
      message,
      conditions: [],
    });
    await kill.done;
    await runtime.forget(pod);
  };

  // New pods go through admission against the conditions the loop reports now.
  const listener: ManifestListener = {
    added: (pod: RunnablePod) => {
      const verdict = admitPodToNode(
        pod,
        loop.engineState.nodeConditions,
        runtime.activePods(),
        spec.allocatableMemoryBytes,
      );
      const action = verdict.admit
        ? runtime.start(pod)
        : runtime.reject(pod, { ...rejectedPodStatus(verdict), conditions: [] });
      if (!verdict.admit)
        log.warn({ pod: pod.key, reason: verdict.reason }, `rejected ${pod.key}: ${verdict.message.trim()}`);
      action.then(
        () => (verdict.admit ? prepareStats() : undefined),
        (e: unknown) => log.error({ pod: pod.key, err: String(e) }, "cannot start pod"),
      );
    },
    removed: (pod: RunnablePod) => {
      stopAndForget(pod, "Deleted", "The pod manifest was removed").catch((e: unknown) =>
        log.error({ pod: pod.key, err: String(e) }, "cannot stop removed pod"),
      );
    },
    changed: (previous: RunnablePod, next: RunnablePod) => {
      log.info({ pod: next.key }, "manifest changed: restarting the pod");
      stopAndForget(previous, "Replaced", "The pod manifest changed")
        .then(() => runtime.start(next))
        .catch((e: unknown) => log.error({ pod: next.key, err: String(e) }, "cannot restart changed pod"));
    },
    errors: (errs) => {
      manifestErrors = errs.map((e) => manifestProblem(e.file, e.issues));
      metrics.setManifestErrors(manifestErrors.filter((e) => e.errors.length > 0).length);
      // Each message is bounded (read-manifest-file.ts); a file with many problems shows the first few.
      for (const e of manifestErrors) {
        const problems = [...e.errors, ...e.warnings];
        const more =
          problems.length > MANIFEST_LOG_PROBLEMS
            ? `; … ${problems.length - MANIFEST_LOG_PROBLEMS} more in /status`
            : "";
        log.warn(
          { file: e.file },
          `bad pod manifest: ${problems.slice(0, MANIFEST_LOG_PROBLEMS).join("; ")}${more}`,
        );
      }
    },
  };
  const manifests = new ManifestSource({ dir: spec.manifestDir, logger: log, listener });

  let server: DaemonHttpServer | undefined;
  try {
    // Inside the try: when the address cannot be bound (the port is taken), the daemon does not
    // linger half-started (wake threads, supervised pods, no loop, no HTTP): it stops as on a
    // signal and the error ends the command (exit 3, with a hint).
    server = await startHttpServer({ listen: spec.listen, snapshot, metrics });
    log.info(
      { url: server.url, node: spec.name, capabilities },
      `evictd running node ${spec.name}; ${server.url}/status`,
    );
    // Against the pods restored from the state directory: what changed while no daemon ran.
    await manifests.start(runtime.knownPods());
    prepareStats();
    options.onReady?.({
      url: server.url,
      nodeCgroup: driver && nodeCgroups ? driver.directories(nodeCgroups.node).memory : undefined,
    });
    await loop.run(options.signal);
  } finally {
    manifests.stop();
    clearTimeout(prepareTimer);
    await wake.stop();
    await server?.close();
    await collector.diskMeasured();
    collector.close();
    if (options.cleanupOnExit === true) {
      if (driver !== undefined) {
        // The subtree is killed from outside the runtime: its containers must not be restarted.
        runtime.stopRestarts();
        await driver.destroyNode();
      } else {
        // Without cgroups there is no subtree to kill at once: stop every pod's process group.
        const stopped = {
          phase: "Failed" as const,
          reason: "NodeShutdown",
          message: "The node is shutting down",
          conditions: [],
        };
        const kills = await Promise.all(runtime.activePods().map((p) => runtime.kill(p, 1, stopped)));
        await Promise.all(kills.map((k) => k.done));
      }
      await runtime.releaseAll();
    }
    await runtime.close();
    log.info({}, "evictd stopped");
  }
}

/** The `run` verb: the daemon with pino logs on stdout, stopped by SIGINT or SIGTERM. */
export async function runCommand(opts: {
  node: string;
  dryRun: boolean;
  cleanupOnExit: boolean;
}): Promise<number> {
  const log = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  try {
    await runDaemon({
      nodeFile: opts.node,
      dryRun: opts.dryRun,
      cleanupOnExit: opts.cleanupOnExit,
      logger: log,
      signal: stop.signal,
    });
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
