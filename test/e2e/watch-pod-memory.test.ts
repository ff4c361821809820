/**
 * What /status and the page at / say of each pod's memory under `evictd watch --stats cgroups` on a
 * kubelet-shaped node (harness/kubelet-node.ts: the kubelet's cgroupfs layout built for real, real
 * processes holding different known amounts of memory), with no pressure at all:
 *
 * - watch end to end: each pod's working set on /status is its cgroup's own usage − inactive_file
 *   (read here from the kernel's files), none 0, read by the last sample; the memory ranking's
 *   reasons and the page give the same figures. (Housekeeping once read pods' usage alone, and
 *   /status said "working set 0" for every pod.)
 * - a memory wake's read, through the loop and the stats port watch wires, on the same cgroups:
 *   it reads usage alone, so each pod's working set is the housekeeping's, shown with that read's
 *   time and said to be older than the last read.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { nodeLocalStatsPort } from "../../src/app/cluster/node-local-stats-port.js";
import { apiPodInfo, type ApiPodInfo } from "../../src/app/cluster/node-local-summary.js";
import { EvictionLoop } from "../../src/app/loop/eviction-loop.js";
import { LastPodMemory } from "../../src/app/node-view/last-pod-memory.js";
import { withPodMemoryFigures } from "../../src/app/node-view/pod-memory-figures.js";
import { podStatusView } from "../../src/app/node-view/pod-status-view.js";
import { buildStatusView, type PodMemoryView } from "../../src/app/node-view/status-view.js";
import type { PodsPort, Wake, WakePort } from "../../src/app/ports.js";
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import { IssueList } from "../../src/core/issues.js";
import type { Pod } from "../../src/core/model.js";
import { decodePod } from "../../src/core/pod/decode-pod.js";
import { currentRanking } from "../../src/core/rank/explain-ranking.js";
import { formatRfc3339Ms } from "../../src/core/time/rfc3339.js";
import { KubeletCgroupTree } from "../../src/linux/kubelet-cgroups/kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "../../src/linux/kubelet-cgroups/kubelet-memory-reader.js";
import { startFakeApiServer, type FakePod } from "../harness/fake-api-server/fake-api-server.js";
import { apiPod, clusterDataOptions, writeClusterData } from "../harness/kubelet-node-cluster.js";
import {
  containerId,
  KubeletNode,
  kubeletNodeUnavailable,
  type RunningPod,
} from "../harness/kubelet-node.js";
import { EVICTD_BIN, holdMemory, REPO_ROOT, scaled, waitUntil } from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const CAPACITY = 512 * MiB;
/** What each pod's one process holds (perl strings, touched), far below any threshold. */
const HOLDS_MIB = [12, 24, 40] as const;
/** How far evictd's figure may be from the one read here a moment later: the processes sleep. */
const TOLERANCE = BigInt(MiB);
const skip = kubeletNodeUnavailable();
if (skip !== false) console.error(`# watch pod memory e2e skipped: ${skip}`);

/** A cgroup's working set as cAdvisor defines it, from the kernel's own files: usage − inactive_file. */
function workingSetOf(api: "v1" | "v2", dir: string): bigint {
  const usage = BigInt(
    readFileSync(path.join(dir, api === "v1" ? "memory.usage_in_bytes" : "memory.current"), "utf8").trim(),
  );
  const stat = readFileSync(path.join(dir, "memory.stat"), "utf8");
  const key = api === "v1" ? "total_inactive_file" : "inactive_file";
  const inactive = BigInt(new RegExp(`^${key} (\\d+)$`, "m").exec(stat)?.[1] ?? "0");
  return usage > inactive ? usage - inactive : 0n;
}

interface Holders {
  readonly node: KubeletNode;
  readonly running: readonly RunningPod[];
  readonly api: readonly FakePod[];
}

/** One pod per amount in HOLDS_MIB, each holding it before this returns. */
async function startHolders(nodeName: string): Promise<Holders> {
  const node = new KubeletNode("cgroupfs", CAPACITY);
  const running: RunningPod[] = [];
  const api: FakePod[] = [];
  HOLDS_MIB.forEach((mib, i) => {
    const id = containerId();
    const pod = node.addPod({ qos: "BestEffort", containers: [{ id, argv: holdMemory(mib) }] });
    running.push(pod);
    api.push(
      apiPod(nodeName, {
        name: `scratch-${i}`,
        namespace: "jobs",
        uid: pod.uid,
        qos: "BestEffort",
        containers: [{ name: "main", id }],
      }),
    );
  });
  await waitUntil(
    "every holder holding its memory",
    () =>
      running.every((p, i) => workingSetOf(node.api, p.dir) >= BigInt((HOLDS_MIB[i] ?? 0) * MiB))
        ? true
        : undefined,
    20_000,
    () => `: ${running.map((p) => workingSetOf(node.api, p.dir)).join(", ")}`,
    20,
  );
  return { node, running, api };
}

/** evictd's figure for a pod against the cgroup's own, read now. */
function assertMatchesCgroup(node: KubeletNode, pod: RunningPod, mib: number, bytes: bigint): void {
  const own = workingSetOf(node.api, pod.dir);
  const diff = bytes > own ? bytes - own : own - bytes;
  assert.ok(bytes >= BigInt(mib * MiB), `${pod.uid}: ${bytes} holds at least ${mib} MiB`);
  assert.ok(diff <= TOLERANCE, `${pod.uid}: evictd says ${bytes}, the cgroup ${own}`);
}

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** The parts of /status read here. */
interface StatusJson {
  lastSync: { time: string } | null;
  pods: { pod: string; uid: string; memory?: PodMemoryView & { workingSetBytes: number } }[];
  ranking: { signal: string; order: { pod: string; reason: string }[] } | null;
}

describe("each pod's memory on /status under watch --stats cgroups", { skip }, () => {
  test(
    "no pressure: every pod's working set is its cgroup's, read by the last sample, on /status and the page",
    { timeout: scaled(90_000) },
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "evictd-pod-memory-"));
      temps.push(dir);
      const nodeName = "kubelet-node-pod-memory";
      const holders = await startHolders(nodeName);
      const { node } = holders;
      let watch: ChildProcess | undefined;
      try {
        writeClusterData(dir, { nodeName, driver: "cgroupfs", pods: holders.api });
        const s = await startFakeApiServer(clusterDataOptions(dir, nodeName));
        try {
          const kubeconfig = await s.writeKubeconfig(path.join(dir, "kubeconfig"));
          watch = spawn(
            process.execPath,
            [
              EVICTD_BIN,
              "watch",
              "--node",
              nodeName,
              "--kubeconfig",
              kubeconfig,
              "--stats",
              "cgroups",
              "--cgroupfs",
              node.cgroupfs,
              "--node-cgroup",
              node.nodeCgroup,
              "--interval",
              "1s",
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
          // Two housekeeping steps past the first: the figures are a housekeeping read's, not the start's.
          let syncs = new Set<string>();
          const status = await waitUntil(
            "/status after a few housekeeping steps",
            async () => {
              const v = (await (await fetch(`${url}/status`)).json()) as StatusJson;
              if (v.lastSync !== null) syncs = new Set([...syncs, v.lastSync.time]);
              return syncs.size >= 3 ? v : undefined;
            },
            20_000,
            () => `\n${stdout.split("\n").slice(-5).join("\n")}${stderr}`,
          );
          holders.running.forEach((pod, i) => {
            const mib = HOLDS_MIB[i] ?? 0;
            const entry = status.pods.find((p) => p.uid === pod.uid);
            const memory = entry?.memory;
            assert.ok(memory !== undefined, `${entry?.pod ?? pod.uid} has its memory on /status`);
            assert.equal(memory.fromLastRead, true, "a housekeeping step reads every pod's working set");
            assert.equal(memory.asOf, undefined);
            assertMatchesCgroup(node, pod, mib, BigInt(memory.workingSetBytes));
            // The ranking's reason gives the same figure, not 0.
            const reason = status.ranking?.order.find((o) => o.pod === entry?.pod)?.reason ?? "";
            assert.ok(reason.startsWith(`working set ${memory.workingSet} against`), reason);
          });
          assert.equal(status.ranking?.signal, "memory.available");
          assert.ok(
            !status.ranking.order.some((o) => o.reason.startsWith("working set 0 ")),
            JSON.stringify(status.ranking),
          );
          // The page shows every pod's working set too.
          const page = await (await fetch(`${url}/`)).text();
          const table = /<table class="pods" id="pod-memory">(.*?)<\/table>/s.exec(page)?.[1] ?? "";
          for (const [i] of holders.running.entries())
            assert.match(
              table,
              new RegExp(
                `<td>jobs/scratch-${i}</td><td>Running</td><td class="num">[1-9][0-9]*[KM]i</td><td>read `,
              ),
            );
          watch.kill("SIGTERM");
          const code = await new Promise<number | null>((resolve) => watch?.once("exit", (c) => resolve(c)));
          assert.equal(code, 0, stderr);
          watch = undefined;
        } finally {
          watch?.kill("SIGKILL");
          await s.close();
        }
      } finally {
        await node.destroy();
      }
    },
  );

  test(
    "a memory wake reads usage alone: each pod shows the housekeeping's working set, as of that read",
    { timeout: scaled(60_000) },
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "evictd-pod-memory-wake-"));
      temps.push(dir);
      const nodeName = "kubelet-node-pod-memory-wake";
      const holders = await startHolders(nodeName);
      const { node } = holders;
      const reader = new KubeletMemoryReader(
        new KubeletCgroupTree({
          cgroupfs: node.cgroupfs,
          driver: "cgroupfs",
          cgroupRoot: "/",
          nodeCgroup: node.nodeCgroup,
        }),
      );
      try {
        // The Summary API's sample, as the harness's kubelet serves it: every pod, stale figures.
        writeClusterData(dir, { nodeName, driver: "cgroupfs", pods: holders.api });
        const summary = JSON.parse(readFileSync(path.join(dir, "summary.json"), "utf8")) as unknown;
        const infos = holders.api
          .map((raw) => apiPodInfo(raw))
          .filter((p): p is ApiPodInfo => p !== undefined);
        const pods = holders.api
          .map((raw) => decodePod(raw, "pod", new IssueList()))
          .filter((p): p is Pod => p !== undefined);
        const configResult = buildEvictionConfig({
          config: {
            apiVersion: "kubelet.config.k8s.io/v1beta1",
            kind: "KubeletConfiguration",
            evictionHard: { "memory.available": "100Mi" },
          },
        });
        assert.ok(configResult.ok);
        const podsPort: PodsPort = {
          activePods: () => pods,
          kill: () => assert.fail("nothing is evicted without pressure"),
          isCleanedUp: () => Promise.resolve(true),
          containerGC: () => Promise.resolve({ freedBytes: 0 }),
          imageGC: () => Promise.resolve({ freedBytes: 0 }),
        };
        const noWake: WakePort = { next: () => new Promise(() => undefined), rearm: () => undefined };
        const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
        const clock = { now: () => Date.now(), sleep: () => Promise.resolve() };
        const podMemory = new LastPodMemory();
        // Wired as watch wires it (cli/commands/watch.ts).
        const loop = new EvictionLoop({
          config: configResult.config,
          layout: "single",
          housekeepingIntervalMs: 10_000,
          stats: nodeLocalStatsPort({
            memory: reader,
            summary: () => summary,
            pods: () => infos,
            source: "test",
            clock,
          }),
          pods: podsPort,
          wake: noWake,
          clock,
          log: quiet,
          podMemory,
        });
        const wake = (notification: boolean): Wake => ({
          reason: notification ? "memcg threshold" : "timer",
          at: Date.now(),
          notification,
        });

        const housekeeping = await loop.runOnce(wake(false));
        assert.equal(housekeeping.report.evictions.length, 0);
        const readAt = housekeeping.sample?.summary.node.memory?.time;
        assert.ok(readAt !== undefined);
        let figures = podMemory.figures();
        holders.running.forEach((pod, i) => {
          const f = figures.byUid.get(pod.uid);
          assert.ok(f !== undefined && f.fromLastRead, `${pod.uid}: read by the housekeeping`);
          assert.equal(f.time, readAt);
          assertMatchesCgroup(node, pod, HOLDS_MIB[i] ?? 0, f.workingSetBytes);
        });
        const before = new Map([...figures.byUid].map(([uid, f]) => [uid, f.workingSetBytes]));

        const memoryWake = await loop.runOnce(wake(true));
        assert.equal(memoryWake.report.evictions.length, 0);
        const wakeReadAt = memoryWake.sample?.summary.node.memory?.time;
        assert.ok(wakeReadAt !== undefined && wakeReadAt > readAt);
        for (const pod of holders.running)
          assert.equal(
            memoryWake.sample?.summary.pods.find((p) => p.podRef.uid === pod.uid)?.memory?.workingSetBytes,
            undefined,
            "the wake read usage alone",
          );
        figures = podMemory.figures();
        assert.equal(figures.readAt, wakeReadAt);
        for (const pod of holders.running) {
          const f = figures.byUid.get(pod.uid);
          assert.deepEqual(
            { ws: f?.workingSetBytes, time: f?.time, last: f?.fromLastRead },
            { ws: before.get(pod.uid), time: readAt, last: false },
          );
        }

        // /status as watch's snapshot builds it.
        const sample = memoryWake.sample;
        assert.ok(sample !== undefined);
        const ranking = currentRanking(
          memoryWake.report,
          "single",
          pods,
          withPodMemoryFigures(sample.summary, figures),
        );
        assert.ok(ranking !== undefined);
        const view = buildStatusView({
          node: { name: nodeName, listen: { host: "127.0.0.1", port: 0 }, eviction: configResult.config },
          startedAt: readAt,
          now: Date.now(),
          capabilities: [],
          conditions: [],
          lastReport: memoryWake.report,
          pods: holders.api.map((raw, i) => podStatusView(raw, pods[i] ?? assert.fail("decoded"))),
          podMemory: figures,
          ranking,
          evictions: [],
          evictionCounts: {},
        });
        const asOf = `as of ${formatRfc3339Ms(readAt)} (`;
        for (const entry of view.pods) {
          const memory = entry["memory"] as PodMemoryView | undefined;
          assert.equal(memory?.fromLastRead, false, String(entry["pod"]));
          assert.equal(memory?.olderThanLastReadMs, Math.round(wakeReadAt - readAt));
          assert.ok(
            memory?.asOf?.startsWith(asOf) === true && memory.asOf.endsWith(" before the last read)"),
            memory?.asOf,
          );
          assert.notEqual(memory?.workingSetBytes, 0n);
        }
        for (const o of view.ranking?.order ?? []) {
          assert.ok(!o.reason.startsWith("working set 0 "), o.reason);
          assert.ok(o.reason.includes(`; working set ${asOf}`), o.reason);
        }
      } finally {
        reader.close();
        await node.destroy();
      }
    },
  );
});
