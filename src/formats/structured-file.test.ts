import assert from "node:assert/strict";
import { constants } from "node:buffer";
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { decodeText, describeReadError, readStructuredFile, readTextFile } from "./structured-file.js";

const dir = mkdtempSync(join(tmpdir(), "evictd-structured-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("files too large for one string", () => {
  test("bytes that decode to more than V8's longest string: too large, not 'not UTF-8'", () => {
    // ~512 MiB of spaces: valid UTF-8, one character too many for a string.
    const bytes = Buffer.alloc(constants.MAX_STRING_LENGTH + 1, 0x20);
    const r = decodeText(bytes, "big.json", "scenario");
    assert.ok(!r.ok);
    assert.equal(r.issues.length, 1);
    assert.equal(r.issues[0]?.code, "file-too-large");
    assert.equal(
      r.issues[0]?.message,
      "the file is too large to read as one document (537 MB); write it as JSONL (one step per line) to stream it",
    );
    // Only a scenario can be written as JSONL.
    const config = decodeText(bytes, "big.yaml", "config");
    assert.ok(!config.ok);
    assert.equal(config.issues[0]?.message, "the file is too large to read as one document (537 MB)");
  });

  test("a file of 2 GiB or more (Node will not read it into one buffer)", async () => {
    const file = join(dir, "huge.json");
    const fd = openSync(file, "w");
    try {
      ftruncateSync(fd, 2 ** 31 + 1000); // sparse: takes no disk space
    } finally {
      closeSync(fd);
    }
    const r = await readTextFile(file, "scenario");
    assert.ok(!r.ok);
    assert.equal(r.issues[0]?.code, "file-too-large");
    assert.match(
      r.issues[0]?.message ?? "",
      /^the file is too large to read as one document \(2147 MB\); write it as JSONL/,
    );
  });

  test("invalid UTF-8 is still reported as such", () => {
    const r = decodeText(Buffer.from([0x7b, 0xff, 0x7d]), "bad.json", "scenario");
    assert.ok(!r.ok);
    assert.equal(r.issues[0]?.message, "the file is not valid UTF-8 text");
  });
});

describe("describeReadError", () => {
  for (const [code, expected] of [
    ["ENOENT", "no such file"],
    ["EISDIR", "is a directory, not a file"],
    ["EACCES", "permission denied"],
  ] as const) {
    test(code, () =>
      assert.equal(describeReadError(Object.assign(new Error(code), { code })).message, expected),
    );
  }
});

test("readStructuredFile still reads a small JSON file", async () => {
  const file = join(dir, "small.json");
  writeFileSync(file, '{"a": 18446744073709551615}');
  const r = await readStructuredFile(file, "scenario");
  assert.ok(r.ok);
  assert.equal(r.format, "json");
});
