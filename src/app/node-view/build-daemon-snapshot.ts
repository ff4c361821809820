/**
 * The one way a {@link DaemonSnapshot} is put together, for `evictd run`, `evictd watch` and
 * `evictd explain`: the last step's report and sample, the pods, each pod's last memory figures and
 * the journal in; the ranking worked out from them (pods ranked at their last working set read, see
 * {@link withPodMemoryFigures}). Pure: each caller reads its own sources and hands the parts over.
 */
import type { SyncReport } from "../../core/engine/types.js";
import type { FilesystemLayout, NodeCondition, NodeSummary, Pod } from "../../core/model.js";
import type { NodeMemoryViewsReading } from "../../core/memory/node-memory-views.js";
import { currentRanking } from "../../core/rank/explain-ranking.js";
import type { ReportData } from "../report/report-data.js";
import { withPodMemoryFigures, type PodMemoryFigures } from "./pod-memory-figures.js";
import type {
  DaemonSnapshot,
  EvictionRecord,
  ManifestProblem,
  PodStatusView,
  SnapshotNode,
} from "./snapshot.js";

/** What a snapshot takes of the step journal (server/step-journal.ts); a single look has none. */
export interface SnapshotJournal {
  readonly evictions: readonly EvictionRecord[];
  readonly evictionCounts: Readonly<Record<string, number>>;
  /** The last minutes of steps for the page at `/`, built when asked for. */
  history?(): ReportData;
}

export interface DaemonSnapshotParts {
  readonly node: SnapshotNode;
  readonly startedAt: number;
  readonly now: number;
  readonly capabilities: readonly string[];
  readonly conditions: readonly NodeCondition[];
  /** The node's filesystem layout, for the ranking's disk signals. */
  readonly layout: FilesystemLayout;
  /** The last synchronize's report, when one ran. */
  readonly lastReport?: SyncReport;
  /** The last sample's Summary API object, as read (served at /stats/summary). */
  readonly rawSummary?: unknown;
  /** The same Summary decoded: the figures the ranking orders pods by (no ranking without it). */
  readonly summary?: NodeSummary;
  /** Every pod with its status. */
  readonly pods: readonly PodStatusView[];
  /** The pods the ranking orders: those not yet in a terminal phase. */
  readonly activePods: readonly Pod[];
  /** Each pod's last working set read (absent before the first step): shown per pod and ranked by. */
  readonly podMemory?: PodMemoryFigures;
  /** The node's memory three ways, where something reads them (`--stats cgroups`, `run`). */
  readonly nodeMemoryViews?: NodeMemoryViewsReading;
  readonly journal: SnapshotJournal;
  /** Manifest files with problems (`run`'s manifest directory); absent where none is scanned. */
  readonly manifestErrors?: readonly ManifestProblem[];
}

export function buildDaemonSnapshot(p: DaemonSnapshotParts): DaemonSnapshot {
  const { journal, podMemory: figures, summary: decoded } = p;
  const ranked =
    decoded !== undefined && figures !== undefined ? withPodMemoryFigures(decoded, figures) : decoded;
  const ranking = currentRanking(p.lastReport, p.layout, p.activePods, ranked);
  const history = journal.history?.bind(journal);
  return {
    node: p.node,
    startedAt: p.startedAt,
    now: p.now,
    capabilities: p.capabilities,
    conditions: p.conditions,
    ...(p.lastReport !== undefined ? { lastReport: p.lastReport } : {}),
    ...(p.rawSummary !== undefined ? { summary: p.rawSummary } : {}),
    ...(p.nodeMemoryViews !== undefined ? { nodeMemoryViews: p.nodeMemoryViews } : {}),
    pods: p.pods,
    ...(figures !== undefined ? { podMemory: figures } : {}),
    ...(ranking !== undefined ? { ranking } : {}),
    evictions: journal.evictions,
    evictionCounts: journal.evictionCounts,
    ...(history !== undefined ? { history } : {}),
    ...(p.manifestErrors !== undefined ? { manifestErrors: p.manifestErrors } : {}),
  };
}
