/**
 * Lean, compressed recordings (docs/replay-format.md, "lean Summaries" and "compressed traces"): a
 * generated 110-pod trace through a memory episode, written as the kubelet's full Summaries and as
 * the recorder writes them (each Summary cut down to what the engine reads, brotli or gzip),
 * replays to exactly the same decisions, evictions included; a recording cut short mid-stream
 * replays up to its last whole line with a warning; gzip on stdin is recognised by its bytes.
 */
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { leanSummary } from "../../src/core/summary/lean-summary.js";
import { toExactJson } from "../../src/core/summary/to-exact-json.js";
import { createTraceFile } from "../../src/formats/scenario/compressed-scenario.js";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { generateTrace } from "../../tools/trace-generator/generate-trace.js";
import { CLI_SKIP, parseJsonl, runEvictd, scratchDir } from "./evictd-cli.js";

const scratch = scratchDir("compressed");
after(() => scratch.cleanup());

/** The full trace's lines with every step's Summary cut down, as the recorder writes them. */
function leanLines(text: string): string[] {
  const lines = text.split("\n").filter((l) => l !== "");
  return lines.map((line, i) => {
    if (i === 0) return `${line}\n`;
    const step = parseJsonExact(line) as Record<string, unknown>;
    return `${toExactJson({ ...step, summary: leanSummary(step["summary"]) })}\n`;
  });
}

async function writeCompressed(name: string, lines: readonly string[]): Promise<string> {
  const file = join(scratch.dir, name);
  const trace = createTraceFile(file);
  for (const l of lines) trace.write(l);
  await trace.close();
  return file;
}

const steps = (stdout: string): Record<string, unknown>[] =>
  parseJsonl(stdout).filter((r) => r["type"] === "step");

describe("lean and compressed recordings", { skip: CLI_SKIP }, () => {
  // 110 pods from step 600 of the node's history: soft, then hard memory evictions.
  const { text, info } = generateTrace({
    steps: 300,
    pods: 110,
    seed: 1,
    fromStep: 600,
    richness: "full",
    format: "jsonl",
  });
  const full = scratch.write("full.jsonl", text);
  const lean = leanLines(text);
  const fullRun = runEvictd(["replay", full, "--output", "jsonl"]);

  test("the same decisions from the kubelet's full Summaries and from lean ones, brotli and gzip", async () => {
    assert.equal(fullRun.status, 0, fullRun.stderr);
    const expected = steps(fullRun.stdout);
    const evictions = expected.flatMap((s) => (s["evictions"] as unknown[] | undefined) ?? []);
    assert.ok(
      evictions.length >= 2,
      `the trace must evict (${evictions.length}; predicted ${info.predictedEvictions.length})`,
    );
    const leanText = lean.join("");
    assert.ok(
      Buffer.byteLength(leanText) < text.length / 3,
      `lean ${Buffer.byteLength(leanText)} bytes against ${text.length}`,
    );
    for (const name of ["lean.jsonl.br", "lean.jsonl.gz"]) {
      const file = await writeCompressed(name, lean);
      assert.ok(
        statSync(file).size < Buffer.byteLength(leanText) / 4,
        `${name}: ${statSync(file).size} bytes`,
      );
      const r = runEvictd(["replay", file, "--output", "jsonl"]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, "");
      assert.deepEqual(steps(r.stdout), expected, name);
    }
    const plainLean = scratch.write("lean.jsonl", leanText);
    assert.deepEqual(steps(runEvictd(["replay", plainLean, "--output", "jsonl"]).stdout), expected);
  });

  test("a compressed recording cut short replays up to its last whole line, with a warning", async () => {
    const whole = await writeCompressed("cut.jsonl.br", lean);
    const cut = join(scratch.dir, "cut-short.jsonl.br");
    copyFileSync(whole, cut);
    truncateSync(cut, Math.floor(statSync(whole).size * 0.6));
    const r = runEvictd(["replay", cut, "--output", "jsonl"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /brotli stream ends mid-way .*replayed up to its last whole line/);
    const got = steps(r.stdout);
    const expected = steps(fullRun.stdout);
    assert.ok(got.length > 50 && got.length < expected.length, `${got.length} of ${expected.length} steps`);
    assert.deepEqual(got, expected.slice(0, got.length));
  });

  test("gzip on stdin is recognised by its bytes", async () => {
    const file = await writeCompressed("stdin.jsonl.gz", lean.slice(0, 40));
    const r = runEvictd(["replay", "-", "--output", "jsonl"], { input: readFileSync(file) });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(steps(r.stdout).length, 39);
  });

  test("corrupt compressed data is a read error naming the file, and nothing reaches stdout", () => {
    const file = scratch.write(
      "corrupt.jsonl.gz",
      Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]),
    );
    const r = runEvictd(["replay", file, "--output", "jsonl"]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /corrupt\.jsonl\.gz/);
  });
});
