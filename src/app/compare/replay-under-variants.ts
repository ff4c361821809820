/**
 * One trace replayed under several configurations at once: each step, read and checked once, goes
 * to one replayer per configuration, and each replayer's outcomes to its cell's tally. Reading and
 * decoding a step is most of a replay's cost, so a trace is read once however many configurations
 * it is compared under. Pure: the steps come in through an iterable.
 */
import { allocatableMemory } from "../../core/config/allocatable-memory.js";
import { formatIssue, type Issue } from "../../core/issues.js";
import type { EvictionConfig } from "../../core/model.js";
import { Replayer, type ReplayPlan, type StepOutcome } from "../replay/run-replay.js";
import type { ScenarioHeader, ScenarioStep } from "../replay/scenario.js";
import type { CellResult } from "./cell-result.js";
import { CellTally } from "./cell-tally.js";

/** A configuration as this trace is replayed under it. */
export interface TraceVariant {
  readonly name: string;
  /** The configuration; or why it cannot be built for this trace (its recorded flags refuse a setting). */
  readonly config: EvictionConfig | { readonly problems: readonly string[] };
  /** kubeReserved + systemReserved memory of the configuration, for its allocatable memory. */
  readonly reservedBytes: bigint;
}

/** A trace opened and its header checked; `issues` is complete once `steps` is exhausted. */
export interface TraceInput {
  readonly label: string;
  /** Names the node when no Summary does. */
  readonly fallbackNode: string;
  readonly header: ScenarioHeader;
  readonly steps: AsyncIterable<ScenarioStep> | Iterable<ScenarioStep>;
  issues(): readonly Issue[];
}

export interface VariantReplayOptions {
  readonly whatIf: boolean;
  /** Sees every outcome of the variant at `index` (a per-node report, say). */
  readonly observe?: (index: number, outcome: StepOutcome, plan: ReplayPlan) => void;
  /** Called after each step with the count so far (progress). */
  readonly onStep?: (count: number) => void;
}

/** The cells of `input` under each of `variants`, in the variants' order. */
export async function replayUnderVariants(
  input: TraceInput,
  variants: readonly TraceVariant[],
  options: VariantReplayOptions,
): Promise<CellResult[]> {
  let node: string | undefined;
  const runs = variants.map((v, index) => {
    if (!("thresholds" in v.config)) return undefined;
    const tally = new CellTally(input.header.nodeMemoryCapacity);
    const replayer = new Replayer(
      { ...input.header, config: v.config },
      (o, plan) => {
        node ??= o.summary?.node.nodeName || undefined;
        tally.step(o);
        options.observe?.(index, o, plan);
      },
      undefined,
      { whatIf: options.whatIf },
    );
    return { replayer, tally, config: v.config };
  });
  let count = 0;
  for await (const step of input.steps) {
    for (const run of runs) run?.replayer.step(step);
    count++;
    options.onStep?.(count);
  }
  for (const run of runs) run?.replayer.end();
  const issues = input.issues();
  const errors = issues.filter((i) => i.severity === "error").map(formatIssue);
  const warnings = issues.filter((i) => i.severity === "warning").map(formatIssue);
  const nodeName = node ?? input.fallbackNode;
  return variants.map((v, i) => {
    const base = { trace: input.label, config: v.name, node: nodeName };
    const run = runs[i];
    if (run === undefined)
      return { ...base, ok: false, problems: "problems" in v.config ? v.config.problems : [] };
    if (errors.length > 0) return { ...base, ok: false, problems: errors };
    const capacity = run.tally.memoryCapacity;
    const allocatable =
      capacity === undefined
        ? undefined
        : Number(allocatableMemory(BigInt(Math.round(capacity)), v.reservedBytes, run.config));
    return { ...base, ok: true, figures: run.tally.figures(allocatable), warnings };
  });
}
