/** The detected driver on this host's real cgroups: a node subtree under the test's own cgroup, real processes, real limits, nothing left behind. */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { after, before, describe, test } from "node:test";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import { AdapterError } from "../../errors.js";
import { NotificationWakePort } from "../notify/notification-wake-port.js";
import { ownNodeWakeTarget, planWakeSources } from "../notify/plan-wake-sources.js";
import type { CgroupDriver, NodeCgroups, PodCgroup } from "./cgroup-driver.js";
import { createCgroupDriver } from "./create-cgroup-driver.js";
import { detectOwnCgroups } from "./detect-cgroups.js";
import { spawnInCgroups } from "./spawn-in-cgroup.js";

const MiB = 1024n * 1024n;
const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const choice = detection === undefined ? undefined : createCgroupDriver(detection);
const skip = choice === undefined ? "not Linux" : choice.ok ? false : choice.reason;
if (skip !== false) console.error(`# live cgroup tests skipped: ${skip}`);

const NAME = `evictd-live-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const children: ChildProcess[] = [];

/** Resolves with the child's exit once it has ended. */
function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Resolves with the first stdout line equal to `line`, or rejects after `ms`. */
function waitForLine(child: ChildProcess, line: string, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(
      () =>
        reject(
          new Error(`no "${line}" from pid ${child.pid} within ${ms} ms; got ${JSON.stringify(buffer)}`),
        ),
      ms,
    );
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
      if (buffer.split("\n").includes(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

/** Whether a pid is gone or a zombie (killed, not yet reaped by its parent). */
function dead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

describe("cgroup driver, live on this host", { skip }, () => {
  let driver: CgroupDriver;
  let node: NodeCgroups;
  let burstable: PodCgroup;

  before(async () => {
    assert.ok(choice?.ok);
    driver = choice.driver;
    const start = performance.now();
    node = await driver.createNode({
      name: NAME,
      memoryLimitBytes: 512n * MiB,
      pidsMax: 200,
      pods: { memoryLimitBytes: 448n * MiB, pidsMax: 150 },
    });
    burstable = await driver.createPod("live-0001", "Burstable");
    console.error(
      `# createNode (4 cgroups per hierarchy) + createPod: ${(performance.now() - start).toFixed(1)} ms`,
    );
  });

  after(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    // Always tear down, even when a test failed half-way.
    await driver?.destroyNode({ name: NAME });
  });

  test("the node subtree exists with its limits as the kernel reads them back", async () => {
    const dirs = driver.directories(node.node);
    assert.ok(existsSync(dirs.memory));
    assert.equal((await driver.memory(node.node)).limitBytes, 512n * MiB);
    assert.equal((await driver.memory(node.pods)).limitBytes, 448n * MiB);
    assert.equal((await driver.memory(node.burstable)).limitBytes, undefined);
    if (driver.hasPids)
      assert.deepEqual(await driver.pids(node.pods), { current: 0, max: 150, limitHits: 0 });
  });

  test("a process started with spawnInCgroups is in its cgroups before its first instruction", async () => {
    const c = await driver.createContainer(burstable, "whereami");
    // cat's first act is to read /proc/self/cgroup: whatever it prints is where it was born.
    const child = spawnInCgroups(["cat", "/proc/self/cgroup"], env, "/", driver.procFiles(c));
    children.push(child);
    let out = "";
    child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    assert.deepEqual(await exited(child), { code: 0, signal: null });
    const wantMemory = `${detection?.memory?.ownPath === "/" ? "" : detection?.memory?.ownPath}/${c.path}`;
    const lines = out.split("\n");
    assert.ok(
      lines.some((l) => (l.includes(":memory:") || l.startsWith("0::")) && l.endsWith(wantMemory)),
      `memory cgroup ${wantMemory} not in:\n${out}`,
    );
    if (driver.hasPids && driver.api === "v1") {
      const wantPids = `${detection?.pids?.ownPath === "/" ? "" : detection?.pids?.ownPath}/${c.path}`;
      assert.ok(
        lines.some((l) => l.includes(":pids:") && l.endsWith(wantPids)),
        `pids cgroup ${wantPids} not in:\n${out}`,
      );
    }
    // On a hybrid host, the unified mirror too.
    const unified = driver.directories(c).unified;
    if (driver.api === "v1" && unified !== undefined) {
      const wantUnified = `${detection?.unified?.ownPath === "/" ? "" : detection?.unified?.ownPath}/${c.path}`;
      assert.ok(lines.includes(`0::${wantUnified}`), `unified cgroup ${wantUnified} not in:\n${out}`);
    }
  });

  test("every wake source planned for the node arms on its cgroups: the files are where the sources look", async () => {
    const config = buildEvictionConfig({ config: { evictionHard: { "memory.available": "100Mi" } } });
    assert.ok(config.ok);
    const plan = planWakeSources({
      housekeepingIntervalMs: 10_000,
      thresholds: config.config.thresholds,
      target: ownNodeWakeTarget(driver, node),
    });
    assert.deepEqual(
      plan.thresholds.map((s) => s.threshold.signal),
      ["memory.available", "allocatableMemory.available"],
    );
    const failures: string[] = [];
    const port = new NotificationWakePort({
      sources: plan.thresholds,
      others: plan.others,
      now: () => 0,
      onError: (name, error) => failures.push(`${name}: ${String(error)}`),
    });
    try {
      // A memcg threshold opens its files when armed: far above the node's limit, it never fires.
      for (const { notifier, usageAtLimit } of plan.thresholds)
        for (const source of [notifier, usageAtLimit]) await source?.rearm(4096n * MiB);
    } finally {
      await port.stop();
    }
    // A kernel booted with psi=0 has no pressure files: a PSI trigger is refused there, rightly.
    const psiOff = !existsSync("/proc/pressure/memory");
    assert.deepEqual(
      failures.filter((f) => !(psiOff && f.startsWith("psi:"))),
      [],
    );
  });

  test("memory and pids readings follow a real process allocating and touching 50 MiB", async () => {
    const c = await driver.createContainer(burstable, "app", { memoryLimitBytes: 256n * MiB, pidsMax: 64 });
    const script = [
      'process.stdout.write("base\\n");',
      'process.stdin.once("data", () => { globalThis.keep = Buffer.alloc(50 * 1024 * 1024, 1); process.stdout.write("ready\\n"); });',
      "process.stdin.on('end', () => process.exit(0));",
    ].join("");
    const child = spawnInCgroups([process.execPath, "-e", script], env, "/", driver.procFiles(c));
    children.push(child);
    await waitForLine(child, "base");
    const pid = child.pid ?? -1;
    assert.deepEqual(await driver.procs(c), [pid]);
    assert.ok((await driver.procs(node.node, { recursive: true })).includes(pid));
    assert.deepEqual(await driver.procs(node.node), [], "nothing lives in the inner node cgroup itself");
    const before = await driver.memory(c);
    child.stdin?.write("go\n");
    await waitForLine(child, "ready");
    const afterAlloc = await driver.memory(c);
    const grew = afterAlloc.usageBytes - before.usageBytes;
    const grewWs = afterAlloc.workingSetBytes - before.workingSetBytes;
    console.error(
      `# usage ${before.usageBytes / MiB} → ${afterAlloc.usageBytes / MiB} MiB, working set ${before.workingSetBytes / MiB} → ${afterAlloc.workingSetBytes / MiB} MiB`,
    );
    assert.ok(grew >= 48n * MiB && grew < 90n * MiB, `usage grew by ${grew} bytes`);
    assert.ok(grewWs >= 48n * MiB, `working set grew by ${grewWs} bytes`);
    assert.equal(afterAlloc.workingSetBytes, afterAlloc.usageBytes - afterAlloc.inactiveFileBytes);
    assert.equal(afterAlloc.limitBytes, 256n * MiB);
    // Hierarchical: the pod, the allocatable cgroup and the node include the container's allocation.
    // (Reads are not atomic and v1 usage is batched per CPU, so allow a few MiB of drift.)
    for (const ref of [burstable, node.pods, node.node]) {
      const usage = (await driver.memory(ref)).usageBytes;
      assert.ok(
        usage + 8n * MiB >= afterAlloc.usageBytes && usage >= 48n * MiB,
        `${ref.path}: ${usage} vs container ${afterAlloc.usageBytes}`,
      );
    }
    if (driver.hasPids) {
      const p = await driver.pids(c);
      // node runs several threads; pids counts tasks.
      assert.ok(p.current >= 1 && p.current <= 64, `pids.current ${p.current}`);
      assert.equal(p.max, 64);
      assert.ok((await driver.pids(node.node)).current >= p.current);
    }
    child.stdin?.end();
    assert.deepEqual(await exited(child), { code: 0, signal: null });
    assert.deepEqual(await driver.procs(c), []);
    await driver.remove(c);
    assert.equal(existsSync(driver.directories(c).memory), false);
  });

  test(
    "pids.max stops a fork bomb",
    { skip: choice?.ok === true && !choice.driver.hasPids ? "no pids controller" : false },
    async () => {
      const c = await driver.createContainer(burstable, "forker", { pidsMax: 5 });
      // The shell itself is one task; it can start 4 sleeps, then fork fails.
      const child = spawnInCgroups(
        ["/bin/sh", "-c", 'i=0; while [ $i -lt 20 ]; do sleep 30 & i=$((i + 1)); done; echo "all forked"'],
        env,
        "/",
        driver.procFiles(c),
      );
      children.push(child);
      let out = "";
      let err = "";
      child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
      const { code } = await exited(child);
      const p = await driver.pids(c);
      console.error(
        `# fork bomb: shell exit ${code}, stderr ${JSON.stringify(err.trim())}, pids ${JSON.stringify(p)}`,
      );
      assert.notEqual(out, "all forked\n");
      assert.match(err, /fork/i);
      assert.ok(p.limitHits >= 1, "the kernel counted refused forks");
      assert.ok(p.current <= 5 && p.current >= 1, `pids.current ${p.current}`);
      assert.ok((await driver.procs(c)).length <= 5);
    },
  );

  test("exceeding the memory limit gets the process OOM-killed, counted by oomKills up the tree", async () => {
    const pod = await driver.createPod("live-0002", "BestEffort");
    const c = await driver.createContainer(pod, "hog", { memoryLimitBytes: 96n * MiB });
    const nodeKillsBefore = await driver.oomKills(node.node);
    const child = spawnInCgroups(
      [process.execPath, "-e", "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"],
      env,
      "/",
      driver.procFiles(c),
    );
    children.push(child);
    const start = performance.now();
    assert.deepEqual(await exited(child), { code: null, signal: "SIGKILL" });
    console.error(`# OOM kill after ${(performance.now() - start).toFixed(0)} ms`);
    assert.ok((await driver.oomKills(c)) >= 1);
    assert.ok((await driver.oomKills(pod)) >= 1);
    assert.ok((await driver.oomKills(node.node)) > nodeKillsBefore);
    const m = await driver.memory(c);
    assert.ok(
      m.oomKills >= 1 && m.limitHits >= 1,
      JSON.stringify(m, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
    );
    assert.equal(await driver.oomKills(burstable), 0, "a sibling pod saw no kill");
  });

  test("addProcess moves a running process; remove refuses while it lives", async () => {
    const c = await driver.createContainer(burstable, "moved");
    const { spawn } = await import("node:child_process");
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(child);
    const pid = child.pid ?? -1;
    await driver.addProcess(c, pid);
    const cgroupFile = await readFile(`/proc/${pid}/cgroup`, "utf8");
    assert.ok(cgroupFile.includes(c.path), cgroupFile);
    await assert.rejects(
      driver.remove(burstable),
      (e: unknown) =>
        e instanceof AdapterError && e.code === "cgroup-busy" && e.message.includes(String(pid)),
    );
    await assert.rejects(
      driver.addProcess(c, process.pid),
      (e: unknown) => e instanceof AdapterError && e.code === "cgroup-invalid-pid",
    );
  });

  test("destroyNode kills what is left (sleeps, the moved process) and removes every directory", async () => {
    const left = await driver.procs(node.node, { recursive: true });
    assert.ok(left.length >= 1, "processes remain from the earlier tests");
    const dirs = driver.directories(node.node);
    const start = performance.now();
    const report = await driver.destroyNode();
    console.error(
      `# destroyNode: killed ${report.killed.length}, removed ${report.removed.length} directories in ${(performance.now() - start).toFixed(1)} ms`,
    );
    for (const pid of left) assert.ok(report.killed.includes(pid), `pid ${pid} was killed`);
    for (const pid of left) assert.ok(dead(pid), `pid ${pid} is gone`);
    assert.equal(existsSync(dirs.memory), false);
    if (dirs.pids !== undefined) assert.equal(existsSync(dirs.pids), false);
    if (dirs.unified !== undefined) assert.equal(existsSync(dirs.unified), false);
    assert.equal(driver.current, undefined);
    assert.deepEqual(report.removed.at(-1), dirs.unified ?? dirs.pids ?? dirs.memory);
  });

  test("create and destroy an empty node: timing", async () => {
    const rounds = 5;
    let create = 0;
    let destroy = 0;
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const n = await driver.createNode({ name: NAME, memoryLimitBytes: 64n * MiB });
      const pod = await driver.createPod("t", "Guaranteed");
      await driver.createContainer(pod, "c");
      const t1 = performance.now();
      const dirs = driver.directories(n.node);
      await driver.destroyNode();
      const t2 = performance.now();
      create += t1 - t0;
      destroy += t2 - t1;
      assert.equal(existsSync(dirs.memory), false);
    }
    console.error(
      `# node + pod + container: create ${(create / rounds).toFixed(1)} ms, destroy ${(destroy / rounds).toFixed(1)} ms (mean of ${rounds})`,
    );
  });
});
