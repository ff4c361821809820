/**
 * `evictd run` end to end under PID pressure: capacity.pids makes the node cgroup's pids.max the
 * budget, a pod forks sleeping processes until pid.available falls under its hard threshold, and
 * that pod is evicted (kubelet-semantics.md §4.4: priority → process count, no "exceeds requests"
 * step). Killing it gives the PIDs back, so nobody else goes, also when its children are orphaned.
 */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import {
  condition,
  E2E_SKIP,
  evicted,
  IDLE,
  metricValue,
  podManifest,
  podStatus,
  sh,
  type Daemon,
  sleep,
  stopAndCheckClean,
  TestNode,
  totalEvictions,
  scaled,
} from "../harness/node-harness.js";

const nodes: TestNode[] = [];
afterEach(async () => {
  while (nodes.length > 0) await nodes.pop()?.cleanup();
});

/** 160 sleeping children, 10 at a time; on SIGTERM the parent reaps them all before it exits. */
const REAPING_FORKER = [
  "/usr/bin/perl",
  "-e",
  [
    "$SIG{TERM} = sub { 1 while wait() != -1; exit 0 };",
    'for my $i (1 .. 160) { my $p = fork(); if ($p == 0) { exec("sleep", "600"); } select(undef, undef, undef, 0.01) if $i % 10 == 0; }',
    "1 while wait() != -1;",
  ].join(" "),
];

/** The same with a shell: when SIGTERM kills it with its children, they are orphans until PID 1 reaps them. */
const SHELL_FORKER = sh(
  "i=0; while [ $i -lt 160 ]; do sleep 600 & i=$((i+1)); case $i in *0) sleep 0.1;; esac; done; wait",
);

/**
 * A node with capacity.pids 200 and hard pid.available<30% (60), the forker, and two bystanders:
 * an idler (priority 0, one process) and a pod with priority 1000 and five. PID ranking is
 * priority, then process count: forker (0, 161), idler (0, 1), important (1000, 5).
 */
async function pidNode(
  label: string,
  forker: readonly string[],
): Promise<{ node: TestNode; daemon: Daemon }> {
  const node = await TestNode.create(label);
  nodes.push(node);
  await node.writeNodeFile({
    capacity: { memory: "1Gi", pids: 200 },
    config: {
      evictionHard: {
        "memory.available": "50Mi",
        "nodefs.available": "1%",
        "nodefs.inodesFree": "1%",
        "pid.available": "30%",
      },
    },
  });
  await node.addPod(
    podManifest({
      name: "forker",
      containers: [{ name: "fork", command: forker, requests: { memory: "16Mi" } }],
    }),
  );
  await node.addPod(
    podManifest({
      name: "idler",
      containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
    }),
  );
  await node.addPod(
    podManifest({
      name: "important",
      priority: 1000,
      containers: [
        {
          name: "five",
          command: sh("for i in 1 2 3 4; do sleep 600 & done; wait"),
          requests: { memory: "8Mi" },
        },
      ],
    }),
  );
  return { node, daemon: await node.start() };
}

describe("evictd run: PID pressure", { skip: E2E_SKIP }, () => {
  test(
    "a pod forking many sleepers is evicted for pid.available through the pids controller",
    { timeout: scaled(40_000) },
    async () => {
      const { node, daemon } = await pidNode("pids", REAPING_FORKER);
      const victim = await daemon.waitForStatus("default/forker evicted", evicted("default/forker"), 20_000);
      assert.ok(
        victim.message?.startsWith("The node was low on resource: pids. Threshold quantity: 60, available: "),
        `message: ${victim.message}`,
      );
      assert.equal(victim.conditions.find((c) => c.type === "DisruptionTarget")?.status, "True");

      await sleep(3000);
      const s = await daemon.status();
      for (const key of ["default/idler", "default/important"])
        assert.equal(podStatus(s, key)?.phase, "Running", `${key} keeps running`);
      assert.deepEqual(s.evictionCounts, { "pid.available": 1 });
      const pid = s.signals.find((x) => x.signal === "pid.available");
      assert.equal(pid?.capacity, "200", "the PID budget is capacity.pids");
      assert.ok(Number(pid.available) >= 60, `PIDs came back after the eviction: ${JSON.stringify(pid)}`);
      assert.equal(condition(s, "PIDPressure"), "True", "the condition stays for the transition period");

      const metrics = await daemon.metrics();
      assert.equal(metricValue(metrics, "kubelet_evictions", { eviction_signal: "pid.available" }), 1);
      assert.equal(totalEvictions(metrics), 1);
      const steps = (await node.decisions()).filter((d) => (d.evictions?.length ?? 0) > 0);
      assert.deepEqual(
        steps.map((d) => [
          d.conditions,
          d.evictions?.map((e) => [e.pod, e.signal, e.effectiveGracePeriodSeconds]),
        ]),
        [[["PIDPressure"], [["default/forker", "pid.available", 1]]]],
      );
      // Ranking for PIDs: priority first (ascending), then process count (descending).
      assert.deepEqual(steps[0]?.ranking, ["default/forker", "default/idler", "default/important"]);
      await stopAndCheckClean(node, daemon);
    },
  );

  test(
    "the orphaned children of an evicted pod do not cost a second eviction",
    { timeout: scaled(40_000) },
    async () => {
      // Upstream a container runtime shim reaps a container's processes as they die, and the
      // eviction manager looks again only once the pod is finished (pod cgroup removed). Here the
      // killed shell's children are reparented to PID 1 and stay zombies, still counted in
      // pids.current, until it reaps them: an empty cgroup.procs does not mean the PIDs are back.
      const { node, daemon } = await pidNode("orphans", SHELL_FORKER);
      await daemon.waitForStatus("default/forker evicted", evicted("default/forker"), 20_000);
      await sleep(3000);
      const s = await daemon.status();
      const steps = (await node.decisions())
        .filter((d) => (d.evictions?.length ?? 0) > 0)
        .map((d) => ({
          at: d.at,
          pod: d.evictions?.[0]?.pod,
          wake: d.wake?.reason,
          pids: d.observations?.["pid.available"]?.available,
        }));
      assert.deepEqual(
        s.evictionCounts,
        { "pid.available": 1 },
        `one eviction only: ${JSON.stringify(steps)}`,
      );
      for (const key of ["default/idler", "default/important"])
        assert.equal(podStatus(s, key)?.phase, "Running", `${key} keeps running`);
      await stopAndCheckClean(node, daemon);
    },
  );
});
