import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MIN_PODS_READ, readLargestFirst, restMayStayUnread, usageReadOrder } from "./partial-usage-read.js";

const MiB = 1024n * 1024n;

describe("which pods a memory wake reads", () => {
  test("pods never read come first, in their order; then the largest last usage first", () => {
    assert.deepEqual(usageReadOrder([5n, undefined, 300n * MiB, 7n, undefined, 7n]), [1, 4, 2, 3, 5, 0]);
    assert.deepEqual(usageReadOrder([]), []);
  });

  test("the rest stays unread only after the minimum, and when what is left for it is at most half the largest pod read", () => {
    const total = 400n * MiB;
    // 8 pods read, 380 MiB of them, the largest 300 MiB: 20 MiB left for the others.
    assert.equal(restMayStayUnread(MIN_PODS_READ, total, 380n * MiB, 300n * MiB), true);
    assert.equal(restMayStayUnread(MIN_PODS_READ - 1, total, 380n * MiB, 300n * MiB), false);
    // 150 MiB left: exactly half of the largest is still enough, a byte more is not.
    assert.equal(restMayStayUnread(MIN_PODS_READ, total, 250n * MiB, 300n * MiB), true);
    assert.equal(restMayStayUnread(MIN_PODS_READ, total + 1n, 250n * MiB, 300n * MiB), false);
    // Many pods of the same size: the bound never gets small, everything is read.
    assert.equal(restMayStayUnread(50, 100n * MiB, 50n * MiB, MiB), false);
  });

  test("reading stops once the rest is bounded: one large pod and twenty small ones", () => {
    // Pod 3 holds 300 MiB, the others 1 MiB each; the pods cgroup's usage is their sum.
    const usage = Array.from({ length: 21 }, (_, i) => (i === 3 ? 300n * MiB : MiB));
    const podsUsage = usage.reduce((a, b) => a + b, 0n);
    const read: number[] = [];
    const left = readLargestFirst(usage, podsUsage, (i) => (read.push(i), usage[i]));
    assert.equal(read[0], 3, "the largest first");
    assert.equal(read.length, MIN_PODS_READ);
    assert.deepEqual(
      [...read, ...left].sort((a, b) => a - b),
      usage.map((_, i) => i),
    );
    // Pods never read are always read, wherever they are; a read that fails counts no usage.
    const last = usage.map((u, i) => (i === 20 ? undefined : u));
    const seen: number[] = [];
    const rest = readLargestFirst(last, podsUsage, (i) => (seen.push(i), i === 5 ? undefined : usage[i]));
    assert.equal(seen[0], 20);
    assert.ok(!rest.includes(20));
    // Pods of one size: the bound never gets small, every pod is read.
    assert.deepEqual(
      readLargestFirst([MiB, MiB, MiB, MiB, MiB, MiB, MiB, MiB, MiB, MiB], 10n * MiB, () => MiB),
      [],
    );
  });
});
