/**
 * `evictd run` end to end: the kubelet's `maxPods` admission. With `maxPods: 3` in the node file's
 * KubeletConfiguration and five pods in the manifest directory, the first three by file name run
 * and the other two are rejected `OutOfpods` with the kubelet's message. A pod being killed still
 * counts until it is gone (the kubelet's active pods): its grace period of 1e9 s is honoured, not
 * cut short by a timer overflow, and a pod arriving meanwhile is rejected; once it is gone a new
 * pod is admitted. Every log line the daemon wrote has each top-level key once (the daemon's `pid`
 * and a container's used to be two `pid`s).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { duplicateTopLevelKeys, topLevelKeys } from "../support/json-top-level-keys.js";
import {
  E2E_SKIP,
  holdMemory,
  IDLE,
  podManifest,
  podStatus,
  scaled,
  stopAndCheckClean,
  TestNode,
  waitUntil,
  type Daemon,
  type StatusDoc,
} from "../harness/node-harness.js";

const OUT_OF_PODS = (used: number): string =>
  `Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: ${used}, capacity: 3`;

const sleeper = (name: string): Record<string, unknown> =>
  podManifest({ name, containers: [{ name: "idle", command: IDLE, requests: { memory: "4Mi" } }] });

/** Running or rejected, not pending: admission has answered. */
const settled = (s: StatusDoc, names: readonly string[]): boolean =>
  names.every((n) => {
    const p = podStatus(s, `default/${n}`);
    return p !== undefined && (p.phase === "Running" || p.phase === "Failed");
  });

const phaseAndReason = (s: StatusDoc, name: string): string => {
  const p = podStatus(s, `default/${name}`);
  return p === undefined ? "absent" : `${p.phase}${p.reason !== undefined ? ` ${p.reason}` : ""}`;
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether process `pid` ignores SIGTERM (bit 15 of SigIgn in /proc/<pid>/status). */
function ignoresSigterm(pid: number): boolean {
  try {
    const m = /^SigIgn:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m !== null && (BigInt(`0x${m[1]}`) & (1n << 14n)) !== 0n;
  } catch {
    return false;
  }
}

describe("evictd run: maxPods admission", { skip: E2E_SKIP }, () => {
  let node: TestNode | undefined;
  let daemon: Daemon | undefined;

  before(async () => {
    node = await TestNode.create("maxpods");
    await node.writeNodeFile({
      capacity: { memory: "512Mi" },
      config: {
        evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
        maxPods: 3,
      },
    });
    // All five are there before the daemon starts: admitted in file-name order.
    await node.addPod(sleeper("p1-sleep"));
    await node.addPod(sleeper("p2-sleep"));
    // Ignores SIGTERM, with a grace period far past what a timer holds (2^31-1 ms).
    await node.addPod(
      podManifest({
        name: "p3-stubborn",
        terminationGracePeriodSeconds: 1e9,
        containers: [{ name: "stubborn", command: holdMemory(1, { ignoreTerm: true }) }],
      }),
    );
    await node.addPod(sleeper("p4-sleep"));
    await node.addPod(sleeper("p5-sleep"));
    daemon = await node.start();
  });

  after(async () => {
    try {
      if (node !== undefined && daemon !== undefined) await stopAndCheckClean(node, daemon);
    } finally {
      await node?.cleanup();
    }
  });

  test(
    "the first three manifests by file name run; the fourth and fifth are rejected OutOfpods with the kubelet's message",
    { timeout: scaled(60_000) },
    async () => {
      assert.ok(daemon !== undefined);
      const names = ["p1-sleep", "p2-sleep", "p3-stubborn", "p4-sleep", "p5-sleep"];
      const s = await daemon.waitForStatus(
        "the five pods admitted or rejected",
        (st) => (settled(st, names) ? st : undefined),
        30_000,
      );
      assert.deepEqual(
        names.map((n) => phaseAndReason(s, n)),
        ["Running", "Running", "Running", "Failed OutOfpods", "Failed OutOfpods"],
      );
      for (const n of ["p4-sleep", "p5-sleep"]) {
        assert.equal(podStatus(s, `default/${n}`)?.message, OUT_OF_PODS(3));
        assert.ok(
          daemon.lines.some(
            (l) => l.msg.startsWith(`rejected default/${n}: `) && l["reason"] === "OutOfpods",
          ),
          `no rejection logged for ${n}${daemon.tail()}`,
        );
        assert.ok(
          !daemon.lines.some((l) => l.msg === "container started" && l["pod"] === `default/${n}`),
          `${n} was started`,
        );
      }
    },
  );

  test(
    "a pod being killed still counts (its 1e9 s grace honoured): a new pod is rejected; once it is gone one is admitted",
    { timeout: scaled(90_000) },
    async () => {
      assert.ok(daemon !== undefined && node !== undefined);
      const d = daemon;
      // Its perl must ignore SIGTERM before the kill starts (it sets that up as it starts, which a
      // slow machine may not have reached yet).
      const started = await d.waitForLine(
        "p3-stubborn's container start",
        (l) => l.msg === "container started" && l["pod"] === "default/p3-stubborn",
        15_000,
      );
      const stubborn = Number(started["containerPid"]);
      await waitUntil(
        "p3-stubborn ignoring SIGTERM",
        () => (ignoresSigterm(stubborn) ? true : undefined),
        15_000,
        () => d.tail(),
      );
      await rm(join(node.manifestDir, "p3-stubborn.json"));
      const killing = await d.waitForLine(
        "p3-stubborn's SIGTERM",
        (l) => l.msg === "pod killing: SIGTERM sent" && l["pod"] === "default/p3-stubborn",
        15_000,
      );
      const pids = killing["pids"] as number[];
      assert.ok(Array.isArray(pids) && pids.length > 0, JSON.stringify(killing));

      await node.addPod(sleeper("p6-sleep"));
      const s = await d.waitForStatus(
        "p6-sleep admitted or rejected",
        (st) => (settled(st, ["p6-sleep"]) ? st : undefined),
        15_000,
      );
      assert.equal(phaseAndReason(s, "p6-sleep"), "Failed OutOfpods");
      assert.equal(podStatus(s, "default/p6-sleep")?.message, OUT_OF_PODS(3));
      // Still there: the grace period was not cut to 1 ms by an overflowed timer.
      assert.ok(pids.some(isAlive), "p3-stubborn's processes were killed before its grace period ended");
      assert.ok(
        !d.lines.some((l) => l.msg.includes("p3-stubborn") && /SIGKILL/.test(l.msg)),
        `p3-stubborn was SIGKILLed${d.tail()}`,
      );

      // The test ends the stubborn pod's processes itself; the daemon then finishes the kill.
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, "SIGKILL");
      await d.waitForStatus(
        "p3-stubborn gone",
        (st) => (podStatus(st, "default/p3-stubborn") === undefined ? st : undefined),
        30_000,
      );
      await node.addPod(sleeper("p7-sleep"));
      const admitted = await d.waitForStatus(
        "p7-sleep running",
        (st) => (settled(st, ["p7-sleep"]) ? st : undefined),
        15_000,
      );
      assert.equal(phaseAndReason(admitted, "p7-sleep"), "Running");
      assert.doesNotMatch(d.stderr.join(""), /TimeoutOverflowWarning/);
    },
  );

  test("no log line carries a top-level key twice; a container's pid is containerPid, the daemon's is pid", async () => {
    assert.ok(daemon !== undefined);
    const d = daemon;
    // The last admitted pod's start line may come after /status already showed it Running.
    await waitUntil(
      "four container starts logged",
      () =>
        d.rawLines.filter((l) => l.includes('"msg":"container started"')).length >= 4 ? true : undefined,
      15_000,
      () => d.tail(),
    );
    assert.ok(d.rawLines.length > 10, "too few log lines to judge");
    const duplicated = d.rawLines
      .map((line) => ({ line, twice: duplicateTopLevelKeys(line) }))
      .filter((x) => x.twice.length > 0);
    assert.deepEqual(duplicated, [], "log lines with a duplicated key");
    const started = d.rawLines.filter((l) => l.includes('"msg":"container started"'));
    assert.ok(started.length >= 4, `${started.length} "container started" lines`);
    for (const line of started) {
      assert.ok(topLevelKeys(line).includes("containerPid"), line);
      const parsed = JSON.parse(line) as { pid: number; containerPid: number };
      assert.equal(parsed.pid, d.child.pid, "pid is the daemon's");
      assert.notEqual(parsed.containerPid, d.child.pid);
    }
  });
});
