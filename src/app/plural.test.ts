// Tests for plural.ts: one thing is singular, every other count (zero too) plural.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { count } from "./plural.js";

describe("count", () => {
  test("singular for exactly one, plural for zero and more", () => {
    assert.equal(count(0, "eviction"), "0 evictions");
    assert.equal(count(1, "eviction"), "1 eviction");
    assert.equal(count(2, "eviction"), "2 evictions");
    assert.equal(count(1n, "step"), "1 step");
    assert.equal(count(3n, "step"), "3 steps");
  });

  test("a plural that is not the singular with an s is given", () => {
    assert.equal(count(1, "process", "processes"), "1 process");
    assert.equal(count(2, "process", "processes"), "2 processes");
  });
});
