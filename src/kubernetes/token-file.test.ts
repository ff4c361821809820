import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AdapterError } from "../errors.js";
import { readTokenFile, TOKEN_FILE_REREAD_MS, TokenFile } from "./token-file.js";

describe("token files", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "evictd-token-file-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("the token, without the newline an editor or `echo` leaves", async () => {
    const file = path.join(dir, "token");
    await writeFile(file, "  s3cr3t-t0k3n\n");
    assert.equal(readTokenFile(file, 'user "u"'), "s3cr3t-t0k3n");
  });

  test("read again once a minute has passed, not before", async () => {
    const file = path.join(dir, "rotating");
    await writeFile(file, "first\n");
    let now = 1_000_000;
    const source = new TokenFile(file, 'user "u"', () => now);
    await writeFile(file, "second\n");
    now += TOKEN_FILE_REREAD_MS - 1;
    assert.equal(source.token(), "first");
    now += 1;
    assert.equal(source.token(), "second");
  });

  const unusable: { name: string; make: (file: string) => Promise<void>; why: string }[] = [
    { name: "missing", make: () => Promise.resolve(), why: "no such file" },
    {
      name: "a directory",
      make: (f) => mkdir(f).then(() => undefined),
      why: "it is a directory, not a file",
    },
    {
      // Reading a FIFO would wait for a writer that never comes.
      name: "a FIFO",
      make: (f) => Promise.resolve(void execFileSync("mkfifo", [f])),
      why: "it is not a regular file",
    },
    { name: "empty", make: (f) => writeFile(f, "\n"), why: "the file is empty" },
    {
      name: "two tokens",
      make: (f) => writeFile(f, "one two\n"),
      why: "the token holds spaces or control characters",
    },
  ];
  for (const c of unusable) {
    test(`a token file that is ${c.name} is named, with the reason`, async () => {
      const file = path.join(dir, c.name.replaceAll(" ", "-"));
      await c.make(file);
      assert.throws(
        () => new TokenFile(file, 'user "u" in kubeconfig k'),
        (e: unknown) =>
          e instanceof AdapterError &&
          e.code === "kube-credentials" &&
          e.message === `cannot read the token file ${file} of user "u" in kubeconfig k: ${c.why}`,
      );
    });
  }

  test("a token file that goes away later fails the next read, naming it", async () => {
    const file = path.join(dir, "vanishing");
    await writeFile(file, "t\n");
    let now = 0;
    const source = new TokenFile(file, 'user "u"', () => now);
    await rm(file);
    now += TOKEN_FILE_REREAD_MS;
    assert.throws(() => source.token(), /cannot read the token file .*vanishing of user "u": no such file/);
  });
});
