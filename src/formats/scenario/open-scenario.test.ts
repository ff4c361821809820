import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, describe, test } from "node:test";
import type { ScenarioStep } from "../../app/replay/scenario.js";
import { formatIssue } from "../../core/issues.js";
import { openScenarioFile, openScenarioInput } from "./open-scenario.js";
import type { OpenedScenario } from "./scenario-stream.js";

const dir = mkdtempSync(join(tmpdir(), "evictd-open-scenario-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const HEADER = '{"config":{"evictionHard":{"memory.available":"1Gi"},"mergeDefaultEvictionSettings":true}}';
const STEP = (at: string): string =>
  `{"at":"${at}","summary":{"node":{"memory":{"availableBytes":1073741824}}}}`;
const JSONL = [HEADER, STEP("0s"), STEP("10s")].join("\n") + "\n";
/** Step 1 has a bad `at`: a stream hands on step 0 before finding it; a document hands on nothing. */
const JSONL_BAD_SECOND = [HEADER, STEP("0s"), '{"at":"later"}'].join("\n") + "\n";

async function drain(opened: OpenedScenario): Promise<{ steps: ScenarioStep[]; issues: string[] }> {
  if (!opened.ok) return { steps: [], issues: opened.issues.map(formatIssue) };
  const steps: ScenarioStep[] = [];
  for await (const s of opened.stream.steps) steps.push(s);
  return { steps, issues: opened.stream.issues().map(formatIssue) };
}

describe("openScenarioFile", () => {
  test("a .jsonl file streams", async () => {
    const r = await drain(await openScenarioFile(write("a.jsonl", JSONL_BAD_SECOND)));
    assert.deepEqual(
      r.steps.map((s) => s.index),
      [0],
    );
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0] ?? "", /a\.jsonl:3:2: steps\[1\]\.at: /);
  });

  test("JSONL in a file named otherwise is recognised by its lines", async () => {
    for (const name of ["b.json", "b.yaml", "b"]) {
      const r = await drain(await openScenarioFile(write(name, JSONL_BAD_SECOND)));
      assert.equal(r.steps.length, 1, name);
      assert.match(r.issues[0] ?? "", /:3:2: steps\[1\]\.at: /, name);
    }
  });

  test("JSONL whose header line is longer than the look-ahead is still recognised", async () => {
    const header = `{"note":"${"x".repeat(1_200_000)}","config":{"evictionHard":{"memory.available":"1Gi"},"mergeDefaultEvictionSettings":true}}`;
    const r = await drain(
      await openScenarioFile(write("long.json", [header, STEP("0s"), STEP("1s")].join("\n"))),
    );
    assert.equal(r.steps.length, 2);
    assert.deepEqual(r.issues, [
      `${join(dir, "long.json")}:1:2: warning: note: unknown field "note" (ignored)`,
    ]);
  });

  test("a document is read whole and checked before any step", async () => {
    const doc = JSON.stringify({
      config: { evictionHard: { "memory.available": "1Gi" } },
      steps: [{ at: "0s" }, { at: "later" }],
    });
    const r = await drain(await openScenarioFile(write("doc.json", doc + "\n")));
    assert.equal(r.steps.length, 0);
    assert.ok(r.issues.some((i) => /steps\[1\]\.at: /.test(i)));
    const yaml = await drain(await openScenarioFile(write("doc.yaml", "steps:\n  - at: 0s\n  - at: 5s\n")));
    assert.deepEqual(
      yaml.steps.map((s) => s.atMs),
      [0, 5000],
    );
  });

  test("a pretty-printed document in a .jsonl file is read as JSONL (and rejected as such)", async () => {
    const r = await drain(await openScenarioFile(write("pretty.jsonl", '{\n  "steps": []\n}\n')));
    assert.match(r.issues[0] ?? "", /pretty\.jsonl:1:\d+: scenario: invalid JSON/);
  });

  test("a missing file, whatever its name", async () => {
    for (const name of ["missing.jsonl", "missing.json"]) {
      const r = await drain(await openScenarioFile(join(dir, name)));
      assert.deepEqual(r.issues, [`${join(dir, name)}: scenario: no such file`]);
    }
  });

  test("a binary .jsonl file", async () => {
    const r = await drain(await openScenarioFile(write("bin.jsonl", "{}\n\u0000\u0001")));
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0] ?? "", /scenario: the file is binary/);
  });
});

describe("openScenarioInput (stdin)", () => {
  const input = (chunks: readonly string[]): Readable => Readable.from(chunks.map((c) => Buffer.from(c)));

  test("JSONL in small chunks streams", async () => {
    const text = JSONL_BAD_SECOND;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    const r = await drain(await openScenarioInput(input(chunks), "<stdin>", dir));
    assert.equal(r.steps.length, 1);
    assert.match(r.issues[0] ?? "", /^<stdin>:3:2: steps\[1\]\.at: /);
  });

  test("JSONL, valid", async () => {
    const r = await drain(await openScenarioInput(input([JSONL]), "<stdin>", dir));
    assert.deepEqual(r.issues, []);
    assert.equal(r.steps.length, 2);
  });

  test("a YAML document", async () => {
    const r = await drain(await openScenarioInput(input(["steps:\n", "  - at: 0s\n"]), "<stdin>", dir));
    assert.deepEqual(r.issues, []);
    assert.equal(r.steps.length, 1);
  });

  test("nothing at all", async () => {
    const r = await drain(await openScenarioInput(input([]), "<stdin>", dir));
    assert.deepEqual(r.issues, ["<stdin>: scenario: the file is empty"]);
  });
});
