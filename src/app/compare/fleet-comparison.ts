/**
 * The fleet comparison: every cell (trace × configuration) merged into one row per configuration,
 * the worst nodes of each, and the configuration an objective recommends. Pure and order-free: the
 * cells may come from one process, a worker pool or the shards of a plan, in any order; the result
 * depends only on the cells (sorted by configuration, then trace) and the objective.
 */
import type { NodeCondition } from "../../core/model.js";
import type { CellFailure, CellFigures, CellResult } from "./cell-result.js";
import { LogHistogram } from "./log-histogram.js";

/** What the recommendation optimises, with 0 OOM-risk moments as the constraint for both. */
export type Objective = "fewest-evictions" | "most-allocatable";
export const OBJECTIVES: readonly Objective[] = ["fewest-evictions", "most-allocatable"];

export const OBJECTIVE_TEXT: Readonly<Record<Objective, string>> = {
  "fewest-evictions":
    "fewest evictions with 0 OOM-risk moments; ties broken by the most allocatable memory, then the least time under pressure",
  "most-allocatable":
    "most allocatable memory with 0 OOM-risk moments; ties broken by the fewest evictions, then the least time under pressure",
};

/** One signal's headroom over the fleet: the least seen and the 1st percentile. */
export interface HeadroomFigures {
  readonly min: number;
  readonly p1: number;
  readonly samples: number;
}

/** A node (cell) among the worst of a configuration. */
export interface WorstNode {
  readonly trace: string;
  readonly node: string;
  readonly evictions: number;
  readonly oomRiskSteps: number;
  readonly minMemoryAvailable: number | null;
}

export interface ConfigRow {
  readonly config: string;
  /** Traces replayed in full under it, and those that failed. */
  readonly nodes: number;
  readonly failed: number;
  readonly steps: number;
  readonly evictions: number;
  readonly podsEvicted: number;
  readonly bySignal: Readonly<Record<string, number>>;
  readonly oomRiskSteps: number;
  /** Nodes with at least one OOM-risk moment. */
  readonly oomRiskNodes: number;
  readonly pressureMs: Readonly<Record<NodeCondition, number>>;
  readonly refusedAdmissions: number;
  readonly divergedPods: number;
  readonly divergedSteps: number;
  readonly headroom: Readonly<Record<string, HeadroomFigures>>;
  /** Allocatable memory summed over the nodes whose capacity is known; null when none is. */
  readonly allocatableBytes: number | null;
  readonly worst: readonly WorstNode[];
}

export interface Recommendation {
  readonly config: string;
  readonly objective: Objective;
  /** Why, in a sentence: the constraint met (or not), the figures that decided. */
  readonly reason: string;
  /** Whether the recommended configuration met the constraint (0 OOM-risk moments, no failed cell). */
  readonly constraintMet: boolean;
}

export interface FleetComparison {
  readonly objective: Objective;
  readonly objectiveText: string;
  readonly whatIf: boolean;
  readonly traces: readonly string[];
  readonly configs: readonly ConfigRow[];
  readonly recommendation: Recommendation | null;
  /** Every cell, configurations in their order, traces in theirs. */
  readonly cells: readonly CellResult[];
  readonly failures: readonly CellFailure[];
}

/** A cell's identity: its configuration and its trace. */
export const cellKey = (trace: string, config: string): string => `${config}\u0000${trace}`;

const WORST = 3;
const CONDITIONS: readonly NodeCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];

function add(into: Map<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into.set(k, (into.get(k) ?? 0) + v);
}

const sorted = <T>(m: ReadonlyMap<string, T>): Record<string, T> =>
  Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));

function minMemory(f: CellFigures): number | null {
  return f.headroom["memory.available"]?.min ?? null;
}

/** Worst first: more OOM-risk moments, then more evictions, then less memory left, then trace order. */
function worseFirst(a: WorstNode & { order: number }, b: WorstNode & { order: number }): number {
  return (
    b.oomRiskSteps - a.oomRiskSteps ||
    b.evictions - a.evictions ||
    (a.minMemoryAvailable ?? Infinity) - (b.minMemoryAvailable ?? Infinity) ||
    a.order - b.order
  );
}

function rowOf(
  config: string,
  cells: readonly CellResult[],
  traceOrder: ReadonlyMap<string, number>,
): ConfigRow {
  let nodes = 0;
  let failed = 0;
  let steps = 0;
  let evictions = 0;
  let podsEvicted = 0;
  let oomRiskSteps = 0;
  let oomRiskNodes = 0;
  let refused = 0;
  let divergedPods = 0;
  let divergedSteps = 0;
  let allocatable: number | null = null;
  const bySignal = new Map<string, number>();
  const pressure = new Map<string, number>(CONDITIONS.map((c) => [c, 0]));
  const headroom = new Map<string, LogHistogram>();
  const worst: (WorstNode & { order: number })[] = [];
  for (const cell of cells) {
    if (!cell.ok) {
      failed++;
      continue;
    }
    const f = cell.figures;
    nodes++;
    steps += f.steps;
    evictions += f.evictions;
    podsEvicted += f.podsEvicted;
    oomRiskSteps += f.oomRiskSteps;
    if (f.oomRiskSteps > 0) oomRiskNodes++;
    refused += f.refusedAdmissions;
    divergedPods += f.divergedPods;
    divergedSteps += f.divergedSteps;
    if (f.allocatableBytes !== null) allocatable = (allocatable ?? 0) + f.allocatableBytes;
    add(bySignal, f.bySignal);
    add(pressure, f.pressureMs);
    for (const [signal, data] of Object.entries(f.headroom)) {
      let h = headroom.get(signal);
      if (h === undefined) {
        h = new LogHistogram();
        headroom.set(signal, h);
      }
      h.merge(data);
    }
    worst.push({
      trace: cell.trace,
      node: cell.node,
      evictions: f.evictions,
      oomRiskSteps: f.oomRiskSteps,
      minMemoryAvailable: minMemory(f),
      order: traceOrder.get(cell.trace) ?? 0,
    });
  }
  const headroomFigures = new Map<string, HeadroomFigures>();
  for (const [signal, h] of headroom) {
    const min = h.min;
    const p1 = h.percentile(1);
    if (min !== undefined && p1 !== undefined) headroomFigures.set(signal, { min, p1, samples: h.count });
  }
  return {
    config,
    nodes,
    failed,
    steps,
    evictions,
    podsEvicted,
    bySignal: sorted(bySignal),
    oomRiskSteps,
    oomRiskNodes,
    pressureMs: Object.fromEntries(CONDITIONS.map((c) => [c, pressure.get(c) ?? 0])) as Record<
      NodeCondition,
      number
    >,
    refusedAdmissions: refused,
    divergedPods,
    divergedSteps,
    headroom: sorted(headroomFigures),
    allocatableBytes: allocatable,
    worst: worst
      .sort(worseFirst)
      .slice(0, WORST)
      .filter((w) => w.oomRiskSteps > 0 || w.evictions > 0)
      .map(({ order: _order, ...w }) => w),
  };
}

const pressureTotal = (r: ConfigRow): number => CONDITIONS.reduce((a, c) => a + r.pressureMs[c], 0);

function compareRows(objective: Objective, a: ConfigRow, b: ConfigRow): number {
  const alloc = (r: ConfigRow): number => r.allocatableBytes ?? 0;
  const byEvictions = a.evictions - b.evictions;
  const byAllocatable = alloc(b) - alloc(a);
  const first =
    objective === "fewest-evictions" ? byEvictions || byAllocatable : byAllocatable || byEvictions;
  return first || pressureTotal(a) - pressureTotal(b);
}

const GiB = 1024 ** 3;

function recommend(objective: Objective, rows: readonly ConfigRow[]): Recommendation | null {
  const usable = rows.filter((r) => r.nodes > 0);
  if (usable.length === 0) return null;
  const safe = usable.filter((r) => r.oomRiskSteps === 0 && r.failed === 0);
  const order = (list: readonly ConfigRow[]): ConfigRow[] =>
    list
      .map((r, i) => ({ r, i }))
      .sort((x, y) => compareRows(objective, x.r, y.r) || x.i - y.i)
      .map((x) => x.r);
  const alloc = (r: ConfigRow): string =>
    r.allocatableBytes === null
      ? "unknown allocatable memory"
      : `${(r.allocatableBytes / GiB).toFixed(1)} GiB allocatable`;
  if (safe.length > 0) {
    const best = order(safe)[0];
    if (best === undefined) return null;
    return {
      config: best.config,
      objective,
      constraintMet: true,
      reason: `${safe.length} of ${usable.length} configurations had no OOM-risk moment on any node; of those, ${JSON.stringify(best.config)} has ${best.evictions} evictions and ${alloc(best)}${best.divergedPods > 0 ? ` (${best.divergedPods} pods diverged: its figures after those moments are optimistic)` : ""}`,
    };
  }
  // None is safe: the fewest OOM-risk moments first.
  const best = [...usable]
    .map((r, i) => ({ r, i }))
    .sort(
      (x, y) =>
        x.r.failed - y.r.failed ||
        x.r.oomRiskSteps - y.r.oomRiskSteps ||
        compareRows(objective, x.r, y.r) ||
        x.i - y.i,
    )[0]?.r;
  if (best === undefined) return null;
  return {
    config: best.config,
    objective,
    constraintMet: false,
    reason: `no configuration avoided OOM-risk moments (or replayed every trace); ${JSON.stringify(best.config)} has the fewest (${best.oomRiskSteps} steps on ${best.oomRiskNodes} nodes), ${best.evictions} evictions and ${alloc(best)}`,
  };
}

/**
 * The comparison of `cells` (any order) over `configs` and `traces` (their order is the output's).
 */
export function compareFleet(
  cells: readonly CellResult[],
  configs: readonly string[],
  traces: readonly string[],
  objective: Objective,
  whatIf: boolean,
): FleetComparison {
  const traceOrder = new Map(traces.map((t, i) => [t, i]));
  const configOrder = new Map(configs.map((c, i) => [c, i]));
  const ordered = [...cells].sort(
    (a, b) =>
      (configOrder.get(a.config) ?? 0) - (configOrder.get(b.config) ?? 0) ||
      (traceOrder.get(a.trace) ?? 0) - (traceOrder.get(b.trace) ?? 0),
  );
  const rows = configs.map((c) =>
    rowOf(
      c,
      ordered.filter((cell) => cell.config === c),
      traceOrder,
    ),
  );
  return {
    objective,
    objectiveText: OBJECTIVE_TEXT[objective],
    whatIf,
    traces: [...traces],
    configs: rows,
    recommendation: recommend(objective, rows),
    cells: ordered,
    failures: ordered.flatMap((c) =>
      c.ok ? [] : [{ trace: c.trace, config: c.config, problems: c.problems }],
    ),
  };
}
