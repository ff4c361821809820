// enforceNodeAllocatable validation: upstream's exact messages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { IssueList, pathIndex } from "../issues.js";
import { validateEnforceNodeAllocatable } from "./enforce-node-allocatable.js";

function validate(values: string[]): [string, string][] {
  const issues = new IssueList();
  const path = "config.enforceNodeAllocatable";
  validateEnforceNodeAllocatable(
    { path, items: values.map((value, i) => ({ value, path: pathIndex(path, i) })) },
    issues,
  );
  return issues.items.map((i) => [i.path, i.message]);
}

const FIELD = "enforceNodeAllocatable (--enforce-node-allocatable)";

test("valid lists", () => {
  for (const v of [
    [],
    ["pods"],
    ["none"],
    ["pods", "system-reserved", "kube-reserved"],
    ["pods", "system-reserved-compressible", "kube-reserved-compressible"],
  ]) {
    assert.deepEqual(validate(v), [], JSON.stringify(v));
  }
});

test("unknown option", () => {
  assert.deepEqual(validate(["pods", "Pods"]), [
    [
      "config.enforceNodeAllocatable[1]",
      `invalid configuration: option "Pods" specified for ${FIELD}. Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"`,
    ],
  ]);
});

test("duplicates, none with others, and exclusive pairs are all reported", () => {
  assert.deepEqual(validate(["pods", "pods", "none", "kube-reserved", "kube-reserved-compressible"]), [
    [
      "config.enforceNodeAllocatable",
      `invalid configuration: both "kube-reserved" and "kube-reserved-compressible" cannot be specified together in ${FIELD}`,
    ],
    ["config.enforceNodeAllocatable[1]", `invalid configuration: duplicated enforcements "pods" in ${FIELD}`],
    [
      "config.enforceNodeAllocatable[2]",
      `invalid configuration: ${FIELD} may not contain additional enforcements when "none" is specified`,
    ],
  ]);
  assert.deepEqual(validate(["system-reserved", "system-reserved-compressible"]).length, 1);
});
