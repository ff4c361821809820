/**
 * One shard of a comparison plan (compare-plan.ts), as a worker of an Indexed Job runs it: skipped
 * when its current result is already there; else its trace checked against the plan's SHA-256 (a
 * trace changed since the plan is not replayed under it), replayed under its configurations, and
 * its cells written, failed ones included, so that the merge can say why.
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
  | { readonly kind: "written"; readonly label: string; readonly cells: readonly CellResult[] };

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
  if (s === undefined) return `shard ${index}`;
  const configs = s.configs.map((c) => plan.configs[c]?.name ?? "?");
  return `${plan.traces[s.trace]?.path ?? "?"} under ${configs.length === 1 ? configs[0] : `${configs.length} configurations`}`;
}

/** Runs shard `index` (which must exist) of `plan`, writing its result into `resultsDir`. */
export async function runShard(plan: ComparePlan, index: number, resultsDir: string): Promise<ShardOutcome> {
  const shard = plan.shards[index];
  const trace = shard === undefined ? undefined : plan.traces[shard.trace];
  const configs = (shard?.configs ?? []).map((c) => plan.configs[c]).filter((c) => c !== undefined);
  if (shard === undefined || trace === undefined || configs.length !== shard.configs.length)
    throw new RangeError(`the plan has no shard ${index}`);
  const label = shardLabel(plan, index);
  if ((await readShardResult(resultsDir, index))?.id === shard.id) return { kind: "skipped", label };
  const fail = (problems: readonly string[]): CellResult[] =>
    configs.map((c) => failedCell(trace.path, c.name, problems));
  let cells: CellResult[];
  let sha256: string | undefined;
  try {
    sha256 = (await fileDigest(trace.path)).sha256;
    cells = [];
  } catch (error) {
    cells = fail([`cannot read the trace: ${error instanceof Error ? error.message : String(error)}`]);
  }
  if (sha256 !== undefined && sha256 !== trace.sha256)
    cells = fail([
      `the trace changed since the plan was made (SHA-256 ${sha256}, the plan says ${trace.sha256}): make the plan again`,
    ]);
  else if (sha256 !== undefined)
    cells = await runTraceTask({
      trace: trace.path,
      variants: configs.map(planVariant),
      whatIf: plan.whatIf,
    });
  await writeShardResult(resultsDir, {
    kind: "evictd-compare-shard",
    version: 1,
    index,
    id: shard.id,
    cells,
  });
  return { kind: "written", label, cells };
}
