/**
 * What each command loads: `evictd run` and `demo` are node daemons and load the kernel layer, the
 * runtime and the HTTP server, never the Kubernetes client (a large package for the cluster
 * commands only); `watch` does load it. Recorded for real with a module resolve hook in a child
 * process: once for the command's module imported alone, once for `bin/evictd.js` running the
 * command (given input it cannot use, so it loads its modules and stops). The Node built-ins they
 * load are read from `process.moduleLoadList`, which a resolve hook does not see for `require`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import { CLI_SKIP, FIXTURES, REPO_ROOT } from "./evictd-cli.js";

/** Every module URL a node process with `args` resolves; `ok` checks how it ended. */
function modulesResolved(
  args: readonly string[],
  ok: (status: number | null, stderr: string) => void,
): string[] {
  const dir = mkdtempSync(join(tmpdir(), "evictd-modules-"));
  try {
    const log = join(dir, "modules.log");
    const r = spawnSync(
      process.execPath,
      ["--import", pathToFileURL(join(FIXTURES, "module-hooks", "record-resolved.mjs")).href, ...args],
      { env: { ...process.env, EVICTD_MODULE_LOG: log }, encoding: "utf8", cwd: dir },
    );
    ok(r.status, r.stderr);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every module URL the process resolves while importing the compiled `commandModule` alone. */
function modulesLoadedBy(commandModule: string): string[] {
  const url = pathToFileURL(join(REPO_ROOT, "dist", "src", "cli", "commands", commandModule)).href;
  return modulesResolved(
    ["--input-type=module", "-e", `await import(${JSON.stringify(url)});`],
    (status, err) => assert.equal(status, 0, err),
  );
}

/**
 * Every module URL `bin/evictd.js COMMAND ...` resolves. The command is given a node file or
 * cluster that is not there: it loads its modules, then fails on its input (exit 2 or 3), so
 * nothing is started.
 */
function modulesShippedFor(command: readonly string[]): string[] {
  return modulesResolved([join(REPO_ROOT, "bin", "evictd.js"), ...command], (status, err) =>
    assert.ok(status === 2 || status === 3 || status === 1, `exit ${status}: ${err}`),
  );
}

/** The Node built-in modules a process has loaded once it has imported the compiled `commandModule`. */
function builtinsLoadedBy(commandModule: string): string[] {
  const url = pathToFileURL(join(REPO_ROOT, "dist", "src", "cli", "commands", commandModule)).href;
  const r = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `await import(${JSON.stringify(url)}); console.log(JSON.stringify(process.moduleLoadList));`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const list = JSON.parse(r.stdout) as string[];
  return list.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice("NativeModule ".length));
}

/**
 * Built-ins of features no node daemon uses: TLS clients and servers, compression, the cluster
 * module. prom-client's index loads all of them (for its Pushgateway and cluster aggregation);
 * the daemon's metrics take only the classes they use (src/server/prom-client-parts.ts).
 */
const UNUSED_BY_NODE_DAEMONS = ["https", "tls", "zlib", "cluster"];

const KUBERNETES_CLIENT = /node_modules\/@kubernetes\/client-node\//;
const OWN_KUBERNETES_ADAPTER = /\/dist\/src\/kubernetes\//;

/** The kernel layer is among `loaded`, and no Kubernetes client (the package or our adapter). */
function assertNodeDaemonModules(loaded: readonly string[]): void {
  assert.ok(
    loaded.some((u) => u.includes("/dist/src/linux/")),
    "the kernel layer is loaded",
  );
  assert.deepEqual(
    loaded.filter((u) => KUBERNETES_CLIENT.test(u) || OWN_KUBERNETES_ADAPTER.test(u)),
    [],
  );
}

describe("modules each command loads", { skip: CLI_SKIP }, () => {
  for (const command of ["run.js", "demo.js"]) {
    test(`${command.replace(".js", "")} loads no Kubernetes client`, () => {
      assertNodeDaemonModules(modulesLoadedBy(command));
    });
  }

  test("run loads no Node built-ins for TLS, compression or clustering", () => {
    const builtins = builtinsLoadedBy("run.js");
    assert.ok(builtins.includes("http"), "the check can see what run loads (its HTTP server)");
    assert.deepEqual(
      builtins.filter((m) => UNUSED_BY_NODE_DAEMONS.includes(m)),
      [],
    );
  });

  test("watch, a cluster command, does load it (the check above can tell)", () => {
    const loaded = modulesLoadedBy("watch.js");
    assert.ok(loaded.some((u) => KUBERNETES_CLIENT.test(u) || OWN_KUBERNETES_ADAPTER.test(u)));
  });

  test("through bin/evictd.js too (its dispatcher imports nothing of the cluster commands' for run)", () => {
    assertNodeDaemonModules(modulesShippedFor(["run", "--node", "missing-node.yaml"]));
    const watch = modulesShippedFor(["watch", "--node", "n1", "--kubeconfig", "missing-kubeconfig.yaml"]);
    assert.ok(
      watch.some((u) => KUBERNETES_CLIENT.test(u)),
      watch.join("\n"),
    );
  });
});
