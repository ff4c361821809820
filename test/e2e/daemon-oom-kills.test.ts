/**
 * `evictd run` makes the kernel's OOM kills visible: a container that outgrows its own memory limit
 * is killed by the kernel in its cgroup (no eviction could have prevented it: the node has room),
 * and the daemon counts it in evictd_oom_kills_total{namespace,pod,container}, logs it with the
 * limit that was hit, and records the container as OOMKilled. Runs on cgroup v1 here and v2 in the
 * guest: v1 reads `oom_kill` from memory.oom_control, v2 from memory.events.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  E2E_SKIP,
  IDLE,
  metricValue,
  podManifest,
  podStatus,
  scaled,
  TestNode,
  waitUntil,
  type Daemon,
} from "../harness/node-harness.js";

/** Allocates 1 MiB at a time, touching every page, until the kernel kills it. */
const HOG = [process.execPath, "-e", "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"];

describe("evictd run: kernel OOM kills", { skip: E2E_SKIP }, () => {
  let node: TestNode;
  let daemon: Daemon;

  before(
    async () => {
      node = await TestNode.create("oom");
      await node.writeNodeFile({
        capacity: { memory: "1Gi", pids: 1024 },
        config: {
          evictionHard: { "memory.available": "100Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      await node.addPod(podManifest({ name: "bystander", containers: [{ name: "idle", command: IDLE }] }));
      await node.addPod(
        podManifest({
          name: "hog",
          restartPolicy: "Never",
          containers: [
            { name: "sidecar", command: IDLE },
            { name: "grow", command: HOG, limits: { memory: "48Mi" } },
          ],
        }),
      );
      daemon = await node.start();
      await waitUntil(
        "the hog's container to exit OOMKilled",
        () =>
          daemon.lines.find(
            (l) => l.msg === "container exited" && l["container"] === "grow" && l["reason"] === "OOMKilled",
          ),
        30_000,
        () => daemon.tail(),
      );
    },
    { timeout: scaled(60_000) },
  );

  after(async () => {
    await node?.cleanup();
  });

  test("counted once, for the container that died, in evictd_oom_kills_total", async () => {
    const metrics = await waitUntil(
      "the kill in /metrics",
      async () => {
        const text = await daemon.metrics();
        return metricValue(text, "evictd_oom_kills_total") !== undefined ? text : undefined;
      },
      10_000,
    );
    assert.equal(
      metricValue(metrics, "evictd_oom_kills_total", { namespace: "default", pod: "hog", container: "grow" }),
      1,
    );
    assert.equal(metricValue(metrics, "evictd_oom_kills_total", { container: "sidecar" }), undefined);
    assert.equal(metricValue(metrics, "evictd_oom_kills_total", { pod: "bystander" }), undefined);
  });

  test("logged as a warning naming the pod, the container and the limit it hit", () => {
    const lines = daemon.lines.filter((l) => l.msg.startsWith("the kernel OOM-killed"));
    assert.deepEqual(
      lines.map((l) => [l["pod"], l["container"], l["limit"], l.msg]),
      [
        [
          "default/hog",
          "grow",
          String(48 * 1024 * 1024),
          "the kernel OOM-killed a container at its own memory limit",
        ],
      ],
    );
    assert.equal(lines[0]?.level, 40);
  });

  test("no pod was evicted: the node had room, the container's own limit was hit", async () => {
    const metrics = await daemon.metrics();
    assert.equal(metricValue(metrics, "kubelet_evictions", { eviction_signal: "memory.available" }), 0);
    assert.equal(podStatus(await daemon.status(), "default/bystander")?.phase, "Running");
  });
});
