/** Tests of PSI triggers: spec validation, kernel errors, arming and release, and a wake provoked by real memory stall. */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { once } from "node:events";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { AdapterError } from "../../errors.js";
import { FdPoller } from "./fd-poller.js";
import { psiTriggerProblems, PsiTrigger } from "./psi-trigger.js";
import type { PsiTriggerSpec } from "./psi-trigger.js";
import {
  makeScratchCgroup,
  openFdCount,
  ownCgroupV2,
  ownMemoryCgroupV1,
  removeCgroup,
  waitFor,
} from "./testing/notify-test-support.js";

describe("psiTriggerProblems", () => {
  const cases: { name: string; spec: PsiTriggerSpec; want: string[] }[] = [
    {
      name: "the kernel documentation's example is valid",
      spec: { kind: "some", stallUs: 150_000, windowUs: 1_000_000 },
      want: [],
    },
    {
      name: "full, stall equal to the window, 10 s window",
      spec: { kind: "full", stallUs: 10_000_000, windowUs: 10_000_000 },
      want: [],
    },
    {
      name: "window below 500 ms",
      spec: { kind: "some", stallUs: 1_000, windowUs: 499_999 },
      want: ["windowUs must be an integer from 500000 to 10000000, got 499999"],
    },
    {
      name: "window above 10 s",
      spec: { kind: "some", stallUs: 1_000, windowUs: 10_000_001 },
      want: ["windowUs must be an integer from 500000 to 10000000, got 10000001"],
    },
    {
      name: "zero stall",
      spec: { kind: "some", stallUs: 0, windowUs: 2_000_000 },
      want: ["stallUs must be a positive integer, got 0"],
    },
    {
      name: "fractional stall",
      spec: { kind: "some", stallUs: 1.5, windowUs: 2_000_000 },
      want: ["stallUs must be a positive integer, got 1.5"],
    },
    {
      name: "stall longer than the window",
      spec: { kind: "some", stallUs: 3_000_000, windowUs: 2_000_000 },
      want: ["stallUs (3000000) must not exceed windowUs (2000000)"],
    },
    {
      name: "every problem is reported, not just the first",
      spec: { kind: "avg10" as PsiTriggerSpec["kind"], stallUs: -1, windowUs: 0 },
      want: [
        'kind must be "some" or "full", got "avg10"',
        "windowUs must be an integer from 500000 to 10000000, got 0",
        "stallUs must be a positive integer, got -1",
      ],
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(psiTriggerProblems(c.spec), c.want));
});

const systemPressure = "/proc/pressure/memory";
const hasPsi = fs.existsSync(systemPressure);

/** CAP_SYS_RESOURCE (bit 24) in the effective set lifts the kernel's 2 s window granularity. */
function hasCapSysResource(): boolean {
  const line = fs
    .readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("CapEff:"));
  return line !== undefined && (BigInt(`0x${line.slice(7).trim()}`) & (1n << 24n)) !== 0n;
}

function rejects(code: string, check: (e: AdapterError) => boolean = () => true) {
  return (e: unknown): boolean => e instanceof AdapterError && e.code === code && check(e);
}

describe(
  "PsiTrigger arming",
  { skip: hasPsi ? false : `${systemPressure} does not exist (kernel without CONFIG_PSI or psi=0)` },
  () => {
    const poller = new FdPoller();
    // An armed trigger keeps the process alive (like a listening server): stop them even if a test fails.
    const triggers: PsiTrigger[] = [];
    after(() => Promise.all(triggers.map((t) => t.stop())));
    const make = (options: ConstructorParameters<typeof PsiTrigger>[0]): PsiTrigger => {
      const trigger = new PsiTrigger(options);
      triggers.push(trigger);
      return trigger;
    };

    test("arms on /proc/pressure/memory and stop() releases the fd and the poller's control fd", async () => {
      const fds = openFdCount();
      const trigger = make({ kind: "some", stallUs: 150_000, windowUs: 2_000_000, poller });
      assert.equal(trigger.name, "psi:/proc/pressure/memory");
      trigger.start(() => {});
      // The pressure fd and the poller's control eventfd.
      assert.ok(openFdCount() >= fds + 2);
      assert.throws(() => trigger.start(() => {}), rejects("already-started"));
      await trigger.stop();
      await trigger.stop();
      assert.equal(poller.size, 0);
      assert.equal(openFdCount(), fds);
    });

    test("an invalid spec is refused before touching the kernel, with every problem named", () => {
      const fds = openFdCount();
      const trigger = make({ kind: "some", stallUs: 0, windowUs: 100, poller });
      assert.throws(
        () => trigger.start(() => {}),
        rejects(
          "psi-trigger-invalid",
          (e) => e.message.includes("windowUs") && e.message.includes("stallUs"),
        ),
      );
      assert.equal(openFdCount(), fds);
    });

    test("the kernel's EINVAL for a window that is not a multiple of 2 s is explained (unless privileged)", async () => {
      const fds = openFdCount();
      const trigger = make({ kind: "some", stallUs: 100_000, windowUs: 1_000_000, poller });
      if (hasCapSysResource()) {
        trigger.start(() => {});
        await trigger.stop();
      } else {
        assert.throws(
          () => trigger.start(() => {}),
          rejects(
            "psi-trigger-rejected",
            (e) =>
              e.message.includes('"some 100000 1000000"') &&
              e.message.includes("EINVAL") &&
              e.hint?.includes("multiples of 2000000us") === true,
          ),
        );
      }
      assert.equal(openFdCount(), fds);
    });

    test("a missing pressure file is psi-unavailable", () => {
      const trigger = make({
        path: "/nonexistent/memory.pressure",
        kind: "some",
        stallUs: 100_000,
        windowUs: 2_000_000,
        poller,
      });
      assert.throws(
        () => trigger.start(() => {}),
        rejects("psi-unavailable", (e) => e.hint !== undefined),
      );
    });
  },
);

// Real stall: a shell loop re-reads a file through a memory cgroup whose limit is far below the
// file's size, dropping the file's cache first (fadvise DONTNEED via `dd iflag=nocache`) so every
// pass charges, reclaims and refaults page cache inside the cgroup. Direct reclaim counts as memory
// stall. Measured here: ~60 ms of `some` stall per 0.5 s with an 8 MiB limit and a 128 MiB file.
const TMPFS_MAGIC = 0x01021994;
const ownV1 = ownMemoryCgroupV1();
const ownV2 = ownCgroupV2();
const fileDir = [os.tmpdir(), "/var/tmp"].find(
  (d) => fs.existsSync(d) && fs.statfsSync(d).type !== TMPFS_MAGIC,
);
const stallSkip = !hasPsi
  ? "no PSI"
  : ownV1 === undefined
    ? "no cgroup v1 memory controller to confine the thrashing process"
    : fileDir === undefined
      ? "no disk-backed temp directory (tmpfs reads of holes do not use page cache)"
      : false;

describe("PsiTrigger wake on real memory stall", { skip: stallSkip }, () => {
  const poller = new FdPoller();
  const cleanups: (() => Promise<void> | void)[] = [];
  let thrasher: ChildProcess | undefined;

  after(async () => {
    if (thrasher?.pid !== undefined && thrasher.exitCode === null && thrasher.signalCode === null) {
      const exited = once(thrasher, "exit");
      process.kill(-thrasher.pid, "SIGKILL");
      await exited;
    }
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test("system-wide and per-cgroup triggers fire while a confined process thrashes", async (t) => {
    if (ownV1 === undefined || fileDir === undefined) return;
    const v1 = makeScratchCgroup(ownV1, "evictd-psi-test");
    if ("skip" in v1) return t.skip(v1.skip);
    cleanups.push(() => removeCgroup(v1.dir));
    fs.writeFileSync(path.join(v1.dir, "memory.limit_in_bytes"), String(8 * 1024 * 1024));
    // A v2 cgroup of its own (PSI is accounted per v2 cgroup even where the memory controller is
    // not enabled) gives a trigger that only this process's stall can fire.
    const v2 =
      ownV2 === undefined ? { skip: "no cgroup v2 hierarchy" } : makeScratchCgroup(ownV2, "evictd-psi-test");
    if ("dir" in v2) cleanups.push(() => removeCgroup(v2.dir));
    else t.diagnostic(`per-cgroup trigger not tested: ${v2.skip}`);
    const file = path.join(fileDir, `evictd-psi-${process.pid}.bin`);
    fs.writeFileSync(file, "");
    fs.truncateSync(file, 128 * 1024 * 1024); // sparse: reading its holes still fills page cache
    cleanups.push(() => fs.rmSync(file, { force: true }));

    const fds = openFdCount();
    const woke = { system: 0, cgroup: 0 };
    const system = new PsiTrigger({ kind: "some", stallUs: 20_000, windowUs: 2_000_000, poller });
    system.start(() => woke.system++);
    cleanups.push(() => system.stop());
    let cgroup: PsiTrigger | undefined;
    if ("dir" in v2) {
      cgroup = new PsiTrigger({
        path: path.join(v2.dir, "memory.pressure"),
        kind: "some",
        stallUs: 20_000,
        windowUs: 2_000_000,
        poller,
      });
      const reasons: string[] = [];
      cgroup.start((reason) => {
        woke.cgroup++;
        reasons.push(reason);
      });
      cleanups.push(() => cgroup?.stop());
      await sleep(300);
      assert.equal(woke.cgroup, 0, "an empty cgroup has no stall, so its trigger must stay quiet");
    }

    const started = Date.now();
    thrasher = spawn(
      "sh",
      [
        "-c",
        'echo $$ > "$1" && { [ -z "$2" ] || echo $$ > "$2"; } && while :; do dd if="$3" iflag=nocache count=0 status=none; cat "$3" > /dev/null; done',
        "sh",
        path.join(v1.dir, "cgroup.procs"),
        "dir" in v2 ? path.join(v2.dir, "cgroup.procs") : "",
        file,
      ],
      { detached: true, stdio: "ignore" },
    );
    await waitFor(
      () => woke.system > 0 && (cgroup === undefined || woke.cgroup > 0),
      8000,
      "PSI wakes during the thrash",
    );
    t.diagnostic(
      `PSI wake after ${Date.now() - started} ms of thrashing (trigger: some 20 ms per 2 s window)`,
    );
    const pid = thrasher.pid;
    if (pid !== undefined) {
      const exited = once(thrasher, "exit");
      process.kill(-pid, "SIGKILL");
      await exited;
    }
    await system.stop();
    await cgroup?.stop();
    assert.equal(poller.size, 0);
    assert.equal(openFdCount(), fds, "the pressure fds and the poller's control eventfd are closed");
  });
});
