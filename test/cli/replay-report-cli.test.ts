/**
 * `evictd replay --report FILE` as a user meets it: the report is written beside the usual output
 * (stdout unchanged), an unwritable path is an input error naming --report, and a scenario that
 * fails its checks leaves no report behind, not even part of one.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { CLI_SKIP, assertNoCrash, runEvictd } from "./evictd-cli.js";

describe("evictd replay --report", { skip: CLI_SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), "evictd-report-cli-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("writes the page and leaves stdout as it is without --report", () => {
    const file = join(dir, "hard.html");
    const plain = runEvictd(["replay", "examples/hard-memory-pressure.yaml", "--output", "jsonl"]);
    const r = runEvictd([
      "replay",
      "examples/hard-memory-pressure.yaml",
      "--output",
      "jsonl",
      "--report",
      file,
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, plain.stdout);
    assert.match(r.stderr, /report written to .*hard\.html: 4 steps, 1 eviction$/m);
    const html = readFileSync(file, "utf8");
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /evicted <code>default\/web<\/code> for memory.available/);
  });

  test("an unwritable path is an input error naming --report and the path", () => {
    const blocker = join(dir, "not-a-dir");
    writeFileSync(blocker, "x");
    const target = join(blocker, "report.html");
    const r = runEvictd([
      "replay",
      "examples/hard-memory-pressure.yaml",
      "--output",
      "jsonl",
      "--report",
      target,
    ]);
    assert.equal(r.status, 2, r.stderr);
    assertNoCrash(r);
    assert.match(r.stderr, /--report: cannot write ".*not-a-dir\/report\.html"/);
    assert.equal(r.stdout, "", "nothing printed when the report cannot be written");
  });

  test("a scenario that fails its checks writes no report and keeps an old one", () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "start: 2025-01-01T00:00:00Z\nsteps:\n  - at: nope\n");
    const file = join(dir, "kept.html");
    writeFileSync(file, "old report");
    const r = runEvictd(["replay", bad, "--report", file]);
    assert.equal(r.status, 2);
    assert.equal(readFileSync(file, "utf8"), "old report");
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith("kept.html.tmp")),
      [],
      "no temporary file left",
    );
    assert.equal(existsSync(join(dir, "bad.html")), false);
  });
});
