import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { StartUndo } from "./start-undo.js";

describe("StartUndo", () => {
  test("undoes the latest step first, awaiting each before the next", async () => {
    const undo = new StartUndo();
    const done: string[] = [];
    undo.push(() => done.push("state directory"));
    undo.push(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      done.push("lock");
    });
    undo.push(() => done.push("node cgroup"));
    await undo.run();
    assert.deepEqual(done, ["node cgroup", "lock", "state directory"]);
  });

  test("a step that fails, or rejects, does not keep the earlier ones from being undone", async () => {
    const undo = new StartUndo();
    const done: string[] = [];
    undo.push(() => done.push("state directory"));
    undo.push(() => Promise.reject(new Error("busy")));
    undo.push(() => {
      throw new Error("gone already");
    });
    await undo.run();
    assert.deepEqual(done, ["state directory"]);
  });

  test("disarmed once pods may run: nothing is undone", async () => {
    const undo = new StartUndo();
    const done: string[] = [];
    undo.push(() => done.push("state directory"));
    assert.equal(undo.armed, true);
    undo.disarm();
    assert.equal(undo.armed, false);
    await undo.run();
    assert.deepEqual(done, []);
  });
});
