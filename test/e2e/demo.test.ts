/**
 * `evictd demo` whose reader goes away (`evictd demo | head -3`, or `| tee log` stopped with
 * Ctrl-C): with nobody left to show it to, the demo stops at its next line of output and cleans up
 * as on Ctrl-C: exit 0, no stack trace, its pods, cgroups and directory gone.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readLinesThenClose } from "../support/early-reader.js";
import { E2E_SKIP, EVICTD_BIN, ownCgroupDirs, scaled } from "../harness/node-harness.js";

/** The demo's node cgroup (node name `demo`) under each hierarchy this process is in. */
function demoCgroups(): string[] {
  const own = ownCgroupDirs();
  return [own.memory, own.pids, own.unified]
    .filter((d): d is string => d !== undefined)
    .map((d) => join(d, "evictd-demo"))
    .filter((d) => existsSync(d));
}

describe("evictd demo", { skip: E2E_SKIP }, () => {
  test(
    "a reader that stops after three lines: the demo stops and cleans up, exit 0",
    { timeout: scaled(90_000) },
    async () => {
      assert.deepEqual(demoCgroups(), [], "no demo node left over before the test");
      // Both the demo's length and the bound stretch in a slower (emulated) machine: there its
      // start, three lines and clean-up alone took 34 s.
      const demoSeconds = Math.round(scaled(45_000) / 1000);
      const started = Date.now();
      const {
        read: seen,
        stderr,
        status,
      } = await readLinesThenClose(
        process.execPath,
        [EVICTD_BIN, "demo", "--seconds", String(demoSeconds)],
        3,
      );
      const dir = /Files: (\S+)/.exec(seen)?.[1];
      assert.ok(dir !== undefined, `the first line names the demo's directory: ${seen}`);
      assert.equal(stderr, "", "nothing on stderr");
      assert.equal(status, 0);
      assert.ok(Date.now() - started < scaled(30_000), `stopped long before its ${demoSeconds} s`);
      assert.equal(existsSync(dir), false, `${dir} removed`);
      assert.deepEqual(
        demoCgroups(),
        [],
        "the demo's node cgroups removed (so no pod process is left in them)",
      );
    },
  );
});
