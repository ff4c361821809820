/**
 * `evictd replay SCENARIO`: loads and validates the whole scenario first (so invalid input prints
 * nothing on stdout), then streams one record per step as JSON lines or as a table for people.
 */
import { buffer as readStream } from "node:stream/consumers";
import { configRecord, stepRecord } from "../../app/replay/records.js";
import { planReplay, runReplay } from "../../app/replay/run-replay.js";
import { loadScenarioBytes, loadScenarioFile } from "../../adapters/scenario/load-scenario.js";
import { formatIssue } from "../../core/issues.js";
import { EXIT, InputError } from "../../errors.js";
import { TableWriter } from "../output/replay-table.js";
import { BufferedWriter } from "../output/buffered-writer.js";

export async function replayCommand(source: string, opts: { output?: string }): Promise<number> {
  const output = opts.output ?? (process.stdout.isTTY ? "table" : "jsonl");
  if (output !== "jsonl" && output !== "table") {
    throw new InputError([{ severity: "error", path: "--output", code: "enum", message: `expected jsonl or table, got ${JSON.stringify(output)}` }]);
  }
  const loaded =
    source === "-"
      ? await loadScenarioBytes(await readStream(process.stdin), "<stdin>", process.cwd())
      : await loadScenarioFile(source);
  if (!loaded.ok) throw new InputError(loaded.issues);
  const { scenario } = loaded;
  for (const w of scenario.warnings) process.stderr.write(formatIssue(w) + "\n");

  const plan = planReplay(scenario);
  const out = new BufferedWriter(process.stdout);
  if (output === "jsonl") {
    out.write(stringify(configRecord(scenario, plan)) + "\n");
    runReplay(scenario, plan, (o) => out.write(stringify(stepRecord(o)) + "\n"));
  } else {
    const table = new TableWriter(out, scenario, plan);
    runReplay(scenario, plan, (o) => table.step(o));
    table.end();
  }
  await out.flush();
  return EXIT.ok;
}

/** JSON with bigints as strings (they only appear in user-supplied values echoed back). */
function stringify(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}
