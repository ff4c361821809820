// Where an in-place resize stands: the PodResizePending / PodResizeInProgress conditions (1.33+),
// the deprecated status.resize as a fallback. Messages are the kubelet's own (upstream
// TestHandlePodResourcesResize).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import { decodeResizeStatus } from "./resize-status.js";

function resizeOf(status: Record<string, unknown>): { resize: unknown; issues: IssueList } {
  const issues = new IssueList();
  return { resize: decodeResizeStatus(status, "pod.status", issues), issues };
}

const INFEASIBLE = "Node didn't have enough capacity: memory, requested: 4718592000, capacity: 4294967296";
const condition = (type: string, reason?: string, message?: string, status = "True") => ({
  type,
  status,
  lastProbeTime: null,
  lastTransitionTime: "2026-06-26T10:12:51Z",
  observedGeneration: 2,
  ...(reason !== undefined ? { reason } : {}),
  ...(message !== undefined ? { message } : {}),
});

describe("decodeResizeStatus", () => {
  test("PodResizePending: its reason is the state, its message kept", () => {
    assert.deepEqual(
      resizeOf({ conditions: [condition("Ready"), condition("PodResizePending", "Infeasible", INFEASIBLE)] })
        .resize,
      { state: "Infeasible", message: INFEASIBLE },
    );
    assert.deepEqual(
      resizeOf({
        conditions: [condition("PodResizePending", "Deferred", "Node didn't have enough resource: memory")],
      }).resize,
      { state: "Deferred", message: "Node didn't have enough resource: memory" },
    );
    assert.deepEqual(resizeOf({ conditions: [condition("PodResizePending", "Later")] }).resize, {
      state: "Pending",
    });
  });

  test("PodResizeInProgress; a pending one wins when both hold; False conditions do not count", () => {
    assert.deepEqual(resizeOf({ conditions: [condition("PodResizeInProgress")] }).resize, {
      state: "InProgress",
    });
    assert.deepEqual(
      resizeOf({ conditions: [condition("PodResizeInProgress", "Error", "cgroup write failed")] }).resize,
      { state: "InProgress", message: "cgroup write failed" },
    );
    assert.deepEqual(
      resizeOf({
        conditions: [condition("PodResizeInProgress"), condition("PodResizePending", "Deferred")],
      }).resize,
      { state: "Deferred" },
    );
    assert.equal(
      resizeOf({ conditions: [condition("PodResizePending", "Deferred", undefined, "False")] }).resize,
      undefined,
    );
  });

  test("status.resize (deprecated) when no condition says; conditions first", () => {
    assert.deepEqual(resizeOf({ resize: "Proposed" }).resize, { state: "Proposed" });
    assert.equal(resizeOf({ resize: "" }).resize, undefined);
    assert.deepEqual(
      resizeOf({ resize: "InProgress", conditions: [condition("PodResizePending", "Infeasible")] }).resize,
      { state: "Infeasible" },
    );
    assert.equal(resizeOf({}).resize, undefined);
  });

  test("malformed conditions are left out without an issue, as the status views leave them out", () => {
    const { resize, issues } = resizeOf({
      conditions: ["Ready", { type: "PodResizePending", status: true }, { type: 5, status: "True" }],
    });
    assert.equal(resize, undefined);
    assert.deepEqual(issues.items, []);
  });

  test("bad values: a status.resize not a string is an error, an unknown one a warning", () => {
    assert.deepEqual(
      resizeOf({ conditions: "Ready", resize: 3 }).issues.items.map((i) => [i.severity, i.path]),
      [["error", "pod.status.resize"]],
    );
    const { issues } = resizeOf({ resize: "Soon" });
    assert.deepEqual(
      issues.items.map((i) => [i.severity, i.path]),
      [["warning", "pod.status.resize"]],
    );
    assert.match(issues.items[0]?.message ?? "", /unknown resize status "Soon"/);
  });
});
