/**
 * One shard of a comparison plan (compare-plan.ts), as a worker of an Indexed Job runs it: skipped
 * when its current result is already there; else its trace checked against the plan's SHA-256 (a
 * trace changed since the plan is not replayed under it), replayed under its configuration, and
 * its cell written, failed cells included, so that the merge can say why.
 */
import { basename } from "node:path";
import type { CellResult } from "../app/compare/cell-result.js";
import {
  fileDigest,
  planVariant,
  readShardResult,
  writeShardResult,
  type ComparePlan,
} from "./compare-plan.js";
import { runTraceTask } from "./trace-cells.js";

export type ShardOutcome =
  | { readonly kind: "skipped"; readonly label: string }
  | { readonly kind: "written"; readonly label: string; readonly cell: CellResult };

const failedCell = (trace: string, config: string, problems: readonly string[]): CellResult => ({
  trace,
  config,
  node: basename(trace),
  ok: false,
  problems,
});

/** What shard `index` names, for messages. */
export function shardLabel(plan: ComparePlan, index: number): string {
  const s = plan.shards[index];
  return s === undefined
    ? `shard ${index}`
    : `${plan.traces[s.trace]?.path ?? "?"} under ${plan.configs[s.config]?.name ?? "?"}`;
}

/** Runs shard `index` (which must exist) of `plan`, writing its result into `resultsDir`. */
export async function runShard(plan: ComparePlan, index: number, resultsDir: string): Promise<ShardOutcome> {
  const shard = plan.shards[index];
  const trace = shard === undefined ? undefined : plan.traces[shard.trace];
  const config = shard === undefined ? undefined : plan.configs[shard.config];
  if (shard === undefined || trace === undefined || config === undefined)
    throw new RangeError(`the plan has no shard ${index}`);
  const label = shardLabel(plan, index);
  if ((await readShardResult(resultsDir, index))?.id === shard.id) return { kind: "skipped", label };
  let cell: CellResult;
  let sha256: string | undefined;
  try {
    sha256 = (await fileDigest(trace.path)).sha256;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    cell = failedCell(trace.path, config.name, [`cannot read the trace: ${why}`]);
  }
  if (sha256 === undefined) cell ??= failedCell(trace.path, config.name, ["cannot read the trace"]);
  else if (sha256 !== trace.sha256)
    cell = failedCell(trace.path, config.name, [
      `the trace changed since the plan was made (SHA-256 ${sha256}, the plan says ${trace.sha256}): make the plan again`,
    ]);
  else {
    const [result] = await runTraceTask({
      trace: trace.path,
      variants: [planVariant(config)],
      whatIf: plan.whatIf,
    });
    cell = result ?? failedCell(trace.path, config.name, ["internal: no cell"]);
  }
  await writeShardResult(resultsDir, { kind: "evictd-compare-shard", version: 1, index, id: shard.id, cell });
  return { kind: "written", label, cell };
}
