/**
 * `evictd run --node FILE [--dry-run] [--cleanup-on-exit]`: the node daemon, until SIGINT or
 * SIGTERM. Its composition root, which only wires, in this order: the node file; the node
 * prepared (state directory, its lock, the final-status journal, the node cgroup:
 * daemon/prepare-node.ts); the pods (daemon/node-pods.ts); metrics, the step journal and the
 * decision log; what HTTP shows (daemon/daemon-status-view.ts); the manifests
 * (daemon/node-manifests.ts); the HTTP server; the loop thread, which runs the eviction loop, its
 * stats and its wake-ups (daemon/loop-thread/); then the wait for the stop, and the stop. A start
 * refused before any pod runs undoes what it created (daemon/start-undo.ts). Logs are JSON lines
 * on stdout (pino); every eviction's `msg` is a one-line human summary.
 */
import { join } from "node:path";
import { daemonLogger } from "../output/daemon-logger.js";
import type { LoggerPort } from "../../app/ports.js";
import { systemClock } from "../../linux/system-clock.js";
import { loadNodeSpec } from "../../formats/node-file.js";
import type { FilesystemLayout } from "../../core/model.js";
import { EXIT } from "../../errors.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { ownProcessFigures } from "../../linux/own-process.js";
import { startHttpServer, type DaemonHttpServer } from "../../server/http-server.js";
import { StepJournal } from "../../server/step-journal.js";
import { DecisionLog } from "../../server/decision-log.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { LoopThread, type LoopThreadHandlers } from "../../daemon/loop-thread/loop-thread.js";
import { serveLoopThreadRequests } from "../../daemon/loop-thread/serve-loop-thread.js";
import { describePods, PodsFeed } from "../../daemon/loop-thread/pods-feed.js";
import { YoungGenerationTrim } from "../../daemon/gc/young-generation-trim.js";
import { StartUndo } from "../../daemon/start-undo.js";
import { prepareNode, releaseNode } from "../../daemon/prepare-node.js";
import { createNodePods } from "../../daemon/node-pods.js";
import { prepareNodeManifests } from "../../daemon/node-manifests.js";
import { DaemonStatusView } from "../../daemon/daemon-status-view.js";
import { tearDownNode } from "../../daemon/tear-down-node.js";
import { untilAborted } from "../../daemon/until-aborted.js";

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

/** Runs the daemon until `options.signal` aborts. */
export async function runDaemon(options: RunOptions): Promise<void> {
  const { logger: log } = options;
  const { spec, warnings } = await loadNodeSpec(options.nodeFile);
  for (const w of warnings) log.warn({ path: w.path, file: w.file }, w.message);
  const undo = new StartUndo();
  const node = await prepareNode(spec, options.nodeFile, log, undo);
  const { capabilities, driver, nodeCgroups } = node;

  // The eviction loop runs in a thread of its own (daemon/loop-thread/); this thread runs the pods,
  // HTTP, metrics and logs. Set once the loop thread is up.
  let thread: LoopThread | undefined;
  const podsFeed = new PodsFeed({
    describe: () => describePods(runtime, pods, driver !== undefined),
    loopThread: () => thread,
    log,
  });
  const metrics = new DaemonMetrics({
    process: ownProcessFigures(),
    nodeName: spec.name,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    evictionSignals: spec.eviction.thresholds.filter((t) => t.operator !== "").map((t) => t.signal),
  });
  const { runtime, containerLogs, pods } = createNodePods({
    spec,
    node,
    dryRun: options.dryRun,
    log,
    metrics,
    takeInKills: () => thread?.takeInKills(),
    onPodsChanged: () => podsFeed.schedule(),
  });

  const startedAt = systemClock.now();
  const layout: FilesystemLayout = spec.imagefsDir !== undefined ? "split" : "single";
  const journal = new StepJournal({
    metrics,
    log,
    thresholds: spec.eviction.thresholds,
    startedAt,
    decisionLog: DecisionLog.open({
      file: join(spec.stateDir, "decisions.jsonl"),
      log,
      bounds: spec.decisionLog,
    }),
    layout,
    config: spec.eviction,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
  });
  const status = new DaemonStatusView({
    node: spec,
    startedAt,
    capabilities,
    layout,
    pods: runtime,
    journal,
    clock: systemClock,
    loopThread: () => thread,
  });
  const youngGenerationTrim = new YoungGenerationTrim();
  const handlers: LoopThreadHandlers = {
    log,
    onStep: (step, seq) => {
      status.stepTaken(step, seq);
      // Pod counts in /metrics are set when it is scraped (http-handler.ts), not on every step.
      journal.record(step);
      // Start-up (or a burst of HTTP requests) grew this thread's young generation; once quiet, it is given back.
      youngGenerationTrim.afterWork();
    },
    ...serveLoopThreadRequests(runtime, pods),
  };

  // Read from now on (in a thread of their own), started once the loop runs.
  const manifests = prepareNodeManifests({ spec, runtime, status, metrics, log });

  let server: DaemonHttpServer | undefined;
  let failure: unknown;
  try {
    // Inside the try: when the address cannot be bound (the port is taken), the daemon does not
    // linger half-started (loop thread, supervised pods, no HTTP): it stops as on a signal and the
    // error ends the command (exit 3, with a hint).
    server = await startHttpServer({
      listen: spec.listen,
      snapshot: () => status.snapshot(),
      metrics,
      health: () => journal.health(systemClock.now()),
    });
    // The last refusal a start can meet without touching a pod is behind it: from here on pods
    // run (restored first), and a failure stops the daemon rather than undoing the start.
    undo.disarm();
    await runtime.loadPersisted();
    thread = await LoopThread.start({
      node: spec,
      layout,
      dryRun: options.dryRun,
      ...(nodeCgroups !== undefined
        ? { cgroups: { nodeName: nodeCgroups.name, detection: node.detection } }
        : {}),
      pods: await podsFeed.describe(),
      ...(options.dryRun ? {} : { journal: node.reservation.share }),
      handlers,
    });
    capabilities.push(...thread.capabilities);
    log.info(
      { url: server.url, node: spec.name, capabilities },
      `evictd running node ${spec.name}; ${server.url}/status`,
    );
    // Against the pods restored from the state directory: what changed while no daemon ran.
    await manifests.start(runtime.knownPods());
    podsFeed.schedule();
    containerLogs.start();
    options.onReady?.({
      url: server.url,
      nodeCgroup: driver && nodeCgroups ? driver.directories(nodeCgroups.node).memory : undefined,
    });
    await untilAborted(options.signal, thread.finished);
  } catch (e) {
    failure = e;
  } finally {
    manifests.stop();
    await containerLogs.stop();
    try {
      await thread?.stop();
    } catch (e) {
      failure ??= e;
    }
    await server?.close();
    if (!undo.armed && options.cleanupOnExit === true) await tearDownNode(runtime, driver);
    await runtime.close();
    // Refused before any pod ran: what this start created goes again. Otherwise the node stays
    // (its pods keep running for the next daemon to adopt) unless torn down above.
    if (undo.armed) await undo.run();
    else releaseNode(node);
    log.info({}, "evictd stopped");
  }
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error("the daemon failed", { cause: failure });
}

/** The `run` verb: the daemon with pino logs on stdout, stopped by SIGINT or SIGTERM. */
export async function runCommand(opts: {
  node: string;
  dryRun: boolean;
  cleanupOnExit: boolean;
}): Promise<number> {
  const log = daemonLogger();
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
