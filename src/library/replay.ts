/**
 * The library's `replay`: a scenario held in memory in, the records `evictd replay --output jsonl`
 * prints out, as JavaScript objects. The composition of the scenario checks (formats, which may read
 * files a scenario references) with the pure replay (app); it lives here rather than in app/replay
 * because app does not depend on formats.
 */
import { replayRecords } from "../app/replay/replay-records.js";
import type { ReplayRecord } from "../app/replay/record-types.js";
import type { Issue } from "../core/issues.js";
import { InputError } from "../errors.js";
import { loadScenarioValue } from "../formats/scenario/load-scenario.js";
import type { ScenarioDocument } from "./scenario-document.js";

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** What file references in the scenario resolve against; default the working directory. */
  readonly baseDir?: string;
  /** Receives each warning (an unknown field, a risky setting) before the first record. */
  readonly onWarning?: (warning: Issue) => void;
  /**
   * Counterfactual replay (`evictd replay --what-if`, docs/replay-format.md "what-if replay"): a pod
   * the configuration evicts (or refuses on arrival) leaves the later samples' figures; pods the
   * recording lost while this configuration kept them are marked diverged.
   */
  readonly whatIf?: boolean;
}

/** How the scenario is named in issues: it has no file name of its own. */
const LABEL = "<scenario>";

/**
 * Replays `scenario` and yields its records: the config record, then one step record per step,
 * each equal to the line `evictd replay --output jsonl` prints for the same scenario, parsed.
 * The whole scenario is checked before the first record; when anything in it is invalid, the
 * first iteration rejects with an {@link InputError} listing every problem. Steps are replayed
 * lazily, one per record asked for.
 */
export async function* replay(
  scenario: ScenarioDocument,
  options: ReplayOptions = {},
): AsyncGenerator<ReplayRecord, void, undefined> {
  const loaded = await loadScenarioValue(scenario, LABEL, options.baseDir ?? process.cwd());
  if (!loaded.ok) throw new InputError(loaded.issues);
  for (const warning of loaded.scenario.warnings) options.onWarning?.(warning);
  yield* replayRecords(loaded.scenario, { whatIf: options.whatIf === true });
}
