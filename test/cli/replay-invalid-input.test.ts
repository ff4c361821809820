/**
 * `evictd replay` on every kind of malformed input (docs/replay-format.md "Exit 2 when the scenario
 * or its configuration is invalid"): exit 2, nothing on stdout, one stderr line per problem naming
 * the field path and the offending value (with line:column when the input is a file), never a
 * stack trace; unknown keys are only warnings.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { after, describe, test } from "node:test";
import {
  CLI_SKIP,
  FIXTURES,
  REPO_ROOT,
  assertInputError,
  assertNoCrash,
  isWarningLine,
  parseJsonl,
  runEvictd,
  scratchDir,
  stderrLines,
  type ExpectedProblem,
} from "./evictd-cli.js";

const INVALID = join(FIXTURES, "replay", "invalid");
/** Fixture paths as a user in the repository root would type them. */
const fixture = (name: string): string => relative(REPO_ROOT, join(INVALID, name));

/**
 * `line:column` of `token` on 1-based `line` of a fixture, computed from the fixture text so that
 * the expectation reads "the problem is reported where this token is".
 */
function positionOf(name: string, line: number, token: string): string {
  const text = readFileSync(join(INVALID, name), "utf8").split("\n")[line - 1];
  assert.ok(text !== undefined, `${name} has no line ${line}`);
  const col = text.indexOf(token);
  assert.ok(col >= 0, `${name}:${line} does not contain ${token}`);
  return `${line}:${col + 1}`;
}

interface Case {
  readonly name: string;
  readonly file: string;
  readonly problems: (file: string) => ExpectedProblem[];
}

const CASES: Case[] = [
  {
    name: "YAML syntax error: reported once with the line:column of the stray bracket",
    file: "yaml-syntax.yaml",
    problems: (f) => [{ path: "scenario", mentions: ["}"], at: positionOf(f, 5, "]") }],
  },
  {
    name: "JSON syntax error (missing comma): reported with the line:column where the comma is missing",
    file: "json-syntax.json",
    problems: (f) => [{ path: "scenario", mentions: ["JSON"], at: positionOf(f, 3, '"steps"') }],
  },
  {
    name: "steps is not a list",
    file: "steps-not-a-list.yaml",
    problems: (f) => [{ path: "steps", mentions: ["list", "5"], at: positionOf(f, 3, "steps") }],
  },
  {
    name: "at is a bare number (YAML)",
    file: "at-number.yaml",
    problems: (f) => [{ path: "steps[0].at", mentions: ["30"], at: positionOf(f, 3, "at") }],
  },
  {
    name: "at is a number (JSON)",
    file: "at-number.json",
    problems: (f) => [{ path: "steps[0].at", mentions: ["30"], at: positionOf(f, 2, '"at"') }],
  },
  {
    name: "pods is a string naming a file that does not exist",
    file: "pods-missing-file.yaml",
    problems: () => [{ path: "pods", mentions: ["missing-pods.yaml"] }],
  },
  {
    name: "bad quantity in a pod's requests (memory: 1K)",
    file: "pod-bad-quantity.yaml",
    problems: (f) => [
      {
        path: "pods[0].spec.containers[0].resources.requests.memory",
        mentions: ['"1K"', "suffix"],
        at: positionOf(f, 8, "memory"),
      },
    ],
  },
  {
    name: "bad quantities in a threshold and a minimum reclaim",
    file: "threshold-bad-quantity.yaml",
    problems: (f) => [
      {
        path: 'config.evictionHard["memory.available"]',
        mentions: ['"1K"', "suffix"],
        at: positionOf(f, 4, "memory.available"),
      },
      {
        path: 'config.evictionMinimumReclaim["memory.available"]',
        mentions: ['"5Kb"'],
        at: positionOf(f, 6, "memory.available"),
      },
    ],
  },
  {
    name: "percentage thresholds out of range",
    file: "threshold-bad-percentages.yaml",
    problems: () => [
      { path: 'config.evictionHard["nodefs.available"]', mentions: ["-5%", ">= 0%"] },
      { path: 'config.evictionHard["imagefs.available"]', mentions: ["150%", "<= 100%"] },
    ],
  },
  {
    name: 'bad grace period duration ("1x") is one problem, not also "grace period must be specified"',
    file: "grace-bad-duration.yaml",
    problems: (f) => [
      {
        path: 'config.evictionSoftGracePeriod["memory.available"]',
        mentions: ['"1x"'],
        at: positionOf(f, 6, "memory.available"),
      },
    ],
  },
  {
    name: "unknown signal foo.available",
    file: "unknown-signal.yaml",
    problems: (f) => [
      {
        path: 'config.evictionHard["foo.available"]',
        mentions: ["unsupported eviction signal foo.available"],
        at: positionOf(f, 3, "foo.available"),
      },
    ],
  },
  {
    name: "soft threshold without a grace period (kubelet's exact message)",
    file: "soft-without-grace.yaml",
    problems: () => [
      {
        path: 'config.evictionSoft["memory.available"]',
        mentions: ["grace period must be specified for the soft eviction threshold memory.available"],
      },
    ],
  },
  {
    name: "at not strictly increasing: one problem per offending step",
    file: "at-not-increasing.yaml",
    problems: (f) => [
      { path: "steps[1].at", mentions: ["10s"], at: positionOf(f, 4, "at") },
      { path: "steps[2].at", mentions: ["5s"], at: positionOf(f, 5, "at") },
    ],
  },
  {
    // A bad `at` has no time, so "not after the previous step" is not a second, real problem.
    name: "a bad at in a later step is reported once (no derived ordering error)",
    file: "at-invalid-later-step.yaml",
    problems: () => [{ path: "steps[1].at", mentions: ["30"] }],
  },
  {
    name: 'summary with a string where a uint64 belongs (availableBytes: "100")',
    file: "summary-string.yaml",
    problems: (f) => [
      {
        path: "steps[0].summary.node.memory.availableBytes",
        mentions: ['"100"'],
        at: positionOf(f, 5, "availableBytes"),
      },
    ],
  },
  {
    name: "summary with a negative number",
    file: "summary-negative.yaml",
    problems: (f) => [
      {
        path: "steps[0].summary.node.memory.workingSetBytes",
        mentions: ["-5"],
        at: positionOf(f, 5, "workingSetBytes"),
      },
    ],
  },
  {
    name: "summary with a fraction",
    file: "summary-fraction.yaml",
    problems: (f) => [
      {
        path: "steps[0].summary.node.fs.availableBytes",
        mentions: ["1.5"],
        at: positionOf(f, 5, "availableBytes"),
      },
    ],
  },
  {
    name: "summary counter beyond uint64 (2^64)",
    file: "summary-uint64-overflow.json",
    problems: (f) => [
      {
        path: "steps[0].summary.node.fs.inodesFree",
        mentions: ["18446744073709551616"],
        at: positionOf(f, 3, '"inodesFree"'),
      },
    ],
  },
  {
    name: "summary path that does not exist",
    file: "summary-missing-file.yaml",
    problems: () => [{ path: "steps[0].summary", mentions: ["no-such-summary.json"] }],
  },
  {
    name: "every problem inside a referenced summary file is reported",
    file: "summary-file-invalid.yaml",
    problems: () => [
      { path: "steps[0].summary.node.memory.availableBytes", mentions: ["bad-summary.json", '"100"'] },
      { path: "steps[0].summary.node.fs.availableBytes", mentions: ["bad-summary.json", "-1"] },
      { path: "steps[0].summary.node.fs.capacityBytes", mentions: ["bad-summary.json", "2.5"] },
    ],
  },
  {
    name: "a problem inside a referenced pods file is reported",
    file: "pods-file-invalid.yaml",
    problems: () => [
      {
        path: "pods.items[0].spec.containers[0].resources.requests.memory",
        mentions: ["bad-pods.yaml", '"1K"'],
      },
    ],
  },
  {
    name: "config path that does not exist",
    file: "config-missing-file.yaml",
    problems: () => [{ path: "config", mentions: ["no-such-kubelet-config.yaml"] }],
  },
  {
    name: "a problem inside a referenced kubelet config file, with its line:column",
    file: "config-file-invalid.yaml",
    problems: () => [
      { path: 'config.evictionHard["memory.available"]', mentions: ["bad-kubelet-config.yaml:4:3:", '"1K"'] },
    ],
  },
  {
    name: "three independent problems are all reported (collected, not first-only)",
    file: "three-errors.yaml",
    problems: (f) => [
      {
        path: 'config.evictionHard["foo.available"]',
        mentions: ["foo.available"],
        at: positionOf(f, 4, "foo.available"),
      },
      {
        path: "pods[0].spec.containers[0].resources.requests.memory",
        mentions: ['"1K"'],
        at: positionOf(f, 10, "memory"),
      },
      { path: "steps[1].at", mentions: ["5s"], at: positionOf(f, 13, "at") },
    ],
  },
  {
    name: "the top level is a list, not a mapping",
    file: "top-level-list.yaml",
    problems: () => [{ path: "scenario", mentions: ["mapping"] }],
  },
  {
    name: "bad start time, filesystems, evictedPods and reclaimErrors key",
    file: "bad-enums.yaml",
    problems: (f) => [
      { path: "start", mentions: ['"yesterday"'], at: positionOf(f, 1, "start") },
      { path: "filesystems", mentions: ['"zfs"'], at: positionOf(f, 2, "filesystems") },
      { path: "evictedPods", mentions: ['"maybe"'], at: positionOf(f, 3, "evictedPods") },
      { path: "steps[0].reclaimErrors.disks", mentions: ['"disks"'], at: positionOf(f, 6, "disks") },
    ],
  },
];

describe("evictd replay: invalid scenario files", { skip: CLI_SKIP }, () => {
  for (const c of CASES) {
    test(c.name, () => {
      const r = runEvictd(["replay", fixture(c.file), "--output", "jsonl"]);
      assertInputError(r, c.problems(c.file));
    });
  }

  test("table output prints nothing either when the scenario is invalid", () => {
    for (const file of ["three-errors.yaml", "yaml-syntax.yaml", "summary-string.yaml"]) {
      const r = runEvictd(["replay", fixture(file), "--output", "table"]);
      assert.equal(r.status, 2, file);
      assert.equal(r.stdout, "", `${file}: table output started before validation`);
      assertNoCrash(r);
    }
  });
});

describe("evictd replay: problems in referenced files point at those files", { skip: CLI_SKIP }, () => {
  // The config file's problems carry an openable path and line:column; pods and summary files are
  // read the same way, so their problems must be as easy to find (the file name as given in the
  // scenario is relative to the scenario, not to the user's working directory).
  const cases = [
    { scenario: "summary-file-invalid.yaml", referenced: "summaries/bad-summary.json", line: 3 },
    { scenario: "pods-file-invalid.yaml", referenced: "pods/bad-pods.yaml", line: 8 },
    { scenario: "config-file-invalid.yaml", referenced: "configs/bad-kubelet-config.yaml", line: 4 },
  ];
  for (const c of cases) {
    test(`${c.referenced}: the reported location opens from the working directory, with line:column`, () => {
      const r = runEvictd(["replay", fixture(c.scenario)]);
      assert.equal(r.status, 2);
      const first = stderrLines(r).find((l) => !isWarningLine(l));
      assert.ok(first !== undefined, r.stderr);
      const m = /^(.+?):(\d+):(\d+): /.exec(first);
      assert.ok(m !== null, `no file:line:column prefix: ${first}`);
      assert.equal(
        resolve(REPO_ROOT, m[1] ?? ""),
        join(INVALID, c.referenced),
        `location names another file: ${first}`,
      );
      assert.equal(Number(m[2]), c.line, first);
    });
  }
});

describe("evictd replay: unreadable scenario files", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("invalid");
  after(() => scratch.cleanup());

  test("missing scenario file", () => {
    const missing = join(scratch.dir, "does-not-exist.yaml");
    assertInputError(runEvictd(["replay", missing]), [
      { path: "scenario", mentions: ["does-not-exist.yaml"] },
    ]);
  });

  test("a directory", () => {
    assertInputError(runEvictd(["replay", scratch.dir]), [
      { path: "scenario", mentions: [scratch.dir, "directory"] },
    ]);
  });

  test("an empty file", () => {
    const file = scratch.write("empty.yaml", "");
    assertInputError(runEvictd(["replay", file]), [{ path: "scenario", mentions: ["empty.yaml", "empty"] }]);
  });

  test("a file of blanks and comments only", () => {
    const file = scratch.write("comments.yaml", "# nothing here\n\n   \n");
    assertInputError(runEvictd(["replay", file]), [{ path: "scenario", mentions: ["comments.yaml"] }]);
  });

  test("a binary file (random bytes including NUL)", () => {
    const bytes = randomBytes(512);
    bytes[0] = 0x7b; // '{': would take the JSON path if binary content were not refused first
    bytes[17] = 0;
    bytes[300] = 0;
    const file = scratch.write("random.bin", bytes);
    assertInputError(runEvictd(["replay", file]), [{ path: "scenario", mentions: ["random.bin", "binary"] }]);
  });

  test("invalid UTF-8 (a YAML file with 0xFF 0xFE inside a string)", () => {
    const file = scratch.write(
      "latin.yaml",
      Buffer.concat([
        Buffer.from('steps:\n  - at: 0s\npods:\n  - metadata: {name: "caf'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}\n'),
      ]),
    );
    assertInputError(runEvictd(["replay", file]), [{ path: "scenario", mentions: ["latin.yaml", "UTF-8"] }]);
  });
});

describe("evictd replay: command-line errors", { skip: CLI_SKIP }, () => {
  const scenario = relative(REPO_ROOT, join(FIXTURES, "replay", "unknown-keys.yaml"));

  test("bad --output value names the option and the value", () => {
    assertInputError(runEvictd(["replay", scenario, "--output", "xml"]), [
      { path: "--output", mentions: ['"xml"', "jsonl", "table"] },
    ]);
  });

  const usage: [name: string, args: string[], mention: string][] = [
    ["unknown option", ["replay", scenario, "--frobnicate"], "--frobnicate"],
    ["missing scenario argument", ["replay"], "scenario"],
    ["unknown command", ["frobnicate"], "frobnicate"],
  ];
  for (const [name, args, mention] of usage) {
    test(`${name}: exit 2, a usage message, nothing on stdout`, () => {
      const r = runEvictd(args);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, "");
      assertNoCrash(r);
      assert.ok(r.stderr.includes(mention), `stderr does not mention ${mention}: ${r.stderr}`);
    });
  }
});

describe("evictd replay: unknown keys are warnings", { skip: CLI_SKIP }, () => {
  test("unknown keys at the top, in config and in a step: warnings naming each path, exit 0, full output", () => {
    const file = relative(REPO_ROOT, join(FIXTURES, "replay", "unknown-keys.yaml"));
    const r = runEvictd(["replay", file, "--output", "jsonl"]);
    assert.equal(r.status, 0, r.stderr);
    assertNoCrash(r);
    const lines = stderrLines(r);
    assert.ok(lines.length > 0);
    for (const l of lines) assert.ok(isWarningLine(l), `not a warning: ${l}`);
    for (const [path, key] of [
      ["colour", "colour"],
      ["config.notAKubeletField", "notAKubeletField"],
      ["steps[0].note", "note"],
    ] as const) {
      assert.ok(
        lines.some((l) => l.includes(`warning: ${path}: `) && l.includes(key)),
        `no warning for ${path}:\n${r.stderr}`,
      );
    }
    const records = parseJsonl(r.stdout);
    assert.equal(records.length, 2, "config record and one step record");
    assert.deepEqual(
      records.map((x) => x["type"]),
      ["config", "step"],
    );
  });
});
