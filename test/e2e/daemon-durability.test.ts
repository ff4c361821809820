/**
 * An eviction is durable before its SIGTERM can be undone by a restart: with the state filesystem
 * full at the moment of the eviction (a real tmpfs filled to the byte, at several levels), and with
 * the daemon SIGKILLed the instant the evicted pod sees SIGTERM, a restarted daemon never runs the
 * evicted pod again, shows it Failed/Evicted, and the decision log reads back line by line.
 */
import assert from "node:assert/strict";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  Daemon,
  E2E_SKIP,
  evicted,
  IDLE,
  podManifest,
  podStatus,
  sh,
  sleep,
  TestNode,
  waitUntil,
  scaled,
} from "../harness/node-harness.js";

const nodes: TestNode[] = [];
after(async () => {
  for (const n of nodes) await n.cleanup();
});

/** Fills the filesystem of `file`'s directory to the last byte, then gives `leave` bytes back; returns the filler. */
function fillUp(file: string, leave: number): string {
  const fd = openSync(file, "w");
  let size = 0;
  try {
    for (const chunk of [65536, 4096, 512, 1]) {
      const buf = Buffer.alloc(chunk, 0x61);
      for (;;) {
        try {
          size += writeSync(fd, buf);
        } catch {
          break;
        }
      }
    }
    ftruncateSync(fd, Math.max(0, size - leave));
  } finally {
    closeSync(fd);
  }
  return file;
}

/** Whether any process of the node's memory cgroup subtree runs the pod's container (its cgroup exists and holds a pid). */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * A node whose stateDir is a 2 MiB tmpfs, with a pod that starts leaking memory when `go` appears
 * (so the state filesystem can be filled first) and a bystander.
 */
async function pressureNode(
  tag: string,
  options: { ignoreTerm?: boolean } = {},
): Promise<{
  node: TestNode;
  go: string;
  marker: string;
}> {
  const node = await TestNode.create(tag);
  nodes.push(node);
  node.mountTmpfs(node.stateDir, "size=2m");
  const go = join(node.dir, "go");
  const marker = join(node.dir, "got-sigterm");
  await node.writeNodeFile({
    capacity: { memory: "384Mi" },
    config: {
      evictionHard: { "memory.available": "120Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
    },
  });
  const trap = options.ignoreTerm === true ? `trap 'touch ${marker}' TERM; ` : "";
  await node.addPod(
    podManifest({
      name: "leaker",
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: "leak",
          // The shell stays the container's process (it traps TERM); perl leaks in the background.
          command: sh(
            `${trap}while [ ! -e ${go} ]; do sleep 0.05; done; ` +
              `perl -e 'my @a; while (1) { push @a, "a" x 1048576 for 1 .. 8; select(undef, undef, undef, 0.05) }' & ` +
              `while :; do wait; done`,
          ),
          requests: { memory: "16Mi" },
        },
      ],
    }),
  );
  await node.addPod(
    podManifest({
      name: "steady",
      containers: [{ name: "idle", command: IDLE, requests: { memory: "64Mi" } }],
    }),
  );
  return { node, go, marker };
}

/** The restarted daemon's view after a few housekeeping periods: the leaker must be Failed/Evicted and never started. */
async function checkRestart(node: TestNode, first: Daemon, leakerPids: readonly number[]): Promise<void> {
  const second = await node.start({ cleanupOnExit: true });
  const status = await second.waitForStatus(
    "both pods restored",
    (s) => (s.pods.length >= 2 && podStatus(s, "default/steady")?.phase === "Running" ? s : undefined),
    15_000,
  );
  // Several housekeeping periods (1 s each): time for a restart the runtime would have scheduled.
  await sleep(scaled(3000));
  const later = await second.status();
  for (const s of [status, later]) {
    const p = podStatus(s, "default/leaker");
    assert.deepEqual(
      [p?.phase, p?.reason],
      ["Failed", "Evicted"],
      `the leaker stays evicted${leakerLines(first)}${leakerLines(second)}${second.tail(10)}`,
    );
  }
  assert.ok(
    !second.lines.some((l) => l.msg === "container started" && l["pod"] === "default/leaker"),
    `the evicted pod is not started again${second.tail(60)}`,
  );
  await waitUntil(
    "the evicted pod's processes to be gone",
    () => (leakerPids.every((pid) => !pidAlive(pid)) ? true : undefined),
    10_000,
  );
  const text = readFileSync(join(node.stateDir, "decisions.jsonl"), "utf8");
  for (const [i, line] of text.split("\n").entries()) {
    if (line === "") continue;
    assert.doesNotThrow(() => JSON.parse(line), `decisions.jsonl line ${i + 1} parses: ${line.slice(0, 80)}`);
  }
  const exit = await second.stop();
  assert.deepEqual(exit, { code: 0, signal: null }, `${first.tail(5)}${second.tail()}`);
}

/** Every log line about the leaker, for a failure's message. */
function leakerLines(daemon: Daemon): string {
  const lines = daemon.lines.filter((l) => JSON.stringify(l).includes("leaker"));
  return `\n--- lines about the leaker ---\n${lines.map((l) => JSON.stringify(l)).join("\n")}`;
}

/** The leaker's container processes (its cgroup's), read while it runs. */
async function leakerPids(daemon: Daemon): Promise<number[]> {
  const line = await daemon.waitForLine(
    "the leaker's container start",
    (l) => l.msg === "container started" && l["pod"] === "default/leaker",
    15_000,
  );
  const pid = Number(line["containerPid"] ?? line["pid"]);
  assert.ok(Number.isSafeInteger(pid) && pid > 0, `a container pid in ${JSON.stringify(line)}`);
  return [pid];
}

describe("evictd run: an eviction survives a full state filesystem", { skip: E2E_SKIP }, () => {
  // Free space left at the eviction: none at all, less than a page, one page, a few pages (tmpfs
  // hands out whole pages, so these are the levels at which a write fails differently).
  for (const leave of [0, 700, 4096, 3 * 4096]) {
    for (const stop of ["SIGTERM", "SIGKILL"] as const) {
      test(
        `${leave} bytes free when the pod is evicted, then ${stop}, space freed, restart: the pod never runs again`,
        { timeout: scaled(90_000) },
        async () => {
          const { node, go } = await pressureNode(`full${leave}${stop === "SIGKILL" ? "k" : "t"}`);
          const first = await node.start({ cleanupOnExit: false });
          const pids = await leakerPids(first);
          await first.waitForStatus(
            "both pods running",
            (s) =>
              podStatus(s, "default/leaker")?.phase === "Running" &&
              podStatus(s, "default/steady")?.phase === "Running"
                ? s
                : undefined,
            15_000,
          );
          const filler = fillUp(join(node.stateDir, "filler"), leave);
          closeSync(openSync(go, "w"));
          await first.waitForStatus("the leaker evicted", evicted("default/leaker"), 30_000);
          if (stop === "SIGTERM") {
            await first.stop();
            if (leave === 0)
              assert.ok(
                first.lines.some((l) => l.msg.startsWith("stopping with the pod's status file not written")),
                `the shutdown says which status could not be written${first.tail()}`,
              );
          } else {
            await first.kill();
          }
          await rm(filler, { force: true });
          await checkRestart(node, first, pids);
        },
      );
    }
  }
});

describe("evictd run: a state filesystem too small for the journal", { skip: E2E_SKIP }, () => {
  test("a 48k stateDir: exit 3 naming the journal and the room it needs, nothing started, nothing left", async () => {
    const node = await TestNode.create("tiny");
    nodes.push(node);
    node.mountTmpfs(node.stateDir, "size=48k");
    await node.writeNodeFile({ capacity: { memory: "256Mi" }, config: {} });
    await node.addPod(podManifest({ name: "idle", containers: [{ name: "idle", command: IDLE }] }));
    const daemon = Daemon.spawn(node.nodeFile, false);
    node.daemons.push(daemon);
    const exit = await daemon.exited;
    const stderr = daemon.stderr.join("");
    assert.equal(exit.code, 3, stderr);
    assert.match(stderr, /cannot reserve the journal \S+final-status\.journal: ENOSPC/);
    assert.match(stderr, /hint: the state filesystem needs 64 KiB free for the journal once/);
    assert.ok(!daemon.lines.some((l) => l.msg === "pod started"), "no pod started");
    assert.deepEqual(readdirSync(node.stateDir), [], "nothing left in the stateDir");
    assert.deepEqual(node.cgroupDirs(), [], "no node cgroup");
  });
});

describe("evictd run: an eviction survives SIGKILL of the daemon", { skip: E2E_SKIP }, () => {
  test(
    "the daemon is SIGKILLed the instant the evicted pod sees SIGTERM: the restart does not run it again",
    { timeout: scaled(90_000) },
    async () => {
      const { node, go, marker } = await pressureNode("sigkill", { ignoreTerm: true });
      const first = await node.start({ cleanupOnExit: false });
      const pids = await leakerPids(first);
      await first.waitForStatus(
        "the leaker running",
        (s) => (podStatus(s, "default/leaker")?.phase === "Running" ? s : undefined),
        15_000,
      );
      closeSync(openSync(go, "w"));
      await waitUntil(
        "the leaker to see SIGTERM",
        () => (existsSync(marker) ? true : undefined),
        30_000,
        () => first.tail(),
      );
      await first.kill();
      // The pod ignores SIGTERM: it still runs when the second daemon starts, which must finish the kill.
      assert.ok(pids.some(pidAlive), "the evicted pod outlived the daemon (it ignores SIGTERM)");
      await checkRestart(node, first, pids);
    },
  );
});
