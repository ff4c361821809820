/**
 * A long replay says how far it got on stderr when stderr is a terminal, and erases the line at
 * the end; into a pipe or a file it says nothing. The terminal is a real pseudo-terminal from
 * util-linux's `script`, as a person's shell would give; skipped, with the reason, without it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { writeTraceFile } from "../../tools/trace-generator/generate-trace.js";
import { CLI_SKIP, REPO_ROOT, runEvictd } from "./evictd-cli.js";

const SCRIPT = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" }).stdout.trim();
const SKIP = CLI_SKIP || (SCRIPT === "" ? "no `script` (util-linux) to give the replay a terminal" : false);
if (SKIP !== false) console.log(`# replay progress skipped: ${SKIP}`);

describe("replay progress on a terminal", { skip: SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), "evictd-progress-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Long enough to pass the half second before the line appears, on any machine.
  const trace = join(dir, "trace.jsonl");
  writeTraceFile(trace, { steps: 6000, pods: 110, richness: "recorded", format: "jsonl" });

  test("stderr on a terminal: a redrawn 'replaying: N steps' line, erased at the end", () => {
    // stdout to /dev/null, stderr to the pseudo-terminal `script` records.
    const command = `${process.execPath} bin/evictd.js replay ${trace} --output jsonl > /dev/null`;
    const r = spawnSync(SCRIPT, ["-qec", command, "/dev/null"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const counts = [...r.stdout.matchAll(/\rreplaying: ([\d,]+) steps \(\d+\.\d s\)/g)].map((m) =>
      Number((m[1] ?? "").replace(/,/g, "")),
    );
    assert.ok(counts.length > 0, `no progress line in ${JSON.stringify(r.stdout.slice(0, 300))}`);
    for (let i = 1; i < counts.length; i++)
      assert.ok((counts[i] ?? 0) > (counts[i - 1] ?? 0), "it counts up");
    assert.ok(r.stdout.endsWith("\r\x1b[2K"), "the line is erased at the end");
  });

  test("stderr into a pipe: no progress line", () => {
    const r = runEvictd(["replay", trace, "--output", "jsonl"]);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /replaying:/);
  });
});
