/** flock(2) through koffi on real files and cgroupfs-like directories, and the holder found in /proc/locks. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { flockHolder, tryLockExclusive } from "./file-lock.js";
import { parseCmdline } from "./procfs.js";

const dir = mkdtempSync(join(tmpdir(), "evictd-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("flockHolder", () => {
  // dev 0x0803 (major 8, minor 3) and a 20-bit minor (major 259, minor 0x12345).
  const text = [
    "1: POSIX  ADVISORY  WRITE 900 08:03:77 0 EOF",
    "2: FLOCK  ADVISORY  WRITE 1234 08:03:4242 0 EOF",
    "2: -> FLOCK  ADVISORY  WRITE 1300 08:03:4242 0 EOF",
    "3: FLOCK  ADVISORY  WRITE 4321 103:12345:99 0 EOF",
    "4: FLOCK  ADVISORY  WRITE -1 08:03:5 0 EOF",
    "",
  ].join("\n");
  const enc = (major: bigint, minor: bigint): bigint =>
    ((major & 0xfffn) << 8n) | ((major & ~0xfffn) << 32n) | (minor & 0xffn) | ((minor & ~0xffn) << 12n);

  test("matches device and inode, skipping POSIX locks and waiters", () => {
    assert.equal(flockHolder(text, enc(8n, 3n), 4242n), 1234);
    assert.equal(flockHolder(text, enc(8n, 3n), 77n), undefined, "a POSIX lock is not a flock");
    assert.equal(flockHolder(text, enc(0x103n, 0x12345n), 99n), 4321, "large major and minor numbers");
    assert.equal(flockHolder(text, enc(8n, 4n), 4242n), undefined, "another device");
    assert.equal(flockHolder(text, enc(8n, 3n), 5n), undefined, "a holder in another pid namespace");
  });
});

describe("tryLockExclusive", () => {
  test("a second open file description is refused and told the holder (this process), until release", () => {
    const file = join(dir, "a.lock");
    const first = tryLockExclusive(file, "file");
    assert.ok(first.held);
    const second = tryLockExclusive(file, "file");
    assert.deepEqual(second, { held: false, holderPid: process.pid });
    first.lock.release();
    const third = tryLockExclusive(file, "file");
    assert.ok(third.held);
    third.lock.release();
  });

  test("a directory can be locked, another process holding it is named, and its death frees it", async () => {
    const module = new URL("./file-lock.js", import.meta.url).href;
    const script = `import(${JSON.stringify(module)}).then((m) => { const a = m.tryLockExclusive(${JSON.stringify(dir)}, "directory"); console.log(a.held ? "locked" : "refused"); setTimeout(() => {}, 30000); });`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const said = await new Promise<string>((resolve) =>
        child.stdout.once("data", (d: Buffer) => resolve(String(d))),
      );
      assert.equal(said.trim(), "locked");
      assert.deepEqual(tryLockExclusive(dir, "directory"), { held: false, holderPid: child.pid });
    } finally {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    const attempt = tryLockExclusive(dir, "directory");
    assert.ok(attempt.held, "the lock went with its holder");
    attempt.lock.release();
  });

  test("a missing directory is an error, not a lock", () => {
    assert.throws(() => tryLockExclusive(join(dir, "missing"), "directory"), /ENOENT/);
    assert.ok(statSync(dir).isDirectory());
  });
});

describe("parseCmdline", () => {
  test("arguments joined, control characters escaped, long lines cut", () => {
    assert.equal(parseCmdline("node\0evictd.js\0run\0--node\0a.yaml\0"), "node evictd.js run --node a.yaml");
    assert.equal(parseCmdline("sh\0-c\0echo \x1b[31mred\n\0"), "sh -c echo \\x1b[31mred\\x0a");
    assert.equal(parseCmdline(""), undefined);
    assert.equal(parseCmdline("x".repeat(300))?.length, 201);
  });
});
