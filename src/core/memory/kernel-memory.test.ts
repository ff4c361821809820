/**
 * Kernel memory from real memory.stat files (test/fixtures/cgroup-memory, read in the cgroup v2
 * guest; see its SOURCES.md): the 5.18+ total with socket buffers added, the sum of the separate
 * fields a kernel before 5.18 writes, and nothing from a v1 memory.stat. Expected figures are
 * worked out by hand from the files' numbers.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT } from "../../../test/support/repo-paths.js";
import { kernelMemoryFromStat } from "./kernel-memory.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "cgroup-memory");

/** `name value` lines, as the kernel writes memory.stat (parsed here, apart from evictd's parser). */
function stat(text: string): Map<string, bigint> {
  const fields = new Map<string, bigint>();
  for (const line of text.trim().split("\n")) {
    const [name, value] = line.split(" ");
    if (name !== undefined && value !== undefined) fields.set(name, BigInt(value));
  }
  return fields;
}

const v2Root = (): Map<string, bigint> => stat(readFileSync(join(FIXTURES, "v2-root-memory.stat"), "utf8"));

describe("kernelMemoryFromStat", () => {
  test("Linux 5.18 and later: `kernel` plus `sock`, which the kernel charges apart from it", () => {
    // v2-root-memory.stat: kernel 1650688, sock 0.
    assert.deepEqual(kernelMemoryFromStat(v2Root()), { bytes: 1650688n, from: "kernel + sock" });
    const withSockets = v2Root().set("sock", 4096n);
    assert.deepEqual(kernelMemoryFromStat(withSockets), { bytes: 1654784n, from: "kernel + sock" });
  });

  test("before 5.18: slab + kernel_stack + pagetables + percpu + vmalloc + sock, where written", () => {
    const older = v2Root();
    older.delete("kernel");
    // slab 899856 (= slab_reclaimable 330232 + slab_unreclaimable 569624, counted once) + kernel_stack
    // 180224 + pagetables 442368 + percpu 0 + vmalloc 0 + sock 0 = 1522448.
    assert.deepEqual(kernelMemoryFromStat(older), {
      bytes: 1522448n,
      from: "slab + kernel_stack + pagetables + percpu + vmalloc + sock",
    });
  });

  test("before 5.9: the two slab fields stand in for the missing `slab` sum", () => {
    const older = v2Root();
    for (const name of ["kernel", "slab", "percpu", "vmalloc", "pagetables", "sec_pagetables"])
      older.delete(name);
    // 330232 + 569624 = 899856, + kernel_stack 180224 + sock 0 = 1080080.
    assert.deepEqual(kernelMemoryFromStat(older), {
      bytes: 1080080n,
      from: "slab_reclaimable + slab_unreclaimable + kernel_stack + sock",
    });
  });

  test("a v1 memory.stat has no kernel-memory field: nothing is made up", () => {
    const v1 = stat(readFileSync(join(FIXTURES, "v1-root-memory.stat"), "utf8"));
    assert.equal(kernelMemoryFromStat(v1), undefined);
  });
});
