/**
 * What the node daemon knows at a moment, as plain data: the node, the last synchronize and its
 * report, every pod with its status, and the current eviction ranking with reasons. The HTTP
 * endpoints (/status, /metrics, /stats/summary) render it; nothing in them reads the system.
 */
import type { ReportData } from "../report/report-data.js";
import type { Issue } from "../../core/issues.js";
import type { SyncReport } from "../../core/engine/types.js";
import type { EvictionConfig, NodeCondition, Pod, Signal } from "../../core/model.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import type { RankExplanation } from "../../core/rank/explain-ranking.js";
import type { PodMemoryFigures } from "./pod-memory-figures.js";

/** A pod's status as the daemon reports (and persists) it, with the kubelet's field meanings. */
export interface PodStatusView {
  readonly pod: Pod;
  /** Pending | Running | Succeeded | Failed */
  readonly phase: string;
  /** e.g. `Evicted` for evicted and rejected pods. */
  readonly reason?: string;
  readonly message?: string;
  readonly conditions: readonly {
    readonly type: string;
    readonly status: string;
    readonly reason?: string;
    readonly message?: string;
  }[];
  readonly qosClass: string;
  /** Container name → restart count. */
  readonly restarts: Readonly<Record<string, number>>;
}

export interface EvictionRecord {
  readonly at: number;
  readonly pod: string;
  readonly signal: string;
  readonly gracePeriodSeconds: number;
  readonly message: string;
  /** Milliseconds from the threshold being crossed (the waking notification or sample) to SIGTERM. */
  readonly reactionMs?: number;
  /** Milliseconds from the last look that saw the signal below its threshold to SIGTERM (the reaction's upper bound). */
  readonly sinceBelowMs?: number;
  readonly killFailed: boolean;
}

/** What /status says about the node: a node file's spec (`evictd run`) or a cluster node (`evictd watch`). */
export interface SnapshotNode {
  readonly name: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly eviction: EvictionConfig;
}

export interface DaemonSnapshot {
  readonly node: SnapshotNode;
  readonly startedAt: number;
  readonly now: number;
  /** What the daemon can and cannot do here (e.g. "no cgroup access: polling /proc"). */
  readonly capabilities: readonly string[];
  readonly conditions: readonly NodeCondition[];
  /** The last synchronize's report, when one ran. */
  readonly lastReport?: SyncReport;
  /** The raw Summary API object of the last sample (served at /stats/summary). */
  readonly summary?: unknown;
  /**
   * The node's memory three ways (the kubelet's formula, the kernel's MemAvailable, with kernel
   * memory), read when the snapshot was taken: evictd's additions, shown beside `memory.available`
   * and never decided on. Absent where nothing reads them (the Summary API alone, no cgroups).
   */
  readonly nodeMemoryViews?: NodeMemoryViewsReading;
  readonly pods: readonly PodStatusView[];
  /**
   * Each pod's last working set read, with its time, and whether the last sample read it (a memory
   * wake reads most pods' usage alone): what /status shows per pod and what the ranking's reasons
   * say. Absent before the first step.
   */
  readonly podMemory?: PodMemoryFigures;
  /** Who goes next, per signal currently met (or the memory ranking when none is met). */
  readonly ranking?: { readonly signal: Signal; readonly order: readonly RankExplanation[] };
  readonly evictions: readonly EvictionRecord[];
  /** Evictions counted per `kubelet_evictions` label. */
  readonly evictionCounts: Readonly<Record<string, number>>;
  /** The last minutes of steps, for the page at `/` (built when asked for). */
  readonly history?: () => ReportData;
  /** Manifest files with problems as of the last scan of the manifest directory (absent: not scanned). */
  readonly manifestErrors?: readonly ManifestProblem[];
}

/** One manifest file with problems: its errors and warnings, each one line. */
export interface ManifestProblem {
  readonly file: string;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** A file's issues as one line each (`line L: path: message`), errors apart from warnings. */
export function manifestProblem(file: string, issues: readonly Issue[]): ManifestProblem {
  const line = (i: Issue): string =>
    `${i.line !== undefined ? `line ${i.line}: ` : ""}${i.path !== "" ? `${i.path}: ` : ""}${i.message}`;
  return {
    file,
    errors: issues.filter((i) => i.severity === "error").map(line),
    warnings: issues.filter((i) => i.severity !== "error").map(line),
  };
}
