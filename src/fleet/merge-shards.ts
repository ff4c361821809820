/**
 * The merge of a plan's shards: every shard's current result read (one missing, unreadable or from
 * another plan is a failed cell saying so), and the comparison made from them exactly as the
 * single-machine run makes it from its pool's cells.
 */
import { basename } from "node:path";
import type { CellResult } from "../app/compare/cell-result.js";
import { compareFleet, type FleetComparison } from "../app/compare/fleet-comparison.js";
import { readShardResult, type ComparePlan } from "./compare-plan.js";

export async function mergeShards(
  plan: ComparePlan,
  resultsDir: string,
): Promise<{ readonly comparison: FleetComparison; readonly missing: number }> {
  const cells: CellResult[] = [];
  let missing = 0;
  for (const shard of plan.shards) {
    const trace = plan.traces[shard.trace]?.path ?? "?";
    const configs = shard.configs.map((c) => plan.configs[c]?.name ?? "?");
    const result = await readShardResult(resultsDir, shard.index);
    const fail = (problem: string): void => {
      missing++;
      for (const config of configs)
        cells.push({ trace, config, node: basename(trace), ok: false, problems: [problem] });
    };
    if (result === undefined)
      fail(`shard ${shard.index} has no result in ${resultsDir} (not run yet, or its result is unreadable)`);
    else if (result.id !== shard.id)
      fail(`shard ${shard.index}'s result is from another plan (id ${result.id}): run the shard again`);
    else cells.push(...result.cells);
  }
  const comparison = compareFleet(
    cells,
    plan.configs.map((c) => c.name),
    plan.traces.map((t) => t.path),
    plan.objective,
    plan.whatIf,
  );
  return { comparison, missing };
}
