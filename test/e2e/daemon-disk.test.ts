/**
 * `evictd run` end to end on disk: nodefs is a small tmpfs mounted as the state dir, pods write
 * into their emptyDirs until nodefs.available (bytes) or nodefs.inodesFree (inodes) crosses its
 * hard threshold, and the writer is evicted (kubelet-semantics.md §4.4: exceedDiskRequests →
 * priority → usage − request over images, root, logs and local volumes). Local-storage limits
 * (§5): an emptyDir over its sizeLimit is evicted with no node pressure at all.
 */
import assert from "node:assert/strict";
import { afterEach, before, describe, test } from "node:test";
import {
  condition,
  E2E_SKIP,
  evicted,
  IDLE,
  metricValue,
  podManifest,
  podStatus,
  sh,
  sleep,
  stopAndCheckClean,
  TestNode,
  totalEvictions,
  type DecisionRecord,
  type PodStatus,
  type StatusDoc,
  scaled,
} from "../harness/node-harness.js";

const nodes: TestNode[] = [];
afterEach(async () => {
  while (nodes.length > 0) await nodes.pop()?.cleanup();
});

async function newNode(label: string): Promise<TestNode> {
  const node = await TestNode.create(label);
  nodes.push(node);
  return node;
}

const emptyDir = (name: string, sizeLimit?: string): Record<string, unknown> => ({
  name,
  emptyDir: sizeLimit === undefined ? {} : { sizeLimit },
});

/** What a disk-pressure run left to assert on: the victim, /status and /metrics 4 s later, the eviction steps. */
interface DiskRun {
  readonly victim: PodStatus;
  readonly status: StatusDoc;
  readonly metrics: string;
  readonly steps: DecisionRecord[];
}

/**
 * Runs a node whose state dir is a tmpfs mounted with `tmpfsOptions`, a writer pod filling its
 * emptyDir with `script`, and an idle bystander; waits for the writer's eviction, then 4 s more.
 */
async function diskPressureRun(
  label: string,
  tmpfsOptions: string,
  thresholds: Record<string, string>,
  script: string,
): Promise<DiskRun> {
  const node = await TestNode.create(label);
  try {
    node.mountTmpfs(node.stateDir, tmpfsOptions);
    await node.writeNodeFile({
      capacity: { memory: "1Gi" },
      config: { evictionHard: { "memory.available": "50Mi", ...thresholds } },
    });
    await node.addPod(
      podManifest({
        name: "writer",
        volumes: [emptyDir("data")],
        containers: [{ name: "write", command: sh(script), requests: { memory: "16Mi" } }],
      }),
    );
    await node.addPod(
      podManifest({
        name: "bystander",
        containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
      }),
    );
    const daemon = await node.start();
    const victim = await daemon.waitForStatus("default/writer evicted", evicted("default/writer"), 20_000);
    await sleep(4000);
    const run = {
      victim,
      status: await daemon.status(),
      metrics: await daemon.metrics(),
      steps: (await node.decisions()).filter((d) => (d.evictions?.length ?? 0) > 0),
    };
    await stopAndCheckClean(node, daemon);
    return run;
  } finally {
    await node.cleanup();
  }
}

const evictionSummary = (r: DiskRun): string =>
  JSON.stringify(
    r.steps.map((d) => {
      const signal = d.evictions?.[0]?.signal ?? "";
      return {
        at: d.at,
        wake: d.wake?.reason,
        evicted: d.evictions?.map((e) => e.pod),
        [signal]: d.observations?.[signal]?.available,
      };
    }),
  );

describe("evictd run: nodefs.available on a 96Mi tmpfs", { skip: E2E_SKIP }, () => {
  let run: DiskRun | undefined;
  before(
    async () => {
      // 8Mi every 250 ms into the emptyDir, up to 80Mi; the threshold is crossed past 64Mi used.
      run = await diskPressureRun(
        "disk",
        "size=96m,mode=0755",
        { "nodefs.available": "32Mi", "nodefs.inodesFree": "1%" },
        'i=0; while [ $i -lt 10 ]; do dd if=/dev/zero of="$EVICTD_VOLUME_DATA/f$i" bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 0.25; done; exec sleep 600',
      );
    },
    { timeout: scaled(45_000) },
  );

  test("the pod filling its emptyDir is evicted first, with the kubelet's message and DisruptionTarget", () => {
    assert.ok(run !== undefined);
    const { victim, steps } = run;
    assert.ok(
      victim.message?.startsWith(
        "The node was low on resource: ephemeral-storage. Threshold quantity: 32Mi, available: ",
      ),
      `message: ${victim.message}`,
    );
    assert.equal(
      victim.conditions.find((c) => c.type === "DisruptionTarget")?.reason,
      "TerminationByKubelet",
    );
    const first = steps[0];
    assert.deepEqual(
      first && [
        first.conditions,
        first.ranking,
        first.evictions?.map((e) => [e.pod, e.kind, e.signal, e.effectiveGracePeriodSeconds]),
      ],
      [
        ["DiskPressure"],
        ["default/writer", "default/bystander"],
        [["default/writer", "pressure", "nodefs.available", 1]],
      ],
    );
    assert.deepEqual(
      first?.reclaim?.ran,
      ["containers", "images"],
      "single filesystem: container GC, then image GC, before evicting",
    );
  });

  test("kubelet_evictions and /status count every eviction under nodefs.available", () => {
    assert.ok(run !== undefined);
    const n = run.steps.flatMap((d) => d.evictions ?? []).length;
    assert.equal(metricValue(run.metrics, "kubelet_evictions", { eviction_signal: "nodefs.available" }), n);
    assert.equal(totalEvictions(run.metrics), n);
    assert.deepEqual(run.status.evictionCounts, { "nodefs.available": n });
  });

  test("nobody else is evicted: the evicted pod's emptyDir is torn down before the loop looks again", () => {
    // Upstream the cleanup the eviction manager waits for (PodIsFinished → syncTerminatedPod)
    // includes unmounting and removing the pod's volumes, so the space comes back.
    assert.ok(run !== undefined);
    assert.equal(
      podStatus(run.status, "default/bystander")?.phase,
      "Running",
      `the bystander keeps running; evictions: ${evictionSummary(run)}`,
    );
    assert.deepEqual(run.status.evictionCounts, { "nodefs.available": 1 });
  });
});

describe("evictd run: nodefs.inodesFree on a tmpfs with 2000 inodes", { skip: E2E_SKIP }, () => {
  let run: DiskRun | undefined;
  before(
    async () => {
      // 1600 empty files, 100 at a time: inodesFree falls under 30% of 2000 (600) without running out.
      run = await diskPressureRun(
        "inodes",
        "size=64m,nr_inodes=2000,mode=0755",
        { "nodefs.available": "1%", "nodefs.inodesFree": "30%" },
        'i=0; while [ $i -lt 1600 ]; do : > "$EVICTD_VOLUME_DATA/f$i"; i=$((i+1)); case $i in *00) sleep 0.2;; esac; done; exec sleep 600',
      );
    },
    { timeout: scaled(45_000) },
  );

  test("the pod creating many files is evicted first for nodefs.inodesFree", () => {
    assert.ok(run !== undefined);
    const { victim, steps } = run;
    assert.ok(
      victim.message?.startsWith(
        "The node was low on resource: inodes. Threshold quantity: 600, available: ",
      ),
      `message: ${victim.message}`,
    );
    const first = steps[0];
    assert.deepEqual(
      first && [first.conditions, first.ranking?.[0], first.evictions?.map((e) => [e.pod, e.signal])],
      [["DiskPressure"], "default/writer", [["default/writer", "nodefs.inodesFree"]]],
    );
    const n = steps.flatMap((d) => d.evictions ?? []).length;
    assert.equal(metricValue(run.metrics, "kubelet_evictions", { eviction_signal: "nodefs.inodesFree" }), n);
  });

  test("nobody else is evicted: the evicted pod's files go with its emptyDir", () => {
    assert.ok(run !== undefined);
    assert.equal(
      podStatus(run.status, "default/bystander")?.phase,
      "Running",
      `the bystander keeps running; evictions: ${evictionSummary(run)}`,
    );
    assert.deepEqual(run.status.evictionCounts, { "nodefs.inodesFree": 1 });
  });
});

describe("evictd run: local storage limits", { skip: E2E_SKIP }, () => {
  test(
    "an emptyDir over its sizeLimit is evicted without node pressure",
    { timeout: scaled(30_000) },
    async () => {
      const node = await newNode("limit");
      await node.writeNodeFile({
        capacity: { memory: "1Gi" },
        config: {
          evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      await node.addPod(
        podManifest({
          name: "scratchy",
          volumes: [emptyDir("scratch", "8Mi")],
          containers: [
            {
              name: "fill",
              command: sh(
                'dd if=/dev/zero of="$EVICTD_VOLUME_SCRATCH/blob" bs=1M count=16 2>/dev/null; exec sleep 600',
              ),
              requests: { memory: "8Mi" },
            },
          ],
        }),
      );
      // Under its limit: stays.
      await node.addPod(
        podManifest({
          name: "tidy",
          volumes: [emptyDir("cache", "64Mi")],
          containers: [
            {
              name: "fill",
              command: sh(
                'dd if=/dev/zero of="$EVICTD_VOLUME_CACHE/blob" bs=1M count=4 2>/dev/null; exec sleep 600',
              ),
              requests: { memory: "8Mi" },
            },
          ],
        }),
      );

      const daemon = await node.start();
      const victim = await daemon.waitForStatus(
        "default/scratchy evicted",
        evicted("default/scratchy"),
        20_000,
      );
      assert.equal(victim.message, 'Usage of EmptyDir volume "scratch" exceeds the limit "8Mi". ');
      assert.deepEqual(
        victim.conditions.filter((c) => c.type === "DisruptionTarget"),
        [],
        "local-storage evictions set no DisruptionTarget condition",
      );

      await sleep(2500);
      const s = await daemon.status();
      assert.equal(podStatus(s, "default/tidy")?.phase, "Running");
      for (const c of ["MemoryPressure", "DiskPressure", "PIDPressure"])
        assert.equal(condition(s, c), "False", `${c} must stay False`);
      assert.deepEqual(s.evictionCounts, { "emptydirfs.limit": 1 });
      assert.deepEqual(
        s.recentEvictions.map((e) => [e.pod, e.signal, e.gracePeriodSeconds]),
        [["default/scratchy", "emptydirfs.limit", 1]],
      );
      const metrics = await daemon.metrics();
      assert.equal(metricValue(metrics, "kubelet_evictions", { eviction_signal: "emptydirfs.limit" }), 1);
      assert.equal(totalEvictions(metrics), 1);

      const steps = (await node.decisions()).filter((d) => (d.evictions?.length ?? 0) > 0);
      assert.deepEqual(
        steps.map((d) => [
          d.conditions,
          d.evictions?.map((e) => [e.pod, e.kind, e.signal, e.gracePeriodSeconds, e.condition]),
        ]),
        [[[], [["default/scratchy", "localStorage", "emptydirfs.limit", 1, undefined]]]],
      );
      await stopAndCheckClean(node, daemon);
    },
  );
});
