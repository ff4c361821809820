import assert from "node:assert/strict";
import { test } from "node:test";
import { IssueList } from "../../core/issues.js";
import type { Pod } from "../../core/model.js";
import { decodePodList } from "../../core/pod/decode-pod.js";
import { PodRoster } from "./pod-roster.js";

function pods(...names: string[]): Pod[] {
  const issues = new IssueList();
  const list = decodePodList(
    names.map((n) => {
      const [name, uid] = n.split("@");
      return {
        metadata: { name, namespace: "default", ...(uid !== undefined ? { uid } : {}) },
        spec: { containers: [{ name: "c" }] },
      };
    }),
    "pods",
    issues,
  );
  assert.deepEqual(issues.items, []);
  return list;
}

test("pods once each by UID, in the order first seen; an added pod never replaces a known one", () => {
  const roster = new PodRoster(pods("a", "b"));
  roster.add(pods("c", "a"));
  roster.add(pods("d@u1"));
  roster.add(pods("e@u1"));
  assert.equal(roster.size, 4);
  assert.deepEqual(
    roster.pods.map((p) => p.key),
    ["default/a", "default/b", "default/c", "default/d"],
  );
});

test("duplicate UIDs among the initial pods: the last definition, in the first one's place", () => {
  // (A scenario's pod list refuses duplicate UIDs; the roster does not rely on it.)
  const roster = new PodRoster([...pods("a@u1", "b"), ...pods("c@u1")]);
  assert.deepEqual(
    roster.pods.map((p) => p.key),
    ["default/c", "default/b"],
  );
});

test("empty", () => {
  assert.equal(new PodRoster().size, 0);
  assert.deepEqual(new PodRoster().pods, []);
});
