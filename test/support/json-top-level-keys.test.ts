// The duplicate-key check the daemon's log test relies on: it sees what JSON.parse hides.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { duplicateTopLevelKeys, topLevelKeys } from "./json-top-level-keys.js";

describe("topLevelKeys", () => {
  test("keys in order with repeats; nested objects, arrays and escaped quotes are not keys", () => {
    const line = '{"level":30,"pid":1,"a":{"pid":2,"b":[{"pid":3}]},"s":"x\\",\\"pid\\":","pid":4}';
    assert.deepEqual(topLevelKeys(line), ["level", "pid", "a", "s", "pid"]);
    assert.deepEqual(duplicateTopLevelKeys(line), ["pid"]);
    assert.deepEqual(duplicateTopLevelKeys('{"pid":1,"containerPid":2,"x":{"pid":3}}'), []);
  });

  test("text that is not JSON throws", () => {
    assert.throws(() => topLevelKeys('{"a":'));
  });
});
