import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MIN_PODS_READ, restMayStayUnread, usageReadOrder } from "./partial-usage-read.js";

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
});
