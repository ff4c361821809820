/**
 * `evictd run` without root: run as `nobody` (setpriv drops root here), the daemon cannot create
 * cgroups, so it says so, runs pods as plain processes measured through /proc, watches memory by
 * polling, and still evicts the leaking pod in kubelet order and stops cleanly.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, test } from "node:test";
import {
  evicted,
  IDLE,
  leakMemory,
  podManifest,
  podStatus,
  REPO_ROOT,
  TestNode,
} from "../harness/node-harness.js";

const NOBODY = 65534;

/** How to run the daemon unprivileged here: through setpriv when root, as is otherwise. */
function unprivilegedWrapper(): readonly string[] | string {
  if (process.platform !== "linux") return "not Linux";
  if (!existsSync(join(REPO_ROOT, "dist", "src", "cli", "main.js")))
    return "evictd is not built: run `npm run build` first";
  if (process.getuid?.() !== 0) return [];
  if (spawnSync("setpriv", ["--version"]).status !== 0)
    return "running as root and setpriv (util-linux) is missing, so root cannot be dropped";
  // nobody, with one capability kept: CAP_DAC_READ_SEARCH, to read the checkout wherever it is (a
  // clone under a private temp dir is not readable by nobody otherwise). It grants no write
  // access: the cgroup hierarchy stays out of reach, which is what this suite is about.
  return [
    "setpriv",
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    "--clear-groups",
    "--inh-caps=-all,+dac_read_search",
    "--ambient-caps=+dac_read_search",
  ];
}

const wrapper = unprivilegedWrapper();
if (typeof wrapper === "string") console.error(`# unprivileged daemon e2e skipped: ${wrapper}`);

const nodes: TestNode[] = [];
afterEach(async () => {
  while (nodes.length > 0) await nodes.pop()?.cleanup();
});

/** Whether a process exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

function chownTree(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p);
    else chownSync(p, NOBODY, NOBODY);
  }
}

describe("evictd run without root", { skip: typeof wrapper === "string" ? wrapper : false }, () => {
  test("says it cannot use cgroups, polls, and still evicts the leaking pod and only it", async () => {
    const node = await TestNode.create("unprivileged");
    nodes.push(node);
    await node.writeNodeFile({
      capacity: { memory: "512Mi" },
      config: { evictionHard: { "memory.available": "128Mi" } },
      housekeepingInterval: "1s",
    });
    await node.addPod(
      podManifest({
        name: "idle",
        containers: [{ name: "app", command: IDLE, requests: { memory: "64Mi" } }],
      }),
    );
    await node.addPod(
      podManifest({ name: "leak", containers: [{ name: "app", command: leakMemory(8, 50) }] }),
    );
    if (process.getuid?.() === 0) chownTree(node.dir);
    const daemon = await node.start({
      cleanupOnExit: true,
      wrapper: typeof wrapper === "string" ? [] : wrapper,
    });

    const running = daemon.lines.find((l) => l.msg.startsWith("evictd running"));
    const capabilities = (running?.["capabilities"] ?? []) as string[];
    assert.ok(
      capabilities.some((c) =>
        /^no cgroups \(.*\): processes are measured through \/proc, limits are not enforced/.test(c),
      ),
      `the daemon must say plainly that it has no cgroups: ${JSON.stringify(capabilities)}`,
    );
    assert.ok(
      capabilities.some((c) => /polls every 1s/.test(c)),
      `and that memory is polled: ${JSON.stringify(capabilities)}`,
    );
    assert.deepEqual(node.cgroupDirs(), [], "no cgroup may be created without the right to");

    const leak = await daemon.waitForStatus("the leaking pod to be evicted", evicted("default/leak"), 30_000);
    assert.match(leak.message ?? "", /The node was low on resource: memory/);
    const status = await daemon.status();
    assert.equal(podStatus(status, "default/idle")?.phase, "Running");
    assert.deepEqual(
      status.recentEvictions.map((e) => e.pod),
      ["default/leak"],
    );
    const exit = await daemon.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, daemon.tail());
    assert.ok(daemon.lines.some((l) => l.msg === "evictd stopped"));
    // Without cgroups the daemon stops every pod's processes itself: none may outlive it.
    const pids = daemon.lines
      .filter((l) => l.msg === "container started")
      .map((l) => Number(l["containerPid"]));
    assert.equal(pids.length, 2, daemon.tail());
    const alive = pids.filter(isAlive);
    assert.deepEqual(alive, [], "processes of the node's pods survived the daemon");
  });
});
