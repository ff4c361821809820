/** Both drivers against fake cgroupfs trees: one shared suite over v1 and v2, then what only one of them does. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { ownNodeWakeTarget } from "../notify/plan-wake-sources.js";
import type { CgroupDriver, NodeSpec } from "./cgroup-driver.js";
import { CgroupV1Driver } from "./cgroup-v1-driver.js";
import { CgroupV2Driver } from "./cgroup-v2-driver.js";
import type { CgroupHost } from "./cgroupfs-driver.js";
import { FakeCgroupKernel, V1_UNLIMITED } from "./testing/fake-cgroup-kernel.js";

const MiB = 1024n * 1024n;
const SELF = 1000;
const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

interface Rig {
  readonly api: "v1" | "v2";
  readonly kernel: FakeCgroupKernel;
  readonly driver: CgroupDriver;
  readonly base: string;
  /** The own cgroup per hierarchy (v2: the same directory twice). */
  readonly ownMemory: string;
  readonly ownPids: string;
  readonly host: CgroupHost;
}

/** A fake host shaped like real ones: v1 as on this machine (memory nested, pids at the root), v2 as a systemd service. */
async function rig(
  api: "v1" | "v2",
  options: { pids?: boolean; swap?: boolean; ownIsRoot?: boolean } = {},
): Promise<Rig> {
  const base = await mkdtemp(join(tmpdir(), "evictd-cgroupfs-"));
  temps.push(base);
  const withPids = options.pids ?? true;
  if (api === "v1") {
    const hierarchies = [
      { kind: "memory" as const, mount: join(base, "memory") },
      ...(withPids ? [{ kind: "pids" as const, mount: join(base, "pids") }] : []),
    ];
    const kernel = new FakeCgroupKernel(base, hierarchies);
    await kernel.boot();
    const ownMemory = join(base, "memory", "process_api", "abc123");
    await kernel.makeOwn(ownMemory);
    await kernel.place(ownMemory, SELF);
    const host: CgroupHost = {
      fs: kernel,
      kill: (pid) => kernel.kill(pid),
      sleep: () => kernel.settle(),
      selfPid: SELF,
      sampleProcess: (pid) => kernel.sample(pid),
    };
    const ownPids = join(base, "pids");
    const driver = new CgroupV1Driver(
      withPids ? { memory: ownMemory, pids: ownPids } : { memory: ownMemory },
      host,
    );
    return { api, kernel, driver, base, ownMemory, ownPids, host };
  }
  const kernel = new FakeCgroupKernel(base, [{ kind: "unified", mount: join(base, "unified") }], {
    swap: options.swap ?? false,
  });
  await kernel.boot();
  const own =
    options.ownIsRoot === true
      ? join(base, "unified")
      : join(base, "unified", "system.slice", "evictd.service");
  await kernel.makeOwn(own, withPids ? ["memory", "pids"] : ["memory"]);
  await kernel.place(own, SELF);
  await kernel.place(own, SELF + 1);
  const host: CgroupHost = {
    fs: kernel,
    kill: (pid) => kernel.kill(pid),
    sleep: () => kernel.settle(),
    selfPid: SELF,
    sampleProcess: (pid) => kernel.sample(pid),
  };
  const driver = new CgroupV2Driver({ dir: own, pids: withPids }, host);
  return { api, kernel, driver, base, ownMemory: own, ownPids: own, host };
}

/** A rig whose driver gets `host`'s hooks over the fake kernel's (the node is created by the test). */
async function rigWith(
  api: "v1" | "v2",
  host: (kernel: FakeCgroupKernel) => Partial<CgroupHost>,
): Promise<Rig> {
  const r = await rig(api);
  const withHooks: CgroupHost = { ...r.host, ...host(r.kernel) };
  const driver =
    api === "v1"
      ? new CgroupV1Driver({ memory: r.ownMemory, pids: r.ownPids }, withHooks)
      : new CgroupV2Driver({ dir: r.ownMemory }, withHooks);
  return { ...r, driver, host: withHooks };
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const read = async (path: string): Promise<string> => (await readFile(path, "utf8")).trim();
const NODE: NodeSpec = {
  name: "node-a",
  memoryLimitBytes: 1024n * MiB,
  pidsMax: 500,
  pods: { memoryLimitBytes: 768n * MiB, pidsMax: 400 },
};

/** Rejects with an AdapterError of this code whose message contains every fragment. */
async function rejectsWith(promise: Promise<unknown>, code: string, ...fragments: string[]): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AdapterError, `expected an AdapterError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    for (const f of fragments)
      assert.ok(error.message.includes(f), `${JSON.stringify(error.message)} should mention ${f}`);
    return true;
  });
}

for (const api of ["v1", "v2"] as const) {
  const memoryLimitFile = api === "v1" ? "memory.limit_in_bytes" : "memory.max";
  const unlimited = api === "v1" ? V1_UNLIMITED : "max";

  describe(`cgroup ${api} driver on a fake cgroupfs`, () => {
    test("createNode lays out node, pods and the QoS tiers in every hierarchy, with the limits written in the kernel's format", async () => {
      const { driver, ownMemory, ownPids } = await rig(api);
      const node = await driver.createNode(NODE);
      assert.deepEqual(
        [node.node.path, node.pods.path, node.burstable.path, node.besteffort.path],
        ["node-a", "node-a/pods", "node-a/pods/burstable", "node-a/pods/besteffort"],
      );
      assert.deepEqual(driver.current, node);
      for (const dir of [ownMemory, ownPids]) {
        for (const sub of ["node-a", "node-a/pods", "node-a/pods/burstable", "node-a/pods/besteffort"])
          assert.ok(existsSync(join(dir, sub)), `${dir}/${sub}`);
      }
      assert.equal(await read(join(ownMemory, "node-a", memoryLimitFile)), String(1024n * MiB));
      assert.equal(await read(join(ownMemory, "node-a/pods", memoryLimitFile)), String(768n * MiB));
      assert.equal(await read(join(ownMemory, "node-a/pods/burstable", memoryLimitFile)), unlimited);
      assert.equal(await read(join(ownPids, "node-a", "pids.max")), "500");
      assert.equal(await read(join(ownPids, "node-a/pods", "pids.max")), "400");
      assert.equal(await read(join(ownPids, "node-a/pods/besteffort", "pids.max")), "max");
    });

    test("pods go to the tier of their QoS class and containers below them; directories and procFiles follow", async () => {
      const { driver, ownMemory, ownPids } = await rig(api);
      await driver.createNode(NODE);
      const cases = [
        { qos: "Guaranteed", want: "node-a/pods/pod1111" },
        { qos: "Burstable", want: "node-a/pods/burstable/pod2222" },
        { qos: "BestEffort", want: "node-a/pods/besteffort/pod3333" },
      ] as const;
      for (const [i, c] of cases.entries()) {
        const uid = String(i + 1).repeat(4);
        const pod = await driver.createPod(uid, c.qos);
        assert.deepEqual(pod, { kind: "pod", path: c.want, uid, qos: c.qos });
        const container = await driver.createContainer(pod, "app", {
          memoryLimitBytes: 64n * MiB + 100n,
          pidsMax: 8,
        });
        assert.equal(container.path, `${c.want}/app`);
        assert.deepEqual(driver.directories(container), {
          memory: join(ownMemory, c.want, "app"),
          pids: join(ownPids, c.want, "app"),
          unified: api === "v1" ? undefined : join(ownMemory, c.want, "app"),
        });
        const want =
          api === "v1"
            ? [join(ownMemory, c.want, "app", "cgroup.procs"), join(ownPids, c.want, "app", "cgroup.procs")]
            : [join(ownMemory, c.want, "app", "cgroup.procs")];
        assert.deepEqual(driver.procFiles(container), want);
        // The kernel rounds limits down to a page.
        assert.equal(await read(join(ownMemory, c.want, "app", memoryLimitFile)), String(64n * MiB));
        assert.equal(await read(join(ownPids, c.want, "app", "pids.max")), "8");
      }
    });

    test("a pod-level limit is written on the pod cgroup", async () => {
      const { driver, ownMemory } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Guaranteed", { memoryLimitBytes: 256n * MiB });
      assert.equal(await read(join(ownMemory, pod.path, memoryLimitFile)), String(256n * MiB));
    });

    const badNames = [
      "",
      ".",
      "..",
      "../escape",
      "a/b",
      "memory.max",
      "cgroup.procs",
      "tasks",
      "evictd-daemon",
      "-x",
      "x".repeat(65),
      "sp ace",
    ];
    test("names that are not a single safe directory name are refused before anything is created", async () => {
      const { driver, ownMemory } = await rig(api);
      for (const name of badNames)
        await rejectsWith(driver.createNode({ name }), "cgroup-invalid-name", JSON.stringify(name));
      assert.deepEqual(
        (await readdir(ownMemory, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name),
        [],
      );
      await driver.createNode(NODE);
      for (const name of badNames) {
        await rejectsWith(driver.createPod(name, "Burstable"), "cgroup-invalid-name");
        await rejectsWith(
          driver.createContainer(await driver.createPod(`ok${badNames.indexOf(name)}`, "Burstable"), name),
          "cgroup-invalid-name",
        );
      }
    });

    test("handles that point outside the node are refused", async () => {
      const { driver } = await rig(api);
      await driver.createNode(NODE);
      const outside = [
        { kind: "pod", path: "other-node/pods/podx", uid: "x", qos: "Guaranteed" },
        { kind: "pod", path: "node-a/../../../etc", uid: "x", qos: "Guaranteed" },
        { kind: "pod", path: "/node-a/pods", uid: "x", qos: "Guaranteed" },
      ] as const;
      for (const pod of outside) {
        await rejectsWith(driver.createContainer(pod, "app"), "cgroup-outside-node", pod.path);
        await rejectsWith(driver.procs(pod), "cgroup-outside-node");
        await rejectsWith(driver.remove(pod), "cgroup-outside-node");
        assert.throws(
          () => driver.directories(pod),
          (e: unknown) => e instanceof AdapterError && e.code === "cgroup-outside-node",
        );
      }
    });

    test("limits that are not quantities are refused", async () => {
      const { driver } = await rig(api);
      await rejectsWith(driver.createNode({ name: "n", memoryLimitBytes: 0n }), "cgroup-invalid-limit", "0");
      await rejectsWith(driver.createNode({ name: "n", pidsMax: -1 }), "cgroup-invalid-limit", "-1");
      await rejectsWith(driver.createNode({ name: "n", pidsMax: 1.5 }), "cgroup-invalid-limit", "1.5");
    });

    test("memory(): working set = usage − inactive_file, clamped at 0; unlimited reads as undefined", async () => {
      const { driver, kernel, ownMemory } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Burstable");
      const c = await driver.createContainer(pod, "app", { memoryLimitBytes: 128n * MiB });
      const dir = join(ownMemory, c.path);
      const cases = [
        { usage: 100n * MiB, inactive: 30n * MiB, want: 70n * MiB },
        { usage: 10n * MiB, inactive: 30n * MiB, want: 0n },
        { usage: 0n, inactive: 0n, want: 0n },
        { usage: 18446744073709551615n, inactive: 1n, want: 18446744073709551614n },
      ];
      for (const k of cases) {
        if (api === "v1") {
          await kernel.set(join(dir, "memory.usage_in_bytes"), `${k.usage}\n`);
          // Real v1 memory.stat: local and total_ lines; the hierarchical total_ one counts.
          await kernel.set(
            join(dir, "memory.stat"),
            `cache 4096\nrss 8192\ninactive_file 1\nactive_file 2\ntotal_cache 4096\ntotal_rss 8192\ntotal_inactive_file ${k.inactive}\ntotal_active_file 2\n`,
          );
          await kernel.set(join(dir, "memory.failcnt"), "7\n");
        } else {
          await kernel.set(join(dir, "memory.current"), `${k.usage}\n`);
          await kernel.set(
            join(dir, "memory.stat"),
            `anon 8192\nfile 4096\nkernel 0\nactive_file 2\ninactive_file ${k.inactive}\nworkingset_refault_file 0\n`,
          );
          await kernel.set(
            join(dir, "memory.events"),
            "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n",
          );
        }
        const m = await driver.memory(c);
        assert.equal(m.usageBytes, k.usage);
        assert.equal(m.inactiveFileBytes, k.inactive);
        assert.equal(m.workingSetBytes, k.want);
        assert.equal(m.limitBytes, 128n * MiB);
        assert.equal(m.limitHits, 7);
      }
      assert.equal((await driver.memory(pod)).limitBytes, undefined);
    });

    test("pids(): current, max (`max` → undefined) and refused forks", async () => {
      const { driver, kernel, ownPids } = await rig(api);
      await driver.createNode(NODE);
      const c = await driver.createContainer(await driver.createPod("p1", "BestEffort"), "app", {
        pidsMax: 4,
      });
      await kernel.set(join(ownPids, c.path, "pids.current"), "4\n");
      await kernel.set(join(ownPids, c.path, "pids.events"), "max 12\n");
      assert.deepEqual(await driver.pids(c), { current: 4, max: 4, limitHits: 12 });
      assert.deepEqual(await driver.pids(c.pod), { current: 0, max: undefined, limitHits: 0 });
    });

    test("oomKills counts kills anywhere in the subtree", async () => {
      const { driver, kernel, ownMemory } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Burstable");
      const a = await driver.createContainer(pod, "a");
      const b = await driver.createContainer(pod, "b");
      if (api === "v1") {
        // v1 counts a kill only in the victim's own cgroup.
        await kernel.set(
          join(ownMemory, a.path, "memory.oom_control"),
          "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
        );
        await kernel.set(
          join(ownMemory, b.path, "memory.oom_control"),
          "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n",
        );
      } else {
        // v2 propagates to ancestors itself.
        const events = (n: number): string =>
          `low 0\nhigh 0\nmax 0\noom ${n}\noom_kill ${n}\noom_group_kill 0\n`;
        await kernel.set(join(ownMemory, a.path, "memory.events"), events(2));
        await kernel.set(join(ownMemory, b.path, "memory.events"), events(1));
        for (const p of [pod.path, "node-a/pods/burstable", "node-a/pods", "node-a"])
          await kernel.set(join(ownMemory, p, "memory.events"), events(3));
      }
      assert.equal(await driver.oomKills(a), 2);
      assert.equal(await driver.oomKills(b), 1);
      assert.equal(await driver.oomKills(pod), 3);
      assert.equal(await driver.oomKills({ kind: "node", path: "node-a" }), 3);
      assert.equal((await driver.memory(pod)).oomKills, 3);
      assert.equal(await driver.oomKills(await driver.createPod("p2", "Burstable")), 0);
    });

    test("addProcess writes the pid to every hierarchy; procs reads one cgroup or the subtree", async () => {
      const { driver, kernel, ownMemory, ownPids } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Burstable");
      const a = await driver.createContainer(pod, "a");
      const b = await driver.createContainer(pod, "b");
      await driver.addProcess(a, 4242);
      await driver.addProcess(b, 77);
      await driver.addProcess(b, 5000);
      const procsWrites = kernel.writes.filter((w) => w.includes("node-a/") && w.includes("cgroup.procs"));
      assert.equal(procsWrites.length, api === "v1" ? 6 : 3);
      assert.equal(await read(join(ownPids, a.path, "cgroup.procs")), "4242");
      assert.equal(await read(join(ownMemory, a.path, "cgroup.procs")), "4242");
      assert.deepEqual(await driver.procs(b), [77, 5000]);
      assert.deepEqual(await driver.procs(pod), []);
      assert.deepEqual(await driver.procs(pod, { recursive: true }), [77, 4242, 5000]);
      assert.deepEqual(
        await driver.procs({ kind: "node", path: "node-a" }, { recursive: true }),
        [77, 4242, 5000],
      );
      await rejectsWith(driver.addProcess(a, SELF), "cgroup-invalid-pid", "daemon");
      await rejectsWith(driver.addProcess(a, 0), "cgroup-invalid-pid");
    });

    test("remove refuses while processes remain, naming them, and removes deepest first once empty", async () => {
      const { driver, kernel } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Burstable");
      const a = await driver.createContainer(pod, "a");
      await driver.createContainer(pod, "b");
      await driver.addProcess(a, 4242);
      await rejectsWith(driver.remove(pod), "cgroup-busy", "4242", pod.path);
      kernel.kill(4242);
      await kernel.settle();
      await driver.remove(pod);
      const mine = kernel.removed.filter((r) => r.includes("pod"));
      const perHierarchy = api === "v1" ? 2 : 1;
      assert.equal(mine.length, 3 * perHierarchy);
      // Within each hierarchy: the containers (in name order), then the pod.
      for (let h = 0; h < perHierarchy; h++) {
        const slice = mine.slice(h * 3, h * 3 + 3).map((r) => r.slice(r.indexOf("node-a")));
        assert.deepEqual(slice, [
          "node-a/pods/burstable/podp1/a",
          "node-a/pods/burstable/podp1/b",
          "node-a/pods/burstable/podp1",
        ]);
      }
    });

    test("destroyNode kills what is left, waits, removes everything and leaves nothing behind", async () => {
      const { driver, kernel, ownMemory, ownPids } = await rig(api);
      await driver.createNode(NODE);
      const pod = await driver.createPod("p1", "Guaranteed");
      const a = await driver.createContainer(pod, "a");
      const b = await driver.createContainer(await driver.createPod("p2", "BestEffort"), "b");
      await driver.addProcess(a, 4242);
      await driver.addProcess(b, 4343);
      const report = await driver.destroyNode();
      assert.deepEqual(report.killed, [4242, 4343]);
      assert.deepEqual([...kernel.killed].sort(), [4242, 4343]);
      // node, pods, burstable, besteffort, pods/podp1, its container, besteffort/podp2, its container.
      assert.equal(report.removed.length, (api === "v1" ? 2 : 1) * 8);
      assert.ok(report.removed.at(-1)?.endsWith("node-a"));
      assert.equal(existsSync(join(ownMemory, "node-a")), false);
      assert.equal(existsSync(join(ownPids, "node-a")), false);
      assert.equal(driver.current, undefined);
      // Idempotent.
      assert.deepEqual(await driver.destroyNode(), { killed: [], removed: [] });
    });

    test("destroyNode refuses to kill the daemon itself", async () => {
      const { driver, kernel, ownMemory } = await rig(api);
      await driver.createNode(NODE);
      const a = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "a");
      await kernel.place(join(ownMemory, a.path), SELF); // bypassing addProcess's guard
      await rejectsWith(driver.destroyNode(), "cgroup-invalid-pid", String(SELF));
      assert.deepEqual(kernel.killed, []);
    });

    test("destroyNode gives up with cgroup-not-empty, the D-state hint, once nothing has moved for timeoutMs", async () => {
      const { driver, kernel } = await rig(api);
      await driver.createNode(NODE);
      const a = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "a");
      await driver.addProcess(a, 4242);
      kernel.immortal.add(4242);
      await assert.rejects(driver.destroyNode({ timeoutMs: 100 }), (e: unknown) => {
        assert.ok(e instanceof AdapterError && e.code === "cgroup-not-empty", String(e));
        assert.match(
          e.message,
          /node node-a still holds processes 4242.* none of them nearer its end for 100 ms/,
        );
        assert.match(e.hint ?? "", /state D/);
        return true;
      });
      assert.deepEqual(kernel.killed, [4242], "killed once: SIGKILL stays pending");
      kernel.immortal.delete(4242);
      kernel.kill(4242); // what the pending SIGKILL does once the I/O completes
      await driver.destroyNode();
      assert.equal(driver.current, undefined);
    });

    test("destroyNode waits past timeoutMs for a process that keeps using CPU on its way out (slow is not stuck)", async () => {
      const { driver, kernel } = await rigWith(api, (kernel) => ({
        // Rounds take real time, so the whole exit lasts far longer than timeoutMs.
        sleep: async () => {
          await delay(5);
          await kernel.settle();
        },
      }));
      await driver.createNode(NODE);
      const a = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "a");
      await driver.addProcess(a, 4242);
      kernel.slow.set(4242, 40);
      const start = Date.now();
      const report = await driver.destroyNode({ timeoutMs: 50 });
      assert.ok(Date.now() - start > 150, `the exit took ${Date.now() - start} ms, longer than timeoutMs`);
      assert.deepEqual(report.killed, [4242]);
      assert.ok(report.removed.at(-1)?.endsWith("node-a"));
      assert.equal(driver.current, undefined);
    });

    test("destroyNode kills what joins meanwhile, and names processes that keep joining after timeoutMs", async () => {
      let next = 5000;
      let joining = true;
      let container = "";
      const { driver, kernel } = await rigWith(api, (kernel) => ({
        // A supervisor outside the driver that starts a process in the container after each kill.
        sleep: async () => {
          await delay(5);
          await kernel.settle();
          if (joining) await kernel.place(container, next++);
        },
      }));
      await driver.createNode(NODE);
      const a = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "a");
      container = driver.directories(a).memory;
      await driver.addProcess(a, 4242);
      await rejectsWith(
        driver.destroyNode({ timeoutMs: 50 }),
        "cgroup-not-empty",
        "node node-a still gets new processes",
        "after its processes were killed",
      );
      assert.ok(kernel.killed.includes(4242) && kernel.killed.includes(5000), "newcomers are killed too");
      const newcomers = kernel.killed.filter((pid) => pid >= 5000);
      assert.equal(newcomers.at(-1), next - 1, "the newcomer teardown gave up on was killed all the same");
      joining = false;
      const report = await driver.destroyNode();
      assert.ok(report.killed.length <= 1, "at most one that joined after the last look");
      assert.equal(driver.current, undefined);
    });

    test("createNode refuses an existing directory (with a hint) and a second node; destroyNode({ name }) clears leftovers", async () => {
      const first = await rig(api);
      await first.driver.createNode(NODE);
      await rejectsWith(first.driver.createNode({ name: "node-b" }), "cgroup-busy", "node-a");
      // A new driver (a restarted daemon) finds the leftover.
      const second: CgroupDriver =
        api === "v1"
          ? new CgroupV1Driver({ memory: first.ownMemory, pids: first.ownPids }, first.host)
          : new CgroupV2Driver({ dir: first.ownMemory }, first.host);
      await assert.rejects(
        second.createNode(NODE),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.code === "cgroup-exists" &&
          e.hint !== undefined &&
          e.hint.includes("destroyNode"),
      );
      const report = await second.destroyNode({ name: "node-a" });
      assert.equal(report.removed.length, (api === "v1" ? 2 : 1) * 4);
      assert.equal(existsSync(join(first.ownMemory, "node-a")), false);
      assert.deepEqual(await second.destroyNode({ name: "never-existed" }), { killed: [], removed: [] });
      await second.createNode(NODE);
    });

    test("errors name the file and say why", async () => {
      const cases = [
        { errno: "EACCES", code: "cgroup-permission-denied", why: "permission denied" },
        { errno: "EROFS", code: "cgroup-read-only", why: "read-only" },
        { errno: "ENOSPC", code: "cgroup-io", why: "ENOSPC" },
      ];
      for (const c of cases) {
        const { driver, kernel, ownMemory } = await rig(api);
        kernel.failures.set("/node-a", c.errno);
        await rejectsWith(driver.createNode(NODE), c.code, join(ownMemory, "node-a"), c.why);
        assert.equal(existsSync(join(ownMemory, "node-a")), false);
      }
      const { driver, kernel, ownMemory } = await rig(api);
      await driver.createNode(NODE);
      // A failure half-way through createNode removes what it created.
      const again = await rig(api);
      again.kernel.failures.set("/node-a/pods/besteffort", "EACCES");
      await rejectsWith(again.driver.createNode(NODE), "cgroup-permission-denied", "besteffort");
      assert.equal(existsSync(join(again.ownMemory, "node-a")), false);
      assert.equal(again.driver.current, undefined);
      // Garbage where the kernel writes numbers.
      const usage = join(ownMemory, "node-a", api === "v1" ? "memory.usage_in_bytes" : "memory.current");
      await kernel.set(usage, "lots\n");
      await rejectsWith(driver.memory({ kind: "node", path: "node-a" }), "cgroup-parse", usage, '"lots"');
      await kernel.set(join(ownMemory, "node-a", "memory.stat"), "anon 1 2\n");
      await kernel.set(usage, "1\n");
      await rejectsWith(driver.memory({ kind: "node", path: "node-a" }), "cgroup-parse", "memory.stat");
    });

    test("before createNode there is no node to work in", async () => {
      const { driver } = await rig(api);
      await rejectsWith(driver.createPod("p1", "Burstable"), "cgroup-no-node");
      await rejectsWith(driver.procs({ kind: "node", path: "node-a" }), "cgroup-no-node");
    });

    test("without the pids controller: no pid limits, pids() says so, memory still works", async () => {
      const { driver } = await rig(api, { pids: false });
      assert.equal(driver.hasPids, false);
      await rejectsWith(driver.createNode(NODE), "cgroup-controller-missing", "pids");
      const node = await driver.createNode({ name: "node-a", memoryLimitBytes: 64n * MiB });
      await rejectsWith(driver.pids(node.node), "cgroup-controller-missing");
      assert.equal((await driver.memory(node.node)).limitBytes, 64n * MiB);
      assert.equal(driver.directories(node.node).pids, undefined);
    });

    test("the wake planner watches the node's and the pods' memory cgroups", async () => {
      const { driver, ownMemory } = await rig(api);
      const node = await driver.createNode(NODE);
      assert.deepEqual(ownNodeWakeTarget(driver, node), {
        api,
        nodeDir: join(ownMemory, "node-a"),
        podsDir: join(ownMemory, "node-a", "pods"),
        nodeIsRoot: false,
      });
    });
  });
}

describe("cgroup v2 specifics", () => {
  test("the daemon's processes move to <own>/evictd-daemon before controllers are enabled, and come back on teardown", async () => {
    const { driver, kernel, ownMemory: own } = await rig("v2");
    const node = await driver.createNode(NODE);
    assert.equal(await read(join(own, "cgroup.procs")), "");
    assert.deepEqual((await read(join(own, "evictd-daemon", "cgroup.procs"))).split("\n").map(Number), [
      SELF,
      SELF + 1,
    ]);
    assert.equal(await read(join(own, "cgroup.subtree_control")), "memory pids");
    // Every inner cgroup hands the controllers down, so that the leaves get memory.max and pids.max.
    for (const p of ["node-a", "node-a/pods", "node-a/pods/burstable", "node-a/pods/besteffort"])
      assert.equal(await read(join(own, p, "cgroup.subtree_control")), "memory pids", p);
    const pod = await driver.createPod("p1", "Burstable");
    const c = await driver.createContainer(pod, "app", { memoryLimitBytes: 32n * MiB });
    assert.equal(await read(join(own, pod.path, "cgroup.subtree_control")), "memory pids");
    assert.equal(
      await read(join(own, c.path, "cgroup.subtree_control")),
      "",
      "a leaf enables nothing, so processes may live in it",
    );
    assert.equal(await read(join(own, c.path, "memory.max")), String(32n * MiB));
    // The order that matters: move first, then enable.
    const moveAt = kernel.writes.findIndex((w) => w.includes("evictd-daemon/cgroup.procs"));
    const enableAt = kernel.writes.findIndex((w) =>
      w.endsWith("evictd.service/cgroup.subtree_control <- +memory +pids"),
    );
    assert.ok(moveAt >= 0 && enableAt > moveAt, kernel.writes.join("\n"));
    await driver.destroyNode();
    assert.equal(existsSync(join(own, node.name)), false);
    assert.equal(existsSync(join(own, "evictd-daemon")), false);
    assert.deepEqual((await read(join(own, "cgroup.procs"))).split("\n").map(Number), [SELF, SELF + 1]);
    assert.equal(await read(join(own, "cgroup.subtree_control")), "");
  });

  test("nothing is moved when the controllers are already enabled, or when the own cgroup is the root", async () => {
    const enabled = await rig("v2");
    await enabled.kernel.place(join(enabled.ownMemory), SELF);
    // Someone (an earlier run, systemd) already arranged the own cgroup.
    await enabled.kernel.makeOwn(join(enabled.ownMemory, "elsewhere"));
    await enabled.kernel.place(join(enabled.ownMemory, "elsewhere"), SELF);
    await enabled.kernel.place(join(enabled.ownMemory, "elsewhere"), SELF + 1);
    await enabled.kernel.writeFile(join(enabled.ownMemory, "cgroup.subtree_control"), "+memory +pids");
    await enabled.driver.createNode(NODE);
    assert.equal(existsSync(join(enabled.ownMemory, "evictd-daemon")), false);
    await enabled.driver.destroyNode();
    assert.equal(
      await read(join(enabled.ownMemory, "cgroup.subtree_control")),
      "memory pids",
      "controllers it did not enable stay enabled",
    );

    const root = await rig("v2", { ownIsRoot: true });
    await root.driver.createNode(NODE);
    assert.equal(existsSync(join(root.ownMemory, "evictd-daemon")), false);
    assert.deepEqual((await read(join(root.ownMemory, "cgroup.procs"))).split("\n").map(Number), [
      SELF,
      SELF + 1,
    ]);
    await root.driver.destroyNode();
  });

  test("when enabling the controllers fails after the move, the daemon's processes are moved back", async () => {
    const { driver, kernel, ownMemory: own } = await rig("v2");
    kernel.failures.set("write:evictd.service/cgroup.subtree_control", "EACCES");
    await rejectsWith(
      driver.createNode(NODE),
      "cgroup-permission-denied",
      join(own, "cgroup.subtree_control"),
    );
    assert.ok(
      kernel.writes.some((w) => w.includes("evictd-daemon/cgroup.procs")),
      "the move happened first",
    );
    assert.deepEqual((await read(join(own, "cgroup.procs"))).split("\n").map(Number), [SELF, SELF + 1]);
    assert.equal(existsSync(join(own, "evictd-daemon")), false);
    assert.equal(existsSync(join(own, "node-a")), false);
  });

  test("a controller missing from cgroup.controllers is reported with a delegation hint", async () => {
    const base = await mkdtemp(join(tmpdir(), "evictd-cgroupfs-"));
    temps.push(base);
    const kernel = new FakeCgroupKernel(base, [{ kind: "unified", mount: join(base, "unified") }]);
    await kernel.boot();
    const own = join(base, "unified", "user.slice", "me");
    await kernel.makeOwn(own, ["pids"]);
    const driver = new CgroupV2Driver({ dir: own }, { fs: kernel, selfPid: SELF });
    await assert.rejects(
      driver.createNode(NODE),
      (e: unknown) =>
        e instanceof AdapterError &&
        e.code === "cgroup-controller-missing" &&
        e.message.includes("memory") &&
        e.message.includes(join(own, "cgroup.controllers")) &&
        (e.hint ?? "").includes("Delegate=yes"),
    );
    assert.equal(existsSync(join(own, "node-a")), false);
  });

  test("containers get memory.swap.max = 0 when swap accounting exists (the kubelet's NoSwap)", async () => {
    const { driver, ownMemory } = await rig("v2", { swap: true });
    await driver.createNode(NODE);
    const c = await driver.createContainer(await driver.createPod("p1", "Burstable"), "app");
    assert.equal(await read(join(ownMemory, c.path, "memory.swap.max")), "0");
    assert.equal(await read(join(ownMemory, "node-a", "memory.swap.max")), "max");
  });

  test("teardown uses cgroup.kill, so processes forked meanwhile die too", async () => {
    const { driver, kernel } = await rig("v2");
    await driver.createNode(NODE);
    const a = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "a");
    await driver.addProcess(a, 4242);
    await driver.destroyNode();
    assert.ok(
      kernel.writes.some((w) => w.endsWith("node-a/cgroup.kill <- 1")),
      kernel.writes.join("\n"),
    );
    assert.deepEqual(kernel.killed, [4242]);
  });

  test("processes cannot be added to an inner cgroup (the kernel's rule, surfaced as cgroup-busy)", async () => {
    const { driver } = await rig("v2");
    await driver.createNode(NODE);
    const pod = await driver.createPod("p1", "Guaranteed");
    // A hand-made handle passing the pod off as a container gets past the kind check; the kernel refuses.
    await rejectsWith(
      driver.addProcess({ kind: "container", path: pod.path, name: "x", pod }, 4242),
      "cgroup-busy",
      "cgroup.procs",
    );
  });
});

describe("cgroup v1 on a hybrid host (this machine's shape)", () => {
  /** memory nested, pids and unified at their roots; the unified hierarchy offers no memory or pids. */
  async function hybrid(): Promise<{ kernel: FakeCgroupKernel; driver: CgroupV1Driver; dirs: string[] }> {
    const base = await mkdtemp(join(tmpdir(), "evictd-cgroupfs-"));
    temps.push(base);
    const kernel = new FakeCgroupKernel(
      base,
      [
        { kind: "memory", mount: join(base, "memory") },
        { kind: "pids", mount: join(base, "pids") },
        { kind: "unified", mount: join(base, "unified") },
      ],
      { rootControllers: "hugetlb" },
    );
    await kernel.boot();
    const ownMemory = join(base, "memory", "process_api", "abc123");
    await kernel.makeOwn(ownMemory);
    const dirs = [ownMemory, join(base, "pids"), join(base, "unified")];
    const driver = new CgroupV1Driver(
      { memory: ownMemory, pids: join(base, "pids"), unified: join(base, "unified") },
      {
        fs: kernel,
        kill: (pid) => kernel.kill(pid),
        sleep: () => kernel.settle(),
        selfPid: SELF,
        sampleProcess: (pid) => kernel.sample(pid),
      },
    );
    return { kernel, driver, dirs };
  }

  test("the node is mirrored in the unified hierarchy, where each cgroup has its own memory.pressure", async () => {
    const { driver, dirs } = await hybrid();
    await driver.createNode(NODE);
    const c = await driver.createContainer(await driver.createPod("p1", "Burstable"), "app", { pidsMax: 3 });
    const [memory, pids, unified] = dirs.map((d) => join(d, c.path));
    assert.deepEqual(driver.directories(c), { memory, pids, unified });
    assert.deepEqual(
      driver.procFiles(c),
      [memory, pids, unified].map((d) => join(d ?? "", "cgroup.procs")),
    );
    assert.match(await read(join(unified ?? "", "memory.pressure")), /^some avg10=/);
    // Limits stay in the v1 hierarchies; the mirror enables nothing.
    assert.equal(await read(join(pids ?? "", "pids.max")), "3");
    assert.equal(await read(join(unified ?? "", "cgroup.subtree_control")), "");
  });

  test("processes join all three; teardown kills through cgroup.kill and removes all three trees", async () => {
    const { driver, kernel, dirs } = await hybrid();
    await driver.createNode(NODE);
    const c = await driver.createContainer(await driver.createPod("p1", "Guaranteed"), "app");
    await driver.addProcess(c, 4242);
    for (const d of dirs) assert.equal(await read(join(d, c.path, "cgroup.procs")), "4242");
    const report = await driver.destroyNode();
    assert.ok(
      kernel.writes.some((w) => w.endsWith(`unified/${NODE.name}/cgroup.kill <- 1`)),
      kernel.writes.join("\n"),
    );
    assert.deepEqual(report.killed, [4242]);
    assert.equal(report.removed.length, 3 * 6);
    for (const d of dirs) assert.equal(existsSync(join(d, NODE.name)), false);
  });
});
