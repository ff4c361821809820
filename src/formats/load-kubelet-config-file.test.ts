// Reading config files: YAML and JSON, and every kind of bad input as typed issues.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadKubeletConfigFile, parseKubeletConfigText } from "./load-kubelet-config-file.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "evictd-config-file-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, content);
  return p;
}

describe("valid files", () => {
  test("YAML: value and positions", async () => {
    const p = await file(
      "ok.yaml",
      "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: 100Mi\n",
    );
    const r = await loadKubeletConfigFile(p);
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard: { "memory.available": "100Mi" },
    });
    assert.deepEqual(r.positions.locate('evictionHard["memory.available"]'), { line: 4, column: 3 });
    assert.deepEqual(r.warnings, []);
  });

  test("YAML 1.2 scalars: 10% and 0s stay strings, yes stays a string", () => {
    const r = parseKubeletConfigText("a: 10%\nb: 0s\nc: yes\nd: 60\n", "x.yaml");
    assert.ok(r.ok);
    assert.deepEqual(r.value, { a: "10%", b: "0s", c: "yes", d: 60 });
  });

  test("JSON, with positions", async () => {
    const p = await file("ok.json", '{\n  "evictionHard": {\n    "memory.available": "100Mi"\n  }\n}\n');
    const r = await loadKubeletConfigFile(p);
    assert.ok(r.ok);
    assert.deepEqual(r.value, { evictionHard: { "memory.available": "100Mi" } });
    assert.deepEqual(r.positions.locate('evictionHard["memory.available"]'), { line: 3, column: 5 });
  });

  test("flow-style YAML that JSON.parse rejects is still read", () => {
    const r = parseKubeletConfigText("{evictionHard: {memory.available: 1Gi}}", "x.yaml");
    assert.ok(r.ok);
    assert.deepEqual(r.value, { evictionHard: { "memory.available": "1Gi" } });
  });

  test("a UTF-8 BOM, leading ---, and a trailing --- are fine", () => {
    const r = parseKubeletConfigText("\uFEFF---\nmaxPods: 10\n---\n", "x.yaml");
    assert.ok(r.ok);
    assert.deepEqual(r.value, { maxPods: 10 });
  });

  test("duplicate keys: a warning, the last value wins (as the kubelet's lenient decoding)", () => {
    const r = parseKubeletConfigText(
      "evictionMaxPodGracePeriod: 10\nevictionMaxPodGracePeriod: 20\n",
      "x.yaml",
    );
    assert.ok(r.ok);
    assert.deepEqual(r.value, { evictionMaxPodGracePeriod: 20 });
    assert.deepEqual(
      r.warnings.map((w) => [w.severity, w.code, w.file, w.line, w.column]),
      [["warning", "yaml-duplicate-key", "x.yaml", 2, 1]],
    );
  });
});

describe("bad input is reported, never thrown", () => {
  async function issuesOf(
    p: string,
  ): Promise<[string, string, string, number | undefined, number | undefined][]> {
    const r = await loadKubeletConfigFile(p);
    assert.ok(!r.ok, "expected a failure");
    return r.issues.map((i) => [i.severity, i.code, i.path, i.line, i.column]);
  }

  test("missing file", async () => {
    const p = join(dir, "nope.yaml");
    const r = await loadKubeletConfigFile(p);
    assert.ok(!r.ok);
    assert.deepEqual(r.issues, [
      {
        severity: "error",
        path: "config",
        code: "file-not-found",
        message: "no such file",
        file: p,
      },
    ]);
  });

  test("a directory", async () => {
    assert.deepEqual(await issuesOf(dir), [["error", "file-unreadable", "config", undefined, undefined]]);
  });

  test("empty, blank and comment-only files", async () => {
    assert.deepEqual(await issuesOf(await file("empty.yaml", "")), [
      ["error", "empty-file", "config", undefined, undefined],
    ]);
    assert.deepEqual(await issuesOf(await file("blank.yaml", " \n\n\t\n")), [
      ["error", "empty-file", "config", undefined, undefined],
    ]);
    assert.deepEqual(await issuesOf(await file("comments.yaml", "# nothing here\n")), [
      ["error", "empty-file", "config", undefined, undefined],
    ]);
  });

  test("binary content: NUL bytes, invalid UTF-8", async () => {
    assert.deepEqual(await issuesOf(await file("nul.bin", new Uint8Array([0x61, 0x3a, 0x00, 0x31]))), [
      ["error", "binary-file", "config", undefined, undefined],
    ]);
    const r = await loadKubeletConfigFile(
      await file("latin1.yaml", new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe])),
    );
    assert.ok(!r.ok);
    assert.equal(r.issues[0]?.message, "the file is not valid UTF-8 text");
  });

  test("YAML syntax errors carry line:column", async () => {
    const p = await file("bad.yaml", "evictionHard:\n  memory.available: 1Gi\n nodefs.available: [10%\n");
    const issues = await issuesOf(p);
    assert.ok(issues.length >= 1);
    for (const [severity, code, path, line, column] of issues) {
      assert.equal(severity, "error");
      assert.match(code, /^yaml-/u);
      assert.equal(path, "config");
      assert.ok(line !== undefined && line >= 2 && column !== undefined, `position ${line}:${column}`);
    }
  });

  test("broken JSON reports the YAML parser's position", () => {
    const r = parseKubeletConfigText(
      '{\n  "evictionHard": {\n    "memory.available": "1Gi",,\n  }\n}\n',
      "x.json",
    );
    assert.ok(!r.ok);
    assert.equal(r.issues[0]?.line, 3);
  });

  test("several documents", async () => {
    const p = await file("multi.yaml", "kind: KubeletConfiguration\n---\nkind: KubeletConfiguration\n");
    const r = await loadKubeletConfigFile(p);
    assert.ok(!r.ok);
    assert.deepEqual(
      r.issues.map((i) => [i.code, i.line, i.message]),
      [["multiple-documents", 3, "the file holds 2 YAML documents; expected exactly one"]],
    );
  });

  test("the issue path for whole-file problems is configurable", () => {
    const r = parseKubeletConfigText("", "x.yaml", { issuePath: "scenario.config" });
    assert.ok(!r.ok);
    assert.equal(r.issues[0]?.path, "scenario.config");
  });
});
