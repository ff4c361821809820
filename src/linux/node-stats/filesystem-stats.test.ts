/** statfs in Summary API terms, checked on a tmpfs of known size, and mount-point detection. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AdapterError } from "../../errors.js";
import { isMountPoint, statFilesystem } from "./filesystem-stats.js";

const MiB = 1024n * 1024n;
const asRoot = process.platform === "linux" && process.getuid?.() === 0;

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "evictd-statfs-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("statFilesystem", () => {
  test(
    "a 16 MiB tmpfs with a 2 MiB file and 10 inodes used",
    { skip: asRoot ? false : "mount needs root" },
    async () => {
      const dir = join(root, "tmpfs");
      await mkdir(dir);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=16m,nr_inodes=1000", "tmpfs", dir]);
      try {
        await writeFile(join(dir, "blob"), Buffer.alloc(2 * 1024 * 1024, 1));
        for (let i = 0; i < 9; i++) await writeFile(join(dir, `f${i}`), "x");
        const s = await statFilesystem(dir);
        assert.equal(s.capacityBytes, 16n * MiB);
        assert.equal(s.usedBytes, 2n * MiB + 9n * 4096n);
        assert.equal(s.availableBytes, s.capacityBytes - s.usedBytes); // tmpfs reserves nothing for root
        assert.equal(s.inodes, 1000n);
        // The root directory is an inode too.
        assert.equal(s.inodesUsed, 11n);
        assert.equal(s.inodesFree, 989n);
      } finally {
        execFileSync("umount", [dir]);
      }
    },
  );

  test("figures are consistent on any filesystem", async () => {
    const s = await statFilesystem(root);
    assert.ok(s.capacityBytes > 0n);
    assert.ok(s.usedBytes + s.availableBytes <= s.capacityBytes);
    assert.equal(s.inodesUsed + s.inodesFree, s.inodes);
  });

  test("a missing directory is an AdapterError naming it", async () => {
    await assert.rejects(
      statFilesystem(join(root, "nope")),
      (e: unknown) =>
        e instanceof AdapterError && e.code === "stats-statfs-failed" && e.message.includes("nope"),
    );
  });
});

describe("isMountPoint", () => {
  test("a plain directory is not; a missing one is unknown; / is", async () => {
    const dir = join(root, "plain");
    await mkdir(dir);
    assert.equal(await isMountPoint(dir), false);
    assert.equal(await isMountPoint(join(root, "missing")), undefined);
    assert.equal(await isMountPoint("/"), true);
  });

  test("a tmpfs mounted on a directory is", { skip: asRoot ? false : "mount needs root" }, async () => {
    const dir = join(root, "mounted");
    await mkdir(dir);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]);
    try {
      assert.equal(await isMountPoint(dir), true);
    } finally {
      execFileSync("umount", [dir]);
    }
  });
});
