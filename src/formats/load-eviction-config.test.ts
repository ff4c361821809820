/** loadEvictionConfig: a config file and flags to eviction settings, every problem located in the file. */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { InputError } from "../errors.js";
import { loadEvictionConfig } from "./load-eviction-config.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "evictd-eviction-config-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, content);
  return p;
}

const HEADER = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

async function refusal(run: Promise<unknown>): Promise<InputError> {
  try {
    await run;
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  assert.fail("expected an InputError");
}

describe("loadEvictionConfig", () => {
  test("a file and flags: the file's thresholds, the flags on top, the document kept", async () => {
    const p = await file("ok.yaml", `${HEADER}evictionHard:\n  memory.available: 300Mi\n`);
    const r = await loadEvictionConfig(p, ["--eviction-max-pod-grace-period=30"]);
    assert.deepEqual(
      r.config.thresholds.map((t) => t.id),
      ["hard/memory.available", "allocatable/hard/memory.available"],
    );
    assert.equal(r.config.maxPodGracePeriodSeconds, 30);
    assert.deepEqual((r.document as { evictionHard: unknown }).evictionHard, { "memory.available": "300Mi" });
  });

  test("no file: flags alone, under the path `flags`", async () => {
    const r = await loadEvictionConfig(undefined, ["--eviction-hard=memory.available<1Gi"]);
    assert.equal(r.document, undefined);
    assert.deepEqual(
      r.config.thresholds.map((t) => t.id),
      ["hard/memory.available", "allocatable/hard/memory.available"],
    );
    const bad = await refusal(loadEvictionConfig(undefined, ["--eviction-hard=memory.available<lots"]));
    assert.ok(
      bad.issues.some((i) => i.severity === "error" && i.path.startsWith("flags")),
      JSON.stringify(bad.issues),
    );
  });

  test("a bad setting in the file is an InputError pointing at its line", async () => {
    const p = await file("bad.yaml", `${HEADER}evictionHard:\n  memory.available: lots\n`);
    const e = await refusal(loadEvictionConfig(p, []));
    const error = e.issues.find((i) => i.severity === "error");
    assert.equal(error?.file, p);
    assert.equal(error?.line, 4);
    assert.match(error?.path ?? "", /^config\.evictionHard/);
  });

  test("warnings about the settings come back located in the file", async () => {
    const p = await file("warn.yaml", `${HEADER}evictionHard:\n  memory.available: 300Mi\n`);
    const r = await loadEvictionConfig(p, []);
    // evictionHard without the imagefs/nodefs defaults drops them: the kubelet warns about that.
    const w = r.warnings.find((i) => i.path === "config.evictionHard");
    assert.ok(w !== undefined, JSON.stringify(r.warnings));
    assert.equal(w.file, p);
    assert.equal(w.line, 3);
  });

  test("a file that cannot be read is an InputError naming it", async () => {
    const missing = join(dir, "missing.yaml");
    const e = await refusal(loadEvictionConfig(missing, []));
    assert.ok(
      e.issues.some((i) => (i.file ?? i.message).includes("missing.yaml")),
      JSON.stringify(e.issues),
    );
  });
});
