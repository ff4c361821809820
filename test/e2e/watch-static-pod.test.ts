/**
 * Static pods under `--stats cgroups`, on a kubelet-shaped node for each cgroup driver
 * (harness/kubelet-node.ts): the kubelet names a static pod's cgroup after its config hash
 * (`pod<hash>`, `kubepods-besteffort-pod<hash>.slice`) and lists it under that UID in its Summary,
 * while the API shows its mirror pod, with a UID of its own and the hash in
 * `kubernetes.io/config.mirror`. Two static pods, each a real process holding memory in its
 * cgroup: one the Summary lists under its hash with stale figures, one it does not list yet.
 * Checked, in `explain` and in a running watch's /status: each is ranked once, by its mirror's
 * namespace/name, with its cgroup's working set (not the Summary's figure, not "no stats"), and
 * as critical (never evicted), as the kubelet holds every static pod.
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { parseQuantity, quantityValue } from "../../src/core/quantity.js";
import { startFakeApiServer } from "../harness/fake-api-server/fake-api-server.js";
import {
  apiPod,
  clusterDataOptions,
  startResidents,
  staticPodHash,
  writeClusterData,
} from "../harness/kubelet-node-cluster.js";
import {
  containerId,
  KubeletNode,
  kubeletNodeUnavailable,
  type KubeletDriver,
  type RunningPod,
} from "../harness/kubelet-node.js";
import { EVICTD_BIN, REPO_ROOT, scaled, waitUntil } from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const skip = kubeletNodeUnavailable();
if (skip !== false) console.error(`# static pod e2e skipped: ${skip}`);

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A pod cgroup's usage, straight from the kernel. */
function usageOf(api: "v1" | "v2", dir: string): number {
  return Number(
    readFileSync(path.join(dir, api === "v1" ? "memory.usage_in_bytes" : "memory.current"), "utf8"),
  );
}

/** One process holding `mib` MiB of its own heap until killed. */
const holding = (mib: number): string[] => [
  "perl",
  "-e",
  `my @a; push @a, "a" x 1048576 for 1 .. ${mib}; sleep 600`,
];

interface RankingJson {
  signal: string;
  order: { place: number; pod: string; critical: boolean; reason: string }[];
}

/** The working set a ranking reason states (`working set 19968Ki against …`), in bytes. */
function workingSetOf(reason: string): number {
  const m = /^working set (\S+) against/.exec(reason);
  assert.ok(m?.[1] !== undefined, `a working set in: ${reason}`);
  return Number(quantityValue(parseQuantity(m[1])));
}

async function scenario(driver: KubeletDriver): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `evictd-static-pod-${driver}-`));
  temps.push(dir);
  const nodeName = `static-node-${driver}`;
  const node = new KubeletNode(driver, 512 * MiB);
  let watch: ChildProcess | undefined;
  const server = { current: undefined as Awaited<ReturnType<typeof startFakeApiServer>> | undefined };
  try {
    const residents = startResidents(node, nodeName);
    // kube-proxy: BestEffort, listed in the Summary under its hash with the template entry's stale
    // figures; etcd: Burstable, started after the kubelet's last housekeeping, not listed at all.
    const statics = [
      {
        name: `kube-proxy-${nodeName}`,
        container: "kube-proxy",
        qos: "BestEffort" as const,
        mib: 20,
        listed: true,
      },
      { name: `etcd-${nodeName}`, container: "etcd", qos: "Burstable" as const, mib: 12, listed: false },
    ].map((s) => {
      const hash = staticPodHash();
      const id = containerId();
      const running: RunningPod = node.addPod({
        uid: hash,
        qos: s.qos,
        containers: [{ id, argv: holding(s.mib) }],
      });
      const mirror = apiPod(nodeName, {
        name: s.name,
        namespace: "kube-system",
        uid: randomUUID(),
        qos: s.qos,
        containers: [{ name: s.container, id }],
        mirrorOf: hash,
      });
      return { ...s, hash, running, mirror, key: `kube-system/${s.name}` };
    });
    for (const s of statics)
      assert.ok(s.running.dir.includes(`pod${s.hash}`), `${s.running.dir} is named by the hash`);
    await waitUntil(
      "the static pods' processes holding their memory",
      () => (statics.every((s) => usageOf(node.api, s.running.dir) >= s.mib * MiB) ? true : undefined),
      20_000,
      () => statics.map((s) => ` ${s.name}: ${usageOf(node.api, s.running.dir)}`).join(""),
      25,
    );
    writeClusterData(dir, {
      nodeName,
      driver,
      pods: [...residents, ...statics.map((s) => s.mirror)],
      unlisted: statics.filter((s) => !s.listed).map((s) => s.name),
    });
    const summary = JSON.parse(readFileSync(path.join(dir, "summary.json"), "utf8")) as {
      pods: { podRef: { name: string; uid: string }; memory: { workingSetBytes: number } }[];
    };
    const listed = summary.pods.find((p) => p.podRef.name === statics[0]?.name);
    assert.equal(
      listed?.podRef.uid,
      statics[0]?.hash,
      "the kubelet's Summary lists the static pod by its hash",
    );
    const staleBytes = listed?.memory.workingSetBytes ?? 0;
    assert.ok(!summary.pods.some((p) => p.podRef.name === statics[1]?.name));

    const s = await startFakeApiServer(clusterDataOptions(dir, nodeName));
    server.current = s;
    const kubeconfig = await s.writeKubeconfig(path.join(dir, "kubeconfig"));
    const nodeLocal = ["--stats", "cgroups", "--cgroupfs", node.cgroupfs, "--node-cgroup", node.nodeCgroup];

    /** Each static pod ranked once, by its mirror, at its cgroup's working set, and critical. */
    const checkRanking = (ranking: RankingJson | null | undefined, where: string): void => {
      assert.ok(ranking, `${where}: a ranking`);
      assert.equal(ranking.signal, "memory.available");
      for (const st of statics) {
        const entries: RankingJson["order"] = ranking.order.filter((e) => e.pod === st.key);
        assert.equal(entries.length, 1, `${where}: ${st.key} ranked once`);
        const entry = entries[0];
        assert.ok(entry !== undefined);
        assert.equal(entry.critical, true, `${where}: ${st.key} is critical`);
        assert.match(entry.reason, /; critical: never evicted$/);
        const ws = workingSetOf(entry.reason);
        const usage = usageOf(node.api, st.running.dir);
        // Working set = usage − inactive_file: at most the cgroup's usage (read after, a page of slack
        // for the process's stack), at least what the process holds.
        assert.ok(
          ws >= st.mib * MiB && ws <= usage + MiB,
          `${where}: ${st.key} ${ws} in [${st.mib} MiB, ${usage}]`,
        );
        if (st.listed) assert.notEqual(ws, staleBytes, `${where}: not the Summary's figure`);
      }
      assert.ok(
        !ranking.order.some((e) => statics.some((st) => e.pod.includes(st.hash))),
        `${where}: no pod named by a hash`,
      );
    };

    const explained = await promisify(execFile)(
      process.execPath,
      [EVICTD_BIN, "explain", "--node", nodeName, "--kubeconfig", kubeconfig, ...nodeLocal, "-o", "json"],
      { cwd: REPO_ROOT },
    );
    const view = JSON.parse(explained.stdout) as { ranking: RankingJson | null; skippedPods: unknown[] };
    assert.deepEqual(view.skippedPods, []);
    checkRanking(view.ranking, "explain");

    // The daemon: its stats port maps the mirrors to their cgroups the same way.
    watch = spawn(
      process.execPath,
      [
        EVICTD_BIN,
        "watch",
        "--node",
        nodeName,
        "--kubeconfig",
        kubeconfig,
        ...nodeLocal,
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
    const status = await waitUntil(
      "a ranking on /status",
      async () => {
        const body = (await (await fetch(`${url}/status`)).json()) as { ranking: RankingJson | null };
        return body.ranking ?? undefined;
      },
      15_000,
      () => `\n${stdout}${stderr}`,
      50,
    );
    checkRanking(status, "/status");
    watch.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => watch?.once("exit", (c) => resolve(c)));
    assert.equal(code, 0, stderr);
    watch = undefined;
  } finally {
    watch?.kill("SIGKILL");
    await server.current?.close();
    await node.destroy();
  }
}

describe("static pods under evictd --stats cgroups on a kubelet-shaped node", { skip }, () => {
  for (const driver of ["cgroupfs", "systemd"] as const)
    test(
      `${driver} driver: a mirror pod is measured from the cgroup named after its config hash, and stays critical`,
      { timeout: scaled(60_000) },
      () => scenario(driver),
    );
});
