// Wake-ups: timer, kernel notifications (live memcg threshold on this machine), and re-arming the
// thresholds the way the kubelet computes them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import type { Threshold } from "../../core/model.js";
import { MemcgThresholdNotifier } from "./memcg-threshold-notifier.js";
import { makeScratchCgroup, ownMemoryCgroupV1, removeCgroup } from "./testing/notify-test-support.js";
import type { ThresholdWakeSource, WakeListener } from "./wake-source.js";
import { NotificationWakePort } from "./notification-wake-port.js";

const Mi = 1024n * 1024n;

function thresholds(): Threshold[] {
  const r = buildEvictionConfig({
    config: {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard: { "memory.available": "100Mi" },
    },
  });
  assert.ok(r.ok);
  return [...r.config.thresholds];
}

class FakeSource implements ThresholdWakeSource {
  readonly name = "fake";
  thresholdBytes: bigint | undefined;
  listener: WakeListener | undefined;
  start(onWake: WakeListener): void {
    this.listener = onWake;
  }
  rearm(bytes: bigint): Promise<void> {
    this.thresholdBytes = bytes;
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

describe("NotificationWakePort", () => {
  test("rearm: capacity − eviction quantity + inactive_file, for the node and the pods cgroups", () => {
    const [memory, allocatable] = thresholds();
    assert.equal(memory?.signal, "memory.available");
    assert.equal(allocatable?.signal, "allocatableMemory.available");
    const node = new FakeSource();
    const pods = new FakeSource();
    const nodeAtLimit = new FakeSource();
    const port = new NotificationWakePort({
      sources: [
        { threshold: memory, notifier: node, usageAtLimit: nodeAtLimit },
        { threshold: allocatable, notifier: pods },
      ],
      now: () => 0,
    });
    port.rearm({
      raw: {},
      summary: {
        node: {
          // capacity 1Gi = 700Mi available + 324Mi working set; usage 400Mi → inactive_file 76Mi.
          memory: { availableBytes: 700n * Mi, workingSetBytes: 324n * Mi, usageBytes: 400n * Mi },
          systemContainers: [
            {
              name: "pods",
              memory: { availableBytes: 500n * Mi, workingSetBytes: 268n * Mi, usageBytes: 300n * Mi },
            },
          ],
        },
        pods: [],
      },
    });
    assert.equal(node.thresholdBytes, (1024n - 100n + 76n) * Mi);
    assert.equal(pods.thresholdBytes, (768n - 100n + 32n) * Mi);
    assert.equal(nodeAtLimit.thresholdBytes, (1024n - 100n) * Mi, "usage at the working-set limit itself");
  });

  test("a notification wakes a waiting loop at once; one that arrives while busy is kept", async () => {
    const src = new FakeSource();
    let t = 5;
    const port = new NotificationWakePort({
      sources: [{ threshold: thresholds()[0]!, notifier: src }],
      now: () => t,
    });
    const waiting = port.next(60_000);
    src.listener?.("memcg threshold crossed");
    assert.deepEqual(await waiting, { reason: "memcg threshold crossed", at: 5, notification: true });
    t = 9;
    src.listener?.("memcg threshold crossed"); // nobody waiting
    assert.deepEqual(await port.next(60_000), {
      reason: "memcg threshold crossed",
      at: 9,
      notification: true,
    });
    const timed = await port.next(5);
    assert.equal(timed.notification, false);
    assert.equal(timed.reason, "housekeeping");
  });
  test("a housekeeping wait longer than a timer holds is not cut to 1 ms, and raises no TimeoutOverflowWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const port = new NotificationWakePort({ sources: [], now: () => 0 });
      const stop = new AbortController();
      const waiting = port.next(2 ** 31 * 1000, stop.signal);
      // An overflowed timer fires after 1 ms, long before this abort.
      setTimeout(() => stop.abort(), 200);
      assert.equal((await waiting).reason, "shutdown");
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

const own = ownMemoryCgroupV1();
const scratch =
  own === undefined
    ? { skip: "no cgroup v1 memory controller here" }
    : makeScratchCgroup(own, "evictd-wake-test");
if ("skip" in scratch) console.log(`# skipping live wake test: ${scratch.skip}`);

describe(
  "NotificationWakePort, live memcg threshold",
  { skip: "skip" in scratch ? scratch.skip : false },
  () => {
    const dir = "dir" in scratch ? scratch.dir : "";
    after(async () => {
      if (dir !== "") await removeCgroup(dir);
    });

    test("memory allocated in the cgroup past the threshold wakes the loop within milliseconds", async () => {
      const notifier = new MemcgThresholdNotifier({ cgroupDir: dir, thresholdBytes: 24n * Mi });
      const port = new NotificationWakePort({
        sources: [{ threshold: thresholds()[0]!, notifier }],
        now: () => performance.now(),
      });
      try {
        const script =
          "const a=[];for(let i=0;i<48;i++){const b=Buffer.allocUnsafe(1<<20);b.fill(1);a.push(b);}process.stdout.write(String(performance.timeOrigin+performance.now())+'\\n');setTimeout(()=>{},2000)";
        const waiting = port.next(10_000);
        const started = performance.now();
        const child = spawn(
          "sh",
          ["-c", 'echo $$ > "$1" && exec "$0" -e "$2"', process.execPath, join(dir, "cgroup.procs"), script],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        const wake = await waiting;
        child.kill("SIGKILL");
        await new Promise((r) => child.once("exit", r));
        assert.equal(wake.notification, true, `woke by ${wake.reason}`);
        assert.ok(wake.at - started < 5_000, "the wake came from the allocation, not the timer");
      } finally {
        await port.stop();
      }
    });
  },
);

describe("NotificationWakePort: the kernel's hints", () => {
  /** A poller over fake files whose next look, hints aside, is a minute away; the port around it. */
  async function hinted(): Promise<{
    port: NotificationWakePort;
    reclaim: FakeSource;
    usageAtLimit: FakeSource;
    files: (usage: number, inactive: number) => Promise<void>;
    close: () => Promise<void>;
  }> {
    const { mkdtemp, rm, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { WorkingSetPoller } = await import("./working-set-poller.js");
    const dir = await mkdtemp(join(tmpdir(), "evictd-hint-port-"));
    const files = async (usage: number, inactive: number): Promise<void> => {
      await writeFile(join(dir, "memory.usage_in_bytes"), `${usage}\n`);
      await writeFile(join(dir, "memory.stat"), `total_inactive_file ${inactive}\n`);
    };
    await files(1200, 300); // working set 900
    const poller = new WorkingSetPoller({
      cgroupDir: dir,
      api: "v1",
      description: "hard memory eviction threshold",
      steadyMs: 60_000,
      slowMs: 60_000,
      aboveMs: 60_000,
    });
    const reclaim = new FakeSource();
    const usageAtLimit = new FakeSource();
    const [threshold] = thresholds();
    assert.ok(threshold !== undefined);
    const port = new NotificationWakePort({
      sources: [{ threshold, poller, reclaim, usageAtLimit }],
      now: () => 7,
    });
    // Set after the first look, which found no limit: the next look is a minute away.
    poller.setLimit(1000n);
    return {
      port,
      reclaim,
      usageAtLimit,
      files,
      close: async () => {
        await port.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  test("the kernel's reclaim report makes the threshold's poller look, and the poller wakes the loop", async () => {
    const h = await hinted();
    try {
      await h.files(1200, 100); // 1100: above, with usage standing still
      const waiting = new AbortController();
      const first = h.port.next(60_000, waiting.signal);
      const quiet = await Promise.race([first, new Promise((r) => setTimeout(() => r("quiet"), 100))]);
      assert.equal(quiet, "quiet", "no look was due for a minute");
      waiting.abort();
      assert.equal((await first).reason, "shutdown");
      h.reclaim.listener?.("the kernel reclaimed memory for the node");
      const wake = await h.port.next(60_000);
      assert.equal(wake.notification, true);
      assert.match(wake.reason, /working set 1100 > 1000; looked when the kernel reported reclaim/);
    } finally {
      await h.close();
    }
  });

  test("usage crossing the working-set limit makes the threshold's poller look", async () => {
    const h = await hinted();
    try {
      await h.files(1200, 100); // 1100: above
      h.usageAtLimit.listener?.("usage at the hard memory eviction threshold's working-set limit crossed");
      const wake = await h.port.next(60_000);
      assert.match(wake.reason, /working set 1100 > 1000; looked when usage crossed the working-set limit/);
    } finally {
      await h.close();
    }
  });
});
