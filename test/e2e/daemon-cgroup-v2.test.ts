/**
 * `evictd run` on a cgroup v2 kernel, started the way systemd starts a service with Delegate=yes:
 * inside a non-root cgroup of its own that also holds another process. v2's "no internal
 * processes" rule forbids enabling controllers for children there while it holds processes, so the
 * daemon must move them all to a leaf before it builds the node below; its loop thread must then
 * measure the node where it was built (not below the leaf the daemon now sits in), and a leaking
 * pod is evicted before the kernel OOM killer strikes. Runs on a pure cgroup v2 host as root
 * (`npm test` runs it in a v2 guest, scripts/v2-guest.sh, when this machine mounts cgroup v1).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { detectOwnCgroups } from "../../src/linux/cgroups/detect-cgroups.js";
import {
  E2E_SKIP,
  evicted,
  IDLE,
  leakMemory,
  podManifest,
  scaled,
  sleep,
  TestNode,
  waitUntil,
} from "../harness/node-harness.js";

const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const own = detection?.version === "v2" ? detection.memory?.dir : undefined;
const skip =
  E2E_SKIP !== false
    ? E2E_SKIP
    : own === undefined
      ? `cgroup ${detection?.version ?? "none"} here, not a pure cgroup v2 host (npm test runs this suite again on a v2 kernel, scripts/v2-guest.sh)`
      : false;
if (skip !== false && E2E_SKIP === false) console.error(`# daemon cgroup v2 e2e skipped: ${skip}`);

const procsOf = (dir: string): string[] =>
  fs
    .readFileSync(path.join(dir, "cgroup.procs"), "utf8")
    .split("\n")
    .filter((l) => l !== "");

/** Kills every process in a cgroup subtree and removes its cgroups, deepest first. */
async function removeTree(dir: string): Promise<void> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) await removeTree(path.join(dir, entry.name));
  for (const pid of procsOf(dir)) process.kill(Number(pid), "SIGKILL");
  await waitUntil(`${dir} to empty`, () => (procsOf(dir).length === 0 ? true : undefined), 5000);
  fs.rmdirSync(dir);
}

describe("evictd run in a delegated cgroup v2 subtree that holds other processes", { skip }, () => {
  let node: TestNode | undefined;
  let service: string | undefined;
  after(async () => {
    await node?.cleanup();
    if (service !== undefined && fs.existsSync(service)) await removeTree(service);
  });

  test(
    "the node is built below the service cgroup, the leaking pod is evicted, and teardown restores the service",
    { timeout: scaled(90_000) },
    async () => {
      assert.ok(own !== undefined);
      node = await TestNode.create("v2svc");
      service = path.join(own, `evictd-e2e-service-${process.pid}`);
      fs.mkdirSync(service);
      await node.writeNodeFile({
        capacity: { memory: "512Mi", pids: 1024 },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      await node.addPod(podManifest({ name: "idler", containers: [{ name: "idle", command: IDLE }] }));
      await node.addPod(
        podManifest({
          name: "leaker",
          containers: [{ name: "leak", command: leakMemory(8, 100), requests: { memory: "32Mi" } }],
        }),
      );
      // The wrapper joins the service cgroup, leaves a companion there (as a service's helper would
      // be), then becomes the daemon.
      const daemon = await node.start({
        wrapper: ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && { sleep 600 & } && exec "$@"', service],
      });
      const nodeDir = path.join(service, node.cgroupName);
      const { capabilities } = (await (await fetch(`${daemon.url}/status`)).json()) as {
        capabilities: string[];
      };
      assert.ok(
        capabilities.includes(`cgroup v2: node at ${nodeDir}`),
        `capabilities: ${JSON.stringify(capabilities)}`,
      );
      const leaf = path.join(service, "evictd-daemon");
      assert.deepEqual(procsOf(service), [], "the service cgroup itself holds no process");
      assert.ok(procsOf(leaf).includes(String(daemon.child.pid)), "the daemon moved to the leaf");
      // A pod's process starts in the daemon's cgroup and its shim then moves it to the pod's
      // (spawn-in-cgroup.ts): such a third process may be seen in passing, so the leaf is given time
      // to settle to the daemon and its companion.
      await waitUntil(
        "the leaf to hold the daemon and its companion only",
        () => (procsOf(leaf).length === 2 ? true : undefined),
        5000,
        () => `: ${procsOf(leaf).join(", ")}`,
      );

      const victim = await daemon.waitForStatus("default/leaker evicted", evicted("default/leaker"), 60_000);
      assert.equal(victim.reason, "Evicted");
      const events = fs.readFileSync(path.join(nodeDir, "memory.events"), "utf8");
      assert.match(events, /^oom_kill 0$/m, `no kernel OOM kill in the node:\n${events}`);
      await sleep(scaled(1000));
      const after = await daemon.status();
      assert.equal(
        after.pods.find((p) => p.pod === "default/idler")?.phase,
        "Running",
        "only the leaker goes",
      );

      const stopped = await daemon.stop();
      assert.equal(stopped.code, 0, daemon.tail());
      assert.equal(fs.existsSync(nodeDir), false, "the node's cgroups are gone");
      assert.equal(fs.existsSync(leaf), false, "the leaf is gone");
      assert.equal(procsOf(service).length, 1, "the companion is back in the service cgroup");
      assert.doesNotMatch(fs.readFileSync(path.join(service, "cgroup.subtree_control"), "utf8"), /memory/);
    },
  );
});
