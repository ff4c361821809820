/**
 * Reads a JSONL scenario (docs/replay-format.md, "JSONL scenarios": a header line with every
 * top-level field but `steps`, then one step object per line) as it streams: the header is checked
 * before the first step, each step is parsed, checked and handed on before the next line is read,
 * so memory holds one step at a time. Every problem is collected, located at file:line:column.
 */
import { IssueList, pathIndex, type Issue } from "../../core/issues.js";
import type { ScenarioHeader, ScenarioStep } from "../../app/replay/scenario.js";
import { locateIssues, type PositionLookup } from "../position-lookup.js";
import { createJsonPositionLookup } from "../json-position-lookup.js";
import { JsonSyntaxError, parseJsonExact } from "../json/parse-json-exact.js";
import type { LineItem } from "./jsonl-lines.js";
import { isRawObject } from "../../core/raw/raw-object.js";
import { describeValue } from "../../core/raw/describe-value.js";
import { ReferencedFiles } from "./referenced-files.js";
import { loadScenarioHeader } from "./scenario-header.js";
import type { OpenedScenario, ScenarioStream } from "./scenario-stream.js";
import { StepLoader } from "./step-loader.js";

type Line = Extract<LineItem, { kind: "line" }>;

/** Positions inside one line, reported at that line of the file (computed only for an issue). */
function linePositions(item: Line): PositionLookup {
  const inLine = createJsonPositionLookup(item.text);
  return {
    locate(path) {
      const p = inLine.locate(path);
      return p === undefined
        ? { line: item.line, column: 1 }
        : { line: item.line + p.line - 1, column: p.column };
    },
  };
}

/** Whether a line holds only JSON whitespace (looked at up to its first other character). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
  }
  return true;
}

const isBlankLine = (item: LineItem): boolean => item.kind === "line" && isBlank(item.text);

/** The value of a JSON line, or an issue at its line and column. */
function parseLine(item: Line, file: string, path: string): { value: unknown } | { issue: Issue } {
  try {
    return { value: parseJsonExact(item.text) };
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    return {
      issue: {
        severity: "error",
        path,
        code: "json-syntax",
        message: `invalid JSON: ${e.reason}`,
        file,
        line: item.line + e.line - 1,
        column: e.column,
      },
    };
  }
}

/**
 * Reads the header from `lines`, and returns the stream of the steps that follow. Fails at once only
 * when there is no header line at all or the bytes cannot be read; any other problem is collected.
 */
export async function readJsonlScenario(
  lines: AsyncIterable<LineItem> | Iterable<LineItem>,
  file: string,
  baseDir: string,
): Promise<OpenedScenario> {
  const it = (async function* () {
    yield* lines;
  })();
  const all: Issue[] = [];
  const external: Issue[] = [];
  const files = new ReferencedFiles(baseDir, external);
  const unreadable = (item: Extract<LineItem, { kind: "unreadable" }>): Issue => ({
    severity: "error",
    path: "scenario",
    code: item.code,
    message: item.message,
    file,
    ...(item.code === "binary-file" && item.message.includes("UTF-8") ? { line: item.line } : {}),
  });

  let first = await it.next();
  while (first.done !== true && isBlankLine(first.value)) first = await it.next();
  if (first.done === true)
    return {
      ok: false,
      issues: [
        { severity: "error", path: "scenario", code: "empty-file", message: "the file is empty", file },
      ],
    };
  if (first.value.kind === "unreadable") {
    await it.return(undefined); // lets the source close its file
    return { ok: false, issues: [unreadable(first.value)] };
  }
  const headerLine = first.value;

  let header: ScenarioHeader | undefined;
  const parsed = parseLine(headerLine, file, "scenario");
  if ("issue" in parsed) all.push(parsed.issue);
  else if (!isRawObject(parsed.value)) {
    all.push({
      severity: "error",
      path: "scenario",
      code: "type",
      message: `expected a mapping at the top level (the header line), got ${describeValue(parsed.value)}`,
      file,
      line: headerLine.line,
      column: 1,
    });
  } else {
    const root = parsed.value;
    const issues = new IssueList();
    header = await loadScenarioHeader(root, { issues, external, files, baseDir });
    const steps = root["steps"];
    if (steps !== undefined && !(Array.isArray(steps) && steps.length === 0)) {
      issues.error(
        "steps",
        "jsonl-header-steps",
        `a JSONL header holds no steps (each step is a line of its own after it): expected steps to be absent or [], got ${Array.isArray(steps) ? `a list of ${steps.length} step(s)` : describeValue(steps)}`,
      );
    }
    all.push(...locateIssues(issues.items, "", linePositions(headerLine), file), ...external.splice(0));
  }
  const headerOk = header !== undefined && !all.some((i) => i.severity === "error");

  async function* steps(): AsyncGenerator<ScenarioStep> {
    const loader = new StepLoader(files, headerOk ? header?.pods : undefined);
    let failed = !headerOk;
    let index = 0;
    for (let next = await it.next(); next.done !== true; next = await it.next()) {
      const item = next.value;
      if (item.kind === "unreadable") {
        all.push(unreadable(item));
        return;
      }
      if (isBlank(item.text)) continue;
      const path = pathIndex("steps", index);
      const raw = parseLine(item, file, path);
      let step: ScenarioStep | undefined;
      if ("issue" in raw) all.push(raw.issue);
      else {
        const issues = new IssueList();
        step = await loader.load(raw.value, index, issues);
        if (issues.items.length > 0) all.push(...locateIssues(issues.items, path, linePositions(item), file));
        if (external.length > 0) all.push(...external.splice(0));
      }
      index++;
      if (step === undefined) failed = true;
      else if (!failed) yield step;
    }
  }

  const stream: ScenarioStream = {
    header: headerOk ? header : undefined,
    steps: steps(),
    issues: () => all,
    close: async () => {
      await it.return(undefined); // lets the source close its file
    },
  };
  return { ok: true, stream };
}
