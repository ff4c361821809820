/**
 * The process pod runtime on this host, once with the detected cgroup driver and once without
 * cgroups: real processes, logs, volumes, tmpfs, restarts with back-off, kills with a grace period,
 * persisted status across a simulated daemon restart. Nothing is left behind.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ClockPort, LoggerPort, PodsPort } from "../app/ports.js";
import { parseNodeSpec, type NodeSpec } from "../core/node/node-spec.js";
import { containerOomScoreAdj } from "../core/pod/oom-score-adj.js";
import type { CgroupDriver, ContainerCgroup } from "../linux/cgroups/cgroup-driver.js";
import { createCgroupDriver } from "../linux/cgroups/create-cgroup-driver.js";
import { detectOwnCgroups } from "../linux/cgroups/detect-cgroups.js";
import { systemMounter } from "./emptydir-volumes.js";
import { ProcessPodRuntime, type GivenPodStatus } from "./pod-runtime.js";
import { readOwnMounts, readProcStat } from "../linux/procfs.js";
import { parseManifestText } from "./read-manifest-file.js";
import type { RunnablePod } from "./runnable-pod.js";
import { scaled } from "../testing/slowdown.js";

const isRoot = process.getuid?.() === 0;
const detection = process.platform === "linux" ? await detectOwnCgroups() : undefined;
const choice = detection === undefined ? undefined : createCgroupDriver(detection);
const cgroupSkip =
  process.platform !== "linux" ? "not Linux" : choice?.ok === true ? false : (choice?.reason ?? "no cgroups");
if (cgroupSkip !== false) console.error(`# pod runtime with cgroups skipped: ${cgroupSkip}`);
const linuxSkip = process.platform !== "linux" ? "not Linux" : false;

const FAST = { baseMs: 300, maxMs: 1200 };
const EVICTED: GivenPodStatus = {
  phase: "Failed",
  reason: "Evicted",
  message: "The node was low on resource: memory. ",
  conditions: [
    {
      type: "DisruptionTarget",
      status: "True",
      reason: "TerminationByKubelet",
      message: "The node was low on resource: memory. ",
    },
  ],
};

interface LogLine {
  readonly at: number;
  readonly level: string;
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** Every runtime's log lines, newest last: a timed-out wait shows the latest ones. */
const allLines: LogLine[] = [];

function recordingLogger(lines: LogLine[]): LoggerPort {
  const push = (level: string) => (fields: Record<string, unknown>, message: string) => {
    const line = { at: Date.now(), level, message, fields };
    lines.push(line);
    allLines.push(line);
  };
  return { info: push("info"), warn: push("warn"), error: push("error") };
}

const clock: ClockPort = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** Polls `check` every 25 ms until it returns a value other than undefined/false, or fails after `ms`. */
async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  unscaledMs = 5000,
): Promise<T> {
  const ms = scaled(unscaledMs);
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}; latest runtime log lines:\n` +
          allLines
            .slice(-20)
            .map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields)}`)
            .join("\n"),
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

function pod(yaml: string): RunnablePod {
  const read = parseManifestText(yaml, "test.yaml");
  assert.deepEqual(read.issues, []);
  const first = read.pods[0];
  assert.ok(first !== undefined);
  return first;
}

let counter = 0;
/** A pod manifest with a fresh UID. */
function manifest(name: string, spec: string): RunnablePod {
  counter++;
  const uid = `0000${process.pid.toString(16).padStart(4, "0")}-0000-4000-8000-${String(counter).padStart(12, "0")}`;
  return pod(`apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, uid: ${uid} }\nspec:\n${spec}`);
}

/** Unmounts whatever is still mounted under `dir` (a failed test must not leave a tmpfs). */
async function unmountUnder(dir: string): Promise<void> {
  const points = (await readOwnMounts())
    .map((m) => m.mountPoint)
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) await systemMounter.unmount(p).catch(() => undefined);
}

const modes = [
  { name: "with cgroups", cgroups: true, skip: cgroupSkip },
  { name: "without cgroups", cgroups: false, skip: linuxSkip },
] as const;

for (const mode of modes) {
  describe(`ProcessPodRuntime ${mode.name}, live`, { skip: mode.skip }, () => {
    const nodeName = `evictd-pods-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    let driver: CgroupDriver | undefined;
    let stateDir: string;
    let node: NodeSpec;
    const runtimes: ProcessPodRuntime[] = [];
    const lines: LogLine[] = [];

    function runtime(): ProcessPodRuntime {
      const r = new ProcessPodRuntime({
        cgroups: driver,
        node,
        clock,
        logger: recordingLogger(lines),
        backoff: FAST,
        pollIntervalMs: 100,
        // How long processes may take to die after SIGKILL before they count as stuck: generous, so
        // a loaded machine (or the emulated guest) is not mistaken for a process in state D.
        killTimeoutMs: scaled(5000),
      });
      runtimes.push(r);
      return r;
    }

    before(async () => {
      stateDir = await mkdtemp(join(tmpdir(), "evictd-pods-"));
      const parsed = parseNodeSpec({
        raw: { capacity: { memory: "4Gi" }, stateDir, manifestDir: join(stateDir, "manifests") },
        hostname: "test-node",
      });
      assert.ok(parsed.ok);
      node = parsed.spec;
      if (mode.cgroups) {
        assert.ok(choice?.ok === true);
        driver = choice.driver;
        await driver.createNode({
          name: nodeName,
          memoryLimitBytes: 2n << 30n,
          pods: { memoryLimitBytes: 1n << 30n },
        });
      }
    });

    after(async () => {
      // Kill whatever a failed test left running, then tear everything down.
      for (const r of runtimes) {
        for (const view of r.statusViews()) {
          if (!(await r.isCleanedUp(view.pod))) await (await r.kill(view.pod, 0, EVICTED)).done;
        }
        await r.close();
      }
      if (driver !== undefined) await driver.destroyNode({ name: nodeName });
      await unmountUnder(stateDir);
      await rm(stateDir, { recursive: true, force: true });
    });

    test("the runtime fits the daemon's pods port (kill, isCleanedUp, activePods)", () => {
      const port: Pick<PodsPort, "kill" | "isCleanedUp" | "activePods"> = runtime();
      assert.ok(port);
      assert.ok(
        runtimes[0]?.capabilities.some((c) => (mode.cgroups ? /cgroup v[12]/ : /no cgroups/).test(c)),
      );
    });

    test("statsTargets: a pod whose UID is not a directory name is described where it really runs", async () => {
      const rt = runtime();
      const uid = `web.${++counter}`;
      const p = pod(
        `apiVersion: v1\nkind: Pod\nmetadata: { name: dotted, uid: ${uid} }\nspec:
  volumes:
  - name: scratch
    emptyDir: {}
  containers:
  - name: app
    command: [sh, -c, 'echo hi > "$EVICTD_VOLUME_SCRATCH/f"; echo hi; exec sleep 30']
`,
      );
      await rt.start(p);
      const paths = rt.podPaths(uid);
      assert.ok(paths !== undefined);
      assert.match(paths.name, /^web-\d+-[0-9a-f]{16}$/, "an unsafe UID gets a hashed directory name");
      const target = await waitFor("app running, its start recorded and its output logged", async () => {
        const t = (await rt.statsTargets()).find((x) => x.uid === uid);
        const c = t?.containers[0];
        return c?.startTime !== undefined && existsSync(c.logFile) && existsSync(paths.statusFile)
          ? t
          : undefined;
      });
      const recorded = JSON.parse(readFileSync(paths.statusFile, "utf8")) as {
        startTime: string;
        containers: { name: string; startedAt: number }[];
      };
      assert.deepEqual(
        { name: target.name, namespace: target.namespace, startTime: target.startTime },
        { name: "dotted", namespace: "default", startTime: Date.parse(recorded.startTime) },
      );
      const [app] = target.containers;
      assert.ok(app !== undefined);
      assert.equal(app.startTime, recorded.containers.find((c) => c.name === "app")?.startedAt);
      // Every path is the runtime's own, and exists.
      assert.equal(app.logFile, paths.log("app"));
      assert.equal(app.rootfsDir, paths.rootfs("app"));
      assert.deepEqual(target.volumes, [
        { name: "scratch", kind: "emptyDir", medium: "", dir: paths.volume("scratch") },
      ]);
      for (const path of [app.logFile, app.rootfsDir, paths.volume("scratch")])
        assert.ok(path.startsWith(`${paths.dir}/`) && existsSync(path), path);
      // Its processes: the cgroups, or without them the container's main process.
      const [procs] = await rt.podProcesses(p);
      if (mode.cgroups) {
        assert.deepEqual(target.cgroup, rt.podCgroups(uid)?.pod);
        assert.deepEqual(app.cgroup, rt.podCgroups(uid)?.containers.get("app"));
        assert.equal(app.pids, undefined);
        // Nothing changed: the same description again (the collector's per-cgroup memo keys on it).
        assert.equal(
          (await rt.statsTargets()).find((x) => x.uid === uid),
          target,
        );
      } else {
        assert.equal(target.cgroup, undefined);
        assert.deepEqual(app.pids, procs?.pids);
      }

      await (
        await rt.kill(p, 0, EVICTED)
      ).done;
      assert.deepEqual(
        (await rt.statsTargets()).map((t) => t.uid),
        [],
        "a killed pod is no longer measured",
      );
      await rt.forget(p); // later tests restore this state dir: leave nothing of this pod behind
    });

    test("a 2-container pod: processes in their cgroups, logs, emptyDirs, tmpfs mounted and gone after removal", async () => {
      const rt = runtime();
      const p = manifest(
        "two",
        `  volumes:
  - name: scratch
    emptyDir: {}
  - name: mem
    emptyDir: { medium: Memory, sizeLimit: 8Mi }
  containers:
  - name: app
    command: [sh, -c, 'echo hi; echo "scratch=$EVICTD_VOLUME_SCRATCH"; echo "home=$HOME"; exec sleep 30']
  - name: side
    command: [sh, -c, 'echo hi; exec sleep 30']
    resources: { limits: { memory: 64Mi } }
`,
      );
      await rt.start(p);
      const paths = rt.podPaths(p.uid);
      assert.ok(paths !== undefined);
      const procs = await waitFor("both containers running with their output logged", async () => {
        const list = await rt.podProcesses(p);
        const logged = ["app", "side"].every(
          (c) => existsSync(paths.log(c)) && readFileSync(paths.log(c), "utf8").startsWith("hi\n"),
        );
        return list.every((c) => c.pids.length > 0) && logged ? list : undefined;
      });
      assert.deepEqual(rt.status(p.uid)?.phase, "Running");
      assert.equal(rt.status(p.uid)?.qosClass, "Burstable");

      const appLog = await waitFor("app's environment in its log", () => {
        const text = readFileSync(paths.log("app"), "utf8");
        return text.includes("home=") ? text : undefined;
      });
      assert.ok(appLog.includes(`scratch=${paths.volume("scratch")}\n`), appLog);
      assert.ok(appLog.includes(`home=${paths.rootfs("app")}\n`), appLog);
      assert.ok(existsSync(paths.volume("scratch")) && existsSync(paths.volume("mem")));

      // oom_score_adj was in place: the command (exec'd sleep) carries the container's value.
      for (const c of p.containers) {
        const main = procs.find((x) => x.container === c.name)?.pids[0];
        assert.ok(main !== undefined);
        const adj = Number((await readFile(`/proc/${main}/oom_score_adj`, "utf8")).trim());
        assert.equal(
          adj,
          containerOomScoreAdj(p, c, node.capacity.memoryBytes),
          `oom_score_adj of ${c.name}`,
        );
      }

      const cgroups = rt.podCgroups(p.uid);
      if (mode.cgroups) {
        assert.ok(driver !== undefined && cgroups !== undefined);
        assert.equal(cgroups.pod.path, `${nodeName}/pods/burstable/pod${p.uid}`);
        for (const { container, pids } of procs) {
          const cg: ContainerCgroup | undefined = cgroups.containers.get(container);
          assert.ok(cg !== undefined);
          assert.deepEqual(await driver.procs(cg), pids, `${container}'s processes are exactly its cgroup's`);
          for (const pid of pids)
            assert.ok((await readFile(`/proc/${pid}/cgroup`, "utf8")).includes(`/${cg.path}\n`));
        }
        assert.equal((await driver.memory(cgroups.containers.get("side")!)).limitBytes, 64n * 1024n * 1024n);
      } else {
        assert.equal(cgroups, undefined);
        // Each container is a process group of its own, led by its main process.
        for (const { pids } of procs) {
          const groups = new Set((await Promise.all(pids.map(readProcStat))).map((s) => s?.pgrp));
          assert.deepEqual([...groups], [pids[0]]);
        }
      }

      // medium Memory: a tmpfs of the sizeLimit.
      const mount = (await readOwnMounts()).find((m) => m.mountPoint === paths.volume("mem"));
      if (isRoot) {
        assert.ok(mount !== undefined, "tmpfs mounted");
        assert.equal(mount.fsType, "tmpfs");
        assert.ok(mount.superOptions.includes("size=8192k"), mount.superOptions.join(","));
      }

      const killed = await rt.kill(p, 0, EVICTED);
      assert.deepEqual(await killed.done, { ok: true, stuck: [] });
      // Cleaned up once every task charged to the pod is released (exited children are reaped).
      let cleaned = false;
      for (let i = 0; i < 100 && !cleaned; i++) {
        cleaned = await rt.isCleanedUp(p);
        if (!cleaned) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(cleaned, true);
      await rt.remove(p);
      assert.equal(await systemMounter.isMountPoint(paths.volume("mem")), false, "tmpfs unmounted");
      assert.equal(
        existsSync(paths.volume("mem")) || existsSync(paths.volume("scratch")),
        false,
        "volumes deleted",
      );
      assert.ok(existsSync(paths.log("app")) && existsSync(paths.statusFile), "logs and status kept");
      if (mode.cgroups && driver !== undefined && cgroups !== undefined)
        assert.equal(existsSync(driver.directories(cgroups.pod).memory), false, "pod cgroup removed");
      const view = rt.status(p.uid);
      assert.equal(view?.phase, "Failed");
      assert.equal(view?.reason, "Evicted");
      assert.deepEqual(
        view?.conditions.map((c) => c.type),
        ["DisruptionTarget"],
      );
    });

    test("restartPolicy OnFailure restarts a failing container with doubling back-off; Never does not", async () => {
      const rt = runtime();
      const failing = manifest(
        "crashes",
        `  restartPolicy: OnFailure\n  containers:\n  - name: c\n    command: [sh, -c, 'echo run; exit 3']\n`,
      );
      const never = manifest(
        "never",
        `  restartPolicy: Never\n  containers:\n  - name: c\n    command: [sh, -c, 'exit 3']\n`,
      );
      const succeeds = manifest(
        "ok",
        `  restartPolicy: OnFailure\n  containers:\n  - name: c\n    command: [sh, -c, 'exit 0']\n`,
      );
      const since = Date.now();
      await Promise.all([rt.start(failing), rt.start(never), rt.start(succeeds)]);
      const startsOf = () =>
        lines
          .filter(
            (l) => l.at >= since && l.message === "container started" && l.fields["pod"] === failing.key,
          )
          .map((l) => l.at);
      await waitFor("3 runs of the failing container", () => startsOf().length >= 3, 6000);
      const starts = startsOf();
      await waitFor(
        "the third run's output",
        () => readFileSync(rt.podPaths(failing.uid)!.log("c"), "utf8").split("run\n").length - 1 >= 3,
      );
      const [s0, s1, s2] = starts as [number, number, number];
      console.error(`# restarts after ${s1 - s0} ms and ${s2 - s1} ms (base ${FAST.baseMs} ms)`);
      assert.ok(s1 - s0 >= FAST.baseMs - 20, `first restart after ${s1 - s0} ms`);
      assert.ok(s2 - s1 >= 2 * FAST.baseMs - 20, `second restart after ${s2 - s1} ms`);
      assert.equal(
        rt.status(failing.uid)?.phase,
        "Running",
        "OnFailure with a failing container keeps the pod Running",
      );
      assert.ok((rt.status(failing.uid)?.restarts["c"] ?? 0) >= 2);

      await waitFor("Never pod failed", () => rt.status(never.uid)?.phase === "Failed");
      await waitFor(
        "OnFailure pod with exit 0 succeeded",
        () => rt.status(succeeds.uid)?.phase === "Succeeded",
      );
      await new Promise((r) => setTimeout(r, 2 * FAST.baseMs));
      assert.deepEqual(rt.status(never.uid)?.restarts, { c: 0 });
      assert.deepEqual(rt.status(succeeds.uid)?.restarts, { c: 0 });
      assert.deepEqual(
        rt.activePods().map((x) => x.name),
        ["crashes"],
        "completed pods are no longer active",
      );
      await (
        await rt.kill(failing, 0, EVICTED)
      ).done;
      const after = rt.status(failing.uid)?.restarts["c"];
      await new Promise((r) => setTimeout(r, 2 * FAST.maxMs));
      assert.equal(rt.status(failing.uid)?.restarts["c"], after, "a killed pod is never restarted");
      assert.deepEqual(
        (await rt.podProcesses(failing)).flatMap((c) => c.pids),
        [],
      );
    });

    test("kill with a 1 s grace period: a SIGTERM-trapping process ends early, an ignoring one is SIGKILLed after ~1 s", async () => {
      const rt = runtime();
      const polite = manifest(
        "polite",
        `  containers:\n  - name: c\n    command: [sh, -c, 'trap "exit 0" TERM; echo ready; while true; do sleep 0.05; done']\n`,
      );
      const stubborn = manifest(
        "stubborn",
        `  containers:\n  - name: c\n    command: [sh, -c, 'trap "" TERM; echo ready; while true; do sleep 0.05; done']\n`,
      );
      await Promise.all([rt.start(polite), rt.start(stubborn)]);
      for (const p of [polite, stubborn])
        await waitFor(
          `${p.name} ready`,
          () =>
            existsSync(rt.podPaths(p.uid)!.log("c")) &&
            readFileSync(rt.podPaths(p.uid)!.log("c"), "utf8") === "ready\n",
        );
      const [a, b] = await Promise.all([rt.kill(polite, 1, EVICTED), rt.kill(stubborn, 1, EVICTED)]);
      const ended: string[] = [];
      const [ra, rb] = await Promise.all([
        a.done.then((r) => (ended.push("polite"), { ...r, ms: Date.now() - a.terminatedAt })),
        b.done.then((r) => (ended.push("stubborn"), { ...r, ms: Date.now() - b.terminatedAt })),
      ]);
      console.error(`# trapping pod gone after ${ra.ms} ms, ignoring pod after ${rb.ms} ms`);
      assert.ok(ra.ok && rb.ok);
      // The trapping pod ends by its own hand (exit 0 below, not SIGKILL's 137), before the other.
      assert.deepEqual(ended, ["polite", "stubborn"]);
      // SIGKILL waits out the grace period; the upper bound only catches a kill that never comes
      // (generous: a loaded machine delays timers and process exits by seconds).
      assert.ok(rb.ms >= 950 && rb.ms < scaled(15_000), `the ignoring pod took ${rb.ms} ms`);
      const persisted = (uid: string) =>
        JSON.parse(readFileSync(rt.podPaths(uid)!.statusFile, "utf8")) as {
          phase: string;
          reason: string;
          containers: { exitCode: number }[];
        };
      assert.equal(persisted(polite.uid).containers[0]?.exitCode, 0, "the trap ran: exit 0");
      assert.equal(persisted(stubborn.uid).containers[0]?.exitCode, 137, "SIGKILL: 128 + 9");
      for (const p of [polite, stubborn]) {
        assert.equal(persisted(p.uid).phase, "Failed");
        assert.equal(persisted(p.uid).reason, "Evicted");
      }
    });

    test("status survives a daemon restart: evicted and rejected pods stay, a live container is adopted, a dead one restarted", async () => {
      const first = runtime();
      const evicted = manifest("evicted", `  containers:\n  - name: c\n    command: [sleep, "30"]\n`);
      const live = manifest("live", `  containers:\n  - name: c\n    command: [sleep, "30"]\n`);
      const dies = manifest(
        "dies",
        `  restartPolicy: OnFailure\n  containers:\n  - name: c\n    command: [sleep, "30"]\n`,
      );
      const rejected = manifest("rejected", `  containers:\n  - name: c\n    command: [sleep, "30"]\n`);
      await first.reject(rejected, {
        phase: "Failed",
        reason: "Evicted",
        message: "Pod was rejected: The node had condition: [DiskPressure]. ",
      });
      for (const p of [evicted, live, dies]) await first.start(p);
      const pidOf = async (rt: ProcessPodRuntime, p: RunnablePod) => (await rt.podProcesses(p))[0]?.pids[0];
      const livePid = await waitFor("live pod running", () => pidOf(first, live));
      const diesPid = await waitFor("dies pod running", () => pidOf(first, dies));
      await waitFor("evicted pod running", () => pidOf(first, evicted));
      await (
        await first.kill(evicted, 0, EVICTED)
      ).done;
      await first.close(); // the daemon stops; pods keep running
      process.kill(diesPid, "SIGKILL"); // and one of them dies while no daemon watches

      const second = runtime();
      const restored = await second.loadPersisted();
      const names = restored.map((v) => v.pod.name);
      for (const name of ["dies", "evicted", "live", "rejected"])
        assert.ok(names.includes(name), `${name} restored`);
      await second.start(evicted); // the manifest is still there: nothing happens
      await second.start(rejected);
      assert.equal(second.status(evicted.uid)?.phase, "Failed");
      assert.equal(second.status(evicted.uid)?.reason, "Evicted");
      assert.equal(
        second.status(rejected.uid)?.message,
        "Pod was rejected: The node had condition: [DiskPressure]. ",
      );
      assert.deepEqual(
        second.status(evicted.uid)?.conditions.map((c) => c.type),
        ["DisruptionTarget"],
      );

      assert.equal(await pidOf(second, live), livePid, "the live container is adopted, not started again");
      assert.deepEqual(second.status(live.uid)?.restarts, { c: 0 });
      const restartedPid = await waitFor("the dead container restarted", () => pidOf(second, dies), 3000);
      assert.notEqual(restartedPid, diesPid);
      assert.deepEqual(second.status(dies.uid)?.restarts, { c: 1 });
      await new Promise((r) => setTimeout(r, 300));
      for (const p of [evicted, rejected])
        assert.deepEqual(
          (await second.podProcesses(p)).flatMap((c) => c.pids),
          [],
          `${p.name} has no process`,
        );
      assert.deepEqual(
        second
          .activePods()
          .map((p) => p.name)
          .sort(),
        ["dies", "live"],
        "pods finished in earlier tests were restored as finished",
      );

      // An adopted process that exits is noticed by polling (it is not this daemon's child).
      process.kill(livePid, "SIGKILL");
      await waitFor(
        "the adopted container's exit noticed and restarted",
        async () => {
          const pid = await pidOf(second, live);
          return pid !== undefined && pid !== livePid ? pid : undefined;
        },
        3000,
      );
      for (const p of [live, dies]) await (await second.kill(p, 0, EVICTED)).done;
    });

    test("init containers run first and in order; a sidecar keeps running until the pod completes", async () => {
      const rt = runtime();
      const p = manifest(
        "with-init",
        `  restartPolicy: Never
  volumes:
  - name: shared
  initContainers:
  - name: first
    command: [sh, -c, 'echo first >> "$EVICTD_VOLUME_SHARED/order"']
  - name: helper
    restartPolicy: Always
    command: [sh, -c, 'echo helper >> "$EVICTD_VOLUME_SHARED/order"; exec sleep 30']
  - name: second
    command: [sh, -c, 'sleep 0.2; echo second >> "$EVICTD_VOLUME_SHARED/order"']
  containers:
  - name: main
    command: [sh, -c, 'echo main >> "$EVICTD_VOLUME_SHARED/order"; while [ ! -e "$EVICTD_VOLUME_SHARED/done" ]; do sleep 0.05; done; cat "$EVICTD_VOLUME_SHARED/order"']
`,
      );
      await rt.start(p);
      const paths = rt.podPaths(p.uid)!;
      await waitFor(
        "main running",
        async () => ((await rt.podProcesses(p)).find((c) => c.container === "main")?.pids.length ?? 0) > 0,
      );
      const helperPid = (await rt.podProcesses(p)).find((c) => c.container === "helper")?.pids[0];
      assert.ok(helperPid !== undefined, "the sidecar runs beside main");
      // main completes once the test has seen both running.
      writeFileSync(join(paths.volume("shared"), "done"), "");
      await waitFor("pod completed", () => rt.status(p.uid)?.phase === "Succeeded", 5000);
      assert.equal(readFileSync(paths.log("main"), "utf8"), "first\nhelper\nsecond\nmain\n");
      await waitFor(
        "sidecar stopped",
        async () => (await rt.isCleanedUp(p)) && (await readProcStat(helperPid)) === undefined,
      );
      assert.equal(rt.status(p.uid)?.phase, "Succeeded", "stopping the sidecar does not fail the pod");
    });

    test("a container's exit kills what it left behind, and nothing of its siblings", async () => {
      const rt = runtime();
      const p = manifest(
        "siblings",
        `  restartPolicy: Never
  containers:
  - name: quitter
    command: [sh, -c, 'sleep 30 & echo $! > orphan.pid; sleep 0.3; exit 1']
  - name: stayer
    command: [sleep, "30"]
`,
      );
      await rt.start(p);
      const paths = rt.podPaths(p.uid)!;
      const orphanFile = join(paths.rootfs("quitter"), "orphan.pid");
      const orphan = await waitFor("the orphan's pid", () =>
        existsSync(orphanFile) && readFileSync(orphanFile, "utf8").endsWith("\n")
          ? Number(readFileSync(orphanFile, "utf8"))
          : undefined,
      );
      const stayer = await waitFor(
        "stayer running",
        async () => (await rt.podProcesses(p)).find((c) => c.container === "stayer")?.pids[0],
      );
      await waitFor("quitter exited and its orphan killed", async () => {
        const stat = await readProcStat(orphan);
        return (
          (await rt.podProcesses(p)).find((c) => c.container === "quitter")?.pids.length === 0 &&
          (stat === undefined || stat.state === "Z")
        );
      });
      assert.equal((await readProcStat(stayer))?.state !== undefined, true, "the sibling still runs");
      assert.deepEqual((await rt.podProcesses(p)).find((c) => c.container === "stayer")?.pids, [stayer]);
      assert.equal(rt.status(p.uid)?.phase, "Running", "Never: one failed, one running");
      await (
        await rt.kill(p, 0, EVICTED)
      ).done;
    });

    test("a failing init container under Never fails the pod without starting the others", async () => {
      const rt = runtime();
      const p = manifest(
        "init-fails",
        `  restartPolicy: Never\n  initContainers:\n  - name: setup\n    command: [sh, -c, 'exit 1']\n  containers:\n  - name: main\n    command: [sh, -c, 'echo should-not-run']\n`,
      );
      await rt.start(p);
      await waitFor("pod failed", () => rt.status(p.uid)?.phase === "Failed");
      assert.equal(existsSync(rt.podPaths(p.uid)!.log("main")), false);
    });

    test("container GC deletes the writable directories and logs of terminated pods only; image GC frees nothing", async () => {
      const rt = runtime();
      const done = manifest(
        "done",
        `  restartPolicy: Never\n  containers:\n  - name: c\n    command: [sh, -c, 'head -c 100000 /dev/zero > junk; echo written']\n`,
      );
      const running = manifest(
        "running",
        `  containers:\n  - name: c\n    command: [sh, -c, 'echo still here; sleep 30']\n`,
      );
      await rt.start(done);
      await rt.start(running);
      await waitFor("done pod succeeded", () => rt.status(done.uid)?.phase === "Succeeded");
      await waitFor(
        "running pod logged",
        () =>
          existsSync(rt.podPaths(running.uid)!.log("c")) &&
          readFileSync(rt.podPaths(running.uid)!.log("c"), "utf8") !== "",
      );
      const gc = await rt.containerGC();
      assert.ok(gc.freedBytes >= 100_000, `freed ${gc.freedBytes} bytes`);
      assert.deepEqual(
        [...gc.removed].sort(),
        [rt.podPaths(done.uid)!.containerDir("c"), rt.podPaths(done.uid)!.log("c")].sort(),
      );
      assert.ok(
        existsSync(rt.podPaths(running.uid)!.log("c")) && existsSync(rt.podPaths(running.uid)!.rootfs("c")),
      );
      assert.ok(existsSync(rt.podPaths(done.uid)!.statusFile), "the status stays");
      assert.deepEqual(await rt.containerGC(), { freedBytes: 0, removed: [] });
      const images = await rt.imageGC();
      assert.equal(images.freedBytes, 0);
      assert.match(images.note ?? "", /no container images/);
      await (
        await rt.kill(running, 0, EVICTED)
      ).done;
    });

    test(
      "a container exceeding its memory limit is OOM-killed by the kernel and reported as OOMKilled",
      { skip: mode.cgroups ? false : "needs a memory cgroup" },
      async () => {
        const rt = runtime();
        const p = manifest(
          "hog",
          `  restartPolicy: Never
  containers:
  - name: hog
    command: ["${process.execPath}", -e, "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"]
    resources: { limits: { memory: 48Mi } }
`,
        );
        await rt.start(p);
        await waitFor("hog failed", () => rt.status(p.uid)?.phase === "Failed", 15000);
        await rt.flush();
        const status = JSON.parse(readFileSync(rt.podPaths(p.uid)!.statusFile, "utf8")) as {
          containers: { reason: string; exitCode: number }[];
        };
        assert.deepEqual(
          status.containers.map((c) => [c.reason, c.exitCode]),
          [["OOMKilled", 137]],
        );
      },
    );
  });
}
