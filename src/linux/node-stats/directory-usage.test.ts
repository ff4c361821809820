/** The du-style walk on real trees: allocated blocks, hard links once, symlinks not followed, other filesystems skipped, vanishing files tolerated. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, lstat, mkdir, mkdtemp, open, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { measureDirectory } from "./directory-usage.js";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "evictd-du-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Allocated bytes of a path as lstat reports them: the oracle the walk must add up. */
async function allocated(...paths: string[]): Promise<number> {
  let sum = 0;
  for (const p of paths) sum += (await lstat(p)).blocks * 512;
  return sum;
}

describe("measureDirectory", () => {
  test("a missing directory is undefined", async () => {
    assert.equal(await measureDirectory(join(root, "missing")), undefined);
  });

  test("an empty directory is one inode", async () => {
    const dir = join(root, "empty");
    await mkdir(dir);
    assert.deepEqual(await measureDirectory(dir), {
      bytes: BigInt(await allocated(dir)),
      inodes: 1n,
      truncated: false,
    });
  });

  test("nested files: every inode and every allocated block", async () => {
    const dir = join(root, "tree");
    await mkdir(join(dir, "a", "b"), { recursive: true });
    await writeFile(join(dir, "top"), Buffer.alloc(10_000, 1));
    await writeFile(join(dir, "a", "mid"), Buffer.alloc(3, 1));
    await writeFile(join(dir, "a", "b", "deep"), Buffer.alloc(70_000, 1));
    const paths = [
      dir,
      join(dir, "top"),
      join(dir, "a"),
      join(dir, "a", "mid"),
      join(dir, "a", "b"),
      join(dir, "a", "b", "deep"),
    ];
    const got = await measureDirectory(dir);
    assert.deepEqual(got, { bytes: BigInt(await allocated(...paths)), inodes: 6n, truncated: false });
    // Allocated, not apparent: the 3-byte file costs a whole block.
    assert.ok((got?.bytes ?? 0n) >= 80_003n);
  });

  test("a sparse file costs what it occupies, not its length", async () => {
    const dir = join(root, "sparse");
    await mkdir(dir);
    const handle = await open(join(dir, "holes"), "w");
    await handle.write(Buffer.from("end"), 0, 3, 100 * 1024 * 1024 - 3); // 100 MiB long, one block written
    await handle.close();
    const got = await measureDirectory(dir);
    assert.ok((got?.bytes ?? 0n) < 1024n * 1024n, `sparse file counted as ${got?.bytes}`);
    assert.equal(got?.inodes, 2n);
  });

  test("hard links count once; symlinks count as themselves and are not followed", async () => {
    const dir = join(root, "links");
    const outside = join(root, "outside");
    await mkdir(dir);
    await mkdir(outside);
    await writeFile(join(outside, "big"), Buffer.alloc(200_000, 1));
    await writeFile(join(dir, "data"), Buffer.alloc(50_000, 1));
    await link(join(dir, "data"), join(dir, "data-again"));
    await symlink(outside, join(dir, "to-outside"));
    await symlink(join(outside, "big"), join(dir, "to-big"));
    const got = await measureDirectory(dir);
    assert.equal(got?.inodes, 4n); // dir, data (once), two symlinks
    assert.equal(
      got?.bytes,
      BigInt(await allocated(dir, join(dir, "data"), join(dir, "to-outside"), join(dir, "to-big"))),
    );
    assert.ok((got?.bytes ?? 0n) < 200_000n);
  });

  test("stops at maxEntries and says so", async () => {
    const dir = join(root, "many");
    await mkdir(dir);
    for (let i = 0; i < 50; i++) await writeFile(join(dir, `f${i}`), "x");
    const got = await measureDirectory(dir, { maxEntries: 10 });
    assert.equal(got?.truncated, true);
    assert.ok((got?.inodes ?? 0n) <= 11n);
    assert.equal((await measureDirectory(dir))?.inodes, 51n);
  });

  test("a tree deleted while being walked does not fail the walk", async () => {
    const dir = join(root, "vanishing");
    for (let d = 0; d < 20; d++) {
      await mkdir(join(dir, `d${d}`), { recursive: true });
      for (let f = 0; f < 50; f++) await writeFile(join(dir, `d${d}`, `f${f}`), "x");
    }
    const walk = measureDirectory(dir, { concurrency: 4 });
    await rm(dir, { recursive: true, force: true });
    const got = await walk;
    // Whatever was seen before the files went: at most the whole tree.
    assert.ok(got === undefined || got.inodes <= 1021n);
  });

  test(
    "another filesystem mounted inside is not entered (du -x)",
    { skip: process.getuid?.() !== 0 ? "mount needs root" : false },
    async () => {
      const dir = join(root, "with-mount");
      const inner = join(dir, "inner");
      await mkdir(inner, { recursive: true });
      await writeFile(join(dir, "own"), Buffer.alloc(8192, 1));
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", inner]);
      try {
        await writeFile(join(inner, "elsewhere"), Buffer.alloc(1024 * 1024, 1));
        const got = await measureDirectory(dir);
        assert.equal(got?.inodes, 2n); // dir and own; the mount point's root is on the other device
        assert.ok((got?.bytes ?? 0n) < 1024n * 1024n);
      } finally {
        execFileSync("umount", [inner]);
      }
    },
  );
});
