import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { Issue, IssueList } from "../../core/issues.js";
import { ReferencedFiles } from "./referenced-files.js";

const dir = mkdtempSync(join(tmpdir(), "evictd-referenced-files-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Accepts `{n: <number>}` (issues under the path the file is referenced at); counts the checks run. */
function checker(): {
  check: (path: string) => (value: unknown, issues: IssueList) => void;
  runs: () => number;
} {
  let runs = 0;
  return {
    check: (path) => (value, issues) => {
      runs++;
      const n = (value as { n?: unknown }).n;
      if (typeof n !== "number")
        issues.error(`${path}.n`, "type", `expected a number, got ${JSON.stringify(n)}`);
    },
    runs: () => runs,
  };
}

test("a file referenced again while in use is read and checked once", async () => {
  writeFileSync(join(dir, "a.json"), '{"n": 1}');
  const issues: Issue[] = [];
  const files = new ReferencedFiles(dir, issues);
  const c = checker();
  for (let i = 0; i < 100; i++) {
    const f = await files.load("a.json", `steps[${i}].summary`, c.check(`steps[${i}].summary`));
    assert.deepEqual(f, { value: { n: 1 }, ok: true });
  }
  assert.equal(c.runs(), 1);
  assert.deepEqual(issues, []);
});

test("a bad file is reported once, at its first reference, however often it is referenced", async () => {
  writeFileSync(join(dir, "bad.json"), '{"n": "one"}');
  const issues: Issue[] = [];
  const files = new ReferencedFiles(dir, issues);
  const c = checker();
  for (let i = 0; i < 20; i++) {
    assert.equal(
      (await files.load("bad.json", `steps[${i}].summary`, c.check(`steps[${i}].summary`))).ok,
      false,
    );
    // Other files in between push it out of the files kept in memory.
    writeFileSync(join(dir, `other-${i}.json`), '{"n": 2}');
    await files.load(`other-${i}.json`, `steps[${i}].afterReclaim`, c.check(`steps[${i}].afterReclaim`));
  }
  assert.deepEqual(
    issues.map((i) => [i.path, i.line]),
    [["steps[0].summary.n", 1]],
  );
  assert.equal(c.runs(), 1 + 20, "the bad file is not read again: it is known to be bad");
});

test("memory holds a few files, not every file of a long trace: one left behind is read again", async () => {
  const issues: Issue[] = [];
  const files = new ReferencedFiles(dir, issues);
  const c = checker();
  for (let i = 0; i < 50; i++) {
    writeFileSync(join(dir, `s-${i}.json`), `{"n": ${i}}`);
    assert.deepEqual(
      (await files.load(`s-${i}.json`, `steps[${i}].summary`, c.check(`steps[${i}].summary`))).value,
      { n: i },
    );
  }
  assert.equal(c.runs(), 50);
  // s-0 left the window long ago: read (and checked) again, silently, with what the file holds now.
  assert.deepEqual((await files.load("s-0.json", "steps[50].summary", c.check("steps[50].summary"))).value, {
    n: 0,
  });
  assert.equal(c.runs(), 51);
  // s-49 is still kept.
  await files.load("s-49.json", "steps[51].summary", c.check("steps[51].summary"));
  assert.equal(c.runs(), 51);
  assert.deepEqual(issues, []);
});
