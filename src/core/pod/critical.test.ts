// Tests for critical-pod detection: static, mirror, system priority, node-critical.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod } from "../model.js";
import { decodePod } from "./decode-pod.js";
import {
  isCriticalPod,
  isMirrorPod,
  isNodeCriticalPod,
  isStaticPod,
  SystemCriticalPriority,
} from "./critical.js";

function pod(annotations: Record<string, string>, spec: object = {}): Pod {
  const issues = new IssueList();
  const p = decodePod(
    { metadata: { name: "p", annotations }, spec: { containers: [{ name: "c" }], ...spec } },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

const SOURCE = "kubernetes.io/config.source";
const MIRROR = "kubernetes.io/config.mirror";

describe("critical pods", () => {
  const cases: {
    name: string;
    pod: Pod;
    want: { static: boolean; mirror: boolean; critical: boolean; nodeCritical: boolean };
  }[] = [
    {
      name: "plain pod",
      pod: pod({}),
      want: { static: false, mirror: false, critical: false, nodeCritical: false },
    },
    {
      name: "source api",
      pod: pod({ [SOURCE]: "api" }),
      want: { static: false, mirror: false, critical: false, nodeCritical: false },
    },
    {
      name: "source file",
      pod: pod({ [SOURCE]: "file" }),
      want: { static: true, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "source http",
      pod: pod({ [SOURCE]: "http" }),
      want: { static: true, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "empty source",
      pod: pod({ [SOURCE]: "" }),
      want: { static: true, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "mirror",
      pod: pod({ [MIRROR]: "abc" }),
      want: { static: false, mirror: true, critical: true, nodeCritical: false },
    },
    {
      name: "static with system-node-critical",
      pod: pod({ [SOURCE]: "file" }, { priorityClassName: "system-node-critical" }),
      want: { static: true, mirror: false, critical: true, nodeCritical: true },
    },
    {
      name: "priority exactly SystemCriticalPriority",
      pod: pod({}, { priority: SystemCriticalPriority }),
      want: { static: false, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "priority one below",
      pod: pod({}, { priority: SystemCriticalPriority - 1 }),
      want: { static: false, mirror: false, critical: false, nodeCritical: false },
    },
    {
      name: "system-cluster-critical class supplies the priority",
      pod: pod({}, { priorityClassName: "system-cluster-critical" }),
      want: { static: false, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "system-node-critical class",
      pod: pod({}, { priorityClassName: "system-node-critical" }),
      want: { static: false, mirror: false, critical: true, nodeCritical: true },
    },
    {
      name: "node-critical priority value without the class name",
      pod: pod({}, { priority: 2000001000 }),
      want: { static: false, mirror: false, critical: true, nodeCritical: false },
    },
    {
      name: "class name with a low explicit priority",
      pod: pod({}, { priority: 10, priorityClassName: "system-node-critical" }),
      want: { static: false, mirror: false, critical: false, nodeCritical: false },
    },
    {
      name: "legacy critical-pod annotation no longer matters",
      pod: pod({ "scheduler.alpha.kubernetes.io/critical-pod": "" }, {}),
      want: { static: false, mirror: false, critical: false, nodeCritical: false },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(
        {
          static: isStaticPod(c.pod),
          mirror: isMirrorPod(c.pod),
          critical: isCriticalPod(c.pod),
          nodeCritical: isNodeCriticalPod(c.pod),
        },
        c.want,
      );
    });
  }

  test("a high priority that was not set does not make a pod critical", () => {
    const p: Pod = { ...pod({}), priority: SystemCriticalPriority, prioritySet: false };
    assert.equal(isCriticalPod(p), false);
  });
});
