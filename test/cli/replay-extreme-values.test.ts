/**
 * Extreme but valid Summary values through `evictd replay`: uint64 counters up to 2^64-1 in YAML,
 * JSON, stdin and the real-data summary-5.json must be read, compared and printed exactly
 * (no float rounding anywhere between the file and the jsonl line).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import {
  CLI_SKIP,
  DATA,
  FIXTURES,
  REPO_ROOT,
  exactInteger,
  parseJsonKeepingBigIntegers,
  quantityToInteger,
  evictedPods,
  replayJsonl,
  runEvictd,
  parseJsonl,
  scratchDir,
} from "./evictd-cli.js";

const UINT64_MAX = (1n << 64n) - 1n;
const fixture = (name: string): string => relative(REPO_ROOT, join(FIXTURES, "replay", name));

type Json = Record<string, unknown>;
const obj = (v: unknown, what: string): Json => {
  assert.ok(typeof v === "object" && v !== null && !Array.isArray(v), `${what} is not an object`);
  return v as Json;
};

function observation(step: Json, signal: string): { available: string; capacity: string; time?: string } {
  const o = obj(obj(step["observations"], "observations")[signal], `observation ${signal}`);
  return o as { available: string; capacity: string; time?: string };
}

function signalsMet(step: Json): string[] {
  const met = step["thresholdsMet"];
  assert.ok(Array.isArray(met));
  return met.map((t) => String(obj(t, "threshold")["signal"]));
}

/** Both uint64-max fixtures (and stdin) must give the same, exact records. */
function checkUint64Replay(config: Json, steps: Json[]): void {
  const inodeThreshold = (config["thresholds"] as Json[]).find((t) => t["signal"] === "nodefs.inodesFree");
  assert.ok(inodeThreshold !== undefined, "no nodefs.inodesFree threshold in the config record");
  // DecimalSI: 2^64-1 is not a multiple of 1000, so it prints as its plain digits.
  assert.equal(inodeThreshold["value"], "18446744073709551615");

  assert.equal(steps.length, 2);
  const [s0, s1] = steps as [Json, Json];
  // 2^64-1 has no factor 1024 (odd) and no factor 1000: the exact digits, for bytes and for inodes.
  assert.deepEqual(observation(s0, "nodefs.inodesFree"), {
    available: "18446744073709551614",
    capacity: "18446744073709551615",
    time: "2025-01-01T00:00:00Z",
  });
  // 2^64-1024 = 18014398509481983 Ki, a mantissa above 2^53: exact only with integer arithmetic.
  assert.deepEqual(observation(s0, "nodefs.available"), {
    available: "18014398509481983Ki",
    capacity: "18446744073709551615",
    time: "2025-01-01T00:00:00Z",
  });
  assert.equal(quantityToInteger(observation(s0, "nodefs.available").available), UINT64_MAX - 1023n);
  // 2^63 bytes = 8Ei.
  assert.equal(observation(s1, "nodefs.available").available, "8Ei");
  assert.equal(observation(s1, "nodefs.inodesFree").available, "18446744073709551615");

  // 2^64-2 < 2^64-1 is met; 2^64-1 < 2^64-1 is not (as doubles both are 2^64 and would compare equal).
  assert.ok(
    signalsMet(s0).includes("nodefs.inodesFree"),
    `step 0 must meet nodefs.inodesFree: ${JSON.stringify(s0["thresholdsMet"])}`,
  );
  assert.deepEqual(s0["conditions"], ["DiskPressure"]);
  assert.ok(
    !signalsMet(s1).includes("nodefs.inodesFree"),
    `step 1 must not meet nodefs.inodesFree: ${JSON.stringify(s1["thresholdsMet"])}`,
  );
}

describe("evictd replay: uint64 counters", { skip: CLI_SKIP }, () => {
  test("YAML scenario with 2^64-1 inodes: exit 0, exact observations and comparisons", () => {
    const { config, steps } = replayJsonl(fixture("uint64-max.yaml"));
    checkUint64Replay(config, steps);
  });

  test("JSON scenario with 2^64-1 inodes: exit 0, exact observations and comparisons", () => {
    const { config, steps } = replayJsonl(fixture("uint64-max.json"));
    checkUint64Replay(config, steps);
  });

  test("the same JSON on stdin gives the same records", () => {
    const file = join(FIXTURES, "replay", "uint64-max.json");
    const r = runEvictd(["replay", "-", "--output", "jsonl"], { input: readFileSync(file) });
    assert.equal(r.status, 0, r.stderr);
    const [config, ...steps] = parseJsonl(r.stdout);
    assert.ok(config !== undefined);
    checkUint64Replay(config, steps);
  });

  test("table output prints the uint64 values exactly", () => {
    const r = runEvictd(["replay", fixture("uint64-max.yaml"), "--output", "table"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /nodefs\.inodesFree\s+18446744073709551614\s+18446744073709551615/);
    assert.match(r.stdout, /nodefs\.available\s+18014398509481983Ki\s+18446744073709551615/);
  });
});

/** Expected observations of summary-5.json, computed from the file's own numbers (exactly). */
function summary5Expectations(): Map<
  string,
  { available: bigint; capacity: bigint; time: string | undefined }
> {
  const s = obj(parseJsonKeepingBigIntegers(readFileSync(join(DATA, "summary-5.json"), "utf8")), "summary");
  const node = obj(s["node"], "node");
  const memory = obj(node["memory"], "node.memory");
  const fs = obj(node["fs"], "node.fs");
  const imageFs = obj(obj(node["runtime"], "node.runtime")["imageFs"], "imageFs");
  const time = (b: Json): string | undefined => (typeof b["time"] === "string" ? b["time"] : undefined);
  const avail = exactInteger(memory["availableBytes"]);
  return new Map([
    [
      "memory.available",
      { available: avail, capacity: avail + exactInteger(memory["workingSetBytes"]), time: time(memory) },
    ],
    [
      "nodefs.available",
      {
        available: exactInteger(fs["availableBytes"]),
        capacity: exactInteger(fs["capacityBytes"]),
        time: time(fs),
      },
    ],
    [
      "nodefs.inodesFree",
      { available: exactInteger(fs["inodesFree"]), capacity: exactInteger(fs["inodes"]), time: time(fs) },
    ],
    [
      "imagefs.available",
      {
        available: exactInteger(imageFs["availableBytes"]),
        capacity: exactInteger(imageFs["capacityBytes"]),
        time: time(imageFs),
      },
    ],
    [
      "imagefs.inodesFree",
      {
        available: exactInteger(imageFs["inodesFree"]),
        capacity: exactInteger(imageFs["inodes"]),
        time: time(imageFs),
      },
    ],
  ]);
}

function checkSummary5Step(step: Json, stepTime: string): void {
  const expected = summary5Expectations();
  // The file really is the uint64 edge case (guards against the data set changing under the test).
  assert.equal(expected.get("nodefs.inodesFree")?.available, UINT64_MAX);
  const observations = obj(step["observations"], "observations");
  // No pods system container, no runtime.containerFs, no rlimit: those signals have no observation.
  assert.deepEqual(Object.keys(observations).sort(), [...expected.keys()].sort());
  for (const [signal, want] of expected) {
    const got = observation(step, signal);
    assert.equal(quantityToInteger(got.available), want.available, `${signal} available ${got.available}`);
    assert.equal(quantityToInteger(got.capacity), want.capacity, `${signal} capacity ${got.capacity}`);
    // A block without `time` is fresh at its step (replay-format.md).
    assert.equal(got.time, want.time ?? stepTime, `${signal} time`);
  }
  assert.equal(observation(step, "nodefs.inodesFree").available, "18446744073709551615");
  assert.equal(observation(step, "imagefs.inodesFree").available, "18446744073709551615");
}

describe("evictd replay: the real-data summary-5.json (uint64 max inodesFree)", { skip: CLI_SKIP }, () => {
  const scratch = scratchDir("summary5");
  after(() => scratch.cleanup());

  test("by a path relative to a fixture scenario", () => {
    const { steps } = replayJsonl(fixture("summary-5-relative.yaml"));
    assert.equal(steps.length, 1);
    checkSummary5Step(steps[0] as Json, "2017-04-20T08:07:00Z");
  });

  test("by an absolute path from a scenario in a temporary directory", () => {
    const scenario = scratch.write(
      "scenario.yaml",
      [
        'start: "2017-04-20T08:10:00Z"',
        "steps:",
        "  - at: 0s",
        `    summary: ${JSON.stringify(join(DATA, "summary-5.json"))}`,
        "  - at: 1m30s",
        `    summary: ${JSON.stringify(join(DATA, "summary-5.json"))}`,
        "",
      ].join("\n"),
    );
    const { steps } = replayJsonl(scenario);
    assert.equal(steps.length, 2);
    checkSummary5Step(steps[0] as Json, "2017-04-20T08:10:00Z");
    // Read again by the second step: the blocks without `time` are fresh at the second step's time.
    checkSummary5Step(steps[1] as Json, "2017-04-20T08:11:30Z");
    // Nothing is anywhere near a threshold on this node.
    for (const s of steps) assert.deepEqual((s as Json)["conditions"], []);
  });
});

describe("evictd replay: sub-second time stamps", { skip: CLI_SKIP }, () => {
  test("a sample 1µs newer than the last one counts as updated stats", () => {
    const { steps } = replayJsonl(fixture("microsecond-times.yaml"));
    assert.deepEqual(
      steps.map((s) => evictedPods(s)),
      [["default/a"], ["default/b"], []],
    );
  });
});
