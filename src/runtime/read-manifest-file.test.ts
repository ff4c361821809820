/** Manifest files to pods: one Pod, `---` streams, lists, JSON; restart policy, UIDs and every problem located. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseManifestText } from "./read-manifest-file.js";
import { derivedPodUid, podRestartPolicy } from "./runnable-pod.js";

const POD = (name: string, extra = "") => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${extra}  containers:
  - name: app
    command: [sleep, "30"]
`;

describe("parseManifestText", () => {
  test("one Pod: decoded, restart policy defaulted to Always, a stable UUID-shaped UID derived from namespace/name", () => {
    const r = parseManifestText(POD("web"), "/m/web.yaml");
    assert.deepEqual(r.issues, []);
    assert.equal(r.pods.length, 1);
    const pod = r.pods[0]!;
    assert.equal(pod.key, "default/web");
    assert.equal(podRestartPolicy(pod), "Always");
    assert.equal(pod.uid, derivedPodUid("default/web"));
    assert.match(pod.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.notEqual(derivedPodUid("default/web"), derivedPodUid("other/web"));
    assert.deepEqual(pod.containers[0]?.command, ["sleep", "30"]);
  });

  test("an explicit uid is kept; restartPolicy OnFailure and Never are read", () => {
    const r = parseManifestText(
      `apiVersion: v1\nkind: Pod\nmetadata: { name: a, uid: 1234-abcd }\nspec:\n  restartPolicy: Never\n  containers: [{ name: c, command: ["true"] }]\n`,
      "a.yaml",
    );
    assert.equal(r.pods[0]?.uid, "1234-abcd");
    assert.equal(r.pods[0]?.restartPolicy, "Never");
  });

  test("a --- stream of several pods, and a PodList, each pod decoded", () => {
    const stream = parseManifestText(
      `${POD("a")}---\n${POD("b", "  restartPolicy: OnFailure\n")}---\n`,
      "s.yaml",
    );
    assert.deepEqual(stream.issues, []);
    assert.deepEqual(
      stream.pods.map((p) => [p.name, p.restartPolicy]),
      [
        ["a", "Always"],
        ["b", "OnFailure"],
      ],
    );
    const list = parseManifestText(
      JSON.stringify({
        kind: "PodList",
        items: [
          { metadata: { name: "x" }, spec: { containers: [{ name: "c", command: ["true"] }] } },
          { metadata: { name: "y" }, spec: { containers: [{ name: "c", command: ["true"] }] } },
        ],
      }),
      "l.json",
    );
    assert.deepEqual(list.issues, []);
    assert.deepEqual(
      list.pods.map((p) => p.name),
      ["x", "y"],
    );
  });

  test("a bad document does not hide the good ones; issues carry file, path and line", () => {
    const text = `${POD("good")}---\n${POD("bad", "  restartPolicy: Sometimes\n")}---\napiVersion: v1\nkind: Pod\nmetadata: { name: nocontainers }\nspec: {}\n`;
    const r = parseManifestText(text, "/m/mixed.yaml");
    assert.deepEqual(
      r.pods.map((p) => p.name),
      ["good"],
    );
    const policy = r.issues.find((i) => i.path === "spec.restartPolicy");
    assert.ok(policy !== undefined, JSON.stringify(r.issues));
    assert.equal(policy.file, "/m/mixed.yaml");
    assert.equal(policy.line, 15, "points at the second document's restartPolicy line");
    assert.match(policy.message, /Sometimes/);
    assert.ok(r.issues.some((i) => i.path === "spec.containers" && i.severity === "error"));
  });

  test("container and volume names must be DNS labels (they become cgroup, file and variable names)", () => {
    const r = parseManifestText(
      `metadata: { name: p }\nspec:\n  volumes: [{ name: Bad_Vol }]\n  containers: [{ name: ../escape, command: ["true"] }]\n`,
      "n.yaml",
    );
    assert.deepEqual(r.pods, []);
    assert.deepEqual(
      r.issues
        .filter((i) => i.code === "invalid-name")
        .map((i) => i.path)
        .sort(),
      ["spec.containers[0].name", "spec.volumes[0].name"],
    );
  });

  test("syntax errors, empty files and duplicate UIDs within a file are issues, never exceptions", () => {
    const syntax = parseManifestText("metadata: { name: [\n", "x.yaml");
    assert.equal(syntax.pods.length, 0);
    assert.ok(
      syntax.issues.length > 0 && syntax.issues.every((i) => i.file === "x.yaml" && i.line !== undefined),
    );
    assert.equal(parseManifestText("# nothing\n", "e.yaml").issues[0]?.code, "empty-file");
    const dup = parseManifestText(`${POD("same")}---\n${POD("same")}`, "d.yaml");
    assert.equal(dup.pods.length, 1);
    assert.equal(dup.issues[0]?.code, "duplicate-pod");
    const json = parseManifestText(
      '{"metadata": {"name": "j"}, "spec": {"containers": [{"name": "c", "command": ["true"]}]}}',
      "j.json",
    );
    assert.deepEqual(
      json.pods.map((p) => p.name),
      ["j"],
    );
  });
});
