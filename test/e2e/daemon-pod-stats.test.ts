/**
 * `evictd run` end to end on what /stats/summary says about each pod: a pod is measured in the
 * directory the runtime runs it in, whatever its UID (a manifest's explicit `metadata.uid` such as
 * `web.1` is not a safe directory name and is stored under a hashed name), and the pod's and each
 * container's `startTime` are the ones the runtime recorded. The recorded values are read from the
 * pods' status files, found by scanning the state dir (this suite does not compute the layout).
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  E2E_SKIP,
  evicted,
  podManifest,
  podStatus,
  sh,
  TestNode,
  waitUntil,
  type Daemon,
  type PodOptions,
  scaled,
} from "../harness/node-harness.js";

const MiB = 1024 * 1024;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The parts of a Summary pod entry read here. */
interface SummaryPod {
  readonly podRef: { readonly name: string; readonly namespace: string; readonly uid: string };
  readonly startTime?: string;
  readonly containers: readonly { readonly name: string; readonly startTime?: string }[];
  readonly volume?: readonly { readonly name: string; readonly usedBytes?: number }[];
  readonly "ephemeral-storage"?: { readonly usedBytes?: number };
}

/** The parts of a pod's status file read here. */
interface StatusFile {
  readonly uid: string;
  readonly startTime?: string;
  readonly containers: readonly { readonly name: string; readonly startedAt?: number }[];
}

/** A pod manifest with an explicit `metadata.uid`. */
function withUid(uid: string, o: PodOptions): Record<string, unknown> {
  const manifest = podManifest(o);
  return { ...manifest, metadata: { ...(manifest["metadata"] as object), uid } };
}

async function summaryPods(daemon: Daemon): Promise<SummaryPod[]> {
  const r = await fetch(`${daemon.url}/stats/summary`);
  if (r.status !== 200) return [];
  return ((await r.json()) as { pods?: SummaryPod[] }).pods ?? [];
}

/** The status file the runtime wrote for `uid`, wherever under `<stateDir>/pods` it put it. */
async function statusFileOf(stateDir: string, uid: string): Promise<StatusFile | undefined> {
  const podsDir = join(stateDir, "pods");
  for (const name of await readdir(podsDir).catch(() => [])) {
    const text = await readFile(join(podsDir, name, "status.json"), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const status = JSON.parse(text) as StatusFile;
    if (status.uid === uid) return status;
  }
  return undefined;
}

describe("evictd run: /stats/summary per pod", { skip: E2E_SKIP }, () => {
  let node: TestNode;
  let daemon: Daemon;

  before(
    async () => {
      node = await TestNode.create("podstats");
      await node.writeNodeFile({
        capacity: { memory: "1Gi" },
        config: {
          evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      // Over its container's ephemeral-storage limit once its writable layer holds 16Mi.
      await node.addPod(
        withUid("web.1", {
          name: "writer",
          containers: [
            {
              name: "fill",
              command: sh("dd if=/dev/zero of=blob bs=1M count=16 2>/dev/null; exec sleep 600"),
              requests: { memory: "8Mi" },
              limits: { "ephemeral-storage": "8Mi" },
            },
          ],
        }),
      );
      // Under every limit: keeps running, with 4Mi in its emptyDir.
      await node.addPod(
        withUid("db.1", {
          name: "keeper",
          volumes: [{ name: "cache", emptyDir: {} }],
          containers: [
            {
              name: "hold",
              command: sh(
                'dd if=/dev/zero of="$EVICTD_VOLUME_CACHE/blob" bs=1M count=4 2>/dev/null; exec sleep 600',
              ),
              requests: { memory: "8Mi" },
            },
          ],
        }),
      );
      daemon = await node.start();
    },
    { timeout: scaled(30_000) },
  );

  after(async () => {
    await node?.cleanup();
  });

  test(
    "a pod with UID web.1 is evicted over its container's ephemeral-storage limit",
    { timeout: scaled(30_000) },
    async () => {
      const victim = await daemon.waitForStatus("default/writer evicted", evicted("default/writer"), 20_000);
      assert.equal(victim.uid, "web.1");
      // The pod-level check (the sum of its containers' limits) runs before the per-container one upstream.
      assert.equal(
        victim.message,
        "Pod ephemeral local storage usage exceeds the total limit of containers 8Mi. ",
      );
    },
  );

  test("a pod with UID db.1 shows its emptyDir's real usage", { timeout: scaled(30_000) }, async () => {
    let last: SummaryPod | undefined;
    const keeper = await waitUntil(
      "db.1's emptyDir to show 4Mi in /stats/summary",
      async () => {
        last = (await summaryPods(daemon)).find((p) => p.podRef.uid === "db.1");
        const used = last?.volume?.find((v) => v.name === "cache")?.usedBytes ?? 0;
        return used >= 4 * MiB ? last : undefined;
      },
      20_000,
      () => `\nlast summary entry: ${JSON.stringify(last)}${daemon.tail()}`,
    );
    assert.ok((keeper["ephemeral-storage"]?.usedBytes ?? 0) >= 4 * MiB, JSON.stringify(keeper));
    assert.equal(podStatus(await daemon.status(), "default/keeper")?.phase, "Running");
  });

  test(
    "pod and container startTime are the runtime's recorded start, in RFC 3339",
    { timeout: scaled(30_000) },
    async () => {
      const recorded = await waitUntil(
        "db.1's status file with its container started",
        async () => {
          const s = await statusFileOf(node.stateDir, "db.1");
          return s?.startTime !== undefined && s.containers.every((c) => c.startedAt !== undefined)
            ? s
            : undefined;
        },
        15_000,
        () => daemon.tail(),
      );
      const pod = await waitUntil(
        "db.1 in /stats/summary",
        async () => (await summaryPods(daemon)).find((p) => p.podRef.uid === "db.1"),
        15_000,
        () => daemon.tail(),
      );
      assert.match(pod.startTime ?? "(absent)", RFC3339, "pod startTime");
      assert.equal(Date.parse(pod.startTime ?? ""), Date.parse(recorded.startTime ?? ""), "pod startTime");
      for (const c of recorded.containers) {
        const got = pod.containers.find((x) => x.name === c.name)?.startTime;
        assert.match(got ?? "(absent)", RFC3339, `container ${c.name} startTime`);
        assert.equal(Date.parse(got ?? ""), c.startedAt, `container ${c.name} startTime`);
      }
    },
  );
});
