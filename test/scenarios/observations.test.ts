/**
 * Observations (spec §2.2): one (available, capacity, time) per signal from the node-level Summary
 * API fields, only when every input the signal needs is reported.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Observation } from "../../src/core/engine/index.js";
import type { Signal } from "../../src/core/model.js";
import { runOnce } from "../support/engine-scenario.js";
import { node, offsetTime, type NodeStatsSpec } from "../support/summary-builders.js";

const GI = 1024n ** 3n;
const MI = 1024n ** 2n;

/** Every block reported, each with its own sample time so the time mapping is checked too. */
const FULL: NodeStatsSpec = {
  memAvailable: "1Gi",
  memWorkingSet: "3Gi",
  memTime: "1s",
  allocAvailable: "512Mi",
  allocWorkingSet: "1536Mi",
  allocTime: "2s",
  fsAvailable: "40Gi",
  fsCapacity: "100Gi",
  fsInodesFree: 900_000,
  fsInodes: 1_000_000,
  fsTime: "3s",
  imageFsAvailable: "150Gi",
  imageFsCapacity: "200Gi",
  imageFsInodesFree: 1_500_000,
  imageFsInodes: 2_000_000,
  imageFsTime: "4s",
  containerFsAvailable: "70Gi",
  containerFsCapacity: "80Gi",
  containerFsInodesFree: 700_000,
  containerFsInodes: 800_000,
  containerFsTime: "5s",
  maxPid: 4_194_304,
  curProc: 1_200,
  pidTime: "6s",
};

function observe(spec: NodeStatsSpec): ReadonlyMap<Signal, Observation> {
  return runOnce({}, node(spec)).report.observations;
}

describe("signal observations", () => {
  test("all nine signals from a full summary", () => {
    const expected = new Map<Signal, Observation>([
      // memory capacity is available + working set, not the machine's memory
      ["memory.available", { available: 1n * GI, capacity: 4n * GI, time: offsetTime("1s") }],
      ["allocatableMemory.available", { available: 512n * MI, capacity: 2n * GI, time: offsetTime("2s") }],
      ["nodefs.available", { available: 40n * GI, capacity: 100n * GI, time: offsetTime("3s") }],
      ["nodefs.inodesFree", { available: 900_000n, capacity: 1_000_000n, time: offsetTime("3s") }],
      ["imagefs.available", { available: 150n * GI, capacity: 200n * GI, time: offsetTime("4s") }],
      ["imagefs.inodesFree", { available: 1_500_000n, capacity: 2_000_000n, time: offsetTime("4s") }],
      ["containerfs.available", { available: 70n * GI, capacity: 80n * GI, time: offsetTime("5s") }],
      ["containerfs.inodesFree", { available: 700_000n, capacity: 800_000n, time: offsetTime("5s") }],
      // pid.available = maxpid − curproc, capacity = maxpid
      ["pid.available", { available: 4_193_104n, capacity: 4_194_304n, time: offsetTime("6s") }],
    ]);
    assert.deepStrictEqual(observe(FULL), expected);
  });

  const missing: { name: string; drop: (keyof NodeStatsSpec)[]; gone: Signal[] }[] = [
    { name: "memory without working set", drop: ["memWorkingSet"], gone: ["memory.available"] },
    { name: "memory without available", drop: ["memAvailable"], gone: ["memory.available"] },
    {
      name: "no pods system container",
      drop: ["allocAvailable", "allocWorkingSet"],
      gone: ["allocatableMemory.available"],
    },
    {
      name: "pods container without working set",
      drop: ["allocWorkingSet"],
      gone: ["allocatableMemory.available"],
    },
    { name: "node fs without capacity", drop: ["fsCapacity"], gone: ["nodefs.available"] },
    { name: "node fs without inode total", drop: ["fsInodes"], gone: ["nodefs.inodesFree"] },
    { name: "node fs without inodes free", drop: ["fsInodesFree"], gone: ["nodefs.inodesFree"] },
    {
      name: "no node fs",
      drop: ["fsAvailable", "fsCapacity", "fsInodesFree", "fsInodes"],
      gone: ["nodefs.available", "nodefs.inodesFree"],
    },
    { name: "image fs without available", drop: ["imageFsAvailable"], gone: ["imagefs.available"] },
    { name: "image fs without inodes", drop: ["imageFsInodes"], gone: ["imagefs.inodesFree"] },
    { name: "container fs without capacity", drop: ["containerFsCapacity"], gone: ["containerfs.available"] },
    {
      name: "container fs without inodes free",
      drop: ["containerFsInodesFree"],
      gone: ["containerfs.inodesFree"],
    },
    {
      name: "no runtime block",
      drop: [
        "imageFsAvailable",
        "imageFsCapacity",
        "imageFsInodesFree",
        "imageFsInodes",
        "containerFsAvailable",
        "containerFsCapacity",
        "containerFsInodesFree",
        "containerFsInodes",
      ],
      gone: ["imagefs.available", "imagefs.inodesFree", "containerfs.available", "containerfs.inodesFree"],
    },
    { name: "rlimit without curproc", drop: ["curProc"], gone: ["pid.available"] },
    { name: "rlimit without maxpid", drop: ["maxPid"], gone: ["pid.available"] },
  ];

  for (const row of missing) {
    test(`a signal missing an input has no observation: ${row.name}`, () => {
      const spec: { -readonly [K in keyof NodeStatsSpec]?: NodeStatsSpec[K] } = { ...FULL };
      for (const key of row.drop) delete spec[key];
      const got = observe(spec);
      const full = observe(FULL);
      const expectedSignals = [...full.keys()].filter((s) => !row.gone.includes(s)).sort();
      assert.deepStrictEqual([...got.keys()].sort(), expectedSignals);
      for (const s of expectedSignals) assert.deepStrictEqual(got.get(s), full.get(s), s);
    });
  }

  test("an empty summary has no observations", () => {
    assert.equal(observe({}).size, 0);
  });

  test("stats without a time stamp give an observation without a time (Go zero time)", () => {
    const o = observe({ memAvailable: "1Gi", memWorkingSet: "1Gi", memTime: null }).get("memory.available");
    assert.deepStrictEqual(o, { available: GI, capacity: 2n * GI });
  });

  test("pid.available goes negative when curproc exceeds maxpid (signed arithmetic)", () => {
    const o = observe({ maxPid: 1000, curProc: 1010 }).get("pid.available");
    assert.equal(o?.available, -10n);
    assert.equal(o?.capacity, 1000n);
  });
});
