/**
 * Loads a replay scenario written as one YAML or JSON document (docs/replay-format.md) from a file
 * or stdin: parses it, resolves the files it references (config, pods, summaries) relative to the
 * scenario, and validates all of it up front, collecting every problem, so that a bad scenario
 * prints nothing on stdout. (The JSONL form streams instead: jsonl-scenario.ts.)
 */
import { dirname, resolve } from "node:path";
import { IssueList, type Issue } from "../../core/issues.js";
import type { Scenario, ScenarioStep } from "../../app/replay/scenario.js";
import { locateIssues, type PositionLookup } from "../position-lookup.js";
import { parseStructuredText, readStructuredFile, type StructuredFile } from "../structured-file.js";
import { isRawObject } from "../../core/raw/raw-object.js";
import { describeValue } from "../../core/raw/describe-value.js";
import { ReferencedFiles } from "./referenced-files.js";
import { loadScenarioHeader } from "./scenario-header.js";
import { StepLoader } from "./step-loader.js";

export type ScenarioResult = { ok: true; scenario: Scenario } | { ok: false; issues: Issue[] };

export async function loadScenarioFile(file: string): Promise<ScenarioResult> {
  const parsed = await readStructuredFile(file, "scenario");
  if (!parsed.ok) return parsed;
  return loadScenario(parsed, file, dirname(resolve(file)));
}

export async function loadScenarioText(
  text: string,
  label: string,
  baseDir: string,
): Promise<ScenarioResult> {
  const parsed = parseStructuredText(text, label, "scenario");
  if (!parsed.ok) return parsed;
  return loadScenario(parsed, label, baseDir);
}

/**
 * A scenario given as a value already in memory (the library's `replay`): checked like a document,
 * with issues named after `label` but no line:column, since there is no text to point into. String
 * fields are file references as in a document, resolved from `baseDir`; a scenario with everything
 * inline reads no file.
 */
export function loadScenarioValue(value: unknown, label: string, baseDir: string): Promise<ScenarioResult> {
  return loadScenario({ value, warnings: [], positions: NO_POSITIONS }, label, baseDir);
}

/** Where issues in a value without source text are: nowhere in particular. */
const NO_POSITIONS: PositionLookup = { locate: () => undefined };

/** Checks and decodes a parsed document: the header fields, then every step in order. */
export async function loadScenario(
  parsed: Pick<StructuredFile & { ok: true }, "value" | "warnings" | "positions">,
  label: string,
  baseDir: string,
): Promise<ScenarioResult> {
  const root = parsed.value;
  if (!isRawObject(root)) {
    return {
      ok: false,
      issues: [
        {
          severity: "error",
          path: "scenario",
          code: "type",
          message: `expected a mapping at the top level, got ${describeValue(root)}`,
          file: label,
        },
      ],
    };
  }
  const issues = new IssueList();
  const external: Issue[] = [];
  const files = new ReferencedFiles(baseDir, external);
  const header = await loadScenarioHeader(root, { issues, external, files, baseDir });
  // With a header in error its pod list may lack some: steps are then not checked against it.
  const headerPods =
    issues.hasErrors || external.some((i) => i.severity === "error") ? undefined : header?.pods;

  const steps: ScenarioStep[] = [];
  const rawSteps = root["steps"];
  if (rawSteps === undefined) issues.error("steps", "required", "missing: a scenario needs a list of steps");
  else if (!Array.isArray(rawSteps))
    issues.error("steps", "type", `expected a list of steps, got ${describeValue(rawSteps)}`);
  else {
    const loader = new StepLoader(files, headerPods);
    for (let i = 0; i < rawSteps.length; i++) {
      const step = await loader.load(rawSteps[i], i, issues);
      if (step !== undefined) steps.push(step);
    }
  }

  const located = locateIssues(issues.items, "", parsed.positions, label);
  const all = [...parsed.warnings, ...located, ...external];
  if (header === undefined || all.some((i) => i.severity === "error")) return { ok: false, issues: all };
  return { ok: true, scenario: { ...header, steps, warnings: all } };
}
