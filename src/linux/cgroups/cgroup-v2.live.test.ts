/**
 * cgroup v2 as a real kernel does it, where the fixture trees of the driver and notifier tests can
 * only say what the documentation says: memory.events counting high, max, oom and oom_kill and
 * waking its watcher, a PSI trigger registering and firing on a cgroup's memory.pressure (and the
 * kernel's rule for triggers without CAP_SYS_RESOURCE), `cgroup.kill` taking a whole pod down at
 * once, and the driver building a node below a non-root cgroup that holds processes (the "no
 * internal processes" rule). Needs root on a cgroup v2 host: `npm test` runs it again in a v2
 * guest (scripts/v2-guest.sh) when this machine mounts cgroup v1.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { release } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { MemoryEventsWatcher } from "../notify/memory-events-watcher.js";
import { psiTriggerSpecFor } from "../notify/plan-wake-sources.js";
import { PsiTrigger } from "../notify/psi-trigger.js";
import { FdPoller } from "../notify/fd-poller.js";
import { makeScratchCgroup, removeCgroup, waitFor } from "../notify/testing/notify-test-support.js";
import { hostCgroupFs, type CgroupFs } from "./cgroup-files.js";
import { CgroupV2Driver } from "./cgroup-v2-driver.js";
import { detectOwnCgroups } from "./detect-cgroups.js";
import { spawnInCgroups } from "./spawn-in-cgroup.js";

const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const own = detection?.version === "v2" ? detection.memory?.dir : undefined;
const skip =
  detection === undefined
    ? "not Linux"
    : detection.version !== "v2"
      ? `cgroup ${detection.version} here, not a pure cgroup v2 host (npm test runs this file again on a v2 kernel, scripts/v2-guest.sh)`
      : process.getuid?.() !== 0
        ? "needs root"
        : own === undefined
          ? "no cgroup v2 memory controller"
          : false;
if (skip !== false) console.error(`# cgroup v2 kernel tests skipped: ${skip}`);

/** The test waits stretch on an emulated CPU (EVICTD_TEST_SLOWDOWN, set by scripts/v2-guest.sh). */
const SLOW = Math.max(1, Number(process.env["EVICTD_TEST_SLOWDOWN"] ?? "1") || 1);
const MiB = 1024 * 1024;
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

after(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A scratch cgroup below the own one with the memory controller, and `limits` written. */
function scratch(name: string, limits: Record<string, string> = {}): string {
  assert.ok(own !== undefined);
  const made = makeScratchCgroup(own, name);
  if ("skip" in made) assert.fail(made.skip);
  cleanups.push(() => removeCgroup(made.dir, 5000 * SLOW));
  for (const [file, value] of Object.entries(limits)) fs.writeFileSync(path.join(made.dir, file), value);
  return made.dir;
}

/** `sh -c script` started in `cgroup` (it joins before running anything else), in a process group of its own. */
function startIn(cgroup: string, script: string, ...args: string[]): ChildProcess {
  const child = spawn("sh", ["-c", `echo $$ > "$0/cgroup.procs" && ${script}`, cgroup, ...args], {
    detached: true,
    stdio: "ignore",
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** Kernel version as [major, minor]. */
function kernelVersion(): [number, number] {
  const [major, minor] = release()
    .split(".")
    .map((x) => Number.parseInt(x, 10));
  return [major ?? 0, minor ?? 0];
}

describe("cgroup v2 on a real kernel", { skip }, () => {
  test("memory.events counts high, max, oom and oom_kill, and each increment wakes its watcher", async () => {
    // Two cgroups, because past memory.high the kernel throttles the allocator on every page it
    // faults in (sleeping up to 2 s each time), so one with both limits takes minutes to reach max.
    const watch = (cgroup: string): { reasons: string[]; errors: Error[] } => {
      const seen = { reasons: [] as string[], errors: [] as Error[] };
      const watcher = new MemoryEventsWatcher({ path: path.join(cgroup, "memory.events") });
      watcher.start(
        (reason) => seen.reasons.push(reason),
        (e) => seen.errors.push(e),
      );
      cleanups.push(() => watcher.stop());
      return seen;
    };
    const grow = (cgroup: string, mib: number): ChildProcess =>
      startIn(
        cgroup,
        `exec perl -e 'my @m; for (1..${mib}) { push @m, "x" x ${MiB}; select(undef,undef,undef,0.01) } sleep 300'`,
      );
    // memory.high: the first crossing counts `high` and wakes the watcher; the process lives on.
    const soft = scratch("evictd-v2-high", { "memory.high": String(16 * MiB) });
    const softSeen = watch(soft);
    const throttled = grow(soft, 24);
    await waitFor(
      () => softSeen.reasons.some((r) => /[ ,]high \+\d/.test(r)),
      30_000 * SLOW,
      "the high wake",
    );
    if (throttled.pid !== undefined) process.kill(-throttled.pid, "SIGKILL");
    await exited(throttled);
    // memory.max: the kernel reclaims, fails (no swap), and OOM-kills: max, oom, oom_kill.
    const hard = scratch("evictd-v2-max", { "memory.max": String(24 * MiB) });
    const hardSeen = watch(hard);
    const killed = grow(hard, 64);
    const end = await Promise.race([exited(killed), sleep(60_000 * SLOW).then(() => undefined)]);
    assert.deepEqual(
      end,
      { code: null, signal: "SIGKILL" },
      "the kernel OOM-kills the process at memory.max",
    );
    await waitFor(
      () =>
        ["max", "oom", "oom_kill"].every((c) =>
          hardSeen.reasons.some((r) => new RegExp(`(^|[ ,])${c} \\+\\d`).test(r)),
        ),
      5000 * SLOW,
      "the max, oom and oom_kill wakes",
    );
    assert.deepEqual([...softSeen.errors, ...hardSeen.errors], []);
    assert.match(fs.readFileSync(path.join(soft, "memory.events"), "utf8"), /^high [1-9]/m);
    const events = fs.readFileSync(path.join(hard, "memory.events"), "utf8");
    for (const counter of ["max", "oom", "oom_kill"])
      assert.match(events, new RegExp(`^${counter} [1-9]`, "m"), `${counter} in\n${events}`);
  });

  test("a PSI trigger on a cgroup's memory.pressure registers and fires while a process in it thrashes", async (t) => {
    const cgroup = scratch("evictd-v2-psi", { "memory.max": String(16 * MiB) });
    const poller = new FdPoller();
    // The daemon's own trigger with CAP_SYS_RESOURCE (this test runs as root): 100 ms in 1 s.
    const spec = psiTriggerSpecFor(true);
    const trigger = new PsiTrigger({ path: path.join(cgroup, "memory.pressure"), ...spec, poller });
    let woke = 0;
    trigger.start(() => woke++);
    cleanups.push(() => trigger.stop());
    await sleep(300);
    assert.equal(woke, 0, "an idle cgroup does not stall");
    // Reading a sparse file far larger than the cgroup's 16 MiB, again and again: page cache
    // thrashing, which stalls the reader on memory.
    const file = path.join(fs.mkdtempSync(path.join(process.cwd(), ".psi-")), "sparse");
    cleanups.push(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
    fs.writeFileSync(file, "");
    fs.truncateSync(file, 256 * MiB);
    const started = Date.now();
    startIn(cgroup, 'while :; do cat "$1" > /dev/null; done', file);
    await waitFor(() => woke > 0, 15_000 * SLOW, "the PSI trigger's wake");
    t.diagnostic(
      `PSI wake ${Date.now() - started} ms after the thrash began (some ${spec.stallUs / 1000} ms in ${spec.windowUs / 1000} ms)`,
    );
  });

  test("without CAP_SYS_RESOURCE: no trigger before Linux 6.5, then only windows that are multiples of 2 s", (t) => {
    const cgroup = scratch("evictd-v2-psi-unpriv");
    const file = path.join(cgroup, "memory.pressure");
    // Root without CAP_SYS_RESOURCE (bounding set and inheritable set cleared of it).
    const attempt = (windowUs: number): string => {
      const r = spawnSync(
        "setpriv",
        [
          "--bounding-set=-sys_resource",
          "--inh-caps=-sys_resource",
          "--",
          process.execPath,
          "-e",
          `const fs = require("fs");
           try { const fd = fs.openSync(process.argv[1], fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
                 try { fs.writeSync(fd, "some 200000 " + process.argv[2] + "\\n"); console.log("accepted"); }
                 catch (e) { console.log("write " + e.code); } }
           catch (e) { console.log("open " + e.code); }`,
          file,
          String(windowUs),
        ],
        { encoding: "utf8" },
      );
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    const oneSecond = attempt(1_000_000);
    const twoSeconds = attempt(psiTriggerSpecFor(false).windowUs);
    const [major, minor] = kernelVersion();
    // Linux 6.5 opened triggers to unprivileged writers, windows in multiples of 2 s only (stable
    // kernels may carry that change back: Debian's 6.1 does); before it, opening for writing
    // needed CAP_SYS_RESOURCE.
    const rule =
      oneSecond === "write EINVAL" && twoSeconds === "accepted"
        ? "windows that are multiples of 2 s"
        : oneSecond === "open EPERM" && twoSeconds === "open EPERM"
          ? "no trigger at all"
          : undefined;
    assert.ok(rule !== undefined, `1 s window: ${oneSecond}; 2 s window: ${twoSeconds}`);
    if (major > 6 || (major === 6 && minor >= 5))
      assert.equal(rule, "windows that are multiples of 2 s", `Linux ${major}.${minor}`);
    t.diagnostic(`Linux ${release()} without CAP_SYS_RESOURCE: ${rule}`);
  });

  test("tearing down a node kills each pod through cgroup.kill, forking processes included", async () => {
    assert.ok(own !== undefined);
    const writes: string[] = [];
    const recording: CgroupFs = {
      ...hostCgroupFs,
      writeFile: async (file, data) => {
        writes.push(`${path.relative(own, file)} ${data}`);
        await hostCgroupFs.writeFile(file, data);
      },
    };
    const driver = new CgroupV2Driver({ dir: own }, { fs: recording });
    const name = `evictd-v2-kill-${process.pid}`;
    await driver.createNode({ name, memoryLimitBytes: BigInt(256 * MiB) });
    let forker: ChildProcess | undefined;
    try {
      const pod = await driver.createPod("v2-kill-pod", "BestEffort");
      const container = await driver.createContainer(pod, "forker");
      // A process that keeps forking: signalling listed pids one by one can miss the newest.
      forker = spawnInCgroups(
        ["sh", "-c", "while :; do sleep 30 & sleep 0.05; done"],
        { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
        "/",
        driver.procFiles(container),
        "ignore",
      );
      children.push(forker);
      const procs = path.join(driver.directories(container).memory, "cgroup.procs");
      await waitFor(
        () => fs.readFileSync(procs, "utf8").trim().split("\n").length > 3,
        10_000 * SLOW,
        "a few forks",
      );
    } finally {
      await driver.destroyNode({ name });
    }
    // The whole node subtree, at once: `<node>/cgroup.kill`.
    assert.ok(
      writes.includes(`${name}/cgroup.kill 1`),
      `cgroup.kill written: ${writes.filter((w) => w.includes("kill")).join(", ") || "none"}`,
    );
    assert.equal(fs.existsSync(path.join(own, name)), false, "the node's cgroups are gone");
    assert.deepEqual(await exited(forker), { code: null, signal: "SIGKILL" });
  });

  test("a node below a non-root cgroup that holds processes: they move to a leaf, the controllers reach every pod", async () => {
    // As a systemd service with Delegate=yes: the daemon's cgroup holds the daemon and its helpers.
    const service = scratch("evictd-v2-service");
    const companion = startIn(service, "exec sleep 300");
    await waitFor(
      () => fs.readFileSync(path.join(service, "cgroup.procs"), "utf8").trim() !== "",
      5000 * SLOW,
      "the companion in the service cgroup",
    );
    const driver = new CgroupV2Driver({ dir: service });
    const name = "evictd-v2-svc-node";
    const node = await driver.createNode({ name, memoryLimitBytes: BigInt(256 * MiB), pidsMax: 512 });
    try {
      const leafProcs = fs.readFileSync(path.join(service, "evictd-daemon", "cgroup.procs"), "utf8");
      assert.ok(
        leafProcs.split("\n").includes(String(companion.pid)),
        `the companion moved to the leaf: ${leafProcs}`,
      );
      assert.equal(
        fs.readFileSync(path.join(service, "cgroup.procs"), "utf8").trim(),
        "",
        "the service cgroup holds no process",
      );
      assert.match(fs.readFileSync(path.join(service, "cgroup.subtree_control"), "utf8"), /memory/);
      const pod = await driver.createPod("v2-svc-pod", "Burstable", { memoryLimitBytes: BigInt(32 * MiB) });
      const container = await driver.createContainer(pod, "c", { memoryLimitBytes: BigInt(32 * MiB) });
      const dir = driver.directories(container).memory;
      assert.equal(fs.readFileSync(path.join(dir, "memory.max"), "utf8").trim(), String(32 * MiB));
      assert.ok(fs.existsSync(path.join(dir, "pids.current")), "pids reaches the container's cgroup");
      assert.equal(node.node.path, name);
    } finally {
      await driver.destroyNode({ name });
    }
    assert.doesNotMatch(fs.readFileSync(path.join(service, "cgroup.subtree_control"), "utf8"), /memory/);
    assert.ok(
      fs.readFileSync(path.join(service, "cgroup.procs"), "utf8").split("\n").includes(String(companion.pid)),
      "the companion is back in the service cgroup",
    );
  });
});
