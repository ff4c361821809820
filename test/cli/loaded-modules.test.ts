/**
 * What each command loads: `evictd run` and `demo` are node daemons and load the kernel layer, the
 * runtime and the HTTP server, never the Kubernetes client (a large package for the cluster
 * commands only); `watch` does load it. Recorded for real with a module resolve hook in a child
 * process that imports the command's module, as `bin/evictd.js` does when the command runs.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import { CLI_SKIP, FIXTURES, REPO_ROOT } from "./evictd-cli.js";

/** Every module URL the process resolves while importing `commandModule`. */
function modulesLoadedBy(commandModule: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "evictd-modules-"));
  try {
    const log = join(dir, "modules.log");
    const url = pathToFileURL(join(REPO_ROOT, "dist", "src", "cli", "commands", commandModule)).href;
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        pathToFileURL(join(FIXTURES, "module-hooks", "record-resolved.mjs")).href,
        "--input-type=module",
        "-e",
        `await import(${JSON.stringify(url)});`,
      ],
      { env: { ...process.env, EVICTD_MODULE_LOG: log }, encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const KUBERNETES_CLIENT = /node_modules\/@kubernetes\/client-node\//;
const OWN_KUBERNETES_ADAPTER = /\/dist\/src\/kubernetes\//;

describe("modules each command loads", { skip: CLI_SKIP }, () => {
  for (const command of ["run.js", "demo.js"]) {
    test(`${command.replace(".js", "")} loads no Kubernetes client`, () => {
      const loaded = modulesLoadedBy(command);
      assert.ok(
        loaded.some((u) => u.includes("/dist/src/linux/")),
        "the kernel layer is loaded",
      );
      assert.deepEqual(
        loaded.filter((u) => KUBERNETES_CLIENT.test(u) || OWN_KUBERNETES_ADAPTER.test(u)),
        [],
      );
    });
  }

  test("watch, a cluster command, does load it (the check above can tell)", () => {
    const loaded = modulesLoadedBy("watch.js");
    assert.ok(loaded.some((u) => KUBERNETES_CLIENT.test(u) || OWN_KUBERNETES_ADAPTER.test(u)));
  });
});
