/**
 * `evictd replay` whose standard output cannot take the output: a full device (`> /dev/full`) is
 * one line and exit 3 (the environment refused, as for any other command), never Node's dump of an
 * unhandled stream error; a reader gone before the first byte (`| head -c0`) is a quiet exit 0.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CLI_SKIP, EXAMPLES, REPO_ROOT } from "./evictd-cli.js";

const BIN = join(REPO_ROOT, "bin", "evictd.js");

function run(
  args: readonly string[],
  stdout: number | "pipe",
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", stdout, "pipe"],
  });
  if (typeof stdout === "number") closeSync(stdout);
  onStart?.(child);
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr })));
}

describe("replay into an output that cannot take it", { skip: CLI_SKIP }, () => {
  for (const output of ["jsonl", "table"]) {
    test(`replay --output ${output} > /dev/full: one line, exit 3`, async () => {
      const r = await run(
        ["replay", join(EXAMPLES, "soft-memory-pressure.yaml"), "--output", output],
        openSync("/dev/full", "w"),
      );
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stderr, "evictd: cannot write to standard output: no space left on the device\n");
    });
  }

  test("a reader gone before the first byte (| head -c0): exit 0, nothing on stderr", async () => {
    const r = await run(["replay", join(EXAMPLES, "real-node.yaml"), "--output", "jsonl"], "pipe", (child) =>
      child.stdout?.destroy(),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
  });
});
