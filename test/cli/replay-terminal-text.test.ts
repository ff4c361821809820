/**
 * `evictd replay` on a terminal with pod names that are not DNS names (a scenario may name pods as it
 * likes): the table and the error lines show escape codes, carriage returns and bidirectional
 * overrides as escapes, never pass them to the terminal; the JSONL output keeps the names exact.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { CLI_SKIP, assertNoCrash, parseJsonl, runEvictd, scratchDir } from "./evictd-cli.js";

/** Any character a terminal would act on rather than show (the line breaks between lines aside). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const HOG = "hog\u001b]0;owned\u0007\u001b[2J";
const SPACED = "my pod\rEVICTED nothing";
const NAMESPACE = "team\u202eb";

function scenario(pods: readonly { name: string; namespace: string; mib: number }[]): string {
  return JSON.stringify({
    start: "2025-01-01T00:00:00Z",
    config: { evictionHard: { "memory.available": "500Mi" } },
    node: { status: { capacity: { memory: "8Gi" } } },
    filesystems: "single",
    pods: pods.map((p) => ({
      metadata: { name: p.name, namespace: p.namespace },
      spec: { containers: [{ name: "app", resources: { requests: { memory: "64Mi" } } }] },
    })),
    steps: [
      {
        at: "0s",
        summary: {
          node: { memory: { availableBytes: 400 * 2 ** 20, workingSetBytes: 7 * 2 ** 30 } },
          pods: pods.map((p) => ({
            podRef: { name: p.name, namespace: p.namespace },
            memory: { workingSetBytes: p.mib * 2 ** 20 },
            containers: [{ name: "app", memory: { workingSetBytes: p.mib * 2 ** 20 } }],
          })),
        },
      },
    ],
  });
}

describe("evictd replay: names with control characters", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("terminal");
  after(() => scratch.cleanup());

  test("--output table escapes them in the EVICTED line, the ranking and the summary; jsonl keeps them exact", () => {
    const file = join(scratch.dir, "names.json");
    scratch.write(
      "names.json",
      scenario([
        { name: HOG, namespace: "default", mib: 3000 },
        { name: SPACED, namespace: NAMESPACE, mib: 1000 },
        { name: "quiet", namespace: "default", mib: 10 },
      ]),
    );
    const table = runEvictd(["replay", file, "--output", "table"]);
    assert.equal(table.status, 0, table.stderr);
    assertNoCrash(table);
    assert.doesNotMatch(table.stdout, CONTROL, "no control character reaches the terminal");
    const lines = table.stdout.split("\n");
    const evicted = lines.filter((l) => l.startsWith("  EVICTED "));
    assert.equal(evicted.length, 1, evicted.join("\n"));
    assert.ok(evicted[0]?.includes(String.raw`default/hog\x1b]0;owned\x07\x1b[2J`), evicted[0]);
    assert.ok(
      table.stdout.includes(String.raw`team\u202eb/my pod\x0dEVICTED nothing`),
      "the carriage return is shown, it does not overwrite the line",
    );
    const jsonl = parseJsonl(runEvictd(["replay", file, "--output", "jsonl"]).stdout);
    const step = jsonl.find((r) => r["type"] === "step") as { evictions: { pod: string }[] };
    assert.deepEqual(
      step.evictions.map((e) => e.pod),
      [`default/${HOG}`],
    );
  });

  test("an error naming such a pod is one line on stderr, its control characters escaped", () => {
    const file = join(scratch.dir, "twice.json");
    scratch.write(
      "twice.json",
      scenario([
        { name: SPACED, namespace: "default", mib: 10 },
        { name: SPACED, namespace: "default", mib: 10 },
      ]),
    );
    const r = runEvictd(["replay", file, "--output", "table"]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.doesNotMatch(r.stderr, CONTROL);
    const duplicate = r.stderr
      .split("\n")
      .filter((l) => l.includes("duplicate") || l.includes("already defined"));
    assert.equal(duplicate.length, 1, r.stderr);
    assert.ok(duplicate[0]?.includes(String.raw`default/my pod\x0dEVICTED nothing`), duplicate[0]);
  });
});
