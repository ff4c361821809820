/**
 * The benchmarks' command lines: a misspelt option or a bad value stops a bench before it measures
 * anything, with every error named, rather than a default node being measured and published.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { checkBenchArgs, USAGE_EXIT } from "../../bench/bench-args.js";
import { REACTION_OPTIONS, readReactionArgs } from "../../bench/reaction-bench-args.js";
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

  it("an option whose value may be left out reads bare as its stated value, and takes a value given", () => {
    const kinds = { hog: { bare: "on" }, pods: "string" } as const;
    const hog = (argv: readonly string[]) => checkBenchArgs(argv, kinds, (a) => a.string("hog") ?? "absent");
    assert.deepEqual(hog([]), { ok: true, value: "absent" });
    assert.deepEqual(hog(["--hog"]), { ok: true, value: "on" });
    assert.deepEqual(hog(["--hog", "--pods", "5"]), { ok: true, value: "on" });
    assert.deepEqual(hog(["--hog", "both", "--pods", "5"]), { ok: true, value: "both" });
    assert.deepEqual(hog(["--hog=off"]), { ok: true, value: "off" });
    // A bare option where another option's value should be leaves that value missing, as before.
    const missing = checkBenchArgs(["--pods", "--hog"], kinds, (a) => a.string("pods"));
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? "" : missing.errors.join("\n"), /--pods/);
  });

  it("the cluster reaction bench: placement, hog, summary trials and the results file", () => {
    const cluster = (argv: readonly string[]) =>
      checkBenchArgs(["--mode", "cluster", ...argv], REACTION_OPTIONS, readReactionArgs);
    const defaults = cluster([]);
    assert.equal(defaults.ok, true);
    assert.deepEqual(defaults.ok && defaults.value.bench === "cluster" ? defaults.value.args : undefined, {
      pods: [5, 110],
      rates: [512, 1024, 2048],
      trials: 20,
      summaryTrials: 5,
      driver: "cgroupfs",
      placement: "pod",
      hogs: [false],
      variants: [{ name: "current" }],
    });
    const given = cluster(["--placement", "outside", "--hog", "--summary-trials", "0", "--out", "x.json"]);
    assert.deepEqual(given.ok && given.value.bench === "cluster" ? given.value.args : undefined, {
      pods: [5, 110],
      rates: [512, 1024, 2048],
      trials: 20,
      summaryTrials: 0,
      driver: "cgroupfs",
      placement: "outside",
      hogs: [true],
      variants: [{ name: "current" }],
      out: resolve("x.json"),
    });
    const hogs = (value: string) => {
      const r = cluster(["--hog", value]);
      return r.ok && r.value.bench === "cluster" ? r.value.args.hogs : undefined;
    };
    assert.deepEqual(hogs("both"), [false, true]);
    assert.deepEqual(hogs("on"), [true]);
    assert.deepEqual(hogs("off"), [false]);
    const variants = (argv: readonly string[]) => {
      const r = cluster(argv);
      return r.ok && r.value.bench === "cluster" ? r.value.args.variants?.map((v) => v.name) : undefined;
    };
    assert.deepEqual(
      variants(["--dry-run-first", "both"]),
      ["dry run first", "current"],
      "the former path first",
    );
    assert.deepEqual(variants(["--dry-run-first"]), ["dry run first"]);
    // A baseline is a checkout with bin/evictd.js: this repository will do.
    assert.deepEqual(variants(["--baseline", REPO_ROOT]), [`baseline ${basename(REPO_ROOT)}`, "current"]);
    const noBaseline = cluster(["--baseline", "/nonexistent"]);
    assert.equal(noBaseline.ok, false);
    assert.match(
      noBaseline.ok ? "" : noBaseline.errors.join("\n"),
      /--baseline: "\/nonexistent" holds no bin\/evictd\.js/,
    );
    assert.equal(checkBenchArgs(["--dry-run-first"], REACTION_OPTIONS, readReactionArgs).ok, false);
    const node = checkBenchArgs(["--out", "/tmp/r.json"], REACTION_OPTIONS, readReactionArgs);
    assert.deepEqual(node.ok && node.value.bench === "node" ? node.value.args.out : undefined, "/tmp/r.json");
  });

  it("the cluster reaction bench refuses bad values, each named with the option and what was given", () => {
    const r = checkBenchArgs(
      ["--mode", "cluster", "--placement", "inside", "--hog", "sometimes", "--summary-trials", "x", "--out="],
      REACTION_OPTIONS,
      readReactionArgs,
    );
    assert.equal(r.ok, false);
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 4, errors.join("\n"));
    assert.ok(errors.includes(`--out: a file name expected, got ""`), errors.join("\n"));
    assert.ok(errors.includes(`--placement: one of pod, outside expected, got "inside"`), errors.join("\n"));
    assert.ok(errors.includes(`--hog: one of off, on, both expected, got "sometimes"`), errors.join("\n"));
    assert.ok(
      errors.some((e) => /^--summary-trials: .*at least 0.*"x"/.test(e)),
      errors.join("\n"),
    );
    const elsewhere = checkBenchArgs(["--placement", "pod", "--hog"], REACTION_OPTIONS, readReactionArgs);
    assert.deepEqual(elsewhere.ok ? [] : elsewhere.errors, [
      "--placement: only with --mode cluster",
      "--hog: only with --mode cluster",
    ]);
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
      [
        bench,
        "--mode",
        "cluster",
        "--touch",
        "write",
        "--driver",
        "x",
        "--placement",
        "inside",
        "--hog",
        "x",
      ],
      {
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    assert.equal(mixed.status, USAGE_EXIT, mixed.stderr);
    assert.match(mixed.stderr, /--touch: only without --mode cluster/);
    assert.match(mixed.stderr, /--driver: one of cgroupfs, systemd expected, got "x"/);
    assert.match(mixed.stderr, /--placement: one of pod, outside expected, got "inside"/);
    assert.match(mixed.stderr, /--hog: one of off, on, both expected, got "x"/);
    assert.match(help.stdout, /--placement pod\|outside/);
  });
});
