/**
 * The three views of a node's memory from a real cgroup v2 root memory.stat and /proc/meminfo read
 * together (test/fixtures/cgroup-memory, see its SOURCES.md), each figure worked out by hand from
 * the files' numbers; and the rules for a node whose usage already counts kernel memory, for
 * missing figures and for clamping.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT } from "../../../test/support/repo-paths.js";
import { nodeMemoryViews, rootCgroupV2MemoryViews } from "./node-memory-views.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "cgroup-memory");
const read = (name: string): string => readFileSync(join(FIXTURES, name), "utf8");

/** `name value` lines (memory.stat), parsed here apart from evictd's parser. */
function stat(text: string): Map<string, bigint> {
  const fields = new Map<string, bigint>();
  for (const line of text.trim().split("\n")) {
    const [name, value] = line.split(" ");
    if (name !== undefined && value !== undefined) fields.set(name, BigInt(value));
  }
  return fields;
}

/** A /proc/meminfo line's value in bytes (`kB` means KiB). */
function meminfoBytes(text: string, name: string): bigint {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text);
  assert.ok(m?.[1] !== undefined, `${name} in meminfo`);
  return BigInt(m[1]) * 1024n;
}

describe("rootCgroupV2MemoryViews on the guest's root cgroup", () => {
  const meminfo = read("v2-meminfo");
  const figures = {
    totalBytes: meminfoBytes(meminfo, "MemTotal"),
    availableBytes: meminfoBytes(meminfo, "MemAvailable"),
  };

  test("kubelet, MemAvailable and with kernel memory, by hand", () => {
    // MemTotal 3055144 kB = 3128467456; MemAvailable 2873880 kB = 2942853120.
    // kubelet: anon 16465920 + file 47403008 = 63868928, − inactive_file 42311680 = 21557248;
    //   3128467456 − 21557248 = 3106910208.
    // with kernel memory: kernel 1650688 + sock 0 → 21557248 + 1650688 = 23207936;
    //   3128467456 − 23207936 = 3105259520.
    assert.deepEqual(rootCgroupV2MemoryViews(stat(read("v2-root-memory.stat")), figures), {
      capacityBytes: 3128467456n,
      kubelet: { usageFrom: "anon + file", workingSetBytes: 21557248n, availableBytes: 3106910208n },
      kernelAvailable: { availableBytes: 2942853120n },
      withKernelMemory: {
        kernelMemoryBytes: 1650688n,
        kernelMemoryFrom: "kernel + sock",
        alreadyInKubeletFigure: false,
        workingSetBytes: 23207936n,
        availableBytes: 3105259520n,
      },
    });
  });

  test("a kernel before 5.18 (no `kernel` line): the separate fields added up instead", () => {
    const older = stat(read("v2-root-memory.stat"));
    older.delete("kernel");
    const views = rootCgroupV2MemoryViews(older, figures);
    // slab 899856 + kernel_stack 180224 + pagetables 442368 = 1522448; 21557248 + 1522448 = 23079696;
    // 3128467456 − 23079696 = 3105387760.
    assert.deepEqual(views?.withKernelMemory, {
      kernelMemoryBytes: 1522448n,
      kernelMemoryFrom: "slab + kernel_stack + pagetables + percpu + vmalloc + sock",
      alreadyInKubeletFigure: false,
      workingSetBytes: 23079696n,
      availableBytes: 3105387760n,
    });
    assert.equal(views?.kubelet.availableBytes, 3106910208n, "the kubelet's figure does not change");
  });

  test("a kernel without MemAvailable (before 3.14): that view is left out", () => {
    const views = rootCgroupV2MemoryViews(stat(read("v2-root-memory.stat")), {
      totalBytes: figures.totalBytes,
      availableBytes: undefined,
    });
    assert.equal(views?.kernelAvailable, undefined);
    assert.equal(views?.kubelet.availableBytes, 3106910208n);
  });

  test("a memory.stat without anon, file or inactive_file gives no views", () => {
    const broken = stat(read("v2-root-memory.stat"));
    broken.delete("inactive_file");
    assert.equal(rootCgroupV2MemoryViews(broken, figures), undefined);
  });
});

describe("nodeMemoryViews", () => {
  test("a cgroup's own usage (memory.current) counts its kernel memory already: nothing is added", () => {
    // v2-node-memory.current 60678144 − inactive_file 41029632 = 19648512; kernel 1654784 + sock 0.
    const node = stat(read("v2-node-memory.stat"));
    const views = nodeMemoryViews({
      capacityBytes: 1073741824n,
      usageBytes: BigInt(read("v2-node-memory.current").trim()),
      usageFrom: "memory.current",
      inactiveFileBytes: node.get("inactive_file") ?? 0n,
      memAvailableBytes: 2942853120n,
      kernelMemory: { bytes: 1654784n, from: "kernel + sock" },
      usageCountsKernelMemory: true,
    });
    assert.deepEqual(views.kubelet, {
      usageFrom: "memory.current",
      workingSetBytes: 19648512n,
      availableBytes: 1073741824n - 19648512n,
    });
    assert.deepEqual(views.withKernelMemory, {
      kernelMemoryBytes: 1654784n,
      kernelMemoryFrom: "kernel + sock",
      alreadyInKubeletFigure: true,
      workingSetBytes: 19648512n,
      availableBytes: 1073741824n - 19648512n,
    });
  });

  test("nothing says what kernel memory is: that view is left out, not guessed", () => {
    const views = nodeMemoryViews({
      capacityBytes: 100n,
      usageBytes: 50n,
      usageFrom: "memory.usage_in_bytes",
      inactiveFileBytes: 10n,
      memAvailableBytes: undefined,
      kernelMemory: undefined,
      usageCountsKernelMemory: false,
    });
    assert.deepEqual(views, {
      capacityBytes: 100n,
      kubelet: { usageFrom: "memory.usage_in_bytes", workingSetBytes: 40n, availableBytes: 60n },
    });
  });

  test("working sets and availability are clamped at 0, as cAdvisor's", () => {
    const views = nodeMemoryViews({
      capacityBytes: 100n,
      usageBytes: 10n,
      usageFrom: "anon + file",
      inactiveFileBytes: 30n,
      memAvailableBytes: 5n,
      kernelMemory: { bytes: 150n, from: "kernel + sock" },
      usageCountsKernelMemory: false,
    });
    assert.equal(views.kubelet.workingSetBytes, 0n);
    assert.equal(views.kubelet.availableBytes, 100n);
    assert.equal(views.withKernelMemory?.workingSetBytes, 150n);
    assert.equal(views.withKernelMemory?.availableBytes, 0n);
  });
});
