/**
 * The pods of `evictd run`'s node, as the main thread runs them: the process runtime (in the node's
 * cgroups when there are any, every end recorded in the final-status journal, every kernel OOM
 * kill reported), the container log monitor over it, and the PodsPort the loop's kills go through
 * (the runtime itself, or in a dry run a port that only logs). What each can do here is added to
 * the node's capabilities.
 */
import type { LoggerPort, PodsPort } from "../app/ports.js";
import type { NodeSpec } from "../core/node/node-spec.js";
import { systemClock } from "../linux/system-clock.js";
import { activeContainerLogs, ContainerLogMonitor } from "../runtime/container-log-monitor.js";
import { DryRunPods } from "../runtime/dry-run-pods.js";
import { ProcessPodRuntime } from "../runtime/pod-runtime.js";
import type { DaemonMetrics } from "../server/metrics.js";
import { reportOomKills } from "./oom-kill-report.js";
import type { PreparedNode } from "./prepare-node.js";

export interface NodePodsOptions {
  readonly spec: NodeSpec;
  readonly node: PreparedNode;
  readonly dryRun: boolean;
  readonly log: LoggerPort;
  readonly metrics: Pick<DaemonMetrics, "recordOomKill">;
  /** The loop thread's kills taken in (ProcessPodRuntimeOptions.takeInKills). */
  readonly takeInKills: () => void;
  /** The active pods, or what describes them to the stats collector, may have changed. */
  readonly onPodsChanged: () => void;
}

export interface NodePods {
  readonly runtime: ProcessPodRuntime;
  readonly containerLogs: ContainerLogMonitor;
  /** What the eviction loop kills through. */
  readonly pods: PodsPort;
}

export function createNodePods(o: NodePodsOptions): NodePods {
  const { spec, node, log } = o;
  const runtime = new ProcessPodRuntime({
    cgroups: node.driver,
    node: spec,
    clock: systemClock,
    logger: log,
    takeInKills: o.takeInKills,
    onPodsChanged: o.onPodsChanged,
    journal: { writer: node.finalStatuses, found: node.reservation.latest },
    onOomKill: reportOomKills(o.metrics, log),
  });
  node.capabilities.push(...runtime.capabilities);
  const containerLogs = new ContainerLogMonitor({
    policy: spec.containerLogs,
    logs: () => activeContainerLogs(runtime),
    clock: systemClock,
    log,
  });
  node.capabilities.push(containerLogs.capability);
  const pods: PodsPort = o.dryRun
    ? new DryRunPods({ pods: runtime, clock: systemClock, logger: log })
    : runtime;
  if (o.dryRun) node.capabilities.push("dry run: decisions are logged and exported, no pod is killed");
  return { runtime, containerLogs, pods };
}
