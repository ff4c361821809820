/** Tests of the memory.events watcher: parsing and increments, a fixture file, and inotify on live kernfs (cgroup.events). */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { after, afterEach, beforeEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import type { AdapterError } from "../../errors.js";
import { counterIncrements, MemoryEventsWatcher, parseFlatKeyed } from "./memory-events-watcher.js";
import {
  inotifyWatchCount,
  makeScratchCgroup,
  openFdCount,
  ownCgroupV2,
  removeCgroup,
  waitFor,
} from "./testing/notify-test-support.js";

describe("parseFlatKeyed", () => {
  const cases = [
    {
      name: "a v2 memory.events file",
      text: "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n",
      want: [
        ["low", 0n],
        ["high", 12n],
        ["max", 3n],
        ["oom", 1n],
        ["oom_kill", 1n],
        ["oom_group_kill", 0n],
      ],
    },
    {
      name: "counters beyond 2^53 stay exact",
      text: "max 18446744073709551615\n",
      want: [["max", 18446744073709551615n]],
    },
    { name: "malformed lines are skipped", text: "high\nmax x\n\noom 2\nlow -1\n", want: [["oom", 2n]] },
    { name: "an empty (mid-truncate) read has no counters", text: "", want: [] },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual([...parseFlatKeyed(c.text)], c.want));
});

describe("counterIncrements", () => {
  const watched = ["high", "max", "oom", "oom_kill"];
  const m = (text: string): Map<string, bigint> => parseFlatKeyed(text);
  const cases = [
    { name: "no change", previous: "high 1\nmax 0", current: "high 1\nmax 0", want: [] },
    {
      name: "each increment with its delta, in watched order",
      previous: "max 1\noom 0\noom_kill 0",
      current: "oom_kill 2\nmax 4\noom 1",
      want: ["max +3", "oom +1", "oom_kill +2"],
    },
    { name: "unwatched counters are ignored", previous: "low 0\nhigh 0", current: "low 9\nhigh 0", want: [] },
    { name: "a counter missing from the new read is not a change", previous: "max 5", current: "", want: [] },
    {
      name: "a counter that went down (file recreated) is not an increment",
      previous: "oom 7",
      current: "oom 0",
      want: [],
    },
    { name: "a counter that first appears is not an increment", previous: "", current: "oom 3", want: [] },
  ];
  for (const c of cases)
    test(c.name, () => assert.deepEqual(counterIncrements(m(c.previous), m(c.current), watched), c.want));
});

const events = (values: Partial<Record<"low" | "high" | "max" | "oom" | "oom_kill", number>>): string =>
  `low ${values.low ?? 0}\nhigh ${values.high ?? 0}\nmax ${values.max ?? 0}\noom ${values.oom ?? 0}\noom_kill ${values.oom_kill ?? 0}\n`;

describe("MemoryEventsWatcher on a fixture file", () => {
  let dir = "";
  let file = "";
  let watcher: MemoryEventsWatcher | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "evictd-memory-events-"));
    file = path.join(dir, "memory.events");
    fs.writeFileSync(file, events({}));
  });
  afterEach(async () => {
    await watcher?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("wakes on increments of high/max/oom/oom_kill, not on low, and not after stop()", async () => {
    const watches = inotifyWatchCount();
    const reasons: string[] = [];
    watcher = new MemoryEventsWatcher({ path: file });
    assert.equal(watcher.name, `memory-events:${file}`);
    watcher.start((reason) => reasons.push(reason));
    assert.equal(inotifyWatchCount(), watches + 1);
    const fds = openFdCount();

    fs.writeFileSync(file, events({ max: 1 }));
    await waitFor(() => reasons.length > 0, 2000, "the max wake");
    assert.deepEqual(reasons, [`memory.events max +1 (${file})`]);

    reasons.length = 0;
    fs.writeFileSync(file, events({ max: 1, low: 5 }));
    await sleep(100);
    assert.deepEqual(reasons, [], "low is protection, not pressure");

    fs.writeFileSync(file, events({ max: 1, low: 5, oom: 1, oom_kill: 1 }));
    await waitFor(() => reasons.length > 0, 2000, "the oom wake");
    assert.deepEqual(reasons, [`memory.events oom +1, oom_kill +1 (${file})`]);

    await watcher.stop();
    reasons.length = 0;
    fs.writeFileSync(file, events({ max: 9, oom: 9 }));
    await sleep(100);
    assert.deepEqual(reasons, []);
    assert.equal(inotifyWatchCount(), watches, "the inotify watch is removed");
    assert.equal(openFdCount(), fds, "no descriptor opened by reads is left behind");
  });

  test("a custom counter list", async () => {
    const reasons: string[] = [];
    watcher = new MemoryEventsWatcher({ path: file, counters: ["low"] });
    watcher.start((reason) => reasons.push(reason));
    fs.writeFileSync(file, events({ max: 3 }));
    await sleep(100);
    fs.writeFileSync(file, events({ max: 3, low: 2 }));
    await waitFor(() => reasons.length > 0, 2000, "the low wake");
    assert.deepEqual(reasons, [`memory.events low +2 (${file})`]);
  });

  test("an atomically replaced file is followed to its new inode", async () => {
    const reasons: string[] = [];
    watcher = new MemoryEventsWatcher({ path: file });
    watcher.start((reason) => reasons.push(reason));
    fs.writeFileSync(`${file}.tmp`, events({ oom_kill: 2 }));
    fs.renameSync(`${file}.tmp`, file);
    await waitFor(() => reasons.length > 0, 2000, "the wake after rename");
    reasons.length = 0;
    fs.writeFileSync(file, events({ oom_kill: 3 }));
    await waitFor(() => reasons.length > 0, 2000, "a wake on the new inode");
    assert.deepEqual(reasons, [`memory.events oom_kill +1 (${file})`]);
  });

  test("a removed file is reported through onError", async () => {
    const errors: AdapterError[] = [];
    watcher = new MemoryEventsWatcher({ path: file });
    watcher.start(
      () => {},
      (error) => errors.push(error),
    );
    fs.rmSync(file);
    await waitFor(() => errors.length > 0, 2000, "the error");
    assert.equal(errors[0]?.code, "memory-events-gone");
  });

  test("a missing file is refused at start", () => {
    watcher = new MemoryEventsWatcher({ path: path.join(dir, "nope") });
    assert.throws(
      () => watcher?.start(() => {}),
      (e: unknown) => (e as AdapterError).code === "memory-events-unavailable",
    );
  });
});

// memory.events needs the v2 memory controller, not enabled here; cgroup.events is raised by the
// same kernel path (cgroup_file_notify → kernfs_notify → fsnotify), so it shows that inotify works
// on cgroupfs files: "populated" goes 0 → 1 when a process joins.
const ownV2 = ownCgroupV2();
const scratch =
  ownV2 === undefined ? { skip: "no cgroup v2 hierarchy" } : makeScratchCgroup(ownV2, "evictd-events-test");
describe(
  "MemoryEventsWatcher on live kernfs (cgroup.events)",
  { skip: "skip" in scratch ? scratch.skip : false },
  () => {
    const dir = "dir" in scratch ? scratch.dir : "";
    let child: ChildProcess | undefined;
    let watcher: MemoryEventsWatcher | undefined;
    after(async () => {
      await watcher?.stop();
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      }
      await removeCgroup(dir);
    });

    test("fs.watch sees kernfs notifications", async (t) => {
      const file = path.join(dir, "cgroup.events");
      const reasons: string[] = [];
      watcher = new MemoryEventsWatcher({ path: file, counters: ["populated"] });
      watcher.start((reason) => reasons.push(reason));
      const started = Date.now();
      child = spawn("sh", ["-c", 'echo $$ > "$1" && exec sleep 30', "sh", path.join(dir, "cgroup.procs")], {
        stdio: "ignore",
      });
      await waitFor(() => reasons.length > 0, 2000, "the populated wake");
      t.diagnostic(`kernfs inotify wake ${Date.now() - started} ms after spawning the process`);
      assert.deepEqual(reasons, [`cgroup.events populated +1 (${file})`]);
    });
  },
);
