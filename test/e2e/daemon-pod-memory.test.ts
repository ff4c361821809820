/**
 * `evictd run` end to end on what /status says of each pod's memory, with no pressure: pods whose
 * one process holds a known amount of memory, each pod's working set on /status within a MiB of its
 * pod cgroup's own usage − inactive_file (read here from the kernel's files), none 0, and the
 * memory ranking's reasons give the same figures. A figure the last sample did not read (a
 * housekeeping read reuses pod figures for a refresh period) carries its time and says how much
 * older than the last read it is. The loop thread keeps the figures; this checks they reach /status.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  E2E_SKIP,
  holdMemory,
  podManifest,
  scaled,
  TestNode,
  waitUntil,
  type Daemon,
} from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const HOLDS_MIB = [12, 24, 40] as const;
const uidOf = (i: number): string => `0b7c4e1a-5d2f-4a8b-9c3e-00000000000${i}`;

/** A cgroup's working set from the kernel's own files: usage − inactive_file (v1 or v2). */
function workingSetOf(dir: string): bigint {
  const v2 = existsSync(join(dir, "memory.current"));
  const usage = BigInt(
    readFileSync(join(dir, v2 ? "memory.current" : "memory.usage_in_bytes"), "utf8").trim(),
  );
  const key = v2 ? "inactive_file" : "total_inactive_file";
  const stat = readFileSync(join(dir, "memory.stat"), "utf8");
  const inactive = BigInt(new RegExp(`^${key} (\\d+)$`, "m").exec(stat)?.[1] ?? "0");
  return usage > inactive ? usage - inactive : 0n;
}

/** The parts of /status read here. */
interface StatusJson {
  pods: {
    pod: string;
    uid: string;
    memory?: {
      workingSet: string;
      workingSetBytes: number;
      time?: string;
      fromLastRead: boolean;
      olderThanLastReadMs?: number;
      asOf?: string;
    };
  }[];
  ranking: { signal: string; order: { pod: string; reason: string }[] } | null;
}

describe("evictd run: each pod's memory on /status", { skip: E2E_SKIP }, () => {
  let node: TestNode;
  let daemon: Daemon;

  before(
    async () => {
      node = await TestNode.create("podmemory");
      await node.writeNodeFile({
        capacity: { memory: "1Gi" },
        config: { evictionHard: { "memory.available": "50Mi" } },
      });
      for (const [i, mib] of HOLDS_MIB.entries()) {
        const manifest = podManifest({
          name: `scratch-${i}`,
          containers: [{ name: "main", command: holdMemory(mib) }],
        });
        await node.addPod({ ...manifest, metadata: { ...(manifest["metadata"] as object), uid: uidOf(i) } });
      }
      daemon = await node.start();
    },
    { timeout: scaled(30_000) },
  );

  after(async () => {
    await node?.cleanup();
  });

  test(
    "no pressure: every pod's working set is its cgroup's, and an earlier read's says so",
    { timeout: scaled(40_000) },
    async () => {
      // BestEffort pods: <node>/pods/besteffort/pod<uid> (the kubelet's cgroupfs layout).
      const podDir = (i: number): string =>
        join(node.memoryCgroupDir(), "pods", "besteffort", `pod${uidOf(i)}`);
      let last: StatusJson | undefined;
      const status = await waitUntil(
        "every pod's working set on /status at what it holds",
        async () => {
          last = (await (await fetch(`${daemon.url}/status`)).json()) as StatusJson;
          const all = HOLDS_MIB.every((mib, i) => {
            const m = last?.pods.find((p) => p.uid === uidOf(i))?.memory;
            return m !== undefined && m.workingSetBytes >= mib * MiB;
          });
          return all ? last : undefined;
        },
        25_000,
        () => `\n${JSON.stringify(last?.pods.map((p) => [p.pod, p.memory]))}${daemon.tail()}`,
      );
      for (const [i] of HOLDS_MIB.entries()) {
        const entry = status.pods.find((p) => p.uid === uidOf(i));
        const memory = entry?.memory;
        assert.ok(memory !== undefined);
        const own = workingSetOf(podDir(i));
        const bytes = BigInt(memory.workingSetBytes);
        const diff = bytes > own ? bytes - own : own - bytes;
        assert.ok(diff <= BigInt(MiB), `${entry?.pod}: /status says ${bytes}, the cgroup ${own}`);
        if (memory.fromLastRead) assert.equal(memory.asOf, undefined);
        else {
          assert.ok((memory.olderThanLastReadMs ?? 0) > 0, JSON.stringify(memory));
          assert.equal(memory.asOf?.startsWith(`as of ${memory.time} (`), true, memory.asOf);
        }
        const reason = status.ranking?.order.find((o) => o.pod === entry?.pod)?.reason ?? "";
        assert.ok(reason.startsWith(`working set ${memory.workingSet} against`), reason);
      }
      assert.equal(status.ranking?.signal, "memory.available");
    },
  );
});
