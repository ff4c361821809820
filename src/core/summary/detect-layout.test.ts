import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { FilesystemLayout, FsStats, NodeSummary } from "../model.js";
import { detectFilesystemLayout, sameFilesystem } from "./detect-layout.js";

const ROOT: FsStats = {
  time: 0,
  availableBytes: 821203210240n,
  capacityBytes: 977896124416n,
  usedBytes: 106943070208n,
  inodesFree: 59206606n,
  inodes: 60710912n,
  inodesUsed: 1504306n,
};
const OTHER: FsStats = { ...ROOT, availableBytes: 1n, capacityBytes: 2n };

function summary(fs: FsStats | undefined, imageFs?: FsStats, containerFs?: FsStats): NodeSummary {
  const runtime: { imageFs?: FsStats; containerFs?: FsStats } = {};
  if (imageFs !== undefined) runtime.imageFs = imageFs;
  if (containerFs !== undefined) runtime.containerFs = containerFs;
  return {
    node: { systemContainers: [], ...(fs !== undefined ? { fs } : {}), runtime },
    pods: [],
  };
}

describe("detectFilesystemLayout", () => {
  const cases: { name: string; input: NodeSummary; want: FilesystemLayout }[] = [
    {
      name: "no runtime block",
      input: { node: { systemContainers: [], fs: ROOT }, pods: [] },
      want: "single",
    },
    { name: "runtime without imageFs", input: summary(ROOT), want: "single" },
    {
      name: "containerFs alone does not make it split",
      input: summary(ROOT, undefined, OTHER),
      want: "single",
    },
    { name: "imageFs equal to node.fs", input: summary(ROOT, { ...ROOT }), want: "single" },
    {
      name: "imageFs with a different usedBytes is still the same filesystem",
      input: summary(ROOT, { ...ROOT, usedBytes: 5n, time: 99 }),
      want: "single",
    },
    { name: "imageFs on another filesystem", input: summary(ROOT, OTHER), want: "dedicated" },
    {
      name: "imageFs differing in inodesUsed only (image inodes on the root filesystem)",
      input: summary(ROOT, { ...ROOT, inodesUsed: 43181n }),
      want: "single",
    },
    { name: "imageFs without node.fs", input: summary(undefined, ROOT), want: "dedicated" },
    {
      name: "containerFs equal to a dedicated imageFs",
      input: summary(ROOT, OTHER, { ...OTHER }),
      want: "dedicated",
    },
    {
      name: "containerFs equal to imageFs equal to node.fs",
      input: summary(ROOT, ROOT, ROOT),
      want: "single",
    },
    { name: "containerFs differing from imageFs", input: summary(ROOT, OTHER, ROOT), want: "split" },
    { name: "split even when imageFs equals node.fs", input: summary(ROOT, ROOT, OTHER), want: "split" },
  ];
  for (const c of cases) {
    test(`${c.name} → ${c.want}`, () => assert.equal(detectFilesystemLayout(c.input), c.want));
  }
});

describe("sameFilesystem", () => {
  const fields = ["availableBytes", "capacityBytes", "inodesUsed", "inodesFree", "inodes"] as const;
  for (const field of fields) {
    test(`differs when ${field} differs`, () =>
      assert.equal(sameFilesystem(ROOT, { ...ROOT, [field]: 7n }), false));
    test(`differs when ${field} is reported on one side only`, () => {
      const { [field]: _dropped, ...rest } = ROOT;
      assert.equal(sameFilesystem(ROOT, rest), false);
    });
  }
  test("ignores usedBytes and time", () =>
    assert.equal(sameFilesystem(ROOT, { ...ROOT, usedBytes: 0n, time: 5 }), true));
  test("equal when both leave the same fields out", () =>
    assert.equal(sameFilesystem({ usedBytes: 1n }, {}), true));
});
