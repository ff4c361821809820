/**
 * `evictd run` refusing an environment it cannot work in, as a careful operator expects: one line
 * naming what and where, a hint, exit 3 (docs/commands.md "Exit codes"), promptly, and nothing started or
 * created behind it.
 */
import assert from "node:assert/strict";
import {
  type Dirent,
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  Daemon,
  E2E_SKIP,
  TestNode,
  IDLE,
  evicted,
  leakMemory,
  podManifest,
  podStatus,
  sleep,
  waitUntil,
  scaled,
} from "../harness/node-harness.js";

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

/** Whether `pid` is a live process (a zombie, dead but not yet reaped, is not). */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

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
      assert.deepEqual(node.cgroupDirs(), [], "the node cgroups this start created are removed again");
      assert.deepEqual(readdirSync(node.stateDir), [], "nothing is left in the (empty) stateDir it found");
    } finally {
      holder.close();
    }
  });

  test("listen port taken with a stateDir that did not exist: it is not left behind either", async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const node = await newNode("portfresh");
      const stateDir = join(node.dir, "new", "state");
      await node.writeNodeFile({ capacity: CAPACITY, config: {}, listen: `127.0.0.1:${port}`, stateDir });
      const { code, stderr } = await runUntilExit(node);
      assert.equal(code, 3, stderr);
      assert.equal(existsSync(join(node.dir, "new")), false, "the stateDir it created is removed");
      assert.deepEqual(node.cgroupDirs(), [], "no node cgroup is left");
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

/** Every `<stateDir>/pods/<dir>/…` file name, and each pod's status file by pod key. */
function stateFiles(stateDir: string): {
  names: string[];
  statusOf: (key: string) => Record<string, unknown> | undefined;
} {
  const root = join(stateDir, "pods");
  const dirs = existsSync(root) ? readdirSync(root) : [];
  const names = dirs.flatMap((d) => readdirSync(join(root, d)).map((n) => join(d, n)));
  return {
    names,
    statusOf: (key) => {
      for (const d of dirs) {
        const file = join(root, d, "status.json");
        if (!existsSync(file)) continue;
        const status = JSON.parse(readFileSync(file, "utf8")) as {
          pod?: { namespace?: string; name?: string };
        };
        if (`${status.pod?.namespace}/${status.pod?.name}` === key) return status;
      }
      return undefined;
    },
  };
}

/** Fills the filesystem of `dir` with one file until ENOSPC; returns the file. */
function fillFilesystem(dir: string): string {
  const filler = join(dir, "filler");
  for (const chunk of [1 << 20, 1 << 12, 1]) {
    const block = Buffer.alloc(chunk, 0x61);
    for (;;) {
      try {
        appendFileSync(filler, block);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOSPC") break;
        throw e;
      }
    }
  }
  return filler;
}

describe(
  "evictd run: the state filesystem full, then space again, then a restart",
  { skip: E2E_SKIP },
  () => {
    test(
      "no torn record joins another, no temp file stays, the evicted pod's status is written once space returns and a restart keeps it evicted",
      { timeout: scaled(60_000) },
      async () => {
        const node = await newNode("statefull");
        node.mountTmpfs(node.stateDir, "size=16m");
        await node.writeNodeFile({
          capacity: { memory: "512Mi" },
          config: { evictionHard: { "memory.available": "150Mi" } },
        });
        await node.addPod(
          podManifest({
            name: "steady",
            containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
          }),
        );
        // Starts leaking after 2 s, once the state filesystem is full.
        await node.addPod(
          podManifest({
            name: "leaker",
            containers: [
              {
                name: "leak",
                command: ["/bin/sh", "-c", 'sleep 2; exec "$@"', "sh", ...leakMemory(8, 100)],
                requests: { memory: "32Mi" },
              },
            ],
          }),
        );
        const first = await node.start({ cleanupOnExit: false });
        await first.waitForStatus(
          "both Running",
          (s) => (s.pods.filter((p) => p.phase === "Running").length === 2 ? true : undefined),
          10_000,
        );
        const filler = fillFilesystem(node.stateDir);
        await first.waitForStatus("default/leaker evicted", evicted("default/leaker"), 20_000);
        await sleep(1500);
        assert.notEqual(
          stateFiles(node.stateDir).statusOf("default/leaker")?.["phase"],
          "Failed",
          "the full filesystem kept the status file from being written",
        );
        // A retry in flight holds its temp file for a moment (longer on a slow machine); one that
        // failed must have removed its own. Each attempt's name is new, so a leaked file would be
        // seen at every look: some look must find none.
        const temps = (): string[] => stateFiles(node.stateDir).names.filter((n) => n.includes(".tmp-"));
        let lastSeen: string[] = [];
        await waitUntil(
          "no temp file left by the failed writes",
          () => {
            lastSeen = temps();
            return lastSeen.length === 0 ? true : undefined;
          },
          5000,
          () => `\ntemp files: ${lastSeen.join(", ")}${first.tail()}`,
          20,
        );

        rmSync(filler);
        await waitUntil(
          "the evicted pod's status file written",
          () =>
            stateFiles(node.stateDir).statusOf("default/leaker")?.["reason"] === "Evicted" ? true : undefined,
          5000,
          () => first.tail(),
        );
        await sleep(1500); // a few decision records after the space came back
        assert.deepEqual(await first.stop(), { code: 0, signal: null });

        const lines = readFileSync(join(node.stateDir, "decisions.jsonl"), "utf8")
          .split("\n")
          .filter((l) => l !== "");
        const bad = lines.filter((l) => {
          try {
            JSON.parse(l);
            return false;
          } catch {
            return true;
          }
        });
        // An append that ENOSPC cut short is truncated away: no torn line stays.
        assert.deepEqual(
          bad.map((l) => l.slice(0, 120)),
          [],
          "torn lines",
        );
        assert.ok(lines.length > 2, "records after the space came back");

        const second = await node.start({ cleanupOnExit: true });
        const s = await second.waitForStatus(
          "both pods restored",
          (doc) =>
            doc.pods.length >= 2 && podStatus(doc, "default/steady")?.phase === "Running" ? doc : undefined,
          15_000,
        );
        await sleep(1000);
        assert.equal(
          podStatus(await second.status(), "default/leaker")?.reason,
          "Evicted",
          JSON.stringify(podStatus(s, "default/leaker")),
        );
        assert.ok(
          !second.lines.some((l) => l.msg === "container started" && l["pod"] === "default/leaker"),
          `the evicted pod is not started again${second.tail()}`,
        );
        await second.stop();
      },
    );
  },
);

describe("evictd run: manifests deleted or edited while the daemon is down", { skip: E2E_SKIP }, () => {
  test(
    "at start the directory wins: a deleted pod is stopped, an edited one runs its new spec, the rest are adopted",
    { timeout: scaled(60_000) },
    async () => {
      const node = await newNode("reconcile");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: { evictionHard: { "memory.available": "50Mi" } },
      });
      const idle = (name: string, seconds: string) =>
        podManifest({
          name,
          containers: [{ name: "c", command: ["sleep", seconds], requests: { memory: "8Mi" } }],
        });
      await node.addPod(idle("gone", "600"));
      await node.addPod(idle("edited", "600"));
      await node.addPod(idle("kept", "600"));
      const first = await node.start({ cleanupOnExit: false });
      await first.waitForStatus(
        "three Running",
        (s) => (s.pods.filter((p) => p.phase === "Running").length === 3 ? true : undefined),
        10_000,
      );
      const pidOf = (d: Daemon, pod: string): number =>
        Number(
          d.lines.findLast((l) => l.msg === "container started" && l["pod"] === `default/${pod}`)?.[
            "containerPid"
          ],
        );
      // "container started" is logged once the pid is known, which may be after /status says Running.
      await waitUntil(
        "the three containers' pids logged",
        () => (["gone", "edited", "kept"].every((p) => pidOf(first, p) > 0) ? true : undefined),
        5000,
      );
      const before = {
        gone: pidOf(first, "gone"),
        edited: pidOf(first, "edited"),
        kept: pidOf(first, "kept"),
      };
      assert.deepEqual(await first.stop(), { code: 0, signal: null });

      rmSync(join(node.manifestDir, "gone.json"));
      await node.addPod(idle("edited", "601"));
      const second = await node.start({ cleanupOnExit: true });
      const s = await second.waitForStatus(
        "gone forgotten, edited running again",
        (doc) =>
          podStatus(doc, "default/gone") === undefined &&
          second.lines.some((l) => l.msg === "container started" && l["pod"] === "default/edited")
            ? doc
            : undefined,
        20_000,
      );
      assert.equal(processAlive(before.gone), false, "the deleted pod's process is gone");
      assert.equal(podStatus(s, "default/kept")?.phase, "Running");
      assert.ok(
        !second.lines.some((l) => l.msg === "container started" && l["pod"] === "default/kept"),
        "the unchanged pod was adopted, not restarted",
      );
      assert.equal(processAlive(before.kept), true);
      assert.notEqual(pidOf(second, "edited"), before.edited, "the edited pod runs a new process");
      assert.equal(processAlive(before.edited), false, "its old process is gone");
      // The pid is logged as the process starts, before its shim stages exec the command (under
      // emulation its cmdline can still be empty then): wait for the command to be in place.
      const editedPid = pidOf(second, "edited");
      const cmdline = (): string => {
        try {
          return readFileSync(`/proc/${editedPid}/cmdline`, "utf8");
        } catch {
          return "";
        }
      };
      await waitUntil(
        "the edited pod's new command",
        () => (cmdline().includes("601") ? true : undefined),
        5000,
        () => `: ${JSON.stringify(cmdline())}`,
      );
      await second.stop();
    },
  );
});

/** The daemon's exit, or a failure (and SIGKILL) when it still runs after `ms`. */
async function exitWithin(daemon: Daemon, ms: number): Promise<{ code: number | null }> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([
    daemon.exited,
    new Promise<"running">((resolve) => (timer = setTimeout(() => resolve("running"), scaled(ms)))),
  ]);
  clearTimeout(timer);
  if (r === "running") {
    await daemon.kill();
    assert.fail(`the second daemon was still running after ${ms} ms${daemon.tail()}`);
  }
  return r;
}

describe("evictd run: one daemon per node", { skip: E2E_SKIP }, () => {
  /** A running daemon with one idle pod, and its pod's pid. */
  async function firstDaemon(tag: string): Promise<{ node: TestNode; daemon: Daemon; pid: number }> {
    const node = await newNode(tag);
    await node.writeNodeFile({ capacity: CAPACITY, config: {} });
    await node.addPod(podManifest({ name: "idle", containers: [{ name: "idle", command: IDLE }] }));
    const daemon = await node.start({ cleanupOnExit: true });
    const started = await daemon.waitForLine(
      "the pod's container",
      (l) => l.msg === "container started" && l["pod"] === "default/idle",
      15_000,
    );
    return { node, daemon, pid: Number(started["containerPid"] ?? started["pid"]) };
  }

  /** The first daemon after the second one's attempt: its pod alive, its stats read, its cgroup there. */
  async function assertUntouched(node: TestNode, daemon: Daemon, pid: number): Promise<void> {
    assert.ok(processAlive(pid), `the first daemon's pod (pid ${pid}) still runs${daemon.tail()}`);
    assert.ok(node.cgroupDirs().length > 0, "the first daemon's node cgroup is still there");
    const before = (await daemon.status()).lastSync?.time;
    await sleep(scaled(2500));
    const s = await daemon.status();
    assert.notEqual(s.lastSync?.time, before, "the first daemon's loop still steps");
    assert.equal(podStatus(s, "default/idle")?.phase, "Running");
    const health = await fetch(`${daemon.url}/healthz`);
    assert.equal(health.status, 200, await health.text());
  }

  test("a second node file with the same name (other port and stateDir): exit 3 naming the first; --cleanup-on-exit touches nothing of it", async () => {
    const { node, daemon, pid } = await firstDaemon("samename");
    const twin = await newNode("samename-twin");
    // The twin's node file reuses the first node's name.
    await twin.writeNodeFile({ capacity: CAPACITY, config: {} });
    const doc = JSON.parse(readFileSync(twin.nodeFile, "utf8")) as Record<string, unknown>;
    writeFileSync(twin.nodeFile, JSON.stringify({ ...doc, name: node.name }));
    const second = Daemon.spawn(twin.nodeFile, true);
    twin.daemons.push(second);
    const exit = await exitWithin(second, 20_000);
    const stderr = second.stderr.join("");
    assert.equal(exit.code, 3, stderr);
    assertRefusal(
      stderr,
      new RegExp(`node cgroup \\S+${node.cgroupName} is managed by process ${daemon.child.pid}\\b`),
      /one evictd per node/,
    );
    assert.ok(
      !second.lines.some((l) => l.msg === "pod started"),
      `the second daemon started nothing${second.tail()}`,
    );
    await assertUntouched(node, daemon, pid);
  });

  test("a second daemon on the same stateDir: exit 3 naming the first (pid, node, node file)", async () => {
    const { node, daemon, pid } = await firstDaemon("samestate");
    const other = await newNode("samestate-other");
    await other.writeNodeFile({ capacity: CAPACITY, config: {}, stateDir: node.stateDir });
    const second = Daemon.spawn(other.nodeFile, true);
    other.daemons.push(second);
    const exit = await exitWithin(second, 20_000);
    const stderr = second.stderr.join("");
    assert.equal(exit.code, 3, stderr);
    assertRefusal(
      stderr,
      new RegExp(
        `stateDir ${node.stateDir} is in use by another evictd \\(pid ${daemon.child.pid} for node "${node.name}" from ${node.nodeFile}`,
      ),
      /one evictd per node/,
    );
    assert.deepEqual(other.cgroupDirs(), [], "the second daemon created no node cgroup");
    await assertUntouched(node, daemon, pid);
  });

  test("the lock goes with its holder: after SIGKILL of the first daemon, a second one starts and adopts its pod", async () => {
    const { node, daemon, pid } = await firstDaemon("lockgone");
    // Killed once its status file records the container's pid (what the next daemon adopts by).
    await waitUntil(
      "the container's pid in its status file",
      () => {
        const dirs = readdirSync(join(node.stateDir, "pods"));
        return dirs.some((d) => {
          try {
            return readFileSync(join(node.stateDir, "pods", d, "status.json"), "utf8").includes(
              `"pid": ${pid}`,
            );
          } catch {
            return false;
          }
        })
          ? true
          : undefined;
      },
      15_000,
    );
    await daemon.kill();
    const next = await node.start({ cleanupOnExit: true });
    await next.waitForLine(
      "the pod adopted",
      (l) => l.msg === "container adopted" && l["pod"] === "default/idle",
      15_000,
    );
    assert.ok(processAlive(pid), "the pod kept running");
  });
});

describe("evictd run: /healthz tells the truth", { skip: E2E_SKIP }, () => {
  test("the node cgroup removed under the daemon: every stats read fails and /healthz fails, naming why, within a few housekeeping periods", async () => {
    const node = await newNode("healthz");
    await node.writeNodeFile({ capacity: CAPACITY, config: {}, housekeepingInterval: "1s" });
    await node.addPod(
      podManifest({
        name: "idle",
        restartPolicy: "Never",
        containers: [{ name: "idle", command: IDLE }],
      }),
    );
    const daemon = await node.start({ cleanupOnExit: true });
    await daemon.waitForStatus(
      "the pod running",
      (s) => (podStatus(s, "default/idle")?.phase === "Running" ? s : undefined),
      15_000,
    );
    // Healthy first; on a loaded machine one slow step may fail it for a moment, so it is waited for.
    await waitUntil(
      "/healthz to answer ok",
      async () => {
        const r = await fetch(`${daemon.url}/healthz`);
        return r.status === 200 && (await r.text()) === "ok" ? true : undefined;
      },
      20_000,
      () => daemon.tail(),
    );
    // What another daemon's teardown did to this one: its processes killed, its cgroups removed.
    for (const dir of node.cgroupDirs()) {
      const subtree = (d: string): string[] => {
        let entries: Dirent[];
        try {
          entries = readdirSync(d, { withFileTypes: true });
        } catch {
          return []; // removed meanwhile (the daemon tears down a dead pod's cgroup too)
        }
        return [d, ...entries.filter((e) => e.isDirectory()).flatMap((e) => subtree(join(d, e.name)))];
      };
      const procsIn = (d: string): string[] => {
        try {
          return readFileSync(join(d, "cgroup.procs"), "utf8")
            .split("\n")
            .filter((l) => l !== "");
        } catch {
          return []; // removed meanwhile
        }
      };
      // Kill, then remove bottom-up, looking again each round: a killed process can take its
      // time to leave (an emulated guest on a loaded machine), and a directory made meanwhile
      // must go too.
      const deadline = Date.now() + scaled(30_000);
      while (existsSync(dir) && Date.now() < deadline) {
        for (const pid of subtree(dir).flatMap(procsIn)) {
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {
            // gone already
          }
        }
        for (const d of subtree(dir).reverse()) {
          try {
            rmdirSync(d);
          } catch {
            // still holds a process or a child: the next round
          }
        }
        if (existsSync(dir)) await sleep(50);
      }
      if (existsSync(dir)) {
        const left = subtree(dir).map((d) => {
          const who = procsIn(d).map((pid) => {
            try {
              return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 120)}`;
            } catch {
              return pid;
            }
          });
          return `${d}: ${who.join("; ") || "no process"}`;
        });
        assert.fail(`the node cgroup could not be removed:\n${left.join("\n")}${daemon.tail()}`);
      }
    }
    assert.deepEqual(node.cgroupDirs(), [], "the node cgroup is gone");
    const verdict = await waitUntil(
      "/healthz to fail",
      async () => {
        // Only the verdict this test causes counts: a slow step under load can fail /healthz for
        // a moment with "no sync for", which is true then and not what is asserted here.
        const r = await fetch(`${daemon.url}/healthz`);
        const body = await r.text();
        return r.status === 500 && body.includes("stats reads have failed") ? body : undefined;
      },
      45_000,
      () => daemon.tail(),
    );
    assert.match(verdict, /^syncloop failed: the eviction loop's stats reads have failed for \d+\.\d s: /);
  });
});

describe("evictd run: a stalled daemon shows in its reaction", { skip: E2E_SKIP }, () => {
  test("the threshold crossed while the daemon is SIGSTOPped: evicted after SIGCONT, and the log says how long ago the signal was last seen below its threshold", async () => {
    const node = await newNode("stall");
    const go = join(node.dir, "go");
    await node.writeNodeFile({
      capacity: { memory: "384Mi" },
      config: {
        evictionHard: { "memory.available": "120Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
      },
    });
    const leak = leakMemory(8, 50, 300)[2] ?? "";
    await node.addPod(
      podManifest({
        name: "leaker",
        containers: [
          {
            name: "leak",
            command: ["/bin/sh", "-c", `while [ ! -e ${go} ]; do sleep 0.05; done; exec perl -e '${leak}'`],
            requests: { memory: "16Mi" },
          },
        ],
      }),
    );
    const daemon = await node.start({ cleanupOnExit: true });
    await daemon.waitForStatus(
      "the leaker running",
      (s) => (podStatus(s, "default/leaker")?.phase === "Running" ? s : undefined),
      15_000,
    );
    await sleep(scaled(1500)); // a few looks at the node below its threshold
    const pid = daemon.child.pid ?? 0;
    process.kill(pid, "SIGSTOP");
    const stoppedAt = Date.now();
    try {
      writeFileSync(go, "");
      // The leak crosses the threshold while nothing of the daemon runs: held stopped until the
      // node cgroup's usage is past the crossing (working set above 384 - 120 = 264 MiB), then 1 s more.
      await waitUntil(
        "the leak past the threshold while the daemon is stopped",
        () => (node.memoryUsage() >= 280 * 1024 * 1024 ? true : undefined),
        30_000,
        () => ` (usage ${node.memoryUsage()} bytes)`,
      );
      await sleep(1000);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const stoppedMs = Date.now() - stoppedAt;
    const line = await daemon.waitForLine(
      "the eviction line",
      (l) => l.msg.startsWith("evicted default/leaker"),
      20_000,
    );
    const sinceBelow = Number(line["sinceBelowMs"]);
    const reaction = Number(line["reactionMs"]);
    assert.ok(
      sinceBelow >= stoppedMs - 200,
      `last seen below ${sinceBelow} ms before SIGTERM, at least the ${stoppedMs} ms stall: ${JSON.stringify(line)}`,
    );
    assert.ok(reaction < sinceBelow, `the wake → SIGTERM ${reaction} ms is the lower bound`);
    assert.match(line.msg, /\(last seen below its threshold \d+\.\d ms before SIGTERM\)/);
    assert.ok(
      Date.parse(line.time) >= stoppedAt + stoppedMs - 50,
      "the line is dated at SIGTERM, after the stall",
    );
  });
});
