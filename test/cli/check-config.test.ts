/**
 * `evictd check-config [FILE] [-- FLAGS]` end to end: the real kubelet configs (test/fixtures/real-data) print
 * the thresholds a kubelet would run with (hand-derived from each file and kubelet-semantics §1),
 * flags apply over the file as the kubelet applies them, and bad configs exit 2 with line:column.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import {
  CLI_SKIP,
  DATA,
  FIXTURES,
  REPO_ROOT,
  assertInputError,
  assertNoCrash,
  isWarningLine,
  runEvictd,
  scratchDir,
  stderrLines,
} from "./evictd-cli.js";

type Json = Record<string, unknown>;

interface Row {
  signal: string;
  value: string;
  gracePeriod?: string;
  minReclaim?: string;
  derivedFrom?: string;
}

/** A threshold line of the json output, with the documented defaults filled in. */
function row(r: Row): Json {
  const grace = r.gracePeriod ?? "0s";
  return {
    signal: r.signal,
    operator: "LessThan",
    value: r.value,
    gracePeriod: grace,
    minReclaim: r.minReclaim ?? "0",
    hard: grace === "0s",
    ...(r.derivedFrom !== undefined ? { derivedFrom: r.derivedFrom } : {}),
  };
}

/** Every hard memory.available threshold is copied to allocatableMemory.available (enforceNodeAllocatable: [pods]). */
const allocatable = (value: string, minReclaim?: string): Row => ({
  signal: "allocatableMemory.available",
  value,
  derivedFrom: "memory.available",
  ...(minReclaim !== undefined ? { minReclaim } : {}),
});

interface Expected {
  readonly thresholds: Row[];
  readonly evictionPressureTransitionPeriod: string;
  /** The default hard thresholds the file drops by listing only some signals (a warning each time). */
  readonly droppedDefaults?: { line: number; signals: string[] };
}

const EXPECTED: Record<string, Expected> = {
  // Node e2e CI config: three hard thresholds, percentage min reclaims, 30s transition period.
  "kubeletconfig-1.yaml": {
    thresholds: [
      { signal: "memory.available", value: "250Mi" },
      { signal: "nodefs.available", value: "10%", minReclaim: "5%" },
      { signal: "nodefs.inodesFree", value: "5%", minReclaim: "5%" },
      allocatable("250Mi"),
    ],
    evictionPressureTransitionPeriod: "30s",
    droppedDefaults: { line: 18, signals: ["imagefs.available", "imagefs.inodesFree"] },
  },
  // kubeadm's defaulted config (pre-1.30 default map: no imagefs.inodesFree).
  "kubeletconfig-2.yaml": {
    thresholds: [
      { signal: "imagefs.available", value: "15%" },
      { signal: "memory.available", value: "100Mi" },
      { signal: "nodefs.available", value: "10%" },
      { signal: "nodefs.inodesFree", value: "5%" },
      allocatable("100Mi"),
    ],
    evictionPressureTransitionPeriod: "5m0s",
    droppedDefaults: { line: 35, signals: ["imagefs.inodesFree"] },
  },
  // EKS nodeadm, JSON syntax; no transition period: the 5m default.
  "kubeletconfig-3.yaml": {
    thresholds: [
      { signal: "memory.available", value: "100Mi" },
      { signal: "nodefs.available", value: "10%" },
      { signal: "nodefs.inodesFree", value: "5%" },
      allocatable("100Mi"),
    ],
    evictionPressureTransitionPeriod: "5m0s",
    droppedDefaults: { line: 55, signals: ["imagefs.available", "imagefs.inodesFree"] },
  },
  // OpenShift KubeletConfig CR: spec.kubeletConfig; evictionPressureTransitionPeriod: 0s in a file is 5m.
  "kubeletconfig-4.yaml": {
    thresholds: [
      { signal: "imagefs.available", value: "15%" },
      { signal: "memory.available", value: "100Mi" },
      { signal: "nodefs.available", value: "10%" },
      { signal: "nodefs.inodesFree", value: "5%" },
      allocatable("100Mi"),
    ],
    evictionPressureTransitionPeriod: "5m0s",
    droppedDefaults: { line: 25, signals: ["imagefs.inodesFree"] },
  },
  // The docs' minimum-reclaim example: "0Mi" is a valid zero reclaim, printed canonically as 0.
  "kubeletconfig-5.yaml": {
    thresholds: [
      { signal: "memory.available", value: "500Mi", minReclaim: "0" },
      { signal: "nodefs.available", value: "1Gi", minReclaim: "500Mi" },
      { signal: "imagefs.available", value: "100Gi", minReclaim: "2Gi" },
      allocatable("500Mi", "0"),
    ],
    evictionPressureTransitionPeriod: "5m0s",
    droppedDefaults: { line: 3, signals: ["nodefs.inodesFree", "imagefs.inodesFree"] },
  },
};

const sortedRows = (rows: readonly Json[]): string[] =>
  rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

function checkConfigJson(args: string[]): { out: Json; warnings: string[] } {
  const r = runEvictd(["check-config", ...args]);
  assert.equal(r.status, 0, `exit ${r.status}\n${r.stderr}`);
  assertNoCrash(r);
  const lines = r.stdout.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, `json output is one line: ${r.stdout}`);
  const warnings = stderrLines(r);
  for (const w of warnings) assert.ok(isWarningLine(w), `exit 0 but not a warning: ${w}`);
  return { out: JSON.parse(lines[0] ?? "") as Json, warnings };
}

describe("evictd check-config on the real kubelet configs", { skip: CLI_SKIP }, () => {
  for (const [name, want] of Object.entries(EXPECTED)) {
    test(`${name}: the thresholds and settings a kubelet would use (json)`, () => {
      const file = join(DATA, name);
      const { out, warnings } = checkConfigJson([file, "--output", "json"]);
      assert.deepEqual(sortedRows(out["thresholds"] as Json[]), sortedRows(want.thresholds.map(row)));
      assert.equal(out["evictionPressureTransitionPeriod"], want.evictionPressureTransitionPeriod);
      assert.equal(out["evictionMaxPodGracePeriod"], 0);
      assert.equal(out["localStorageCapacityIsolation"], true);
      if (want.droppedDefaults !== undefined) {
        const { line, signals } = want.droppedDefaults;
        const w = warnings.find((l) => l.includes(`${file}:${line}:`) && l.includes("evictionHard"));
        assert.ok(
          w !== undefined,
          `no warning at ${name}:${line} about the dropped default thresholds:\n${warnings.join("\n")}`,
        );
        for (const s of signals) assert.ok(w.includes(s), `the warning should name ${s}: ${w}`);
      }
    });
  }

  test("kubeletconfig-1.yaml as text: one line per threshold with its minimum reclaim", () => {
    const r = runEvictd(["check-config", join(DATA, "kubeletconfig-1.yaml")]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /memory\.available\s*<\s*250Mi/);
    assert.match(r.stdout, /nodefs\.available\s*<\s*10%.*min reclaim 5%/);
    assert.match(r.stdout, /nodefs\.inodesFree\s*<\s*5%.*min reclaim 5%/);
    assert.match(r.stdout, /allocatableMemory\.available\s*<\s*250Mi/);
    assert.match(r.stdout, /30s/);
    assert.doesNotMatch(r.stdout, /imagefs/);
  });

  test("no file: the kubelet's Linux default hard thresholds", () => {
    const { out } = checkConfigJson(["--output", "json"]);
    const defaults = [
      { signal: "memory.available", value: "100Mi" },
      { signal: "nodefs.available", value: "10%" },
      { signal: "nodefs.inodesFree", value: "5%" },
      { signal: "imagefs.available", value: "15%" },
      { signal: "imagefs.inodesFree", value: "5%" },
      allocatable("100Mi"),
    ];
    assert.deepEqual(sortedRows(out["thresholds"] as Json[]), sortedRows(defaults.map(row)));
    assert.equal(out["evictionPressureTransitionPeriod"], "5m0s");
  });
});

describe("evictd check-config with kubelet flags", { skip: CLI_SKIP }, () => {
  test("flags after -- apply over the file; --eviction-hard replaces the whole map", () => {
    const file = join(DATA, "kubeletconfig-1.yaml");
    const { out, warnings } = checkConfigJson([
      file,
      "--output",
      "json",
      "--",
      "--eviction-hard=memory.available<1Gi",
      "--eviction-soft=memory.available<2Gi",
      "--eviction-soft-grace-period=memory.available=1m30s",
      "--eviction-max-pod-grace-period=60",
    ]);
    assert.deepEqual(
      sortedRows(out["thresholds"] as Json[]),
      sortedRows(
        [
          { signal: "memory.available", value: "1Gi" },
          { signal: "memory.available", value: "2Gi", gracePeriod: "1m30s" },
          allocatable("1Gi"), // soft thresholds are not copied
        ].map(row),
      ),
    );
    assert.equal(out["evictionMaxPodGracePeriod"], 60);
    assert.equal(out["evictionPressureTransitionPeriod"], "30s"); // still from the file
    // The file's nodefs minimum reclaims no longer have a threshold to apply to.
    assert.ok(
      warnings.some((w) => w.includes('evictionMinimumReclaim["nodefs.available"]')),
      warnings.join("\n"),
    );
  });

  test("flags without a file (check-config -- FLAGS) apply over the defaults", () => {
    const { out } = checkConfigJson(["--output", "json", "--", "--eviction-hard=memory.available<1Gi"]);
    assert.deepEqual(
      sortedRows(out["thresholds"] as Json[]),
      sortedRows([{ signal: "memory.available", value: "1Gi" }, allocatable("1Gi")].map(row)),
    );
  });

  test("a malformed flag: exit 2 naming the flag and the kubelet's message", () => {
    const r = runEvictd([
      "check-config",
      join(DATA, "kubeletconfig-1.yaml"),
      "--",
      "--eviction-hard=memory.available",
    ]);
    assertInputError(r, [
      {
        path: "flags[0]",
        mentions: ["--eviction-hard", "memory.available", "malformed pair, expect string<string"],
      },
    ]);
  });

  test("an unknown kubelet flag: exit 2", () => {
    const r = runEvictd(["check-config", join(DATA, "kubeletconfig-1.yaml"), "--", "--frobnicate=1"]);
    assertInputError(r, [{ path: "flags[0]", mentions: ["--frobnicate"] }]);
  });
});

describe("evictd check-config on bad configs", { skip: CLI_SKIP }, () => {
  const fixture = (name: string): string => relative(REPO_ROOT, join(FIXTURES, "check-config", name));
  const scratch = scratchDir("check-config");
  after(() => scratch.cleanup());

  test("YAML syntax error (tab indentation): exit 2 with line:column", () => {
    assertInputError(runEvictd(["check-config", fixture("yaml-syntax.yaml")]), [
      { path: "config", mentions: ["yaml-syntax.yaml:5:1:", "Tab"] },
    ]);
  });

  test("JSON syntax error (missing comma): exit 2 with line:column", () => {
    assertInputError(runEvictd(["check-config", fixture("json-syntax.json"), "--output", "json"]), [
      { path: "config", mentions: ["json-syntax.json:4:3:"] },
    ]);
  });

  test("five bad values: each reported on its own line with line:column, nothing on stdout", () => {
    const f = fixture("bad-values.yaml");
    assertInputError(runEvictd(["check-config", f, "--output", "json"]), [
      { path: 'config.evictionHard["memory.available"]', mentions: [`${f}:4:3:`, '"1K"'] },
      {
        path: 'config.evictionHard["foo.available"]',
        mentions: [`${f}:5:3:`, "unsupported eviction signal foo.available"],
      },
      {
        path: 'config.evictionSoft["nodefs.available"]',
        mentions: [
          `${f}:7:3:`,
          "grace period must be specified for the soft eviction threshold nodefs.available",
        ],
      },
      { path: 'config.evictionMinimumReclaim["nodefs.available"]', mentions: [`${f}:9:3:`, "-1Gi"] },
      { path: "config.evictionPressureTransitionPeriod", mentions: [`${f}:10:1:`, '"5x"'] },
    ]);
  });

  test("a config file that does not exist", () => {
    assertInputError(runEvictd(["check-config", join(scratch.dir, "nope.yaml")]), [
      { path: "config", mentions: ["nope.yaml"] },
    ]);
  });

  test("a directory, an empty file, a binary file", () => {
    assertInputError(runEvictd(["check-config", scratch.dir]), [
      { path: "config", mentions: [scratch.dir, "directory"] },
    ]);
    assertInputError(runEvictd(["check-config", scratch.write("empty.yaml", "")]), [
      { path: "config", mentions: ["empty.yaml", "empty"] },
    ]);
    const bytes = randomBytes(128);
    bytes[5] = 0;
    assertInputError(runEvictd(["check-config", scratch.write("random.bin", bytes)]), [
      { path: "config", mentions: ["random.bin", "binary"] },
    ]);
  });

  test("bad --output value", () => {
    assertInputError(runEvictd(["check-config", join(DATA, "kubeletconfig-1.yaml"), "--output", "yaml"]), [
      { path: "--output", mentions: ['"yaml"'] },
    ]);
  });
});
