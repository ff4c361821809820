import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import { EXACT_INT_PREFIX } from "./exact-integer.js";
import { validateSummary } from "./validate-summary.js";

const PATH = "steps[3].summary";
const UINT64 = "expected a non-negative integer (uint64), got";

/** A summary reporting every field validateSummary checks, all valid. */
function fullSummary(): Record<string, unknown> {
  // Functions, not shared objects: each block must be editable on its own.
  const fs = () => ({
    time: "2025-01-01T00:00:00Z",
    availableBytes: 100,
    capacityBytes: 200,
    usedBytes: 50,
    inodesFree: 10,
    inodes: 20,
    inodesUsed: 5,
  });
  const psi = () => ({
    some: { total: 171148, avg10: 0.5, avg60: 0, avg300: 100 },
    full: { total: 156559, avg10: 0, avg60: 0, avg300: 0 },
  });
  const memory = () => ({
    time: "2025-01-01T00:00:00Z",
    availableBytes: 1,
    workingSetBytes: 2,
    usageBytes: 3,
    psi: psi(),
  });
  // The blocks no decision reads but reports show, at every level that has them.
  const pressure = () => ({
    cpu: { time: "2025-01-01T00:00:00Z", usageNanoCores: 1, psi: psi() },
    io: { time: "2025-01-01T00:00:00Z", psi: psi() },
    swap: { time: "2025-01-01T00:00:00Z", swapAvailableBytes: 1073737728, swapUsageBytes: 0 },
  });
  return {
    node: {
      nodeName: "n1",
      systemContainers: [{ name: "pods", memory: memory(), ...pressure() }],
      memory: memory(),
      fs: fs(),
      runtime: { imageFs: fs(), containerFs: fs() },
      rlimit: { time: "2025-01-01T00:00:00Z", maxpid: 32768, curproc: 300 },
      ...pressure(),
    },
    pods: [
      {
        podRef: { name: "web", namespace: "default", uid: "u1" },
        memory: memory(),
        containers: [{ name: "app", memory: memory(), rootfs: fs(), logs: fs(), ...pressure() }],
        volume: [
          { name: "data", usedBytes: 1, inodesUsed: 1, pvcRef: { name: "claim", namespace: "default" } },
        ],
        "ephemeral-storage": fs(),
        process_stats: { process_count: 3 },
        ...pressure(),
      },
    ],
  };
}

/** `fullSummary()` with `value` set at `keys` (creating nothing: every key must exist but the last). */
function withValue(keys: readonly (string | number)[], value: unknown): Record<string, unknown> {
  const root = fullSummary();
  let target: Record<string | number, unknown> = root;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  const last = keys.at(-1);
  if (last === undefined) throw new Error("empty key path");
  if (value === undefined) delete target[last];
  else target[last] = value;
  return root;
}

function check(raw: unknown): { path: string; code: string; message: string }[] {
  const issues = new IssueList();
  validateSummary(raw, PATH, issues);
  assert.ok(issues.items.every((i) => i.severity === "error"));
  return issues.items.map(({ path, code, message }) => ({ path, code, message }));
}

describe("validateSummary", () => {
  test("a complete valid summary has no issues", () => assert.deepEqual(check(fullSummary()), []));

  test("an empty object is a valid summary (nothing reported)", () => assert.deepEqual(check({}), []));

  test("null blocks, null lists and null fields mean not reported", () => {
    const raw = {
      node: { memory: null, fs: null, runtime: null, rlimit: null, systemContainers: null, nodeName: null },
      pods: [
        {
          podRef: { name: "a", namespace: "b", uid: null },
          memory: { time: null, workingSetBytes: null },
          containers: null,
          volume: null,
          "ephemeral-storage": null,
          process_stats: null,
          userDefinedMetrics: null,
        },
      ],
    };
    assert.deepEqual(check(raw), []);
  });

  test("unknown fields are ignored (cpu usage, network, ...)", () => {
    assert.deepEqual(check(withValue(["node", "cpu", "usageNanoCores"], "not checked")), []);
    assert.deepEqual(check(withValue(["node", "network"], { rxBytes: "not checked" })), []);
    assert.deepEqual(check(withValue(["pods", 0, "memory", "rssBytes"], -1)), []);
  });

  test("pressure and swap blocks may be missing or null anywhere (not reported)", () => {
    for (const keys of [
      ["node", "cpu"],
      ["node", "cpu", "psi"],
      ["node", "io", "psi", "some"],
      ["node", "swap", "swapAvailableBytes"],
      ["pods", 0, "memory", "psi", "full", "avg10"],
      ["pods", 0, "containers", 0, "io", "time"],
    ]) {
      assert.deepEqual(check(withValue(keys, undefined)), [], keys.join("."));
      assert.deepEqual(check(withValue(keys, null)), [], keys.join("."));
    }
  });

  test('a podRef without uid is accepted (Go decodes it as "")', () => {
    assert.deepEqual(check(withValue(["pods", 0, "podRef", "uid"], undefined)), []);
  });

  test("exact counters: bigint and sentinel strings", () => {
    const raw = withValue(["node", "fs", "inodesFree"], 18446744073709551615n);
    assert.deepEqual(check(raw), []);
    assert.deepEqual(
      check(withValue(["node", "fs", "inodes"], `${EXACT_INT_PREFIX}18446744073709551615`)),
      [],
    );
  });

  const errors: {
    name: string;
    keys: (string | number)[];
    value: unknown;
    path: string;
    code: string;
    message: string;
  }[] = [
    {
      name: "counter given as a digit string",
      keys: ["node", "fs", "availableBytes"],
      value: "100",
      path: `${PATH}.node.fs.availableBytes`,
      code: "invalid-counter",
      message: `${UINT64} "100"`,
    },
    {
      name: "negative counter",
      keys: ["node", "memory", "workingSetBytes"],
      value: -1,
      path: `${PATH}.node.memory.workingSetBytes`,
      code: "invalid-counter",
      message: `${UINT64} -1`,
    },
    {
      name: "fractional counter",
      keys: ["node", "runtime", "imageFs", "inodesFree"],
      value: 1.5,
      path: `${PATH}.node.runtime.imageFs.inodesFree`,
      code: "invalid-counter",
      message: `${UINT64} 1.5`,
    },
    {
      name: "boolean counter",
      keys: ["node", "runtime", "containerFs", "capacityBytes"],
      value: true,
      path: `${PATH}.node.runtime.containerFs.capacityBytes`,
      code: "invalid-counter",
      message: `${UINT64} true`,
    },
    {
      name: "object counter",
      keys: ["node", "rlimit", "maxpid"],
      value: { v: 1 },
      path: `${PATH}.node.rlimit.maxpid`,
      code: "invalid-counter",
      message: `${UINT64} an object`,
    },
    {
      name: "rounded number beyond 2^53",
      keys: ["node", "rlimit", "curproc"],
      value: 2 ** 60,
      path: `${PATH}.node.rlimit.curproc`,
      code: "invalid-counter",
      message: `${UINT64} 1152921504606847000, which is beyond 2^53 and was rounded when read`,
    },
    {
      name: "negative sentinel",
      keys: ["node", "systemContainers", 0, "memory", "availableBytes"],
      value: `${EXACT_INT_PREFIX}-99999999999999999`,
      path: `${PATH}.node.systemContainers[0].memory.availableBytes`,
      code: "invalid-counter",
      message: `${UINT64} -99999999999999999`,
    },
    {
      name: "sentinel beyond uint64",
      keys: ["pods", 0, "containers", 0, "rootfs", "usedBytes"],
      value: `${EXACT_INT_PREFIX}18446744073709551616`,
      path: `${PATH}.pods[0].containers[0].rootfs.usedBytes`,
      code: "invalid-counter",
      message: `${UINT64} 18446744073709551616`,
    },
    {
      name: "bigint beyond uint64",
      keys: ["pods", 0, "containers", 0, "logs", "inodesUsed"],
      value: 2n ** 64n,
      path: `${PATH}.pods[0].containers[0].logs.inodesUsed`,
      code: "invalid-counter",
      message: `${UINT64} 18446744073709551616`,
    },
    {
      name: "counter in ephemeral-storage (quoted path segment)",
      keys: ["pods", 0, "ephemeral-storage", "usedBytes"],
      value: "1Gi",
      path: `${PATH}.pods[0]["ephemeral-storage"].usedBytes`,
      code: "invalid-counter",
      message: `${UINT64} "1Gi"`,
    },
    {
      name: "process count",
      keys: ["pods", 0, "process_stats", "process_count"],
      value: -3,
      path: `${PATH}.pods[0].process_stats.process_count`,
      code: "invalid-counter",
      message: `${UINT64} -3`,
    },
    {
      name: "volume counter",
      keys: ["pods", 0, "volume", 0, "usedBytes"],
      value: "12288",
      path: `${PATH}.pods[0].volume[0].usedBytes`,
      code: "invalid-counter",
      message: `${UINT64} "12288"`,
    },
    {
      name: "pod memory counter",
      keys: ["pods", 0, "memory", "usageBytes"],
      value: false,
      path: `${PATH}.pods[0].memory.usageBytes`,
      code: "invalid-counter",
      message: `${UINT64} false`,
    },
    {
      name: "container memory counter",
      keys: ["pods", 0, "containers", 0, "memory", "workingSetBytes"],
      value: -5,
      path: `${PATH}.pods[0].containers[0].memory.workingSetBytes`,
      code: "invalid-counter",
      message: `${UINT64} -5`,
    },
    {
      name: "PSI total beyond uint64",
      keys: ["node", "memory", "psi", "some", "total"],
      value: `${EXACT_INT_PREFIX}18446744073709551616`,
      path: `${PATH}.node.memory.psi.some.total`,
      code: "invalid-counter",
      message: `${UINT64} 18446744073709551616`,
    },
    {
      name: "PSI average above 100",
      keys: ["node", "cpu", "psi", "full", "avg10"],
      value: 100.5,
      path: `${PATH}.node.cpu.psi.full.avg10`,
      code: "invalid-percentage",
      message: "expected a percentage from 0 to 100, got 100.5",
    },
    {
      name: "PSI average as a string",
      keys: ["pods", 0, "io", "psi", "some", "avg60"],
      value: "0.5",
      path: `${PATH}.pods[0].io.psi.some.avg60`,
      code: "invalid-percentage",
      message: 'expected a percentage from 0 to 100, got "0.5"',
    },
    {
      name: "PSI line that is not an object",
      keys: ["pods", 0, "containers", 0, "memory", "psi", "full"],
      value: 3,
      path: `${PATH}.pods[0].containers[0].memory.psi.full`,
      code: "invalid-type",
      message: "expected an object, got 3",
    },
    {
      name: "psi that is not an object",
      keys: ["node", "systemContainers", 0, "cpu", "psi"],
      value: "x",
      path: `${PATH}.node.systemContainers[0].cpu.psi`,
      code: "invalid-type",
      message: 'expected an object, got "x"',
    },
    {
      name: "cpu that is not an object",
      keys: ["pods", 0, "containers", 0, "cpu"],
      value: [],
      path: `${PATH}.pods[0].containers[0].cpu`,
      code: "invalid-type",
      message: "expected an object, got a list",
    },
    {
      name: "io time that is not RFC 3339",
      keys: ["node", "io", "time"],
      value: "now",
      path: `${PATH}.node.io.time`,
      code: "invalid-time",
      message: 'expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got "now"',
    },
    {
      name: "swap counter",
      keys: ["pods", 0, "swap", "swapUsageBytes"],
      value: -1,
      path: `${PATH}.pods[0].swap.swapUsageBytes`,
      code: "invalid-counter",
      message: `${UINT64} -1`,
    },
    {
      name: "container swap time",
      keys: ["pods", 0, "containers", 0, "swap", "time"],
      value: 5,
      path: `${PATH}.pods[0].containers[0].swap.time`,
      code: "invalid-time",
      message: 'expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got 5',
    },
    {
      name: "time that is not RFC 3339",
      keys: ["node", "fs", "time"],
      value: "yesterday",
      path: `${PATH}.node.fs.time`,
      code: "invalid-time",
      message: 'expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got "yesterday"',
    },
    {
      name: "time as a number",
      keys: ["node", "rlimit", "time"],
      value: 1700000000,
      path: `${PATH}.node.rlimit.time`,
      code: "invalid-time",
      message: 'expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got 1700000000',
    },
    {
      name: "time with an impossible date",
      keys: ["pods", 0, "containers", 0, "logs", "time"],
      value: "2025-02-30T00:00:00Z",
      path: `${PATH}.pods[0].containers[0].logs.time`,
      code: "invalid-time",
      message: 'expected an RFC 3339 time such as "2025-01-01T00:00:00Z", got "2025-02-30T00:00:00Z"',
    },
    {
      name: "node that is not an object",
      keys: ["node"],
      value: "n1",
      path: `${PATH}.node`,
      code: "invalid-type",
      message: 'expected an object, got "n1"',
    },
    {
      name: "stats block that is a list",
      keys: ["node", "memory"],
      value: [],
      path: `${PATH}.node.memory`,
      code: "invalid-type",
      message: "expected an object, got a list",
    },
    {
      name: "runtime that is not an object",
      keys: ["node", "runtime"],
      value: 3,
      path: `${PATH}.node.runtime`,
      code: "invalid-type",
      message: "expected an object, got 3",
    },
    {
      name: "pods that is not a list",
      keys: ["pods"],
      value: {},
      path: `${PATH}.pods`,
      code: "invalid-type",
      message: "expected a list, got an object",
    },
    {
      name: "null pod entry",
      keys: ["pods", 0],
      value: null,
      path: `${PATH}.pods[0]`,
      code: "invalid-type",
      message: "expected an object, got null",
    },
    {
      name: "containers that is not a list",
      keys: ["pods", 0, "containers"],
      value: "app",
      path: `${PATH}.pods[0].containers`,
      code: "invalid-type",
      message: 'expected a list, got "app"',
    },
    {
      name: "system container entry that is not an object",
      keys: ["node", "systemContainers", 0],
      value: "pods",
      path: `${PATH}.node.systemContainers[0]`,
      code: "invalid-type",
      message: 'expected an object, got "pods"',
    },
    {
      name: "missing podRef",
      keys: ["pods", 0, "podRef"],
      value: undefined,
      path: `${PATH}.pods[0].podRef`,
      code: "missing-field",
      message: "podRef is required: pod stats are matched to pods by it",
    },
    {
      name: "podRef that is not an object",
      keys: ["pods", 0, "podRef"],
      value: "default/web",
      path: `${PATH}.pods[0].podRef`,
      code: "invalid-type",
      message: 'expected an object, got "default/web"',
    },
    {
      name: "missing pod name",
      keys: ["pods", 0, "podRef", "name"],
      value: undefined,
      path: `${PATH}.pods[0].podRef.name`,
      code: "missing-field",
      message: "name is required",
    },
    {
      name: "empty namespace",
      keys: ["pods", 0, "podRef", "namespace"],
      value: "",
      path: `${PATH}.pods[0].podRef.namespace`,
      code: "invalid-type",
      message: 'expected a non-empty string, got ""',
    },
    {
      name: "uid that is not a string",
      keys: ["pods", 0, "podRef", "uid"],
      value: 12,
      path: `${PATH}.pods[0].podRef.uid`,
      code: "invalid-type",
      message: "expected a string, got 12",
    },
    {
      name: "container name that is not a string",
      keys: ["pods", 0, "containers", 0, "name"],
      value: ["app"],
      path: `${PATH}.pods[0].containers[0].name`,
      code: "invalid-type",
      message: "expected a string, got a list",
    },
    {
      name: "pvcRef name that is not a string",
      keys: ["pods", 0, "volume", 0, "pvcRef", "name"],
      value: 1,
      path: `${PATH}.pods[0].volume[0].pvcRef.name`,
      code: "invalid-type",
      message: "expected a string, got 1",
    },
    {
      name: "nodeName that is not a string",
      keys: ["node", "nodeName"],
      value: true,
      path: `${PATH}.node.nodeName`,
      code: "invalid-type",
      message: "expected a string, got true",
    },
  ];
  for (const c of errors) {
    test(`reports ${c.name}`, () => {
      assert.deepEqual(check(withValue(c.keys, c.value)), [
        { path: c.path, code: c.code, message: c.message },
      ]);
    });
  }

  test("a summary that is not an object is reported at its own path", () => {
    assert.deepEqual(check("summary"), [
      { path: PATH, code: "invalid-type", message: 'expected an object, got "summary"' },
    ]);
    assert.deepEqual(check(null), [
      { path: PATH, code: "invalid-type", message: "expected an object, got null" },
    ]);
  });

  test("collects every problem instead of stopping at the first", () => {
    const raw = withValue(["node", "fs", "availableBytes"], "100");
    const pods = raw.pods as Record<string, unknown>[];
    pods.push({ podRef: { namespace: "default" }, memory: { time: "soon", workingSetBytes: -1 } });
    assert.deepEqual(
      check(raw).map((i) => i.path),
      [
        `${PATH}.node.fs.availableBytes`,
        `${PATH}.pods[1].podRef.name`,
        `${PATH}.pods[1].memory.time`,
        `${PATH}.pods[1].memory.workingSetBytes`,
      ],
    );
  });

  test("an empty path names fields from the top", () => {
    const issues = new IssueList();
    validateSummary({ node: { fs: { inodes: "1" } } }, "", issues);
    assert.deepEqual(
      issues.items.map((i) => i.path),
      ["node.fs.inodes"],
    );
  });
});
