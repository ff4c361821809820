/**
 * `evictd explain`: one look at a cluster node through the engine. Each signal against the
 * kubelet's own thresholds (from configz), the pressure conditions the kubelet reports next to
 * the ones this sample implies, what the eviction manager would do with this sample right now,
 * and the eviction ranking with the reason for each pod's place. {@link explainNode} is pure
 * (payloads in, a view out); {@link explainClusterNode} reads them through the cluster port.
 */
import { INITIAL_STATE, synchronize } from "../../core/engine/index.js";
import type { SyncReport } from "../../core/engine/types.js";
import { IssueList } from "../../core/issues.js";
import type { EvictionConfig, FilesystemLayout, Pod } from "../../core/model.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { NODE_CONDITIONS } from "../../core/signals.js";
import { buildStatusView, type AllocationView, type SignalView } from "./status-view.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import type { PodStatusView } from "./snapshot.js";
import { buildDaemonSnapshot } from "./build-daemon-snapshot.js";
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { podIdentity } from "../cluster/node-pod-set.js";
import type { ClusterNodePort } from "../cluster/cluster-node-port.js";
import type { ClusterEvictionSettings } from "../cluster/eviction-settings.js";
import { summaryStatsPort } from "../loop/summary-stats-port.js";
import type { ClockPort, StatsSample } from "../ports.js";
import { podStatusView } from "./pod-status-view.js";
import { apiPodInfo, withNodeLocalMemory } from "../cluster/node-local-summary.js";
import type { NodeMemoryPort } from "../cluster/node-memory-port.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";

export interface ExplainInput {
  readonly nodeName: string;
  readonly source: string;
  readonly now: number;
  readonly config: EvictionConfig;
  /** The node's Summary, decoded (see {@link summaryStatsPort}). */
  readonly sample: StatsSample;
  readonly node: unknown;
  readonly pods: readonly unknown[];
  readonly decodePod: (raw: unknown, issues: IssueList) => Pod | undefined;
  /** The node's memory three ways, read with the sample (`--stats cgroups`): shown beside memory.available. */
  readonly nodeMemoryViews?: NodeMemoryViewsReading;
}

export interface NodeExplanation {
  readonly node: string;
  readonly source: string;
  readonly time: string;
  readonly layout: FilesystemLayout;
  /** What the kubelet reports in the Node's status (MemoryPressure, DiskPressure, PIDPressure). */
  readonly kubeletConditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
  /** What this one sample implies (soft thresholds count as met once their grace period passes). */
  readonly conditions: readonly { readonly type: string; readonly status: "True" | "False" }[];
  readonly signals: readonly SignalView[];
  /** The eviction manager's verdict on this sample: what it would do now. */
  readonly verdict: {
    readonly outcome: string;
    readonly actedOn: string | null;
    readonly wouldEvict: readonly {
      readonly pod: string;
      readonly signal: string;
      readonly message: string;
    }[];
  };
  readonly ranking: {
    readonly signal: string;
    readonly next: string | null;
    readonly order: readonly {
      readonly place: number;
      readonly pod: string;
      readonly critical: boolean;
      /** Includes, for a pod ranked by an allocated request its spec no longer asks, both requests. */
      readonly reason: string;
      /** Present when the pod's allocated request differs from its spec's (in-place resize). */
      readonly allocation?: AllocationView;
    }[];
  } | null;
  /** Pods that could not be read (with the reason), left out of the ranking. */
  readonly skippedPods: readonly { readonly pod: string; readonly problem: string }[];
}

/** Pressure conditions from a v1 Node's status.conditions. */
function kubeletConditions(node: unknown): NodeExplanation["kubeletConditions"] {
  const list = (node as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  if (!Array.isArray(list)) return [];
  const out: { type: string; status: string; reason?: string; message?: string }[] = [];
  for (const c of list as unknown[]) {
    if (c === null || typeof c !== "object") continue;
    const { type, status, reason, message } = c as Record<string, unknown>;
    if (typeof type !== "string" || !(NODE_CONDITIONS as readonly string[]).includes(type)) continue;
    out.push({
      type,
      status: typeof status === "string" ? status : "Unknown",
      ...(typeof reason === "string" ? { reason } : {}),
      ...(typeof message === "string" ? { message } : {}),
    });
  }
  return out;
}

/** The explanation of one sample of a node: its Summary, Node object and pods. */
export function explainNode(input: ExplainInput): NodeExplanation {
  const { summary } = input.sample;
  const layout = detectFilesystemLayout(summary);
  const active: Pod[] = [];
  const views: PodStatusView[] = [];
  const skippedPods: { pod: string; problem: string }[] = [];
  for (const raw of input.pods) {
    const id = podIdentity(raw);
    if (id === undefined || isTerminalPhase(id.phase)) continue;
    const podIssues = new IssueList();
    const pod = input.decodePod(raw, podIssues);
    if (pod === undefined) {
      skippedPods.push({
        pod: id.key,
        problem: podIssues.items.map((i) => `${i.path}: ${i.message}`).join("; "),
      });
      continue;
    }
    active.push(pod);
    views.push(podStatusView(raw, pod));
  }

  const result = synchronize(input.config, INITIAL_STATE, {
    now: input.now,
    summary,
    activePods: active,
    layout,
  });
  const ran = result.kind === "reclaim" ? result.resume({ summary, errors: {} }) : result;
  const report: SyncReport = ran.report;
  // This one look as a daemon snapshot (no journal, no raw Summary to serve), built as `run` and
  // `watch` build theirs: the same ranking, with the same reasons, as their /status shows.
  const view = buildStatusView(
    buildDaemonSnapshot({
      node: { name: input.nodeName, listen: { host: "", port: 0 }, eviction: input.config },
      startedAt: input.now,
      now: input.now,
      capabilities: [],
      conditions: ran.state.nodeConditions,
      layout,
      lastReport: report,
      summary,
      pods: views,
      activePods: active,
      ...(input.nodeMemoryViews !== undefined ? { nodeMemoryViews: input.nodeMemoryViews } : {}),
      journal: { evictions: [], evictionCounts: {} },
    }),
  );
  return {
    node: input.nodeName,
    source: input.source,
    time: formatRfc3339Ms(input.now),
    layout,
    kubeletConditions: kubeletConditions(input.node),
    conditions: view.conditions,
    signals: view.signals,
    verdict: {
      outcome: report.outcome,
      actedOn: report.actedOn?.signal ?? null,
      wouldEvict: report.evictions.map((e) => ({ pod: e.pod.key, signal: e.signal, message: e.message })),
    },
    ranking: view.ranking,
    skippedPods,
  };
}

export interface ExplainClusterNodeOptions {
  readonly api: ClusterNodePort;
  readonly settings: ClusterEvictionSettings;
  readonly clock: Pick<ClockPort, "now">;
  readonly signal?: AbortSignal;
  /**
   * `--stats cgroups`: memory read from the kubelet's own cgroups on this node, fresher than the
   * Summary's (the rest of the Summary stays the kubelet's). The explanation's source says which.
   */
  readonly memory?: NodeMemoryPort;
}

/**
 * Reads the node's Summary, Node object and pods through `api` and explains them. A Summary that
 * does not decode rejects with an `AdapterError` (see {@link summaryStatsPort}), as a refused read does.
 */
export async function explainClusterNode(o: ExplainClusterNodeOptions): Promise<NodeExplanation> {
  const { api, settings, memory } = o;
  const [summary, node, pods] = await Promise.all([
    api.summary(o.signal),
    api.node(o.signal),
    api.listPods(o.signal),
  ]);
  const infos = pods.items.flatMap((p) => {
    const info = apiPodInfo(p);
    return info === undefined ? [] : [info];
  });
  let nodeMemoryViews: NodeMemoryViewsReading | undefined;
  const stats = summaryStatsPort({
    read: () => {
      if (memory === undefined) return Promise.resolve(summary);
      const local = memory.read(
        "all",
        infos.map((i) => i.uid),
      );
      // The three views of the node's memory, read right after the figures the engine decides on.
      nodeMemoryViews = memory.readNodeMemoryViews?.();
      return Promise.resolve(withNodeLocalMemory(summary, local, infos));
    },
    source: api.describe,
    clock: o.clock,
  });
  const sample = await stats.collect();
  return explainNode({
    nodeName: api.nodeName,
    source:
      memory === undefined
        ? `${api.describe}; thresholds from ${settings.origin}`
        : `memory from ${memory.describe}, read now; the rest from ${api.describe}; thresholds from ${settings.origin}`,
    now: o.clock.now(),
    config: settings.config,
    sample,
    node,
    pods: pods.items,
    decodePod: (raw, podIssues) => decodePod(raw, "pod", podIssues),
    ...(nodeMemoryViews !== undefined ? { nodeMemoryViews } : {}),
  });
}
