/**
 * The library's `replay` against the CLI's: for every example scenario, the records yielded in
 * memory equal the lines `evictd replay --output jsonl` prints, parsed; an invalid scenario rejects
 * with every problem and yields nothing; warnings reach the caller; uint64 counters stay exact.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  InputError,
  parseJsonExact,
  replay,
  type ReplayRecord,
  type ScenarioDocument,
} from "../../src/index.js";
import type { Issue } from "../../src/core/issues.js";
import { readStructuredFile } from "../../src/formats/structured-file.js";
import { CLI_SKIP, EXAMPLES, runEvictd } from "../cli/evictd-cli.js";

async function recordsOf(
  scenario: ScenarioDocument,
  baseDir?: string,
  whatIf = false,
): Promise<ReplayRecord[]> {
  const records: ReplayRecord[] = [];
  for await (const record of replay(scenario, { ...(baseDir !== undefined ? { baseDir } : {}), whatIf }))
    records.push(record);
  return records;
}

describe("replay() yields what `evictd replay --output jsonl` prints", { skip: CLI_SKIP }, () => {
  for (const name of readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml"))) {
    test(name, async () => {
      const file = join(EXAMPLES, name);
      const parsed = await readStructuredFile(file, "scenario");
      assert.ok(parsed.ok);
      // File references in the example (real-node.yaml's pods and summary) resolve from its folder.
      const records = await recordsOf(parsed.value as ScenarioDocument, EXAMPLES);

      const cli = runEvictd(["replay", file, "--output", "jsonl"]);
      assert.equal(cli.status, 0, cli.stderr);
      const lines = cli.stdout.trimEnd().split("\n");
      assert.deepEqual(
        records,
        lines.map((l) => JSON.parse(l) as unknown),
      );
      assert.equal(records[0]?.type, "config");
      assert.ok(records.slice(1).every((r) => r.type === "step"));

      // The what-if replay too: `replay(scenario, { whatIf: true })` is `evictd replay --what-if`.
      const whatIf = await recordsOf(parsed.value as ScenarioDocument, EXAMPLES, true);
      const cliWhatIf = runEvictd(["replay", file, "--output", "jsonl", "--what-if"]);
      assert.equal(cliWhatIf.status, 0, cliWhatIf.stderr);
      assert.deepEqual(
        whatIf,
        cliWhatIf.stdout
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l) as unknown),
      );
    });
  }
});

describe("replay() on an invalid or unusual scenario", () => {
  test("rejects before the first record with every problem, by path", async () => {
    const scenario: ScenarioDocument = {
      config: { evictionHard: { "memory.available": "lots" } },
      steps: [{ at: "10s" }, { at: "5s" }],
    };
    await assert.rejects(recordsOf(scenario), (error: unknown) => {
      assert.ok(error instanceof InputError);
      const where = error.issues
        .filter((i) => i.severity === "error")
        .map((i) => `${i.file ?? ""} ${i.path}`);
      assert.deepEqual(where.sort(), [
        '<scenario> config.evictionHard["memory.available"]',
        "<scenario> steps[1].at",
      ]);
      return true;
    });
  });

  test("hands warnings to onWarning and replays all the same", async () => {
    const warnings: Issue[] = [];
    const scenario = { colour: "blue", steps: [{ at: "0s" }] } as ScenarioDocument;
    const records: ReplayRecord[] = [];
    for await (const r of replay(scenario, { onWarning: (w) => warnings.push(w) })) records.push(r);
    assert.deepEqual(
      warnings.map((w) => [w.path, w.code]),
      [["colour", "unknown-field"]],
    );
    assert.deepEqual(
      records.map((r) => r.type),
      ["config", "step"],
    );
  });

  test("keeps uint64 counters exact when the summary comes from parseJsonExact", async () => {
    const max = "18446744073709551615";
    const text = `{"node": {"fs": {"availableBytes": 50, "capacityBytes": 100, "inodesFree": ${max}, "inodes": ${max}}}}`;
    const records = await recordsOf({ steps: [{ at: "0s", summary: parseJsonExact(text) }] });
    const step = records[1];
    assert.ok(step?.type === "step");
    assert.deepEqual(step.observations["nodefs.inodesFree"], {
      available: max,
      capacity: max,
      time: "1970-01-01T00:00:00Z",
    });
  });
});
