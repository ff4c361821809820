/** cgroupProcsNow over a directory tree shaped like a pod's cgroups, and on a live memory cgroup. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { cgroupProcsNow } from "./cgroup-procs-now.js";
import { locateOwnCgroups } from "./detect-cgroups.js";

describe("cgroupProcsNow", () => {
  test("lists the pids of the cgroup and every descendant, once each; a missing cgroup has none", () => {
    const root = mkdtempSync(join(tmpdir(), "evictd-procs-"));
    try {
      const pod = join(root, "pod1234");
      mkdirSync(join(pod, "app"), { recursive: true });
      mkdirSync(join(pod, "sidecar"));
      writeFileSync(join(pod, "cgroup.procs"), "");
      writeFileSync(join(pod, "app", "cgroup.procs"), "101\n102\n");
      writeFileSync(join(pod, "sidecar", "cgroup.procs"), "103\n101\n");
      assert.deepEqual(
        cgroupProcsNow(pod).sort((a, b) => a - b),
        [101, 102, 103],
      );
      assert.deepEqual(cgroupProcsNow(join(root, "gone")), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  const memoryRoot = locateOwnCgroups().memory?.dir;
  test(
    "a live memory cgroup lists the process placed in it",
    { skip: memoryRoot === undefined ? "no memory cgroup of our own" : false },
    async () => {
      const dir = join(memoryRoot ?? "", `evictd-procs-${process.pid}`);
      mkdirSync(dir);
      const child = spawn("sleep", ["30"], { stdio: "ignore" });
      try {
        assert.ok(child.pid !== undefined);
        writeFileSync(join(dir, "cgroup.procs"), String(child.pid));
        assert.deepEqual(cgroupProcsNow(dir), [child.pid]);
      } finally {
        child.kill("SIGKILL");
        await new Promise((r) => child.once("exit", r));
        for (let i = 0; i < 50; i++) {
          try {
            rmdirSync(dir);
            break;
          } catch {
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      }
    },
  );
});
