/**
 * `watch --stats cgroups`'s memory wake on a kubelet-shaped node of 20 pods (harness/kubelet-node.ts:
 * the kubelet's cgroupfs layout built for real, a process in every container cgroup, one pod holding
 * 30 MiB): the reader leaves the small pods unread, kubepods' usage bounds each of them and all of
 * them together (the kernel's hierarchical charge, read from the cgroups themselves), a pod the
 * Summary has no entry for is always read, naming an unread pod reads them all, and the loop's pick
 * through the stats port equals the pick on a complete fresh read.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { nodeLocalStatsPort } from "../../src/app/cluster/node-local-stats-port.js";
import { withNodeLocalMemory, type ApiPodInfo } from "../../src/app/cluster/node-local-summary.js";
import { pickOnBounds } from "../../src/app/loop/bounded-memory-pick.js";
import { buildEvictionConfig } from "../../src/core/config/build-eviction-config.js";
import { synchronize } from "../../src/core/engine/synchronize.js";
import { INITIAL_STATE } from "../../src/core/engine/types.js";
import { IssueList } from "../../src/core/issues.js";
import type { NodeSummary, Pod } from "../../src/core/model.js";
import { decodePod } from "../../src/core/pod/decode-pod.js";
import { decodeSummary } from "../../src/core/summary/decode-summary.js";
import { KubeletCgroupTree } from "../../src/linux/kubelet-cgroups/kubelet-cgroup-tree.js";
import { KubeletMemoryReader } from "../../src/linux/kubelet-cgroups/kubelet-memory-reader.js";
import { KubeletNode, kubeletNodeUnavailable, type RunningPod } from "../harness/kubelet-node.js";

const MiB = 1024 * 1024;
const IDLE_PODS = 19;
const skip = kubeletNodeUnavailable();
if (skip !== false) console.error(`# kubelet memory reader tests skipped: ${skip}`);

/** A pod cgroup's usage, straight from the kernel. */
function usageOf(api: "v1" | "v2", dir: string): bigint {
  return BigInt(
    readFileSync(path.join(dir, api === "v1" ? "memory.usage_in_bytes" : "memory.current"), "utf8").trim(),
  );
}

describe("the kubelet memory reader's partial memory wake", { skip: skip !== false ? skip : false }, () => {
  let node: KubeletNode;
  let holder: RunningPod;
  const idle: RunningPod[] = [];
  let reader: KubeletMemoryReader;
  let infos: ApiPodInfo[];
  /** The Summary API's sample: every pod listed, its memory figures from long ago. */
  let staleSummary: Record<string, unknown>;

  before(async () => {
    node = new KubeletNode("cgroupfs", 4096 * MiB);
    holder = node.addPod({
      qos: "Burstable",
      // One process (a kill of it empties the cgroup) holding 30 MiB until killed.
      containers: [{ argv: ["perl", "-e", 'my @a; push @a, "a" x 1048576 for 1 .. 30; sleep 600'] }],
    });
    for (let i = 0; i < IDLE_PODS; i++)
      idle.push(
        node.addPod({
          qos: i % 2 === 0 ? "BestEffort" : "Burstable",
          containers: [{ argv: ["sleep", "600"] }],
        }),
      );
    const deadline = Date.now() + 20_000;
    while (usageOf(node.api, holder.dir) < BigInt(30 * MiB) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(usageOf(node.api, holder.dir) >= BigInt(30 * MiB), "the holder holds its 30 MiB");
    const tree = new KubeletCgroupTree({
      cgroupfs: node.cgroupfs,
      driver: "cgroupfs",
      cgroupRoot: "/",
      nodeCgroup: node.nodeCgroup,
    });
    reader = new KubeletMemoryReader(tree);
    infos = [holder, ...idle].map((p, i) => ({
      uid: p.uid,
      name: `pod-${i}`,
      namespace: "default",
      containerNames: new Map(p.containers.map((c) => [c.id, "app"])),
    }));
    const old = "2026-01-01T00:00:00Z";
    staleSummary = {
      node: {
        nodeName: "kubelet-node",
        startTime: old,
        memory: { time: old, availableBytes: 4096 * MiB, workingSetBytes: 0 },
      },
      pods: infos.map((p) => ({
        podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
        memory: { time: old, usageBytes: 0, workingSetBytes: 0 },
        containers: [{ name: "app", memory: { time: old, usageBytes: 0, workingSetBytes: 0 } }],
      })),
    };
  });

  after(async () => {
    reader?.close();
    await node?.destroy();
  });

  test("the small pods stay unread, bounded by kubepods' usage; a pod without a Summary entry is read", () => {
    const uids = infos.map((p) => p.uid);
    reader.read("all", uids);
    const withoutEntry = idle[3]?.uid as string;
    const wake = reader.read("memory", uids, {
      mayStayUnread: new Set(uids.filter((u) => u !== withoutEntry)),
    });
    const unread = wake.unread;
    assert.ok(unread !== undefined, "a 20-pod memory wake leaves the small pods unread");
    assert.ok(unread.uids.size >= 5 && unread.uids.size <= 20 - 8, `${unread.uids.size} pods left unread`);
    assert.ok(!unread.uids.has(holder.uid), "the largest pod is read");
    assert.ok(!unread.uids.has(withoutEntry), "a pod the Summary does not list is read");
    assert.ok(wake.podsByUid.has(withoutEntry));
    let total = 0n;
    for (const pod of idle) {
      if (!unread.uids.has(pod.uid)) continue;
      assert.ok(!wake.podsByUid.has(pod.uid), `${pod.uid} is not read`);
      const u = usageOf(node.api, pod.dir);
      total += u;
      assert.ok(u <= unread.usageBoundBytes, `${pod.uid}: ${u} ≤ ${unread.usageBoundBytes}`);
    }
    assert.ok(total <= unread.usageBoundBytes + BigInt(MiB), `${total} ≤ ${unread.usageBoundBytes}`);
    // Without a Summary to keep entries from, every pod is read.
    const all = reader.read("memory", uids);
    assert.equal(all.unread, undefined);
    assert.equal(all.podsByUid.size, infos.length);
  });

  test("naming an unread pod reads them all; the loop's pick equals a complete read's", async () => {
    const port = nodeLocalStatsPort({
      memory: reader,
      summary: () => staleSummary,
      pods: () => infos,
      source: "test",
      clock: { now: () => Date.now() },
    });
    const sample = await port.collect("memory");
    const unread = sample.unread;
    assert.ok(unread !== undefined);
    const refresh = port.refreshPods?.bind(port);
    assert.ok(refresh !== undefined);
    const keeps = await refresh(sample, [holder.uid]);
    assert.equal(keeps.unread, unread, "naming a read pod keeps the others unread");
    const someUnread = [...unread.uids][0] as string;
    const readAll = await refresh(sample, [someUnread]);
    assert.equal(readAll.unread, undefined, "naming an unread pod reads them all");
    for (const uid of unread.uids) {
      const entry = readAll.summary.pods.find((p) => p.podRef.uid === uid);
      assert.ok(entry?.memory?.time !== undefined && entry.memory.time > Date.parse("2026-01-02"), uid);
    }

    // With the holder over its request it is picked from the bound at once; within it, an unread
    // BestEffort pod at the bound ranks first, every pod is read, and a BestEffort pod is picked.
    const bestEffort = new Set(idle.filter((_, i) => i % 2 === 0).map((p) => p.uid));
    for (const holderRequest of ["1Mi", "64Mi"]) {
      const issues = new IssueList();
      const active: Pod[] = infos.map((p) => {
        const request = p.uid === holder.uid ? holderRequest : bestEffort.has(p.uid) ? undefined : "1Mi";
        const pod = decodePod(
          {
            metadata: { name: p.name, namespace: p.namespace, uid: p.uid },
            spec: {
              containers: [
                {
                  name: "app",
                  ...(request !== undefined ? { resources: { requests: { memory: request } } } : {}),
                },
              ],
            },
          },
          "pod",
          issues,
        );
        assert.ok(pod !== undefined);
        return pod;
      });
      const built = buildEvictionConfig({
        config: { evictionHard: { "memory.available": "4095Mi" }, enforceNodeAllocatable: ["none"] },
      });
      assert.ok(built.ok);
      const now = Date.now();
      const decideOn = (summary: NodeSummary | undefined) =>
        synchronize(built.config, INITIAL_STATE, { now, summary, activePods: active, layout: "single" });
      const picked = (r: ReturnType<typeof decideOn>): string[] =>
        r.kind === "done" ? r.report.evictions.map((e) => e.pod.uid) : ["reclaim"];
      let completeReads = 0;
      const wake = await port.collect("memory");
      assert.ok(wake.unread !== undefined);
      const pick = await pickOnBounds(wake, {
        decide: decideOn,
        readPods: refresh,
        readAll: async () => {
          completeReads++;
          return port.collect("all");
        },
      });
      const complete = decodeSummary(
        withNodeLocalMemory(
          staleSummary,
          reader.read(
            "all",
            infos.map((p) => p.uid),
          ),
          infos,
        ),
        "summary",
        Date.now(),
        new IssueList(),
      );
      const expected = picked(decideOn(complete));
      assert.equal(expected.length, 1);
      if (holderRequest === "1Mi") {
        assert.deepEqual(expected, [holder.uid]);
        assert.deepEqual(picked(pick.result), expected);
        assert.equal(completeReads, 0, "the bound and the holder's read settle the pick");
      } else {
        // Idle pods of equal size may trade places by a page between two reads: compared by QoS.
        assert.ok(bestEffort.has(expected[0] as string), "a BestEffort idle pod on the complete read");
        const got = picked(pick.result)[0] as string;
        assert.ok(bestEffort.has(got), `${got} is a BestEffort idle pod`);
      }
    }
  });
});
