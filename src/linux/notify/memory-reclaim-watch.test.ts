// The kernel's reclaim reports (cgroup v1 memory.pressure_level, `low,local`) on this machine's own
// memory cgroup: a cgroup reading page cache past its limit is reported; its parent, which is
// not at a limit of its own, is not; a look-alike directory is refused, leaking nothing.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { AdapterError } from "../../errors.js";
import { MemoryReclaimWatch } from "./memory-reclaim-watch.js";
import {
  makeScratchCgroup,
  openFdCount,
  ownMemoryCgroupV1,
  removeCgroup,
  waitFor,
  otherControllerCgroupV1,
} from "./testing/notify-test-support.js";

describe("MemoryReclaimWatch arming", () => {
  test("a directory that is not a cgroup v1 memory cgroup is refused, leaking nothing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "evictd-reclaim-"));
    try {
      fs.writeFileSync(path.join(dir, "memory.pressure_level"), "");
      fs.writeFileSync(path.join(dir, "cgroup.event_control"), "");
      const fds = openFdCount();
      const watch = new MemoryReclaimWatch({ cgroupDir: dir });
      assert.throws(
        () => watch.start(() => undefined),
        (e: unknown) => e instanceof AdapterError && e.code === "memcg-unavailable",
      );
      assert.equal(fs.readFileSync(path.join(dir, "cgroup.event_control"), "utf8"), "");
      assert.equal(openFdCount(), fds);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  const otherV1 = otherControllerCgroupV1();
  test(
    "a cgroup v1 directory without the memory controller is memcg-unavailable, naming the missing file",
    { skip: otherV1 === undefined ? "no cgroup v1 pids hierarchy here" : false },
    () => {
      assert.ok(otherV1 !== undefined);
      const fds = openFdCount();
      const watch = new MemoryReclaimWatch({ cgroupDir: otherV1 });
      assert.throws(
        () => watch.start(() => undefined),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.code === "memcg-unavailable" &&
          e.message ===
            `memory-reclaim:${otherV1}: cannot open ${path.join(otherV1, "memory.pressure_level")} (ENOENT)` &&
          e.hint === "memory.pressure_level is cgroup v1's",
      );
      assert.equal(openFdCount(), fds, "the eventfd is closed again");
    },
  );
});

const own = ownMemoryCgroupV1();
const parent =
  own === undefined
    ? { skip: "no cgroup v1 memory controller here" }
    : makeScratchCgroup(own, "evictd-reclaim");
if ("skip" in parent) console.log(`# skipping the live reclaim test: ${parent.skip}`);
const cleanup: string[] = [];
after(async () => {
  for (const dir of cleanup.reverse()) await removeCgroup(dir);
  if (!("skip" in parent)) await removeCgroup(parent.dir);
});

describe(
  "MemoryReclaimWatch on a live memory cgroup",
  { skip: "skip" in parent ? parent.skip : false },
  () => {
    test("page cache read past a cgroup's limit is reported there, not on its parent", async () => {
      assert.ok(!("skip" in parent));
      const child = path.join(parent.dir, "limited");
      fs.mkdirSync(child);
      cleanup.push(child);
      fs.writeFileSync(path.join(child, "memory.limit_in_bytes"), String(32 * 1024 * 1024));
      const file = path.join(os.tmpdir(), `evictd-reclaim-${process.pid}.data`);
      const onChild: string[] = [];
      const onParent: string[] = [];
      const childWatch = new MemoryReclaimWatch({ cgroupDir: child });
      const parentWatch = new MemoryReclaimWatch({ cgroupDir: parent.dir });
      const fds = openFdCount();
      childWatch.start((r) => onChild.push(r));
      parentWatch.start((r) => onParent.push(r));
      try {
        // 96 MiB of file pages read in a 32 MiB cgroup: the kernel reclaims the oldest as it reads.
        // The file is written around the page cache (O_DIRECT) so that none of it is cached before,
        // and read, not written, in the cgroup: clean pages, reclaimable at once (dirty ones a
        // cgroup v1 limit cannot write back fast enough get the writer OOM-killed).
        const written = spawnSync("dd", [
          "if=/dev/zero",
          `of=${file}`,
          "bs=1M",
          "count=96",
          "oflag=direct",
          "status=none",
        ]);
        assert.equal(written.status, 0, `dd wrote ${file}: ${String(written.stderr)}`);
        const dd = spawn("sh", [
          "-c",
          'echo $$ > "$1/cgroup.procs" && exec dd if="$2" of=/dev/null bs=1M status=none',
          "sh",
          child,
          file,
        ]);
        const code = await new Promise<number | null>((resolve) => dd.once("exit", resolve));
        assert.equal(code, 0, `dd read the file (exit ${code}, signal ${dd.signalCode})`);
        await waitFor(() => onChild.length > 0, 5000, "a reclaim report on the limited cgroup");
        assert.match(onChild[0] ?? "", /the kernel reclaimed memory for .*limited/);
        await sleep(100);
        assert.deepEqual(onParent, [], "local mode: the child's own reclaim is not the parent's");
      } finally {
        await childWatch.stop();
        await parentWatch.stop();
        fs.rmSync(file, { force: true });
      }
      assert.equal(openFdCount(), fds, "stop closes every descriptor it opened");
    });
  },
);
