/** The WakeSource contract, run against every wake source this machine supports. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { AdapterError } from "../../errors.js";
import { MemcgThresholdNotifier } from "./memcg-threshold-notifier.js";
import { MemoryEventsWatcher } from "./memory-events-watcher.js";
import { PsiTrigger } from "./psi-trigger.js";
import {
  inotifyWatchCount,
  makeScratchCgroup,
  openFdCount,
  ownMemoryCgroupV1,
  removeCgroup,
} from "./testing/notify-test-support.js";
import type { WakeSource } from "./wake-source.js";

interface Subject {
  readonly name: string;
  readonly skip: string | false;
  readonly make: () => WakeSource;
}

const cleanups: (() => void | Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), "evictd-contract-"));
fs.writeFileSync(path.join(fixtureDir, "memory.events"), "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
cleanups.push(() => fs.rmSync(fixtureDir, { recursive: true, force: true }));

const ownV1 = ownMemoryCgroupV1();
const memcg =
  ownV1 === undefined
    ? { skip: "no cgroup v1 memory controller" }
    : makeScratchCgroup(ownV1, "evictd-contract");
if ("dir" in memcg) cleanups.push(() => removeCgroup(memcg.dir));

const subjects: Subject[] = [
  {
    name: "MemcgThresholdNotifier",
    skip: "skip" in memcg ? memcg.skip : false,
    make: () =>
      new MemcgThresholdNotifier({ cgroupDir: "dir" in memcg ? memcg.dir : "", thresholdBytes: 1n << 40n }),
  },
  {
    name: "PsiTrigger",
    skip: fs.existsSync("/proc/pressure/memory") ? false : "no /proc/pressure/memory",
    make: () => new PsiTrigger({ kind: "some", stallUs: 150_000, windowUs: 2_000_000 }),
  },
  {
    name: "MemoryEventsWatcher",
    skip: false,
    make: () => new MemoryEventsWatcher({ path: path.join(fixtureDir, "memory.events") }),
  },
];

for (const subject of subjects) {
  describe(`WakeSource contract: ${subject.name}`, { skip: subject.skip }, () => {
    const started: WakeSource[] = [];
    const make = (): WakeSource => {
      const source = subject.make();
      started.push(source);
      return source;
    };
    after(() => Promise.all(started.map((s) => s.stop())));

    test("has a non-empty, stable name", () => {
      const a = make();
      assert.ok(a.name.length > 0);
      assert.equal(a.name, subject.make().name);
    });

    test("stop() before start() resolves", async () => {
      await make().stop();
    });

    test("a second start() is refused with already-started", async () => {
      const source = make();
      source.start(() => {});
      assert.throws(
        () => source.start(() => {}),
        (e: unknown) => e instanceof AdapterError && e.code === "already-started",
      );
      await source.stop();
    });

    test("start/stop cycles leave no descriptor or inotify watch behind, and the source restarts", async () => {
      const source = make();
      // One warm-up cycle: libuv creates its inotify instance lazily and keeps it for the loop's life.
      source.start(() => {});
      await source.stop();
      const fds = openFdCount();
      const watches = inotifyWatchCount();
      for (let i = 0; i < 3; i++) {
        source.start(() => {});
        await source.stop();
        await source.stop();
        assert.equal(openFdCount(), fds, `cycle ${i}: descriptors`);
        assert.equal(inotifyWatchCount(), watches, `cycle ${i}: inotify watches`);
      }
    });
  });
}
