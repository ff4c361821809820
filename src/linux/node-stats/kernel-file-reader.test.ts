/**
 * KernelFileReader against real files and a real memory cgroup: a kept-open descriptor sees every
 * new value, a removed cgroup reads as gone, one made again under the same path is read afresh, and
 * descriptors of files no longer read are closed.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { locateOwnCgroups } from "../cgroups/detect-cgroups.js";
import { KernelFileReader } from "./kernel-file-reader.js";

const openFds = (): number => readdirSync("/proc/self/fd").length;

describe("KernelFileReader on plain files", () => {
  test("reads the current content at every call, through one descriptor", () => {
    const dir = mkdtempSync(join(tmpdir(), "evictd-kfr-"));
    try {
      const file = join(dir, "value");
      writeFileSync(file, "1\n");
      const reader = new KernelFileReader();
      const before = openFds();
      assert.equal(reader.read(file), "1\n");
      writeFileSync(file, "22\n");
      assert.equal(reader.read(file), "22\n");
      assert.equal(reader.openFiles, 1);
      assert.equal(openFds(), before + 1);
      reader.close();
      assert.equal(openFds(), before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file larger than the buffer is read whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "evictd-kfr-"));
    try {
      const file = join(dir, "big");
      const text = "x".repeat(100_000);
      writeFileSync(file, text);
      const reader = new KernelFileReader();
      assert.equal(reader.read(file), text);
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing file is cgroup-not-found; sweep closes what was not read since the last sweep", () => {
    const dir = mkdtempSync(join(tmpdir(), "evictd-kfr-"));
    try {
      const reader = new KernelFileReader();
      assert.throws(
        () => reader.read(join(dir, "absent")),
        (e: unknown) => e instanceof AdapterError && e.code === "cgroup-not-found",
      );
      writeFileSync(join(dir, "a"), "a");
      writeFileSync(join(dir, "b"), "b");
      reader.read(join(dir, "a"));
      reader.read(join(dir, "b"));
      reader.sweep();
      assert.equal(reader.openFiles, 2);
      reader.read(join(dir, "a"));
      reader.sweep();
      assert.equal(reader.openFiles, 1);
      reader.close();
      assert.equal(reader.openFiles, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const ownMemory = locateOwnCgroups().memory;
const memoryRoot = ownMemory?.dir;
const CGROUP_SKIP = memoryRoot === undefined ? "no memory cgroup of our own to nest under" : false;
if (CGROUP_SKIP !== false) console.error(`# skipped: ${CGROUP_SKIP}`);

describe("KernelFileReader on a live memory cgroup", { skip: CGROUP_SKIP }, () => {
  test("a removed cgroup reads as gone with its descriptor open; one made again is read afresh", () => {
    const dir = join(memoryRoot ?? "", `evictd-kfr-${process.pid}`);
    const api = ownMemory?.api ?? "v1";
    const limitFile = join(dir, api === "v2" ? "memory.max" : "memory.limit_in_bytes");
    // v2: a child has memory.max only where its parent hands the controller down.
    if (
      api === "v2" &&
      !readFileSync(join(memoryRoot ?? "", "cgroup.subtree_control"), "utf8").includes("memory")
    )
      writeFileSync(join(memoryRoot ?? "", "cgroup.subtree_control"), "+memory");
    mkdirSync(dir);
    const reader = new KernelFileReader();
    try {
      writeFileSync(limitFile, String(64 * 1024 * 1024));
      assert.equal(reader.read(limitFile).trim(), String(64 * 1024 * 1024));
      // The cgroup goes away while the reader keeps its file open: rmdir must still succeed.
      rmdirSync(dir);
      assert.throws(
        () => reader.read(limitFile),
        (e: unknown) => e instanceof AdapterError && e.code === "cgroup-not-found",
      );
      assert.equal(reader.openFiles, 0);
      mkdirSync(dir);
      writeFileSync(limitFile, String(32 * 1024 * 1024));
      assert.equal(reader.read(limitFile).trim(), String(32 * 1024 * 1024));
    } finally {
      reader.close();
      try {
        rmdirSync(dir);
      } catch {
        // Already removed by the test.
      }
    }
  });
});
