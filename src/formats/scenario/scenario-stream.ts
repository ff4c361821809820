/**
 * What `evictd replay` consumes, whatever the scenario's form: the header, then the steps one at a
 * time (a document's from memory, a JSONL trace's as they are read), then every issue found. A
 * document is checked whole before its first step; a JSONL trace is checked as it streams, so its
 * issues are complete only once the steps have all been read.
 */
import type { Issue } from "../../core/issues.js";
import type { Scenario, ScenarioHeader, ScenarioStep } from "../../app/replay/scenario.js";

export interface ScenarioStream {
  /** Undefined when the header is invalid (its issues come with the others). */
  readonly header: ScenarioHeader | undefined;
  /**
   * The steps, in order, each checked; iterate once. Yields nothing more after the first invalid
   * step, but still reads and checks the rest, so that every problem is reported.
   */
  readonly steps: AsyncIterable<ScenarioStep> | Iterable<ScenarioStep>;
  /** Every issue, warnings included, in input order; complete once `steps` is exhausted. */
  issues(): readonly Issue[];
  /** Stops reading before the steps are exhausted, releasing the file (a check of the header only). */
  close(): Promise<void>;
}

export type OpenedScenario =
  { readonly ok: true; readonly stream: ScenarioStream } | { readonly ok: false; readonly issues: Issue[] };

/** A document scenario (already checked whole) as a stream. */
export function documentStream(scenario: Scenario): ScenarioStream {
  return {
    header: scenario,
    steps: scenario.steps,
    issues: () => scenario.warnings,
    close: () => Promise.resolve(),
  };
}
