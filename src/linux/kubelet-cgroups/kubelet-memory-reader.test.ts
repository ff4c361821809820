/**
 * `watch --stats cgroups`'s node-memory views through the kubelet memory reader, on a kubelet-shaped
 * cgroup v2 tree laid out with the guest's real root files (test/fixtures/cgroup-memory): the root
 * cgroup is read as the kubelet reads it, and a file that cannot be read leaves the views out.
 * (The reader's pod figures are tested on real cgroups: test/e2e/kubelet-memory-reader.test.ts.)
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { REPO_ROOT } from "../../../test/support/repo-paths.js";
import { KubeletCgroupTree } from "./kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "./kubelet-memory-reader.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "cgroup-memory");
const root = mkdtempSync(join(tmpdir(), "evictd-kubelet-views-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("KubeletMemoryReader.readNodeMemoryViews", () => {
  const cgroupfs = join(root, "cgroup");
  const proc = join(root, "proc");
  mkdirSync(join(cgroupfs, "kubepods"), { recursive: true });
  mkdirSync(proc);
  writeFileSync(join(cgroupfs, "cgroup.controllers"), "cpu io memory pids\n");
  copyFileSync(join(FIXTURES, "v2-root-memory.stat"), join(cgroupfs, "memory.stat"));
  copyFileSync(join(FIXTURES, "v2-meminfo"), join(proc, "meminfo"));
  const tree = new KubeletCgroupTree({ cgroupfs, driver: "cgroupfs", cgroupRoot: "/" });
  const reader = new KubeletMemoryReader(tree, { procRoot: proc });
  after(() => reader.close());

  test("the v2 root, three ways: the kubelet's anon + file, MemAvailable, kernel + sock added", () => {
    const reading = reader.readNodeMemoryViews();
    assert.ok(reading !== undefined);
    assert.equal(reading.source, `the root cgroup's ${cgroupfs}/memory.stat and ${proc}/meminfo`);
    // See src/core/memory/node-memory-views.test.ts for the arithmetic on these files.
    assert.equal(reading.views.capacityBytes, 3128467456n);
    assert.equal(reading.views.kubelet.availableBytes, 3106910208n);
    assert.equal(reading.views.kernelAvailable?.availableBytes, 2942853120n);
    assert.equal(reading.views.withKernelMemory?.availableBytes, 3105259520n);
    assert.ok(Math.abs(reading.at - Date.now()) < 60_000, "stamped with the reader's clock");
  });

  test("the root's memory.stat gone: no views, no error (an addition never fails the page)", () => {
    rmSync(join(cgroupfs, "memory.stat"));
    assert.equal(reader.readNodeMemoryViews(), undefined);
  });
});
