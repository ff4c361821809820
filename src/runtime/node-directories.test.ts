/** The node's directories before a start: stateDir made when missing, both refused with a hint otherwise. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { AdapterError } from "../errors.js";
import { prepareNodeDirectories } from "./node-directories.js";

describe("prepareNodeDirectories", () => {
  const root = mkdtempSync(join(tmpdir(), "evictd-node-dirs-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const manifestDir = join(root, "manifests");
  mkdirSync(manifestDir);

  test("a missing stateDir is created and returned, an existing one is used as it is", () => {
    const stateDir = join(root, "made", "state");
    assert.equal(prepareNodeDirectories({ stateDir, manifestDir }), join(root, "made"));
    assert.ok(existsSync(stateDir));
    assert.equal(prepareNodeDirectories({ stateDir, manifestDir }), undefined);
  });

  test("a stateDir that is a file is refused (state-dir, with the errno code)", () => {
    const stateDir = join(root, "a-file");
    writeFileSync(stateDir, "");
    assert.throws(
      () => prepareNodeDirectories({ stateDir, manifestDir }),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.code === "state-dir" &&
        e.message === `cannot use stateDir ${stateDir}: EEXIST` &&
        e.hint === "set stateDir in the node file to a directory (it is created when missing)",
    );
  });

  test("a missing manifestDir is refused (manifest-dir) and the stateDir this created goes again", () => {
    const stateDir = join(root, "undone", "state");
    const missing = join(root, "no-manifests");
    assert.throws(
      () => prepareNodeDirectories({ stateDir, manifestDir: missing }),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.code === "manifest-dir" &&
        e.message === `manifestDir ${missing} is not a directory` &&
        e.hint === `create it (mkdir -p ${missing}) or correct manifestDir in the node file`,
    );
    assert.equal(existsSync(join(root, "undone")), false);
  });
});
