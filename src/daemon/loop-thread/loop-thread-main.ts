/**
 * The loop thread of `evictd run` (a worker thread, and its composition root): the node's stats
 * collector, the kernel wake-ups and the eviction loop, which sends SIGTERM from here. Nothing else
 * runs on this thread, so a kernel notification's way to a kill never waits behind HTTP requests,
 * log writes, manifest parsing or the main thread's garbage collection. See protocol.ts for what
 * it says to the main thread.
 */
import { notArmedCapability } from "../../app/node-view/wake-capability.js";
import { parentPort, workerData } from "node:worker_threads";
import { EvictionLoop } from "../../app/loop/eviction-loop.js";
import { loopStepData } from "../../app/loop/loop-step-data.js";
import { LastPodMemory } from "../../app/node-view/last-pod-memory.js";
import type { LoggerPort, StatsPort } from "../../app/ports.js";
import { createCgroupDriver } from "../../linux/cgroups/create-cgroup-driver.js";
import type { CgroupDriver, NodeCgroups } from "../../linux/cgroups/cgroup-driver.js";
import { collectorStatsPort, LinuxSummaryCollector } from "../../linux/node-stats/index.js";
import { NotificationWakePort } from "../../linux/notify/notification-wake-port.js";
import { ownNodeWakeTarget, planWakeSources } from "../../linux/notify/plan-wake-sources.js";
import { AdapterError } from "../../errors.js";
import { systemClock } from "../../linux/system-clock.js";
import { EVICTION_LOOP_NICE, setCurrentThreadNice } from "../../linux/thread-priority.js";
import { scavengeWhenIdle } from "../gc/idle-scavenge.js";
import { WakeRehearsals } from "../../app/loop/wake-rehearsals.js";
import { errorData, type LoopThreadInit, type ToLoopThread } from "./protocol.js";
import { MainThreadChannel, RemotePods } from "./remote-pods.js";
import { FinalStatusJournal } from "../../runtime/final-status-journal.js";

async function runLoopThread(init: LoopThreadInit, main: MainThreadChannel): Promise<void> {
  const { node: spec } = init;
  // A wake's way to SIGTERM must not wait for the CPU behind HTTP, logs or garbage collection.
  const priority = setCurrentThreadNice(EVICTION_LOOP_NICE, "the eviction loop's thread");
  const log: LoggerPort = {
    info: (fields, message) => main.post({ type: "log", level: "info", fields, message, at: Date.now() }),
    warn: (fields, message) => main.post({ type: "log", level: "warn", fields, message, at: Date.now() }),
    error: (fields, message) => main.post({ type: "log", level: "error", fields, message, at: Date.now() }),
  };

  let cgroups: { readonly driver: CgroupDriver; readonly node: NodeCgroups } | undefined;
  if (init.cgroups !== undefined) {
    const created = createCgroupDriver(init.cgroups.detection);
    if (!created.ok)
      throw new AdapterError("cgroups-unavailable", `the loop thread cannot use cgroups: ${created.reason}`);
    // The main thread created the node; this attaches to it (adopting touches nothing present).
    const node = await created.driver.createNode({ name: init.cgroups.nodeName, adopt: true });
    cgroups = { driver: created.driver, node };
  }

  const journal = init.journal !== undefined ? new FinalStatusJournal(init.journal) : undefined;
  const pods = new RemotePods(main, {
    dryRun: init.dryRun,
    ...(journal !== undefined ? { journal } : {}),
    log,
  });
  pods.update(init.pods);
  const collector = new LinuxSummaryCollector({ node: spec, ...(cgroups !== undefined ? { cgroups } : {}) });
  const stats: StatsPort = collectorStatsPort(collector, {
    targets: () => pods.statsTargets(),
    clock: systemClock,
  });

  // Kernel notifications: memcg thresholds and reclaim reports on v1, PSI and memory.events on v2.
  const plan = planWakeSources({
    notifications: spec.notifications,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    thresholds: spec.eviction.thresholds,
    target: cgroups === undefined ? undefined : ownNodeWakeTarget(cgroups.driver, cgroups.node),
  });
  const wake = new NotificationWakePort({
    sources: plan.thresholds,
    others: plan.others,
    now: () => systemClock.now(),
    onError: (name, e) => log.warn({ source: name, err: String(e) }, "wake source failed"),
  });

  /** The last step's number and the Summary it decided from. */
  let last: { readonly seq: number; readonly raw: unknown } = { seq: 0, raw: undefined };
  // Each pod's last working set read, kept across steps for /status (a memory wake reads most
  // pods' usage alone): taken in after each step's kills, decoded only when /status asks.
  const podMemory = new LastPodMemory();
  const loop = new EvictionLoop({
    config: spec.eviction,
    layout: init.layout,
    housekeepingIntervalMs: spec.housekeepingIntervalMs,
    resyncAfterEviction: !init.dryRun,
    stats,
    pods,
    wake,
    clock: systemClock,
    log,
    podMemory,
    onStep: (step) => {
      last = { seq: last.seq + 1, raw: step.sample?.raw };
      main.post({ type: "step", seq: last.seq, step: loopStepData(step) });
      scavengeWhenIdle();
    },
  });

  const stop = new AbortController();
  // The first memory wake after pods start should read kept-open files, not open them on its way to
  // a kill (wake-rehearsals.ts).
  const rehearsals = new WakeRehearsals({
    rehearse: () => loop.rehearse(),
    clock: systemClock,
    log,
    signal: stop.signal,
    afterEach: scavengeWhenIdle,
  });
  const prepareStats = (): void => rehearsals.poke();

  parentPort?.on("message", (message: ToLoopThread) => {
    if (main.settle(message)) return;
    if (message.type === "pods") {
      if (pods.update(message).length > 0) prepareStats();
    } else if (message.type === "summaryWanted") {
      // The node's memory views are read now, on this thread (a few small files): only a request
      // for /status or the page asks, never a loop step.
      const nodeMemoryViews = collector.readNodeMemoryViews();
      main.post({
        type: "summary",
        id: message.id,
        seq: last.seq,
        raw: last.raw,
        ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
        ...(last.seq > 0 ? { podMemory: podMemory.figures() } : {}),
      });
    } else if (message.type === "stop") stop.abort();
  });

  // What is armed, exactly: a source the kernel refused is named with why.
  const refused = wake.refused.map((r) => notArmedCapability(r.reason));
  main.post({ type: "ready", capabilities: [...plan.capabilities, ...refused, priority.note] });
  prepareStats();
  try {
    await loop.run(stop.signal);
  } finally {
    await wake.stop();
    await collector.diskMeasured();
    collector.close();
    journal?.close();
  }
}

const port = parentPort;
if (port !== null) {
  const init = workerData as LoopThreadInit;
  const main = new MainThreadChannel(port, init.kills);
  runLoopThread(init, main).then(
    () => {
      main.post({ type: "stopped" });
      port.close();
      init.kills.close();
    },
    (error: unknown) => {
      main.post({ type: "failed", error: errorData(error) });
      port.close();
      init.kills.close();
    },
  );
}
