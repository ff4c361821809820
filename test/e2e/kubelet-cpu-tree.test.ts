/**
 * The cpu side of the kubelet-shaped node (harness/kubelet-cpu-tree.ts), with the memory side's
 * pod options the cluster reaction bench uses (harness/kubelet-node.ts: a pod-level memory limit,
 * a container's environment, more cgroups to start in): for each cgroup driver, a process started
 * through `alsoJoin` is in its container's cpu cgroup from its start, each level carries the
 * kubelet's cpu.shares, and the tree is gone after teardown.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { KubeletCpuTree, kubeletCpuTreeUnavailable, milliCpuToShares } from "../harness/kubelet-cpu-tree.js";
import {
  containerId,
  KubeletNode,
  kubeletNodeUnavailable,
  type KubeletDriver,
} from "../harness/kubelet-node.js";

const MiB = 1024 * 1024;
const skip = kubeletNodeUnavailable() || kubeletCpuTreeUnavailable();
if (skip !== false) console.error(`# kubelet cpu tree tests skipped: ${skip}`);

const shares = (dir: string): number => Number(readFileSync(path.join(dir, "cpu.shares"), "utf8"));

describe("the kubelet's cpu.shares", () => {
  test("MilliCPUToShares: millicores × 1024 / 1000, at least 2", () => {
    assert.equal(milliCpuToShares(0), 2);
    assert.equal(milliCpuToShares(1), 2);
    assert.equal(milliCpuToShares(50), 51);
    assert.equal(milliCpuToShares(2000), 2048);
  });
});

for (const driver of ["cgroupfs", "systemd"] as const satisfies readonly KubeletDriver[]) {
  describe(
    `a kubelet-shaped node's cpu tree, ${driver} driver`,
    { skip: skip !== false ? skip : false },
    () => {
      test("a pod's process starts in its cpu cgroup with the kubelet's shares, and the tree goes after", async () => {
        const node = new KubeletNode(driver, 256 * MiB);
        const cpu = new KubeletCpuTree(path.basename(node.nodeDir), {
          driver,
          allocatableMilliCpu: 2000,
          burstableMilliCpu: 50,
        });
        try {
          const uid = randomUUID();
          const id = containerId();
          const [procs] = cpu.addPod(uid, "Burstable", [{ id, requestMilliCpu: 50 }]);
          assert.ok(procs !== undefined);
          const pod = node.addPod({
            uid,
            qos: "Burstable",
            limitBytes: 64 * MiB,
            containers: [
              {
                id,
                // The shell prints what it was given, then its cpu cgroup, and waits to be stopped.
                argv: [
                  "/bin/sh",
                  "-c",
                  'echo "$GREETING"; grep -E "^[0-9]+:([^:]*,)?cpu(,[^:]*)?:" /proc/self/cgroup; exec sleep 600',
                ],
                limitBytes: 64 * MiB,
                env: { GREETING: "hello" },
                alsoJoin: [procs],
              },
            ],
          });
          const container = pod.containers[0];
          assert.ok(container !== undefined);
          let out = "";
          container.child.stdout?.setEncoding("utf8").on("data", (d: string) => (out += d));
          await new Promise<void>((resolve, reject) => {
            container.child.once("exit", (code) => reject(new Error(`the container exited early (${code})`)));
            const poll = (): void => (out.split("\n").length >= 3 ? resolve() : void setTimeout(poll, 10));
            poll();
          });
          const [greeting, cgroupLine] = out.split("\n");
          assert.equal(greeting, "hello");
          const cpuDir = path.dirname(procs);
          const relative = path.relative(cpu.nodeDir, cpuDir);
          // The same layout on both sides, and the process in it.
          assert.equal(relative, path.relative(node.nodeDir, container.dir));
          assert.ok(cgroupLine?.endsWith(`/${path.basename(node.nodeDir)}/${relative}`), cgroupLine);
          assert.equal(Number(readFileSync(path.join(pod.dir, "memory.limit_in_bytes"), "utf8")), 64 * MiB);
          const kubepods = path.join(cpu.nodeDir, driver === "systemd" ? "kubepods.slice" : "kubepods");
          const tier = path.join(kubepods, driver === "systemd" ? "kubepods-burstable.slice" : "burstable");
          const bestEffort = path.join(
            kubepods,
            driver === "systemd" ? "kubepods-besteffort.slice" : "besteffort",
          );
          assert.deepEqual(
            [kubepods, tier, bestEffort, path.dirname(cpuDir), cpuDir].map(shares),
            [2048, 51, 2, 51, 51],
          );
          await node.removePod(uid);
          cpu.removePod(uid);
          assert.equal(existsSync(cpuDir), false);
        } finally {
          await node.destroy();
          cpu.destroy();
        }
        assert.equal(existsSync(cpu.nodeDir), false);
        assert.equal(existsSync(node.nodeDir), false);
      });
    },
  );
}
