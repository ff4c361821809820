/** Manifest files to pods: one Pod, `---` streams, lists, JSON; restart policy, UIDs and every problem located. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_FILE_ISSUES, parseManifestText } from "./read-manifest-file.js";
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

  test("pod names are DNS-1123 subdomains and namespaces DNS-1123 labels, as the API server requires; the value is quoted with its escapes", () => {
    const manifest = (name: string, namespace?: string): string =>
      JSON.stringify({
        metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
        spec: { containers: [{ name: "c", command: ["true"] }] },
      });
    const ok = ["web", "web-1", "a.b.c", "0", "x".repeat(253)];
    for (const name of ok) assert.deepEqual(parseManifestText(manifest(name), "ok.json").issues, [], name);
    assert.deepEqual(parseManifestText(manifest("web", "team-a"), "ok.json").issues, []);
    const bad: [name: string, namespace: string | undefined, path: string, shown: string][] = [
      ["web\u001b[31m", undefined, "metadata.name", String.raw`"web\u001b[31m"`],
      ["web\rroot", undefined, "metadata.name", String.raw`"web\rroot"`],
      ["my pod", undefined, "metadata.name", '"my pod"'],
      ["Web", undefined, "metadata.name", '"Web"'],
      ["-web", undefined, "metadata.name", '"-web"'],
      ["a..b", undefined, "metadata.name", '"a..b"'],
      ["../etc", undefined, "metadata.name", '"../etc"'],
      ["x".repeat(254), undefined, "metadata.name", `"${"x".repeat(254)}"`],
      ["web", "team a", "metadata.namespace", '"team a"'],
      ["web", "team.a", "metadata.namespace", '"team.a"'],
      ["web", "ns\u001b]0;x\u0007", "metadata.namespace", String.raw`"ns\u001b]0;x\u0007"`],
      ["web", "x".repeat(64), "metadata.namespace", `"${"x".repeat(64)}"`],
    ];
    for (const [name, namespace, path, shown] of bad) {
      const r = parseManifestText(manifest(name, namespace), "/m/bad.json");
      assert.deepEqual(r.pods, [], JSON.stringify(name));
      const issue = r.issues.find((i) => i.code === "invalid-name");
      assert.ok(issue !== undefined, JSON.stringify(r.issues));
      assert.equal(issue.file, "/m/bad.json");
      assert.equal(issue.path, path);
      assert.ok(issue.message.includes(shown), `${issue.message} quotes ${shown}`);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(issue.message, /[\u0000-\u001f]/, "no raw control character in the message");
    }
  });
});

describe("parseManifestText: hostile files", () => {
  test("an alias bomb (anchors of aliases to anchors) is an error naming the file, never an exception", () => {
    let text = `a: &a [${Array(9).fill('"lol"').join(",")}]\n`;
    let prev = "a";
    for (const n of ["b", "c", "d", "e", "f", "g", "h", "i"]) {
      text += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]\n`;
      prev = n;
    }
    const r = parseManifestText(text, "/m/bomb.yaml");
    assert.deepEqual(r.pods, []);
    assert.equal(r.issues.length, 1, JSON.stringify(r.issues));
    assert.equal(r.issues[0]?.file, "/m/bomb.yaml");
    assert.equal(r.issues[0]?.line, 1);
    assert.match(r.issues[0]?.message ?? "", /cannot be read: Excessive alias count/);
    // An alias or two, as manifests share an env list, still decode.
    const shared = parseManifestText(
      `metadata: {name: p}\nspec:\n  containers:\n  - name: a\n    command: ["true"]\n    env: &env [{name: A, value: "1"}, {name: B, value: "2"}]\n  - name: b\n    command: ["true"]\n    env: *env\n`,
      "shared.yaml",
    );
    assert.deepEqual(shared.issues, []);
    assert.deepEqual(shared.pods[0]?.containers[1]?.env, shared.pods[0]?.containers[0]?.env);
  });

  test(`a file of garbage lists its first ${MAX_FILE_ISSUES} problems and counts the rest`, () => {
    const r = parseManifestText("\t- x\n".repeat(5000), "/m/tabs.yaml");
    assert.equal(r.issues.length, MAX_FILE_ISSUES + 1);
    assert.ok(
      r.issues.slice(0, MAX_FILE_ISSUES).every((i) => i.line !== undefined && i.file === "/m/tabs.yaml"),
    );
    const last = r.issues.at(-1);
    assert.equal(last?.code, "more-problems");
    assert.equal(last?.severity, "error");
    assert.equal(last?.message, `… and 4,980 more problems (the first ${MAX_FILE_ISSUES} are listed)`);
  });

  test("a list of more non-pods than a call takes arguments is problems, not a stack overflow", () => {
    const r = parseManifestText("- x\n".repeat(150_000), "/m/list.yaml");
    assert.deepEqual(r.pods, []);
    assert.equal(r.issues.length, MAX_FILE_ISSUES + 1);
    assert.match(r.issues.at(-1)?.message ?? "", /^… and 149,980 more problems/);
  });

  test("yaml's warnings (a key that is a collection) are not written to the process's stderr", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      parseManifestText("? ? ? ?\n".repeat(50), "/m/keys.yaml");
      parseManifestText("metadata: {name: p}\n? [a, b]\n: 1\n", "/m/key.yaml");
      // process.emitWarning reports on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    assert.deepEqual(warnings, []);
  });
});
