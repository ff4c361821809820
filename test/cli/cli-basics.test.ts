/**
 * The command line's own edges, as a user meets them: `--version`, a malformed or endless `demo --seconds`,
 * intervals longer than a timer holds,
 * and a reader that stops early (`evictd replay … | head -1`).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { readLinesThenClose } from "../support/early-reader.js";
import { CLI_SKIP, REPO_ROOT, assertNoCrash, runEvictd, stderrLines } from "./evictd-cli.js";

describe("evictd's command line", { skip: CLI_SKIP }, () => {
  const dir = mkdtempSync(join(tmpdir(), "evictd-cli-basics-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("--version and -V print package.json's version, exit 0", () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-V"]) {
      const r = runEvictd([flag]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, `${version}\n`);
    }
  });

  test("the CLI runs as an executable through its shebang, with the node on PATH", () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const bin = join(REPO_ROOT, "bin", "evictd.js");
    // The node on PATH, as for a user; this test's own node first, so the versions agree.
    const r = spawnSync(bin, ["--version"], {
      encoding: "utf8",
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` },
    });
    assert.equal(r.error, undefined, String(r.error));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${version}\n`);
  });

  test("demo --seconds that is not a positive number is a usage error naming the option and value", () => {
    for (const value of ["abc", "0", "-5", ""]) {
      const r = runEvictd(["demo", "--seconds", value]);
      assert.equal(r.status, 2, `--seconds ${JSON.stringify(value)}: ${r.stdout}${r.stderr}`);
      assertNoCrash(r);
      assert.equal(r.stdout, "", "nothing ran");
      const [line] = stderrLines(r);
      assert.match(line ?? "", /--seconds/);
      assert.ok(line?.includes(`'${value}'`), line);
    }
  });

  test("demo --seconds past what a timer holds (2^31-1 ms) is a usage error saying the maximum; nothing runs", () => {
    for (const value of ["1e9", "2147484"]) {
      const r = runEvictd(["demo", "--seconds", value]);
      assert.equal(r.status, 2, `--seconds ${value}: ${r.stdout}${r.stderr}`);
      assertNoCrash(r);
      assert.equal(r.stdout, "", "nothing ran");
      assert.doesNotMatch(r.stderr, /TimeoutOverflowWarning/);
      const lines = stderrLines(r);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] ?? "", /--seconds.*at most 2147483\.647 seconds/);
    }
  });

  test("watch and record --interval past what a timer holds are refused (exit 2) before anything connects", () => {
    for (const args of [
      ["watch", "--node", "n", "--interval", "1000000h"],
      ["record", "--node", "n", "--interval", "1000000h", "-o", join(dir, "never.jsonl")],
    ]) {
      const r = runEvictd(args);
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assertNoCrash(r);
      assert.deepEqual(stderrLines(r), [
        '--interval: expected a duration of at most 596h31m23.647s (the longest a timer holds), got "1000000h"',
      ]);
    }
  });

  test("replay into a reader that stops after one line ends quietly with exit 0", async () => {
    // Far more output than a pipe holds (64 KiB), so the writes outlive the reader.
    const steps = Array.from({ length: 3000 }, (_, i) => ({
      at: `${i * 10}s`,
      summary: {
        node: { memory: { availableBytes: 4294967296 - i * 1048576, workingSetBytes: i * 1048576 } },
      },
    }));
    const scenario = join(dir, "long.yaml");
    writeFileSync(
      scenario,
      JSON.stringify({ config: {}, node: { status: { capacity: { memory: "8Gi" } } }, pods: [], steps }),
    );
    const {
      read: first,
      stderr,
      status,
    } = await readLinesThenClose(
      process.execPath,
      [join(REPO_ROOT, "bin", "evictd.js"), "replay", scenario, "--output", "jsonl"],
      1,
    );
    assert.match(first, /^\{"type":"config"/);
    assert.equal(stderr, "");
    assert.equal(status, 0);
  });
});
