/**
 * A loop step as plain data: what the daemon's journal, metrics and status page need of a step,
 * without what cannot leave the thread that ran it (a kill's `done` promise, the lazily decoded
 * summary). `evictd run` runs its loop in a thread of its own and posts each step as this;
 * `evictd watch` hands its `LoopStep`s over as they are (a `LoopStep` is a `LoopStepData`).
 */
import type { EngineState, SyncReport } from "../../core/engine/types.js";
import type { KillResult, Wake } from "../ports.js";
import type { EvictionOutcome, LoopStep, StepTimings } from "./eviction-loop.js";

export type EvictionOutcomeData = Omit<EvictionOutcome, "kill"> & {
  /** Undefined when the kill failed. */
  readonly kill: Pick<KillResult, "terminatedAt"> | undefined;
};

export interface LoopStepData {
  readonly wake: Wake;
  readonly now: number;
  /** Why the stats could not be read, when they could not. */
  readonly readError?: string;
  readonly report: SyncReport;
  readonly evictions: readonly EvictionOutcomeData[];
  readonly state: EngineState;
  readonly decidedAt: number;
  readonly timings?: StepTimings;
}

/** The step as data (structured-clonable). */
export function loopStepData(step: LoopStep): LoopStepData {
  return {
    wake: step.wake,
    now: step.now,
    ...(step.readError !== undefined ? { readError: step.readError } : {}),
    report: step.report,
    evictions: step.evictions.map((e) => ({
      ...e,
      kill: e.kill === undefined ? undefined : { terminatedAt: e.kill.terminatedAt },
    })),
    state: step.state,
    decidedAt: step.decidedAt,
    ...(step.timings !== undefined ? { timings: step.timings } : {}),
  };
}
