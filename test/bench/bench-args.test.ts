/**
 * The benchmarks' command lines: a misspelt option or a bad value stops a bench before it measures
 * anything, with every error named, rather than a default node being measured and published.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { checkBenchArgs, USAGE_EXIT } from "../../bench/bench-args.js";
import { REPO_ROOT } from "../support/repo-paths.js";

const KINDS = { pods: "string", trials: "string", modes: "string", quick: "boolean" } as const;

function read(argv: readonly string[]) {
  return checkBenchArgs(argv, KINDS, (a) => ({
    pods: a.wholeNumbers("pods", [5, 110], 5),
    trials: a.wholeNumber("trials", 20, 1),
    modes: a.choices("modes", ["notify", "poll"] as const, ["notify", "poll"]),
    quick: a.flag("quick"),
  }));
}

describe("bench command lines", () => {
  it("reads values, the --name=value form and flags, and falls back to each default", () => {
    assert.deepEqual(read([]), {
      ok: true,
      value: { pods: [5, 110], trials: 20, modes: ["notify", "poll"], quick: false },
    });
    assert.deepEqual(read(["--pods", "5,20", "--trials=3", "--modes", "poll", "--quick"]), {
      ok: true,
      value: { pods: [5, 20], trials: 3, modes: ["poll"], quick: true },
    });
  });

  it("refuses an option it does not know (a misspelt --pods) and a value left out", () => {
    const misspelt = read(["--pod", "110"]);
    assert.equal(misspelt.ok, false);
    assert.match(misspelt.ok ? "" : misspelt.errors.join("\n"), /'--pod'/);
    const missing = read(["--trials"]);
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? "" : missing.errors.join("\n"), /--trials/);
  });

  it("collects every bad value, each named with what was given", () => {
    const r = read(["--pods", "5,x,3", "--trials", "0", "--modes", "notify,notify"]);
    assert.equal(r.ok, false);
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 3, errors.join("\n"));
    assert.match(errors[0] ?? "", /^--pods: .*at least 5.*"5,x,3".*"x", "3"/);
    assert.match(errors[1] ?? "", /^--trials: .*at least 1.*"0"/);
    assert.match(errors[2] ?? "", /^--modes: .*each once.*"notify,notify"/);
  });

  it("a bench run with a misspelt option exits with usage before it measures or writes anything", () => {
    const results = join(REPO_ROOT, "bench", "results", "overhead.json");
    const before = statSync(results).mtimeMs;
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "dist", "bench", "overhead-bench.js"), "--pod", "110"],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    assert.equal(r.status, USAGE_EXIT, r.stderr);
    assert.match(r.stderr, /error: .*'--pod'/);
    assert.match(r.stderr, /usage: node dist\/bench\/overhead-bench\.js/);
    assert.equal(r.stdout, "");
    assert.equal(statSync(results).mtimeMs, before);
  });

  it("--help prints the usage and exits 0; options that belong to the other mode are refused", () => {
    const bench = join(REPO_ROOT, "dist", "bench", "reaction-bench.js");
    const help = spawnSync(process.execPath, [bench, "--help"], { encoding: "utf8", timeout: 30_000 });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /--mode cluster/);
    const mixed = spawnSync(
      process.execPath,
      [bench, "--mode", "cluster", "--touch", "write", "--driver", "x"],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    assert.equal(mixed.status, USAGE_EXIT, mixed.stderr);
    assert.match(mixed.stderr, /--touch: only without --mode cluster/);
    assert.match(mixed.stderr, /--driver: one of cgroupfs, systemd expected, got "x"/);
  });
});
