/** Reading a node file from disk: directories relative to the file, its kubelet config file, located problems. */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { InputError } from "../errors.js";
import { loadNodeSpec } from "./node-file.js";

describe("loadNodeSpec", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "evictd-node-file-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const head = "apiVersion: evictd.io/v1alpha1\nkind: EvictdNode\nname: n1\n";

  test("directories are resolved against the node file's directory; the config file is read", async () => {
    await writeFile(join(dir, "kubelet.yaml"), "evictionHard:\n  memory.available: 100Mi\n");
    const file = join(dir, "node.yaml");
    await writeFile(
      file,
      `${head}capacity: {memory: 1Gi}\nstateDir: state\nmanifestDir: ./pods\nconfig: kubelet.yaml\n`,
    );
    const { spec, warnings } = await loadNodeSpec(file);
    assert.equal(spec.stateDir, join(dir, "state"));
    assert.equal(spec.manifestDir, join(dir, "pods"));
    const ids = spec.eviction.thresholds.map((t) => t.id);
    assert.ok(ids.includes("hard/memory.available"), ids.join(", "));
    // The config file's own remarks point at it, not at the node file.
    assert.deepEqual(
      warnings.map((w) => [w.path, w.file]),
      [["config.evictionHard", join(dir, "kubelet.yaml")]],
    );
  });

  test("a bad value is reported at its line in the node file", async () => {
    const file = join(dir, "bad.yaml");
    await writeFile(file, `${head}capacity: {memory: lots}\nstateDir: state\n`);
    const error = await loadNodeSpec(file).then(
      () => assert.fail("a node file with a bad capacity must not load"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof InputError, String(error));
    const capacity = error.issues.find((i) => i.path.startsWith("capacity"));
    assert.ok(capacity !== undefined, JSON.stringify(error.issues));
    assert.equal(capacity.file, file);
    assert.equal(capacity.line, 4);
  });
});
