/**
 * A checked scenario replayed into the records `evictd replay --output jsonl` prints: the config
 * record, then one step record per step. Pure and lazy: each step is replayed when its record is
 * asked for, so a caller may stop early (at the first eviction, say) without paying for the rest.
 */
import type { ReplayRecord } from "./record-types.js";
import { configRecord, stepRecord } from "./records.js";
import { planReplay, Replayer, type ReplayOptions, type StepOutcome } from "./run-replay.js";
import type { Scenario } from "./scenario.js";

/** The records of `scenario`, in output order; iterate once. */
export function* replayRecords(
  scenario: Scenario,
  options: ReplayOptions = {},
): Generator<ReplayRecord, void, undefined> {
  // The whole scenario is at hand, so the layout is known before the first step and the replayer
  // never holds a step back: every `step()` call emits exactly that step's outcome.
  const plan = planReplay(scenario);
  yield configRecord(scenario, plan, options);
  const outcomes: StepOutcome[] = [];
  const replayer = new Replayer(scenario, (o) => outcomes.push(o), plan, options);
  for (const step of scenario.steps) {
    replayer.step(step);
    yield* outcomes.splice(0).map(stepRecord);
  }
  replayer.end();
  yield* outcomes.splice(0).map(stepRecord);
}
