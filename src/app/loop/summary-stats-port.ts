/**
 * A {@link StatsPort} over any source of raw Summary API objects (a kubelet's /stats/summary, the
 * API server's node proxy, the Linux collector): each sample is decoded with the engine's decoder,
 * and a Summary that does not decode is an {@link AdapterError}: the environment handed over
 * something unusable, which is exit 3 in the CLI, not a bug.
 */
import { formatIssue, IssueList } from "../../core/issues.js";
import type { UnreadPods } from "../../core/rank/working-set-bounds.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import { AdapterError } from "../../errors.js";
import type { ClockPort, StatsPort, StatsSample, StatsScope } from "../ports.js";

/** How many of a Summary's issues the error names; the rest are counted. */
const SHOWN_ISSUES = 3;

export interface SummaryStatsPortOptions {
  /** Reads one raw Summary API object, as fresh as `scope` asks (rejects when it cannot be read). */
  readonly read: (scope: StatsScope) => Promise<unknown>;
  /** Where the Summary comes from, for messages (`API server proxy https://…`, `kubelet https://…`). */
  readonly source: string;
  /** The time a sample is decoded at (the freshness of its time stamps is judged against it). */
  readonly clock: Pick<ClockPort, "now">;
  /** What the operator can do when a Summary does not decode (default: check the kubelet's answer). */
  readonly hint?: string;
  /**
   * The raw Summary of a read with the named pods read in full (see `StatsPort.refreshPods`), the
   * other pods' entries being the same objects as before. Every time field must be written.
   */
  readonly refreshPods?: (raw: unknown, uids: readonly string[]) => Promise<unknown>;
  /**
   * The source hands out the same pod entry objects again while a pod's figures do not change
   * (the Linux collector does): each read is decoded against the one before, and those entries
   * are neither checked nor built again. Every time field must be written.
   */
  readonly sharesEntries?: boolean;
  /** The pods a raw Summary of this source leaves unread, with their bound (see `StatsSample.unread`). */
  readonly unreadPods?: (raw: unknown) => UnreadPods | undefined;
}

const KUBELET_HINT =
  "the kubelet's stats endpoint answered with something that is not a stats/v1alpha1 Summary; check the kubelet version and what GET …/stats/summary returns";

/** A stats port that reads from `read` and decodes, or throws `AdapterError` code `summary-undecodable`. */
export function summaryStatsPort(options: SummaryStatsPortOptions): StatsPort {
  const decoded = (raw: unknown, previous?: StatsSample): StatsSample => {
    const issues = new IssueList();
    const summary = decodeSummary(
      raw,
      "summary",
      options.clock.now(),
      issues,
      previous === undefined ? {} : { previous: previous.summary },
    );
    if (summary !== undefined) {
      const unread = options.unreadPods?.(raw);
      return unread === undefined ? { raw, summary } : { raw, summary, unread };
    }
    const errors = issues.items.filter((i) => i.severity === "error");
    const shown = (errors.length > 0 ? errors : issues.items).slice(0, SHOWN_ISSUES);
    const more = issues.items.length - shown.length;
    throw new AdapterError(
      "summary-undecodable",
      `the Summary from ${options.source} does not decode: ${shown.map(formatIssue).join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`,
      { hint: options.hint ?? KUBELET_HINT },
    );
  };
  const refresh = options.refreshPods;
  let last: StatsSample | undefined;
  return {
    collect: async (scope: StatsScope = "all"): Promise<StatsSample> => {
      const sample = decoded(await options.read(scope), options.sharesEntries === true ? last : undefined);
      if (options.sharesEntries === true) last = sample;
      return sample;
    },
    ...(refresh !== undefined
      ? {
          refreshPods: async (sample: StatsSample, uids: readonly string[]): Promise<StatsSample> =>
            // The pods not named come back as the same entries: decoded once, not again.
            decoded(await refresh(sample.raw, uids), sample),
        }
      : {}),
  };
}
