/**
 * What one trace replayed under one configuration comes to: a cell of the fleet comparison. Plain
 * JSON (numbers, strings, arrays), so that a cell computed in a worker thread, in another process
 * or on another machine (a shard of a plan) is the same value, and merging cells in any grouping
 * gives the same fleet figures.
 */
import type { NodeCondition } from "../../core/model.js";
import type { HistogramData } from "./log-histogram.js";

/** The problems that stopped a cell (a trace unreadable part-way, a configuration its flags refuse). */
export interface CellFailure {
  readonly trace: string;
  readonly config: string;
  readonly problems: readonly string[];
}

export interface CellFigures {
  readonly steps: number;
  /** From the first step's time to the last's. */
  readonly spanMs: number;
  readonly evictions: number;
  /** Distinct pods evicted. */
  readonly podsEvicted: number;
  /** Evictions by signal (or local-storage limit), keys sorted. */
  readonly bySignal: Readonly<Record<string, number>>;
  /** Steps whose memory.available was an OOM-risk moment (core/oom-risk.ts). */
  readonly oomRiskSteps: number;
  /** Milliseconds each condition was reported (each step counts until the next one). */
  readonly pressureMs: Readonly<Record<NodeCondition, number>>;
  /** Admissions refused: pods refused on arrival (what-if) and `admit` requests refused. */
  readonly refusedAdmissions: number;
  /** Pods diverged (the recording lost them while this configuration kept them), and the steps with any. */
  readonly divergedPods: number;
  readonly divergedSteps: number;
  /** What each signal had available at every step, keys sorted (bytes, inodes or PIDs). */
  readonly headroom: Readonly<Record<string, HistogramData>>;
  /** The node's memory capacity, from the trace (its Node, else its first memory sample); null when unknown. */
  readonly memoryCapacityBytes: number | null;
  /** Allocatable memory under this configuration (capacity − reservations − hard memory threshold). */
  readonly allocatableBytes: number | null;
}

export type CellResult =
  | {
      readonly trace: string;
      readonly config: string;
      /** The node's name (its Summary's nodeName), else the trace's file name. */
      readonly node: string;
      readonly ok: true;
      readonly figures: CellFigures;
      /** Warnings the trace carried (formatted), e.g. a recording cut short. */
      readonly warnings: readonly string[];
    }
  | {
      readonly trace: string;
      readonly config: string;
      readonly node: string;
      readonly ok: false;
      readonly problems: readonly string[];
    };
