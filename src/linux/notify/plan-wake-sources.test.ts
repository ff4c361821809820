// Which kernel notifications the daemon arms, per cgroup API; the v2 plan is driven end to end on
// a fake cgroupfs tree: a counter going up in memory.events wakes the loop's wake port.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { CgroupV1Driver } from "../cgroups/cgroup-v1-driver.js";
import { CgroupV2Driver } from "../cgroups/cgroup-v2-driver.js";
import type { CgroupHost } from "../cgroups/cgroupfs-driver.js";
import { FakeCgroupKernel } from "../cgroups/testing/fake-cgroup-kernel.js";
import { psiTriggerProblems } from "./psi-trigger.js";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import type { Threshold } from "../../core/model.js";
import { NotificationWakePort } from "./notification-wake-port.js";
import {
  hasSysResourceCapability,
  ownNodeWakeTarget,
  planWakeSources,
  psiTriggerSpecFor,
} from "./plan-wake-sources.js";

const MiB = 1024n * 1024n;
const SELF = 1000;
const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

function thresholds(): Threshold[] {
  const r = buildEvictionConfig({
    config: {
      evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%" },
      evictionSoft: { "memory.available": "200Mi" },
      evictionSoftGracePeriod: { "memory.available": "30s" },
    },
  });
  assert.ok(r.ok);
  return [...r.config.thresholds];
}

async function fakeHost(
  api: "v1" | "v2",
): Promise<{ kernel: FakeCgroupKernel; host: CgroupHost; base: string }> {
  const base = await mkdtemp(join(tmpdir(), "evictd-wake-"));
  temps.push(base);
  const kernel =
    api === "v1"
      ? new FakeCgroupKernel(base, [
          { kind: "memory", mount: join(base, "memory") },
          { kind: "pids", mount: join(base, "pids") },
        ])
      : new FakeCgroupKernel(base, [{ kind: "unified", mount: join(base, "unified") }]);
  await kernel.boot();
  const host: CgroupHost = {
    fs: kernel,
    kill: (pid) => kernel.kill(pid),
    sleep: () => kernel.settle(),
    selfPid: SELF,
  };
  return { kernel, host, base };
}

const NODE = { name: "n", memoryLimitBytes: 1024n * MiB, pods: { memoryLimitBytes: 768n * MiB } };

describe("planWakeSources", () => {
  test("no notifications asked for, or no cgroups: nothing armed, and the capability line says the loop polls", () => {
    const off = planWakeSources({
      notifications: false,
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: undefined,
    });
    assert.deepEqual([off.thresholds.length, off.others.length], [0, 0]);
    assert.match(off.capabilities.join(), /notifications off.*polls every 10s/);
    const none = planWakeSources({
      notifications: true,
      housekeepingIntervalMs: 1000,
      thresholds: thresholds(),
      target: undefined,
    });
    assert.deepEqual([none.thresholds.length, none.others.length], [0, 0]);
    assert.match(none.capabilities.join(), /without cgroups.*polls every 1s/);
  });

  test("cgroup v1: one memcg threshold and one reclaim watch per memory threshold (hard, soft, allocatable), on the cgroup it watches; none for disk", async () => {
    const { kernel, host, base } = await fakeHost("v1");
    const own = join(base, "memory", "own");
    await kernel.makeOwn(own);
    await kernel.place(own, SELF);
    const driver = new CgroupV1Driver({ memory: own, pids: join(base, "pids") }, host);
    const node = await driver.createNode(NODE);
    const plan = planWakeSources({
      notifications: true,
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: ownNodeWakeTarget(driver, node),
    });
    assert.deepEqual(
      plan.thresholds.map((s) => [
        s.threshold.signal,
        s.threshold.gracePeriodMs === 0 ? "hard" : "soft",
        s.notifier?.name.replace(base, ""),
        s.poller?.name.replace(base, ""),
        s.usageAtLimit?.name.replace(base, ""),
        s.reclaim?.name.replace(base, ""),
      ]),
      [
        [
          "memory.available",
          "hard",
          "memcg-threshold:/memory/own/n",
          "working-set:/memory/own/n",
          "usage-at-limit:/memory/own/n",
          "memory-reclaim:/memory/own/n",
        ],
        [
          "memory.available",
          "soft",
          "memcg-threshold:/memory/own/n",
          "working-set:/memory/own/n",
          "usage-at-limit:/memory/own/n",
          "memory-reclaim:/memory/own/n",
        ],
        [
          "allocatableMemory.available",
          "hard",
          "memcg-threshold:/memory/own/n/pods",
          "working-set:/memory/own/n/pods",
          "usage-at-limit:/memory/own/n/pods",
          "memory-reclaim:/memory/own/n/pods",
        ],
      ],
    );
    assert.equal(plan.others.length, 0);
    assert.match(plan.capabilities.join(), /3 memcg threshold/);
  });

  test("cgroup v2: a PSI trigger on the node's memory.pressure and memory.events of node and pods; an oom_kill wakes the loop", async () => {
    const { kernel, host, base } = await fakeHost("v2");
    const own = join(base, "unified", "evictd.service");
    await kernel.makeOwn(own, ["memory", "pids"]);
    await kernel.place(own, SELF);
    await kernel.place(own, SELF + 1);
    const driver = new CgroupV2Driver({ dir: own, pids: true }, host);
    const node = await driver.createNode(NODE);
    const plan = planWakeSources({
      notifications: true,
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: ownNodeWakeTarget(driver, node),
      procStatus: "CapEff:\t0000000000000000\n",
    });
    assert.deepEqual(
      plan.thresholds.map((s) => [
        s.threshold.signal,
        s.notifier === undefined && s.reclaim === undefined && s.usageAtLimit === undefined,
        s.poller?.name.replace(own, ""),
      ]),
      [
        ["memory.available", true, "working-set:/n"],
        ["memory.available", true, "working-set:/n"],
        ["allocatableMemory.available", true, "working-set:/n/pods"],
      ],
      "v2 has no memcg byte thresholds: the working set is polled instead",
    );
    assert.deepEqual(
      plan.others.map((s) => s.name.replace(own, "")),
      ["psi:/n/memory.pressure", "memory-events:/n/memory.events", "memory-events:/n/pods/memory.events"],
    );
    assert.match(plan.capabilities.join(), /PSI trigger \(some 200 ms stall in 2000 ms\)/);

    const errors: string[] = [];
    const port = new NotificationWakePort({
      sources: plan.thresholds,
      others: plan.others,
      now: () => 42,
      onError: (name, e) => errors.push(`${name}: ${String(e)}`),
    });
    try {
      // The PSI trigger was written to the (fake) pressure file the way the kernel expects it.
      assert.ok(readFileSync(join(own, "n", "memory.pressure"), "utf8").startsWith("some 200000 2000000\n"));
      const woke = port.next(5_000);
      await new Promise((r) => setTimeout(r, 50));
      await writeFile(
        join(own, "n", "pods", "memory.events"),
        "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n",
      );
      const wake = await woke;
      assert.equal(wake.notification, true, `woke by ${wake.reason}`);
      assert.match(wake.reason, /max \+3.*oom \+1.*oom_kill \+1/);
      assert.deepEqual(errors, []);
    } finally {
      await port.stop();
    }
  });
});

describe("planWakeSources on a kubelet's tree", () => {
  const tree = (api: "v1" | "v2", nodeIsRoot: boolean): Parameters<typeof planWakeSources>[0]["target"] => ({
    api,
    nodeDir: nodeIsRoot ? "/sys/fs/cgroup" : "/sys/fs/cgroup/node",
    podsDir: nodeIsRoot ? "/sys/fs/cgroup/kubepods" : "/sys/fs/cgroup/node/kubepods",
    nodeIsRoot,
    where: " on the kubelet's cgroups",
    procRoot: "/host/proc",
  });

  test("v2 with the node at the root: the machine's pressure file, memory.events of kubepods only, the root's working set from memory.stat", () => {
    const plan = planWakeSources({
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: tree("v2", true),
      procStatus: "CapEff:\t0000000001000000\n",
    });
    assert.deepEqual(
      plan.others.map((s) => s.name),
      ["psi:/host/proc/pressure/memory", "memory-events:/sys/fs/cgroup/kubepods/memory.events"],
    );
    assert.deepEqual(
      plan.thresholds.map((s) => s.poller?.name),
      ["working-set:/sys/fs/cgroup", "working-set:/sys/fs/cgroup", "working-set:/sys/fs/cgroup/kubepods"],
    );
    assert.match(
      plan.capabilities.join(),
      /^kernel notifications on the kubelet's cgroups \(cgroup v2.*some 100 ms stall in 1000 ms/,
    );
  });

  test("v2 under a parent cgroup: the node cgroup's own pressure and events files", () => {
    const plan = planWakeSources({
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: tree("v2", false),
      procStatus: "CapEff:\t0\n",
    });
    assert.deepEqual(
      plan.others.map((s) => s.name),
      [
        "psi:/sys/fs/cgroup/node/memory.pressure",
        "memory-events:/sys/fs/cgroup/node/memory.events",
        "memory-events:/sys/fs/cgroup/node/kubepods/memory.events",
      ],
    );
  });

  test("v1: memcg thresholds, usage-at-limit thresholds and reclaim watches on the root and kubepods, as the kubelet arms its thresholds", () => {
    const plan = planWakeSources({
      housekeepingIntervalMs: 10_000,
      thresholds: thresholds(),
      target: tree("v1", true),
    });
    assert.deepEqual(
      plan.thresholds.map((s) => [s.notifier?.name, s.usageAtLimit?.name, s.reclaim?.name]),
      [
        ["memcg-threshold:/sys/fs/cgroup", "usage-at-limit:/sys/fs/cgroup", "memory-reclaim:/sys/fs/cgroup"],
        ["memcg-threshold:/sys/fs/cgroup", "usage-at-limit:/sys/fs/cgroup", "memory-reclaim:/sys/fs/cgroup"],
        [
          "memcg-threshold:/sys/fs/cgroup/kubepods",
          "usage-at-limit:/sys/fs/cgroup/kubepods",
          "memory-reclaim:/sys/fs/cgroup/kubepods",
        ],
      ],
    );
    assert.equal(plan.others.length, 0);
    assert.match(
      plan.capabilities.join(),
      /^kernel notifications on the kubelet's cgroups: 3 memcg threshold/,
    );
  });
});

describe("PSI trigger parameters", () => {
  test("CAP_SYS_RESOURCE (bit 24) decides the window; both specs are ones the kernel accepts", () => {
    assert.equal(hasSysResourceCapability("Name:\tx\nCapEff:\t000001ffffffffff\n"), true);
    assert.equal(hasSysResourceCapability("CapEff:\t0000000001000000\n"), true);
    assert.equal(hasSysResourceCapability("CapEff:\t0000000000ffffff\n"), false);
    assert.equal(hasSysResourceCapability("no such line"), false);
    for (const privileged of [true, false])
      assert.deepEqual(psiTriggerProblems(psiTriggerSpecFor(privileged)), []);
    assert.equal(
      psiTriggerSpecFor(false).windowUs % 2_000_000,
      0,
      "unprivileged windows must be multiples of 2 s",
    );
  });
});
