/**
 * How a wake gets the sample it decides from and the engine's decision on it: the read a wake calls
 * for, a memory wake's pick on working-set bounds (bounded-memory-pick.ts, which proves it the pick
 * a complete read would make), the complete read a pick made on carried-over figures calls for, the
 * decision again without the pods whose eviction was refused, and, once the kills are out, the
 * decision recorded from the picked pods' full figures. The eviction loop (eviction-loop.ts) does
 * the rest of a step as the kubelet's synchronize does: reclaim, evict, record, wait for cleanup.
 *
 * Every decision here is the engine's from the step's prior state: synchronize is pure, so a
 * decision made again, from more figures or with fewer pods, replaces the one before and nothing
 * else.
 */
import type { EngineState, SyncReport, SyncResult } from "../../core/engine/types.js";
import type { NodeSummary, Pod } from "../../core/model.js";
import { podsLackingWorkingSet } from "../../core/rank/working-set-bounds.js";
import { isMemorySignal } from "../../core/signals.js";
import type { LoggerPort, StatsPort, StatsSample, StatsScope, Wake } from "../ports.js";
import { pickOnBounds, type BoundedPick } from "./bounded-memory-pick.js";

export interface WakeDecisionPorts {
  readonly stats: StatsPort;
  readonly log: LoggerPort;
}

/** A wake's read: the scope it asked for, and its sample or why there is none. */
export interface WakeRead {
  readonly scope: StatsScope;
  readonly sample: StatsSample | undefined;
  readonly error?: string;
}

/** What a step decides with: its active pods, and the engine from the step's prior state. */
export interface WakeEngine {
  readonly activePods: readonly Pod[];
  /** The engine's decision from `summary` for `activePods`, always from the same prior state. */
  readonly decide: (summary: NodeSummary | undefined, activePods: readonly Pod[]) => SyncResult;
}

/** The decision recorded once the kills are out: the same pods, picked on their full figures. */
export interface RefinedDecision {
  readonly sample: StatsSample;
  readonly state: EngineState;
  readonly report: SyncReport;
}

export interface WakeDecision {
  /** The sample the latest decision was made from. */
  readonly sample: StatsSample | undefined;
  /** The latest decision: the wake's own, until a refused pod is left out. */
  readonly result: SyncResult;
  /** Why the stats could not be read, when the latest decision was made without a sample. */
  readonly readError: string | undefined;
  /**
   * The decision again with the pods of `refused` (uids) left out, the way the wake decided: on
   * bounds again when its pick was made on bounds. A decision that asked for node-level reclaim is
   * made again from the same sample and left for the caller to resume with that reclaim's outcome,
   * as it resumed the first; it does not replace {@link result}.
   */
  redecideWithout(refused: ReadonlySet<string>): Promise<SyncResult>;
  /**
   * After SIGTERM: `report` (the decision acted on) from the picked pods' full figures, or
   * undefined when there is nothing to refine or the fresher read picks other pods (the first
   * decision stands: its kills are under way). `killed`: whether any of its kills went out.
   */
  refine(report: SyncReport, killed: boolean): Promise<RefinedDecision | undefined>;
}

/**
 * The read a wake calls for. A kernel memory notification needs a memory decision and reads for
 * one (`memory`); the housekeeping timer and the look after a cleanup read what housekeeping reads
 * (`node`). A pick made on figures such a read carries over is made again from an `all` read
 * ({@link pickedOnFreshFigures}).
 */
export function scopeOfWake(wake: Wake): StatsScope {
  return wake.notification ? "memory" : "node";
}

/** Reads the stats `wake` calls for; a failed read is logged and the step decides without them. */
export async function readForWake(wake: Wake, ports: WakeDecisionPorts): Promise<WakeRead> {
  const scope = scopeOfWake(wake);
  try {
    return { scope, sample: await ports.stats.collect(scope) };
  } catch (e) {
    const error = String(e);
    ports.log.warn({ err: error }, "Eviction manager: failed to get summary stats");
    return { scope, sample: undefined, error };
  }
}

/** The engine's decision on a wake's read, made on fresh figures (see {@link WakeDecision}). */
export async function decideOnWake(
  read: WakeRead,
  engine: WakeEngine,
  ports: WakeDecisionPorts,
): Promise<WakeDecision> {
  const { stats, log } = ports;
  const { activePods } = engine;
  let readError = read.error;
  // Pods whose eviction was refused this step: the engine decides again without them.
  let leftOut: ReadonlySet<string> = new Set();
  const decide = (summary: NodeSummary | undefined): SyncResult =>
    engine.decide(summary, leftOut.size === 0 ? activePods : activePods.filter((p) => !leftOut.has(p.uid)));
  const readAll = async (): Promise<StatsSample | undefined> => {
    try {
      return await stats.collect("all");
    } catch (e) {
      readError = String(e);
      log.warn({ err: readError }, "Eviction manager: failed to get summary stats");
      return undefined;
    }
  };
  const readPods = stats.refreshPods?.bind(stats);
  // Usage alone was read for each pod: the picked pods are read in full until the pick is the
  // one a complete read would make (bounded-memory-pick.ts).
  const pickBounded =
    readPods === undefined
      ? undefined
      : (from: StatsSample): Promise<BoundedPick> =>
          pickOnBounds(from, {
            decide,
            readPods: async (s, uids) => {
              try {
                return await readPods(s, uids);
              } catch (e) {
                log.warn({ err: String(e) }, "Eviction manager: cannot read the picked pods' memory");
                return undefined;
              }
            },
            readAll,
          });

  let sample = read.sample;
  let result: SyncResult;
  let bounded = false;
  if (read.scope === "memory" && sample !== undefined && pickBounded !== undefined) {
    ({ sample, result, bounded } = await pickBounded(sample));
  } else {
    result = decide(sample?.summary);
  }
  if (result.kind === "done" && !pickedOnFreshFigures(read.scope, result.report)) {
    // The pick was made from pod figures up to a refresh period old (housekeeping), or from a
    // memory wake's read for something else than memory: the pods are read now and the engine
    // decides again from the same prior state (pure: the first answer is dropped).
    sample = await readAll();
    result = decide(sample?.summary);
    bounded = false;
  }
  const reclaimAsked = result.kind === "reclaim";

  return {
    get sample() {
      return sample;
    },
    get result() {
      return result;
    },
    get readError() {
      return sample === undefined ? readError : undefined;
    },
    async redecideWithout(refused) {
      leftOut = refused;
      if (reclaimAsked) return decide(sample?.summary);
      if (bounded && sample !== undefined && pickBounded !== undefined) {
        ({ sample, result, bounded } = await pickBounded(sample));
      } else {
        result = decide(sample?.summary);
      }
      return result;
    },
    /*
     * A read may carry container figures over (see `StatsScope`), and a memory wake reads most pods'
     * usage alone: the pods picked are still the right ones (their own figures are fresh), and
     * SIGTERM has gone. Their eviction messages name containers by usage, so the picked pods are
     * read in full now, with every pod whose working set was not read, and the engine decides again
     * from the same prior state (pure: the first answer is dropped). The same pods come out, with
     * messages from fresh figures, and the ranking and refusals recorded are a complete read's.
     */
    async refine(report, killed) {
      // After reclaim the engine decided from a second read; that path is not decided twice.
      if (result.kind !== "done") return undefined;
      if (sample === undefined || (!bounded && !killed) || readPods === undefined) return undefined;
      let fresh: StatsSample;
      try {
        const picked = report.evictions.map((e) => e.pod.uid);
        const unread = bounded ? podsLackingWorkingSet(sample.summary, sample.unread) : [];
        fresh = await readPods(sample, [...new Set([...picked, ...unread])]);
      } catch (e) {
        log.warn({ err: String(e) }, "Eviction manager: cannot read the evicted pods' containers again");
        return undefined;
      }
      const again = decide(fresh.summary);
      const picked = report.evictions.map((e) => e.pod.uid).join(" ");
      if (again.kind !== "done" || again.report.evictions.map((e) => e.pod.uid).join(" ") !== picked) {
        log.warn({ picked }, "Eviction manager: a fresher read picks other pods; the first decision stands");
        return undefined;
      }
      return { sample: fresh, state: again.state, report: again.report };
    },
  };
}

/**
 * Whether a decision's evictions were picked on figures a read of `scope` brings fresh: any read's
 * decision that evicts nobody; an `all` read's; a `memory` read's that evicts for memory (each pod's
 * usage is fresh and its working set bounded, bounded-memory-pick.ts), not for PIDs or disk, whose
 * per-pod figures such a read reuses.
 */
export function pickedOnFreshFigures(scope: StatsScope, report: SyncReport): boolean {
  if (report.evictions.length === 0 || scope === "all") return true;
  return (
    scope === "memory" && report.evictions.every((e) => e.kind === "pressure" && isMemorySignal(e.signal))
  );
}
