/**
 * `evictd watch --stats cgroups --enforce` makes kernel OOM kills visible on a kubelet-shaped node
 * (harness/kubelet-node.ts: the kubelet's cgroup tree built for real, real processes in it, the
 * fake API server serving the same pods): a container that outgrows its own memory limit is killed
 * by the kernel, and watch counts it in evictd_oom_kills_total{namespace,pod,container}, logs it and
 * records a Warning Event on the pod saying which container, which limit, and its peak usage. No
 * eviction: the node had room. v1 here (memory.oom_control), v2 in the guest (memory.events).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { startFakeApiServer, type RecordedRequest } from "../harness/fake-api-server/fake-api-server.js";
import {
  apiPod,
  clusterDataOptions,
  startResidents,
  writeClusterData,
} from "../harness/kubelet-node-cluster.js";
import { containerId, KubeletNode, kubeletNodeUnavailable } from "../harness/kubelet-node.js";
import { EVICTD_BIN, metricValue, REPO_ROOT, waitUntil } from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const skip = kubeletNodeUnavailable();

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe("evictd watch --stats cgroups: kernel OOM kills", { skip }, () => {
  test("a container at its own limit: counted, logged, and a Warning Event on its pod naming the container and the limit", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "evictd-watch-oom-"));
    temps.push(dir);
    const nodeName = "kubelet-node-oom";
    const node = new KubeletNode("cgroupfs", 512 * MiB);
    let watch: ChildProcess | undefined;
    let server: Awaited<ReturnType<typeof startFakeApiServer>> | undefined;
    try {
      const residents = startResidents(node, nodeName);
      const hogUid = "2a6c0e4b-7d1f-4e3a-9b5c-8d7e6f5a4b3c";
      const hogId = containerId();
      const sidecarId = containerId();
      const hog = apiPod(nodeName, {
        name: "hog",
        uid: hogUid,
        qos: "Burstable",
        containers: [
          { name: "sidecar", id: sidecarId },
          { name: "grow", id: hogId },
        ],
      });
      writeClusterData(dir, { nodeName, driver: "cgroupfs", pods: [...residents, hog] });
      server = await startFakeApiServer(clusterDataOptions(dir, nodeName));
      const events: RecordedRequest[] = [];
      server.onRequest = (r) => {
        if (r.method === "POST" && r.path.endsWith("/events")) events.push(r);
      };
      const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
      watch = spawn(
        process.execPath,
        [
          EVICTD_BIN,
          "watch",
          "--node",
          nodeName,
          "--kubeconfig",
          kubeconfig,
          "--enforce",
          "--stats",
          "cgroups",
          "--cgroupfs",
          node.cgroupfs,
          "--node-cgroup",
          node.nodeCgroup,
          "--interval",
          "10s",
          "--listen",
          "127.0.0.1:0",
        ],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      watch.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      watch.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const url = await waitUntil(
        "the evictd watching line",
        () => {
          const line = stdout.split("\n").find((l) => l.includes("evictd watching node"));
          return line === undefined ? undefined : (JSON.parse(line) as { url: string }).url;
        },
        15_000,
        () => `\n${stdout}${stderr}`,
        25,
      );
      const oomBefore = node.oomKills();
      // The hog: 1 MiB at a time, every page touched, under a 48 MiB limit of its own.
      node.addPod({
        uid: hogUid,
        qos: "Burstable",
        containers: [
          { id: sidecarId, argv: ["sleep", "600"] },
          {
            id: hogId,
            argv: [process.execPath, "-e", "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"],
            limitBytes: 48 * MiB,
          },
        ],
      });
      const event = await waitUntil(
        "the OOMKilled Event",
        () => events.find((e) => (e.json as { reason?: string }).reason === "OOMKilled"),
        30_000,
        () => `\n${stdout.split("\n").slice(-10).join("\n")}${stderr}`,
      );
      const body = event.json as {
        type: string;
        message: string;
        involvedObject: { name: string; uid: string; kind: string };
        source: { component: string; host: string };
      };
      assert.equal(body.type, "Warning");
      assert.deepEqual(
        [body.involvedObject.kind, body.involvedObject.name, body.involvedObject.uid],
        ["Pod", "hog", hogUid],
      );
      assert.match(
        body.message,
        /^Container grow was OOM-killed by the kernel: it reached its own memory limit 48Mi; its peak usage was \d+(Ki|Mi)\.$/,
      );
      assert.ok(node.oomKills() > oomBefore || node.api === "v1", "the kernel counted the kill");
      assert.equal(events.filter((e) => (e.json as { reason?: string }).reason === "OOMKilled").length, 1);

      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.equal(
        metricValue(metrics, "evictd_oom_kills_total", {
          namespace: "default",
          pod: "hog",
          container: "grow",
        }),
        1,
      );
      assert.equal(metricValue(metrics, "evictd_oom_kills_total", { container: "sidecar" }), undefined);
      const logged = stdout.split("\n").filter((l) => l.includes("was OOM-killed by the kernel"));
      assert.equal(logged.length, 1, stdout);
      assert.deepEqual(
        (({ pod, container, kills }) => ({ pod, container, kills }))(
          JSON.parse(logged[0] as string) as Record<string, unknown>,
        ),
        { pod: "default/hog", container: "grow", kills: 1 },
      );
      // No eviction: the node had room; the container's own limit was hit.
      assert.deepEqual(
        server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/eviction")).map((r) => r.path),
        [],
      );
    } finally {
      watch?.kill("SIGTERM");
      if (watch !== undefined && watch.exitCode === null) await new Promise((r) => watch?.once("exit", r));
      await server?.close();
      await node.destroy();
    }
  });
});
