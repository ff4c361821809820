/**
 * `evictd run --node FILE [--dry-run]`: the node daemon, until SIGINT or SIGTERM, and its
 * composition root. It reads the node file, builds the node's cgroup subtree, the pod runtime, the
 * stats collector, the wake sources, the HTTP surface and the decision log, and runs the eviction
 * loop until stopped. Decisions come from the pure engine; this file only wires adapters to ports.
 * Logs are JSON lines on stdout (pino); every eviction's `msg` is a one-line human summary.
 */
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { daemonLogger } from "../output/daemon-logger.js";
import type { LoopStepData } from "../../app/loop/loop-step-data.js";
import type { LoggerPort, PodsPort } from "../../app/ports.js";
import { systemClock } from "../../linux/system-clock.js";
import type { DaemonSnapshot, ManifestProblem } from "../../app/node-view/snapshot.js";
import { loadNodeSpec } from "../../formats/node-file.js";
import { createCgroupDriver } from "../../linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../../linux/cgroups/detect-cgroups.js";
import type { CgroupDriver, NodeCgroups } from "../../linux/cgroups/cgroup-driver.js";
import { ManifestSource } from "../../runtime/manifest-source.js";
import { manifestAdmission } from "../../runtime/manifest-admission.js";
import { prepareNodeDirectories } from "../../runtime/node-directories.js";
import { DryRunPods } from "../../runtime/dry-run-pods.js";
import { ProcessPodRuntime } from "../../runtime/pod-runtime.js";
import { activeContainerLogs, ContainerLogMonitor } from "../../runtime/container-log-monitor.js";
import type { FilesystemLayout, NodeCondition, NodeSummary } from "../../core/model.js";
import { buildDaemonSnapshot } from "../../app/node-view/build-daemon-snapshot.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import { IssueList } from "../../core/issues.js";
import { EXIT } from "../../errors.js";
import { DaemonMetrics } from "../../server/metrics.js";
import { ownProcessFigures } from "../../linux/own-process.js";
import { startHttpServer, type DaemonHttpServer } from "../../server/http-server.js";
import { StepJournal } from "../../server/step-journal.js";
import { DecisionLog } from "../../server/decision-log.js";
import { stopOnSignals } from "../stop-on-signals.js";
import { LoopThread, type LoopThreadHandlers } from "../../daemon/loop-thread/loop-thread.js";
import { serveLoopThreadRequests } from "../../daemon/loop-thread/serve-loop-thread.js";
import type { LastSummary, PodsUpdate } from "../../daemon/loop-thread/protocol.js";
import { YoungGenerationTrim } from "../../daemon/gc/young-generation-trim.js";
import { FinalStatusJournal, openFinalStatusJournal } from "../../runtime/final-status-journal.js";
import { lockStateDir } from "../../runtime/state-dir-lock.js";

/** How long an HTTP request waits for the loop thread's last Summary before answering with the one before. */
const SUMMARY_WAIT_MS = 2000;

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
 * What a start has created so far, undone in reverse when it fails before any pod could run: a
 * refused start (exit 3) leaves the machine as it found it.
 */
class StartUndo {
  readonly #steps: (() => unknown)[] = [];
  #armed = true;

  push(step: () => unknown): void {
    this.#steps.push(step);
  }

  /** From here on pods may run: a failure is a shutdown, not an undo. */
  disarm(): void {
    this.#armed = false;
  }

  get armed(): boolean {
    return this.#armed;
  }

  async run(): Promise<void> {
    if (!this.#armed) return;
    for (const step of this.#steps.reverse()) {
      try {
        await step();
      } catch {
        // Undoing while failing: what cannot be undone stays, the original error is what matters.
      }
    }
  }
}

/** Runs the daemon until `options.signal` aborts. */
export async function runDaemon(options: RunOptions): Promise<void> {
  const { logger: log } = options;
  const { spec, warnings } = await loadNodeSpec(options.nodeFile);
  for (const w of warnings) log.warn({ path: w.path, file: w.file }, w.message);
  const undo = new StartUndo();
  const createdStateDir = prepareNodeDirectories(spec);
  if (createdStateDir !== undefined)
    undo.push(() => rmSync(createdStateDir, { recursive: true, force: true }));
  // One daemon per node: the state directory first, then the node cgroup (createNode, exclusive).
  let stateLock;
  try {
    stateLock = lockStateDir(spec.stateDir, {
      pid: process.pid,
      node: spec.name,
      nodeFile: resolve(options.nodeFile),
    });
  } catch (e) {
    await undo.run();
    throw e;
  }
  undo.push(() => stateLock.undo());
  const capabilities: string[] = [];
  let finalStatuses: FinalStatusJournal | undefined;
  let driver: CgroupDriver | undefined;
  let nodeCgroups: NodeCgroups | undefined;
  let reservation: ReturnType<typeof openFinalStatusJournal>;
  const detection = await detectOwnCgroups();
  const nodeName = `evictd-${spec.name.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 50)}`;
  try {
    // Space for the record of every pod that ends, reserved before any pod runs.
    reservation = openFinalStatusJournal(spec.stateDir);
    const finalStatusesFile = reservation.file;
    if (reservation.created) undo.push(() => rmSync(finalStatusesFile, { force: true }));
    finalStatuses = new FinalStatusJournal(reservation.share);
    const writer = finalStatuses;
    undo.push(() => writer.close());
    capabilities.push(
      `the end of every pod (eviction, rejection, completion) is recorded in ${reservation.file} before it takes effect, in space reserved at start, so a full state filesystem never lets an ended pod run again`,
    );
    if (reservation.copyOnWrite !== undefined)
      capabilities.push(
        `stateDir is on ${reservation.copyOnWrite}, which copies on write: the journal's reserved space does not guarantee its writes on a full filesystem (disable copy-on-write for the stateDir, e.g. chattr +C, or use another filesystem)`,
      );
    if (reservation.unreadable > 0)
      log.warn(
        { file: reservation.file, slots: reservation.unreadable },
        "final-status journal: records that do not read back (torn by a crash) are ignored",
      );

    const created = createCgroupDriver(detection);
    if (created.ok) {
      driver = created.driver;
      capabilities.push(...created.limitations);
      // A node left behind by a previous run is adopted: its pods' processes keep running.
      nodeCgroups = await driver.createNode({
        name: nodeName,
        adopt: true,
        exclusive: true,
        memoryLimitBytes: spec.capacity.memoryBytes,
        ...(spec.capacity.pids !== undefined ? { pidsMax: Number(spec.capacity.pids) } : {}),
        pods: {
          memoryLimitBytes: spec.podsMemoryLimitBytes,
          ...(spec.podsPidsLimit !== undefined ? { pidsMax: Number(spec.podsPidsLimit) } : {}),
        },
      });
      const nodeDriver = driver;
      // A node this start created holds nothing yet: it goes again; an adopted one stays as it was.
      undo.push(() => (nodeCgroups?.adopted === true ? nodeDriver.release() : nodeDriver.destroyNode()));
      capabilities.push(
        `cgroup ${driver.api}: node at ${driver.directories(nodeCgroups.node).memory ?? nodeName}`,
      );
    } else {
      capabilities.push(
        `no cgroups (${created.reason}): processes are measured through /proc, limits are not enforced, and memory is watched by polling`,
      );
    }
  } catch (e) {
    await undo.run();
    throw e;
  }

  // The eviction loop runs in a thread of its own (daemon/loop-thread/); this thread runs the pods,
  // HTTP, metrics and logs. Set once the loop thread is up.
  let thread: LoopThread | undefined;
  // Pod starts come in bursts (a restart adopts 110 pods): one update per turn of the event loop.
  let updateQueued = false;
  const schedulePodsUpdate = (): void => {
    if (updateQueued || thread === undefined) return;
    updateQueued = true;
    setImmediate(() => {
      updateQueued = false;
      podsUpdate().then(
        (update) => thread?.pushPods(update),
        (e: unknown) => log.warn({ err: String(e) }, "cannot describe the pods to the loop thread"),
      );
    });
  };
  const metrics = new DaemonMetrics({
    process: ownProcessFigures(),
    nodeName: spec.name,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    evictionSignals: spec.eviction.thresholds.filter((t) => t.operator !== "").map((t) => t.signal),
  });
  const runtime = new ProcessPodRuntime({
    cgroups: driver,
    node: spec,
    clock: systemClock,
    logger: log,
    takeInKills: () => thread?.takeInKills(),
    onPodsChanged: () => schedulePodsUpdate(),
    journal: { writer: finalStatuses, found: reservation.latest },
    onOomKill: (kill) => {
      metrics.recordOomKill(kill);
      log.warn(
        {
          pod: `${kill.namespace}/${kill.pod}`,
          container: kill.container,
          limit: kill.limitBytes === undefined ? null : String(kill.limitBytes),
        },
        kill.limitBytes === undefined
          ? "the kernel OOM-killed a container without a memory limit of its own: the pods' or the node's limit was hit before eviction reclaimed memory"
          : "the kernel OOM-killed a container at its own memory limit",
      );
    },
  });
  capabilities.push(...runtime.capabilities);
  const containerLogs = new ContainerLogMonitor({
    policy: spec.containerLogs,
    logs: () => activeContainerLogs(runtime),
    clock: systemClock,
    log,
  });
  capabilities.push(containerLogs.capability);

  const pods: PodsPort = options.dryRun
    ? new DryRunPods({ pods: runtime, clock: systemClock, logger: log })
    : runtime;
  if (options.dryRun) capabilities.push("dry run: decisions are logged and exported, no pod is killed");

  /** What the loop thread is told about the pods. */
  const podsUpdate = async (): Promise<PodsUpdate> => ({
    active: pods.activePods(),
    // Without cgroups a pod's processes are found by a /proc scan: the loop thread asks at each read.
    ...(driver !== undefined ? { targets: await runtime.statsTargets() } : {}),
    signal: runtime.signalTargets(),
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
  let lastStep: { readonly seq: number; readonly step: LoopStepData } | undefined;
  // The Summary the last step decided from stays on the loop thread until an HTTP request wants it:
  // fetched at most once per step, and decoded (for /status's ranking) at most once per fetch.
  let summary: (LastSummary & { decoded?: NodeSummary | undefined }) | undefined;
  let fetching: Promise<void> | undefined;
  const latestSummary = async (): Promise<typeof summary> => {
    if (lastStep !== undefined && summary?.seq !== lastStep.seq && thread !== undefined) {
      fetching ??= thread.summary(SUMMARY_WAIT_MS).then((answer) => {
        fetching = undefined;
        if (answer !== undefined && answer.raw !== undefined) summary = answer;
      });
      await fetching;
    }
    return summary;
  };
  const conditions = (): readonly NodeCondition[] => lastStep?.step.state.nodeConditions ?? [];

  let manifestErrors: readonly ManifestProblem[] = [];
  const snapshot = async (): Promise<DaemonSnapshot> => {
    const report = lastStep?.step.report;
    const latest = await latestSummary();
    if (latest !== undefined && !("decoded" in latest))
      latest.decoded = decodeSummary(latest.raw, "summary", systemClock.now(), new IssueList());
    return buildDaemonSnapshot({
      node: spec,
      startedAt,
      now: systemClock.now(),
      capabilities,
      conditions: conditions(),
      layout,
      ...(report !== undefined ? { lastReport: report } : {}),
      ...(latest !== undefined ? { rawSummary: latest.raw } : {}),
      ...(latest?.decoded !== undefined ? { summary: latest.decoded } : {}),
      pods: runtime.statusViews(),
      activePods: runtime.activePods(),
      ...(latest?.podMemory !== undefined ? { podMemory: latest.podMemory } : {}),
      ...(latest?.nodeMemoryViews !== undefined ? { nodeMemoryViews: latest.nodeMemoryViews } : {}),
      journal,
      manifestErrors,
    });
  };

  const youngGenerationTrim = new YoungGenerationTrim();
  const handlers: LoopThreadHandlers = {
    log,
    onStep: (step, seq) => {
      lastStep = { seq, step };
      // Pod counts in /metrics are set when it is scraped (http-handler.ts), not on every step.
      journal.record(step);
      // Start-up (or a burst of HTTP requests) grew this thread's young generation; once quiet, it is given back.
      youngGenerationTrim.afterWork();
    },
    ...serveLoopThreadRequests(runtime, pods),
  };

  // New pods go through admission against the conditions the loop reports now.
  const listener = manifestAdmission({
    runtime,
    allocatable: { memoryBytes: spec.allocatableMemoryBytes, pods: spec.maxPods },
    conditions,
    logger: log,
    onManifestProblems: (problems) => {
      manifestErrors = problems;
      metrics.setManifestErrors(problems.filter((e) => e.errors.length > 0).length);
    },
  });
  const manifests = new ManifestSource({ dir: spec.manifestDir, logger: log, listener });
  // Manifests are read in a worker thread (runtime/manifest-read-thread.ts): started now, it is up
  // by the time the first scan needs it.
  manifests.prepare();

  let server: DaemonHttpServer | undefined;
  let failure: unknown;
  try {
    // Inside the try: when the address cannot be bound (the port is taken), the daemon does not
    // linger half-started (loop thread, supervised pods, no HTTP): it stops as on a signal and the
    // error ends the command (exit 3, with a hint).
    server = await startHttpServer({
      listen: spec.listen,
      snapshot,
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
      ...(nodeCgroups !== undefined ? { cgroups: { nodeName: nodeCgroups.name, detection } } : {}),
      pods: await podsUpdate(),
      ...(options.dryRun ? {} : { journal: reservation.share }),
      handlers,
    });
    capabilities.push(...thread.capabilities);
    log.info(
      { url: server.url, node: spec.name, capabilities },
      `evictd running node ${spec.name}; ${server.url}/status`,
    );
    // Against the pods restored from the state directory: what changed while no daemon ran.
    await manifests.start(runtime.knownPods());
    schedulePodsUpdate();
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
    if (!undo.armed && options.cleanupOnExit === true) {
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
    if (undo.armed) {
      // Refused before any pod ran: what this start created goes again.
      await undo.run();
    } else {
      // The node stays (its pods keep running for the next daemon to adopt) unless torn down above.
      driver?.release();
      finalStatuses.close();
      stateLock.lock.release();
    }
    log.info({}, "evictd stopped");
  }
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error("the daemon failed", { cause: failure });
}

/** Resolves when `signal` aborts; rejects if `running` fails first (a loop that ended by itself is a failure too). */
function untilAborted(signal: AbortSignal, running: Promise<void>): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
    running.then(
      () => (signal.aborted ? resolve() : reject(new Error("the eviction loop ended by itself"))),
      reject,
    );
  });
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
