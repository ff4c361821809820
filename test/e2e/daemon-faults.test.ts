/**
 * `evictd run` refusing an environment it cannot work in, as a careful operator expects: one line
 * naming what and where, a hint, exit 3 (README "Exit codes"), promptly, and nothing started or
 * created behind it.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Daemon, E2E_SKIP, TestNode, IDLE, podManifest, podStatus } from "../harness/node-harness.js";

const nodes: TestNode[] = [];
after(async () => {
  for (const n of nodes) await n.cleanup();
});

async function newNode(tag: string): Promise<TestNode> {
  const node = await TestNode.create(tag);
  nodes.push(node);
  return node;
}

/** Spawns `evictd run` on `node` without waiting for it to serve, and waits (bounded) for its exit. */
async function runUntilExit(
  node: TestNode,
  timeoutMs = 20_000,
): Promise<{ code: number | null; stderr: string; daemon: Daemon }> {
  const daemon = Daemon.spawn(node.nodeFile, false);
  node.daemons.push(daemon);
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([
    daemon.exited,
    new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (r === "timeout") {
    await daemon.kill();
    assert.fail(`evictd run did not exit within ${timeoutMs} ms${daemon.tail()}`);
  }
  return { code: r.code, stderr: daemon.stderr.join(""), daemon };
}

/** The refusal's lines: `evictd: <what>` and `  hint: <how>`, nothing else. */
function assertRefusal(stderr: string, what: RegExp, hint: RegExp): void {
  const lines = stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 2, `two lines on stderr:\n${stderr}`);
  assert.match(lines[0] ?? "", /^evictd: /);
  assert.match(lines[0] ?? "", what);
  assert.match(lines[1] ?? "", /^ {2}hint: /);
  assert.match(lines[1] ?? "", hint);
  assert.doesNotMatch(stderr, /internal error|^\s+at /m);
}

const CAPACITY = { memory: "256Mi", pids: 256 };

describe("evictd run: environment refusals", { skip: E2E_SKIP }, () => {
  test("listen port already taken: exit 3 with a hint, no pod started", async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const node = await newNode("porttaken");
      await node.writeNodeFile({ capacity: CAPACITY, config: {}, listen: `127.0.0.1:${port}` });
      await node.addPod(podManifest({ name: "idle", containers: [{ name: "idle", command: IDLE }] }));
      const { code, stderr, daemon } = await runUntilExit(node);
      assert.equal(code, 3, stderr);
      assertRefusal(
        stderr,
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}`),
        /another process holds the port/,
      );
      assert.ok(!daemon.lines.some((l) => l.msg === "pod started"), `no pod started${daemon.tail()}`);
    } finally {
      holder.close();
    }
  });

  test("stateDir is a file: exit 3 naming it, with a hint", async () => {
    const node = await newNode("statefile");
    const file = join(node.dir, "state-is-a-file");
    writeFileSync(file, "not a directory\n");
    await node.writeNodeFile({ capacity: CAPACITY, config: {}, stateDir: file });
    const { code, stderr } = await runUntilExit(node);
    assert.equal(code, 3, stderr);
    assertRefusal(stderr, new RegExp(`cannot use stateDir ${file}`), /set stateDir in the node file/);
  });

  test("manifestDir does not exist: exit 3 naming it, and it is not created", async () => {
    const node = await newNode("nomanifests");
    const missing = join(node.dir, "no", "such", "pods");
    await node.writeNodeFile({ capacity: CAPACITY, config: {}, manifestDir: missing });
    const { code, stderr } = await runUntilExit(node);
    assert.equal(code, 3, stderr);
    assertRefusal(stderr, new RegExp(`manifestDir ${missing} is not a directory`), /mkdir -p/);
    assert.equal(existsSync(missing), false, "not created");
  });
});

describe("evictd run: admission of an absurd request", { skip: E2E_SKIP }, () => {
  test("a pod asking 1Ei of memory is rejected as the kubelet does (OutOfmemory), never started", async () => {
    const node = await newNode("absurd");
    await node.writeNodeFile({
      capacity: CAPACITY,
      config: { evictionHard: { "memory.available": "50Mi" } },
    });
    await node.addPod(
      podManifest({ name: "huge", containers: [{ name: "c", command: IDLE, requests: { memory: "1Ei" } }] }),
    );
    await node.addPod(
      podManifest({
        name: "small",
        containers: [{ name: "c", command: IDLE, requests: { memory: "16Mi" } }],
      }),
    );
    const daemon = await node.start();
    const s = await daemon.waitForStatus(
      "huge rejected, small running",
      (doc) =>
        podStatus(doc, "default/huge")?.phase === "Failed" &&
        podStatus(doc, "default/small")?.phase === "Running"
          ? doc
          : undefined,
      15_000,
    );
    const huge = podStatus(s, "default/huge");
    // 256Mi capacity − 50Mi hard threshold = 206Mi allocatable; the small pod was admitted before it
    // or after it (file order), so used is 0 or its 16Mi.
    assert.equal(huge?.reason, "OutOfmemory");
    assert.match(
      huge?.message ?? "",
      /^Pod was rejected: Node didn't have enough resource: memory, requested: 1152921504606846976, used: (0|16777216), capacity: 216006656$/,
    );
    assert.ok(!daemon.lines.some((l) => l.msg === "container started" && l["pod"] === "default/huge"));
    await daemon.stop();
  });
});
