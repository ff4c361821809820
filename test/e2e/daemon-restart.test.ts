/**
 * `evictd run` restarted mid-pressure: a pod is evicted, the daemon is stopped WITHOUT
 * --cleanup-on-exit and started again on the same state dir. The evicted pod's status is durable
 * (still Failed/Evicted, never restarted), as the kubelet keeps it in the API. A kubelet restart
 * does not touch running containers either, so the surviving pod's process should be adopted,
 * not killed and started again.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  E2E_SKIP,
  evicted,
  IDLE,
  leakMemory,
  podManifest,
  podStatus,
  sleep,
  stopAndCheckClean,
  TestNode,
  type Daemon,
  type LogLine,
  type PodStatus,
  type StatusDoc,
  scaled,
} from "../harness/node-harness.js";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("evictd run: a restart loses no pod status", { skip: E2E_SKIP }, () => {
  let node: TestNode | undefined;
  let second: Daemon | undefined;
  let before1: PodStatus | undefined;
  let after2: StatusDoc | undefined;
  let steadyPid: number | undefined;
  let cgroupsKept = false;
  let steadyAliveBetween = false;
  let decisionsBefore = 0;
  let decisionsAfter = 0;
  let evictionStepsAfter = 0;

  before(
    async () => {
      node = await TestNode.create("restart");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        },
      });
      await node.addPod(
        podManifest({
          name: "leaker",
          containers: [{ name: "leak", command: leakMemory(8, 100), requests: { memory: "32Mi" } }],
        }),
      );
      await node.addPod(
        podManifest({
          name: "steady",
          containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
        }),
      );

      const first = await node.start({ cleanupOnExit: false });
      before1 = await first.waitForStatus("default/leaker evicted", evicted("default/leaker"), 20_000);
      const started = await first.waitForLine(
        "the steady pod's container",
        (l: LogLine) => l.msg === "container started" && l["pod"] === "default/steady",
        5000,
      );
      steadyPid = Number(started["containerPid"]);
      const exit = await first.stop();
      assert.deepEqual(exit, { code: 0, signal: null }, `first daemon: exit 0 on SIGTERM${first.tail()}`);
      cgroupsKept = node.cgroupDirs().length > 0;
      steadyAliveBetween = processAlive(steadyPid);
      decisionsBefore = (await node.decisions()).length;

      second = await node.start({ cleanupOnExit: true });
      const d = second;
      after2 = await d.waitForStatus(
        "both pods restored",
        (s) => (s.pods.length >= 2 && podStatus(s, "default/steady")?.phase === "Running" ? s : undefined),
        15_000,
      );
      await sleep(2500);
      after2 = await d.status();
      const decisions = await node.decisions();
      decisionsAfter = decisions.length;
      evictionStepsAfter = decisions.filter((r) => (r.evictions?.length ?? 0) > 0).length;
    },
    { timeout: scaled(45_000) },
  );

  after(async () => {
    try {
      if (node !== undefined && second !== undefined) await stopAndCheckClean(node, second);
    } finally {
      await node?.cleanup();
    }
  });

  test("stopping without --cleanup-on-exit leaves the node and its running pods in place", () => {
    assert.ok(cgroupsKept, "the node's cgroups stay");
    assert.ok(steadyAliveBetween, `the steady pod's process ${steadyPid} keeps running while no daemon runs`);
  });

  test("the evicted pod is still Failed/Evicted with its message and DisruptionTarget, and is not restarted", () => {
    assert.ok(after2 !== undefined && before1 !== undefined);
    const p = podStatus(after2, "default/leaker");
    assert.deepEqual(
      p && [
        p.phase,
        p.reason,
        p.message,
        p.conditions.find((c) => c.type === "DisruptionTarget")?.reason,
        p.restarts,
      ],
      ["Failed", "Evicted", before1.message, "TerminationByKubelet", before1.restarts],
    );
    assert.ok(
      !second?.lines.some((l) => l.msg === "container started" && l["pod"] === "default/leaker"),
      `the leaker is not started again${second?.tail()}`,
    );
    assert.deepEqual(after2.evictionCounts, {}, "nothing evicted after the restart");
  });

  test("the decision log is appended to, not replaced", () => {
    assert.ok(
      decisionsBefore > 0 && decisionsAfter > decisionsBefore,
      `${decisionsBefore} → ${decisionsAfter} records`,
    );
    assert.equal(evictionStepsAfter, 1, "the one eviction step from before the restart is still there");
  });

  test("the surviving pod's process is adopted, not killed and started again", () => {
    assert.ok(after2 !== undefined && steadyPid !== undefined && second !== undefined);
    const mine = second.lines
      .filter((l) => l["pod"] === "default/steady")
      .map((l) => `${l.msg} ${JSON.stringify(l["containerPid"])}`);
    const adopted = second.lines.find((l) => l.msg === "container adopted" && l["pod"] === "default/steady");
    assert.equal(
      adopted?.["containerPid"],
      steadyPid,
      `expected "container adopted" for pid ${steadyPid}; the second daemon logged for default/steady: ${JSON.stringify(mine)}`,
    );
    assert.ok(processAlive(steadyPid), `the steady pod's original process ${steadyPid} still runs`);
    const p = podStatus(after2, "default/steady");
    assert.equal(p?.phase, "Running");
    assert.deepEqual(p.restarts, { idle: 0 });
  });
});
