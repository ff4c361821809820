/**
 * The collector in cgroups, against a hand-made cgroup reader over a fake cgroupfs (v1 and v2),
 * with real files in a temp directory: every figure is checked against what the inputs say it must
 * be, the output goes through the engine's own decoder and observation builder, and what a read
 * reuses (figures, their times, whole pod entries) is pinned read by read. The periods themselves
 * are refresh-schedule.test.ts's; the collector without cgroups is summary-collector-procfs.test.ts's.
 * One file past 500 lines because its tests read the one fixture node its `before` builds (a pod's
 * files, volumes and cgroups), read after read.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, statfs, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { makeSignalObservations } from "../../core/engine/observations.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { AdapterError } from "../../errors.js";
import type { CgroupRef, NodeCgroups } from "../cgroups/cgroup-driver.js";
import type { ActivePodInfo } from "./active-pod-info.js";
import { DEFAULT_REFRESH_SCHEDULE, refreshPeriodMs, walkPeriodMs } from "./refresh-schedule.js";
import { decodeChecked as decode, FakeCgroups, ManualClock } from "./testing/collector-fixtures.js";
import { testPodFiles } from "./testing/test-pod-files.js";
import { LinuxSummaryCollector, type CollectorNodeSpec } from "./summary-collector.js";
import type { FsJson, RawSummaryJson } from "./summary-json.js";

const MiB = 1024n * 1024n;
const NS_PER_MS = 1_000_000n;

const NODE: NodeCgroups = {
  name: "n1",
  node: { kind: "node", path: "n1" },
  pods: { kind: "pods", path: "n1/pods" },
  burstable: { kind: "qos", path: "n1/pods/burstable" },
  besteffort: { kind: "qos", path: "n1/pods/besteffort" },
};

function used(fs: FsJson | undefined): { bytes: number; inodes: number } {
  assert.ok(fs !== undefined);
  return { bytes: Number(fs.usedBytes), inodes: Number(fs.inodesUsed) };
}

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "evictd-stats-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes `bytes` of non-zero data (so nothing is sparse). */
async function fill(path: string, bytes: number): Promise<void> {
  await writeFile(path, Buffer.alloc(bytes, 0x61));
}

const UID = "3f1c-a";
const POD: CgroupRef = { kind: "pod", path: `n1/pods/burstable/pod${UID}` };

/** The node of the cgroup tests: figures chosen so that every derived value is distinct. */
async function fakeCgroups(api: "v1" | "v2", hasPids: boolean): Promise<FakeCgroups> {
  const cgroups = new FakeCgroups(api, join(root, `cgroupfs-${api}-${hasPids}`));
  cgroups.hasPids = hasPids;
  await cgroups.setMemory("n1", 600n * MiB, 100n * MiB, 1024n * MiB);
  await cgroups.setMemory("n1/pods", 450n * MiB, 50n * MiB, 900n * MiB);
  await cgroups.setMemory(POD.path, 300n * MiB, 20n * MiB);
  await cgroups.setMemory(`${POD.path}/app`, 250n * MiB, 10n * MiB, 512n * MiB);
  await cgroups.setMemory(`${POD.path}/sidecar`, 50n * MiB, 10n * MiB);
  if (hasPids) {
    await cgroups.setPids("n1", 42);
    await cgroups.setPids(POD.path, 7);
  }
  return cgroups;
}

for (const api of ["v1", "v2"] as const)
  describe(`LinuxSummaryCollector with cgroups (${api})`, () => {
    let stateDir: string;
    let pod: ActivePodInfo;
    let cgroups: FakeCgroups;
    const spec = (): CollectorNodeSpec => ({
      name: "node-a",
      capacity: { memoryBytes: 1024n * MiB, pids: 500n },
      podsMemoryLimitBytes: 900n * MiB,
      stateDir,
    });

    before(async () => {
      stateDir = join(root, `with-cgroups-${api}`);
      const files = testPodFiles(stateDir, UID);
      const dir = files.dir;
      await mkdir(join(dir, "logs"), { recursive: true });
      await fill(join(dir, "logs", "app.log"), 64 * 1024);
      await fill(join(dir, "logs", "app.log.1"), 32 * 1024); // rotated copy, still the container's
      await fill(join(dir, "logs", "sidecar.log"), 4 * 1024);
      await mkdir(join(dir, "containers", "app", "rootfs", "tmp"), { recursive: true });
      await fill(join(dir, "containers", "app", "rootfs", "tmp", "scratch"), 128 * 1024);
      for (const v of ["cache", "config", "token", "shm"])
        await mkdir(join(dir, "volumes", v), { recursive: true });
      for (let i = 0; i < 10; i++) await fill(join(dir, "volumes", "cache", `f${i}`), 16 * 1024);
      await fill(join(dir, "volumes", "config", "app.yaml"), 4 * 1024);
      await fill(join(dir, "volumes", "token", "token"), 4 * 1024);
      await fill(join(dir, "volumes", "shm", "blob"), 8 * 1024); // Memory medium but not a mount: measured by walking
      pod = {
        uid: UID,
        name: "web-0",
        namespace: "shop",
        startTime: 1_782_468_000_000,
        cgroup: POD,
        containers: [
          files.container({
            name: "app",
            cgroup: { kind: "container", path: `${POD.path}/app` },
            startTime: 1_782_468_001_000,
          }),
          files.container({ name: "sidecar", cgroup: { kind: "container", path: `${POD.path}/sidecar` } }),
        ],
        volumes: [
          files.volume({ name: "cache", kind: "emptyDir" }),
          files.volume({ name: "config", kind: "configMap" }),
          files.volume({ name: "token", kind: "secret" }),
          files.volume({ name: "shm", kind: "emptyDir", medium: "Memory" }),
          files.volume({ name: "host", kind: "hostPath" }),
        ],
      };
      cgroups = await fakeCgroups(api, true);
    });

    /**
     * A collector as on a larger node: disk figures kept 1 s, container memory reused for 3 s (one
     * pod at 3000 ms, as 30 pods at the default 100 ms) and disk use walked every `walkPerPodMs`.
     */
    function periodicCollector(clock: ManualClock, walkPerPodMs: number): LinuxSummaryCollector {
      return new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock,
        diskTtlMs: 1000,
        refreshPerPodMs: 3000,
        walkPerPodMs,
      });
    }

    test("node, pods container, rlimit and filesystems", async () => {
      const clock = new ManualClock();
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock,
        startTime: 1_782_400_000_000,
      });
      const raw = await collector.collect([pod]);
      assert.equal(raw.node.nodeName, "node-a");
      assert.equal(raw.node.startTime, "2026-06-25T15:06:40Z");
      // available = node limit − (usage − inactive_file)
      assert.deepEqual(raw.node.memory, {
        time: "2026-06-26T10:14:35Z",
        availableBytes: Number(524n * MiB),
        usageBytes: Number(600n * MiB),
        workingSetBytes: Number(500n * MiB),
      });
      const pods = raw.node.systemContainers.find((c) => c.name === "pods");
      assert.equal(pods?.memory.availableBytes, Number(500n * MiB));
      assert.equal(pods?.memory.workingSetBytes, Number(400n * MiB));
      assert.deepEqual(raw.node.rlimit, { time: "2026-06-26T10:14:35Z", maxpid: 500, curproc: 42 });
      assert.deepEqual(raw.node.runtime.imageFs, raw.node.fs);
      assert.deepEqual(raw.node.runtime.containerFs, raw.node.fs);
      assert.ok(Number(raw.node.fs.capacityBytes) > 0);
      assert.ok(Number(raw.node.fs.inodes) >= Number(raw.node.fs.inodesUsed));

      const summary = decode(raw);
      assert.equal(detectFilesystemLayout(summary), "single");
      const obs = makeSignalObservations(summary);
      assert.deepEqual(obs.get("memory.available"), {
        available: 524n * MiB,
        capacity: 1024n * MiB,
        time: Number(clock.ns / NS_PER_MS),
      });
      assert.equal(obs.get("allocatableMemory.available")?.capacity, 900n * MiB);
      assert.deepEqual(obs.get("pid.available"), {
        available: 458n,
        capacity: 500n,
        time: Number(clock.ns / NS_PER_MS),
      });
      for (const s of [
        "nodefs.available",
        "nodefs.inodesFree",
        "imagefs.available",
        "imagefs.inodesFree",
      ] as const)
        assert.ok(obs.has(s), s);
    });

    test("pod memory, processes, logs, rootfs, volumes and ephemeral-storage", async () => {
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock: new ManualClock(),
      });
      const raw = await collector.collect([pod]);
      const p = raw.pods[0];
      assert.ok(p !== undefined);
      assert.deepEqual(p.podRef, { name: "web-0", namespace: "shop", uid: UID });
      assert.equal(p.startTime, "2026-06-26T10:00:00Z");
      // The pod cgroup has no limit: no availableBytes, as cAdvisor reports it.
      assert.deepEqual(p.memory, {
        time: "2026-06-26T10:14:35Z",
        usageBytes: Number(300n * MiB),
        workingSetBytes: Number(280n * MiB),
      });
      assert.equal(p.process_stats?.process_count, 7);
      const [app, sidecar] = p.containers;
      assert.equal(app?.startTime, "2026-06-26T10:00:01Z");
      assert.equal(app?.memory?.workingSetBytes, Number(240n * MiB));
      assert.equal(app?.memory?.availableBytes, Number(272n * MiB));
      assert.equal(sidecar?.memory?.availableBytes, undefined);

      // Allocated bytes are at least the data written, and not more than a block per file plus directories.
      const near = (got: number, want: number, files: number): void =>
        assert.ok(got >= want && got <= want + files * 64 * 1024, `${got} vs ${want}`);
      const appLogs = used(app?.logs);
      near(appLogs.bytes, 96 * 1024, 2);
      assert.equal(appLogs.inodes, 2);
      assert.equal(used(sidecar?.logs).inodes, 1);
      const rootfs = used(app?.rootfs);
      near(rootfs.bytes, 128 * 1024, 3);
      assert.equal(rootfs.inodes, 3); // rootfs/, tmp/, scratch
      assert.equal(sidecar?.rootfs, undefined); // no directory: not reported

      const volumes = new Map((p.volume ?? []).map((v) => [v.name, v]));
      assert.deepEqual([...volumes.keys()], ["cache", "config", "token", "shm"]); // hostPath: no metrics, as upstream
      const cache = used(volumes.get("cache"));
      near(cache.bytes, 160 * 1024, 11);
      assert.equal(cache.inodes, 11);

      // ephemeral-storage: rootfs + logs + disk emptyDir + configMap; not the secret, not the Memory emptyDir.
      const parts = [app?.rootfs, app?.logs, sidecar?.logs, volumes.get("cache"), volumes.get("config")].map(
        used,
      );
      const want = parts.reduce((s, x) => ({ bytes: s.bytes + x.bytes, inodes: s.inodes + x.inodes }), {
        bytes: 0,
        inodes: 0,
      });
      assert.deepEqual(used(p["ephemeral-storage"]), want);

      const stats = decode(raw).pods[0];
      assert.equal(stats?.ephemeralStorage?.usedBytes, BigInt(want.bytes));
      assert.equal(stats?.processCount, 7n);
    });

    test("a pod whose cgroup vanished is reported without memory", async () => {
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock: new ManualClock(),
      });
      const ghost: ActivePodInfo = {
        ...pod,
        uid: "ghost",
        cgroup: { kind: "pod", path: "n1/pods/podghost" },
        containers: [
          testPodFiles(stateDir, "ghost").container({
            name: "x",
            cgroup: { kind: "container", path: "n1/pods/podghost/x" },
          }),
        ],
        volumes: pod.volumes.map((v) => testPodFiles(stateDir, "ghost").volume(v)),
      };
      const raw = await collector.collect([ghost]);
      const p = raw.pods[0];
      assert.equal(p?.memory, undefined);
      assert.equal(p?.process_stats, undefined);
      assert.equal(p?.containers[0]?.memory, undefined);
      assert.equal(p?.volume, undefined);
      assert.deepEqual(used(p?.["ephemeral-storage"]), { bytes: 0, inodes: 0 });
      decode(raw);
    });

    test("disk figures are reused within the TTL and refreshed after it", async () => {
      const clock = new ManualClock();
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock,
        diskTtlMs: 1000,
      });
      const log = testPodFiles(stateDir, UID).logFile("sidecar");
      const first = used((await collector.collect([pod])).pods[0]?.containers[1]?.logs);
      await fill(log, 256 * 1024);
      clock.advanceMs(500);
      const cached = (await collector.collect([pod])).pods[0];
      assert.deepEqual(used(cached?.containers[1]?.logs), first);
      // The cached figure keeps the time it was measured at; memory is fresh.
      assert.equal(cached?.containers[1]?.logs?.time, "2026-06-26T10:14:35Z");
      assert.equal(cached?.memory?.time, "2026-06-26T10:14:35.5Z");
      await collector.diskMeasured(); // the background walk that read started (within the TTL: cached)
      clock.advanceMs(600);
      // Past the TTL a read starts the walk in the background and reports the last figures…
      const stale = (await collector.collect([pod])).pods[0];
      assert.deepEqual(used(stale?.containers[1]?.logs), first);
      assert.equal(stale?.containers[1]?.logs?.time, "2026-06-26T10:14:35Z");
      // …and the read after it ends has the new ones.
      await collector.diskMeasured();
      const fresh = used((await collector.collect([pod])).pods[0]?.containers[1]?.logs);
      assert.ok(fresh.bytes >= 256 * 1024, String(fresh.bytes));
      await fill(log, 4 * 1024);
    });

    test("a complete read measures the filesystems now; housekeeping and memory wakes take the last measurement", async () => {
      const clock = new ManualClock();
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock,
      });
      const first = await collector.collect([pod]);
      assert.equal(first.node.fs.time, "2026-06-26T10:14:35Z");
      clock.advanceMs(500);
      // Housekeeping: the last measurement, with its time (the next one starts in the background).
      const housekeeping = await collector.collect([pod], { reusePods: true });
      assert.equal(housekeeping.node.fs.time, "2026-06-26T10:14:35Z");
      clock.advanceMs(100);
      // A complete read, while that measurement may still be under way: the filesystems as they are
      // now (a measurement begun before an evicted pod's volumes were removed would not show it).
      const complete = await collector.collect([pod]);
      assert.equal(complete.node.fs.time, "2026-06-26T10:14:35.6Z");
      assert.equal(complete.node.runtime.imageFs.time, "2026-06-26T10:14:35.6Z");
      // The walks keep the time they were made at.
      assert.equal(complete.pods[0]?.containers[1]?.logs?.time, "2026-06-26T10:14:35Z");
      clock.advanceMs(100);
      const wake = await collector.collect([pod], { memoryOnly: true });
      assert.equal(wake.node.fs.time, "2026-06-26T10:14:35.6Z");
      await collector.diskMeasured();
      collector.close();
    });

    test("on a larger node container memory is reused for pods × refreshPerPodMs and walks for pods × walkPerPodMs; pod memory too on housekeeping reads", async () => {
      const clock = new ManualClock();
      // One pod: container memory reused for 3 s, walks for 3 s (the collector's own diskTtlMs is 1 s).
      const collector = periodicCollector(clock, 3000);
      const app = `${POD.path}/app`;
      try {
        const first = (await collector.collect([pod])).pods[0];
        await collector.diskMeasured();
        await cgroups.setMemory(app, 90n * MiB, 0n);
        await cgroups.setMemory(POD.path, 190n * MiB, 0n);
        clock.advanceMs(2000); // past diskTtlMs, within the period
        const within = (await collector.collect([pod])).pods[0];
        await collector.diskMeasured();
        assert.equal(within?.memory?.workingSetBytes, Number(190n * MiB));
        assert.equal(within?.memory?.time, "2026-06-26T10:14:37Z");
        assert.deepEqual(within?.containers[0]?.memory, first?.containers[0]?.memory);
        assert.equal(within?.containers[0]?.memory?.time, "2026-06-26T10:14:35Z");
        assert.equal(within?.containers[0]?.rootfs?.time, "2026-06-26T10:14:35Z");
        // A housekeeping read reuses the pods' own figures too, with their times; the node's are fresh.
        await cgroups.setMemory(POD.path, 180n * MiB, 0n);
        clock.advanceMs(100);
        const housekeeping = await collector.collect([pod], { reusePods: true });
        assert.equal(housekeeping.pods[0]?.memory?.workingSetBytes, Number(190n * MiB));
        assert.equal(housekeeping.pods[0]?.memory?.time, "2026-06-26T10:14:37Z");
        assert.equal(
          housekeeping.pods[0]?.process_stats?.process_count,
          within?.process_stats?.process_count,
        );
        assert.equal(housekeeping.node.memory.time, "2026-06-26T10:14:37.1Z");
        const fresh = (await collector.collect([pod])).pods[0];
        assert.equal(fresh?.memory?.workingSetBytes, Number(180n * MiB));
        assert.equal(fresh?.memory?.time, "2026-06-26T10:14:37.1Z");
        await collector.diskMeasured(); // the filesystems those reads measured in the background
        clock.advanceMs(1400); // 3.5 s after the first read: past the period
        const after = (await collector.collect([pod], { reusePods: true })).pods[0];
        assert.equal(after?.containers[0]?.memory?.workingSetBytes, Number(90n * MiB));
        assert.equal(after?.containers[0]?.memory?.time, "2026-06-26T10:14:38.5Z");
        await collector.diskMeasured(); // the walk that read started ends with new times
        const walked = (await collector.collect([pod])).pods[0];
        assert.equal(walked?.containers[0]?.rootfs?.time, "2026-06-26T10:14:38.5Z");
        decode(await collector.collect([pod]));
      } finally {
        await cgroups.setMemory(app, 250n * MiB, 10n * MiB, 512n * MiB);
        await cgroups.setMemory(POD.path, 300n * MiB, 20n * MiB);
        collector.close();
      }
    });

    test("a housekeeping read of a quiet pod hands back its last entry; figures read again since make a new one", async () => {
      const clock = new ManualClock();
      const collector = periodicCollector(clock, 3000);
      const app = `${POD.path}/app`;
      try {
        await collector.collect([pod]);
        await collector.diskMeasured();
        clock.advanceMs(100);
        const quiet = await collector.collect([pod], { reusePods: true });
        await collector.diskMeasured();
        clock.advanceMs(100);
        const again = await collector.collect([pod], { reusePods: true });
        await collector.diskMeasured();
        assert.equal(again.pods[0], quiet.pods[0]);
        // A decision's full read of the pod (its memory and its containers') is what the next
        // housekeeping read reports, in a new entry.
        await cgroups.setMemory(app, 70n * MiB, 0n);
        const refreshed = collector.refreshPods(again, [pod], [pod.uid]);
        assert.equal(refreshed.pods[0]?.containers[0]?.memory?.workingSetBytes, Number(70n * MiB));
        clock.advanceMs(100);
        const after = await collector.collect([pod], { reusePods: true });
        await collector.diskMeasured();
        assert.notEqual(after.pods[0], quiet.pods[0]);
        assert.deepEqual(after.pods[0]?.containers, refreshed.pods[0]?.containers);
        assert.deepEqual(after.pods[0]?.memory, refreshed.pods[0]?.memory);
      } finally {
        await cgroups.setMemory(app, 250n * MiB, 10n * MiB, 512n * MiB);
        collector.close();
      }
    });

    test("walks keep a period of their own: past it a pod's disk use is walked again while its container memory is still reused", async () => {
      const clock = new ManualClock();
      const collector = periodicCollector(clock, 1000);
      const app = `${POD.path}/app`;
      const log = testPodFiles(stateDir, UID).logFile("sidecar");
      try {
        const first = (await collector.collect([pod], { reusePods: true })).pods[0];
        await collector.diskMeasured();
        await fill(log, 256 * 1024);
        await cgroups.setMemory(app, 90n * MiB, 0n);
        clock.advanceMs(1500); // past the walk period (1 s), within the memory period (3 s)
        await collector.collect([pod], { reusePods: true });
        await collector.diskMeasured();
        const walked = (await collector.collect([pod], { reusePods: true })).pods[0];
        assert.ok(used(walked?.containers[1]?.logs).bytes >= 256 * 1024);
        assert.equal(walked?.containers[1]?.logs?.time, "2026-06-26T10:14:36.5Z");
        assert.deepEqual(walked?.containers[0]?.memory, first?.containers[0]?.memory);
        assert.equal(walked?.containers[0]?.memory?.time, "2026-06-26T10:14:35Z");
      } finally {
        await fill(log, 4 * 1024);
        await cgroups.setMemory(app, 250n * MiB, 10n * MiB, 512n * MiB);
        collector.close();
      }
    });

    test("housekeeping reads spread the refreshes of a large node over the refresh period instead of re-reading every pod in one step", async () => {
      const clock = new ManualClock();
      // 30 pods at 100 ms each: a 3 s refresh period; housekeeping every second refreshes a third.
      const many: ActivePodInfo[] = [];
      for (let i = 0; i < 30; i++) {
        const uid = `spread-${i}`;
        const cgroup: CgroupRef = { kind: "pod", path: `n1/pods/besteffort/pod${uid}` };
        await cgroups.setMemory(cgroup.path, 10n * MiB, 0n);
        await cgroups.setPids(cgroup.path, 1);
        await cgroups.setMemory(`${cgroup.path}/main`, 10n * MiB, 0n);
        const files = testPodFiles(stateDir, uid);
        await mkdir(join(files.dir, "logs"), { recursive: true });
        many.push({
          uid,
          name: uid,
          namespace: "spread",
          cgroup,
          containers: [
            files.container({ name: "main", cgroup: { kind: "container", path: `${cgroup.path}/main` } }),
          ],
          volumes: [],
        });
      }
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: cgroups, node: NODE },
        clock,
      });
      assert.equal(collector.refreshPeriodMs(30), 3000);
      await collector.collect(many); // every pod read, at one time
      const readAt = (raw: RawSummaryJson): string[] => raw.pods.map((p) => String(p.memory?.time));
      const refreshedPerStep: number[] = [];
      let oldestMs = 0;
      for (let step = 1; step <= 9; step++) {
        clock.advanceMs(1000);
        await collector.diskMeasured();
        const raw = await collector.collect(many, { reusePods: true });
        const now = raw.node.memory.time;
        refreshedPerStep.push(readAt(raw).filter((t) => t === now).length);
        for (const p of raw.pods) {
          oldestMs = Math.max(
            oldestMs,
            Number(clock.nowNs() / NS_PER_MS) - Date.parse(String(p.memory?.time)),
          );
          // A pod's containers are refreshed with it.
          assert.equal(p.containers[0]?.memory?.time, p.memory?.time, p.podRef.uid);
        }
      }
      // Nothing is due before the period has passed; then a third of the node per step, every step.
      assert.deepEqual(refreshedPerStep, [0, 0, 10, 10, 10, 10, 10, 10, 10]);
      // No figure older than the period and two steps (the ones that came due together, once).
      assert.ok(oldestMs <= 5000, `oldest figure ${oldestMs} ms`);
      collector.close();
    });

    test("pids capacity without a pids controller counts the pods' processes", async () => {
      const noPids = await fakeCgroups(api, false);
      noPids.procsOf.set(POD.path, 5); // procs() lists 5 processes
      const collector = new LinuxSummaryCollector({
        node: spec(),
        cgroups: { driver: noPids, node: NODE },
        clock: new ManualClock(),
      });
      const raw = await collector.collect([pod]);
      assert.equal(raw.pods[0]?.process_stats?.process_count, 5);
      assert.equal(raw.node.rlimit.maxpid, 500);
      assert.equal(raw.node.rlimit.curproc, 5);
    });

    test("a separate imagefsDir is reported as imageFs; containerFs stays nodefs (split layout)", async () => {
      const imagefsDir = "/dev/shm";
      const collector = new LinuxSummaryCollector({
        node: { ...spec(), imagefsDir },
        cgroups: { driver: cgroups, node: NODE },
        clock: new ManualClock(),
      });
      const raw = await collector.collect([]);
      const shm = await statfs(imagefsDir, { bigint: true });
      assert.equal(raw.node.runtime.imageFs.capacityBytes, Number(shm.blocks * shm.bsize));
      assert.deepEqual(raw.node.runtime.containerFs, raw.node.fs);
      // Two filesystems tell apart unless they happen to match on every figure.
      if (raw.node.runtime.imageFs.capacityBytes !== raw.node.fs.capacityBytes)
        assert.equal(detectFilesystemLayout(decode(raw)), "split");
    });

    test("a missing stateDir is an AdapterError naming it", async () => {
      const collector = new LinuxSummaryCollector({
        node: { ...spec(), stateDir: join(root, "nope") },
        cgroups: { driver: cgroups, node: NODE },
      });
      await assert.rejects(
        collector.collect([]),
        (e: unknown) =>
          e instanceof AdapterError && e.code === "stats-statfs-failed" && e.message.includes("nope"),
      );
    });
  });

test("the collector's periods are the refresh schedule's, from its options or the defaults", () => {
  const node: CollectorNodeSpec = {
    name: "node-a",
    capacity: { memoryBytes: 1024n * MiB },
    podsMemoryLimitBytes: 900n * MiB,
    stateDir: "/nonexistent",
  };
  const defaults = new LinuxSummaryCollector({ node });
  const tuned = new LinuxSummaryCollector({ node, diskTtlMs: 2000, refreshPerPodMs: 700, walkPerPodMs: 900 });
  const schedule = { minRefreshMs: 2000, refreshPerPodMs: 700, walkPerPodMs: 900 };
  for (const pods of [0, 1, 5, 30, 110, 250]) {
    assert.equal(defaults.refreshPeriodMs(pods), refreshPeriodMs(DEFAULT_REFRESH_SCHEDULE, pods), `${pods}`);
    assert.equal(defaults.walkPeriodMs(pods), walkPeriodMs(DEFAULT_REFRESH_SCHEDULE, pods), `${pods}`);
    assert.equal(tuned.refreshPeriodMs(pods), refreshPeriodMs(schedule, pods), `${pods}`);
    assert.equal(tuned.walkPeriodMs(pods), walkPeriodMs(schedule, pods), `${pods}`);
  }
});
