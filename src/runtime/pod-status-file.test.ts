/** Status files: exact round trip (bigint quantities included), atomic replacement, unreadable files reported. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { parseManifestText } from "./read-manifest-file.js";
import {
  STATUS_FILE_VERSION,
  decodeStatus,
  encodeStatus,
  readStatusFiles,
  type PersistedPodStatus,
} from "./pod-status-file.js";
import { writeFileAtomic } from "../formats/write-file-atomic.js";

const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

const pod = parseManifestText(
  "metadata: { name: p, uid: u-1 }\nspec:\n  containers:\n  - name: c\n    command: [sleep, '1']\n    resources: { limits: { memory: 9007199254740993 } }\n",
  "p.yaml",
).pods[0];

function status(overrides: Partial<PersistedPodStatus> = {}): PersistedPodStatus {
  assert.ok(pod !== undefined);
  return {
    version: STATUS_FILE_VERSION,
    uid: "u-1",
    phase: "Failed",
    reason: "Evicted",
    message: "The node was low on resource: memory. ",
    conditions: [{ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" }],
    qosClass: "Guaranteed",
    startTime: "2026-01-02T03:04:05.000Z",
    restarts: { c: 2 },
    final: true,
    statusFixed: true,
    initialized: true,
    containers: [
      {
        name: "c",
        kind: "regular",
        state: "terminated",
        restarts: 2,
        backoffSteps: 1,
        exitCode: 137,
        reason: "Error",
      },
    ],
    pod,
    ...overrides,
  };
}

describe("status files", () => {
  test("encode/decode round-trips exactly, a 2^53+1 byte limit included", () => {
    const s = status();
    const text = encodeStatus(s);
    assert.ok(text.includes('"$bigint": "9007199254740993"'));
    assert.deepEqual(decodeStatus(text), s);
  });

  test("decodeStatus says what is wrong instead of throwing", () => {
    const table: [string, RegExp][] = [
      ["{", /not JSON/],
      ["[]", /version/],
      [JSON.stringify({ ...JSON.parse(encodeStatus(status())), version: 99 }), /unsupported version 99/],
      [JSON.stringify({ ...JSON.parse(encodeStatus(status())), phase: "Exploded" }), /invalid phase/],
      [JSON.stringify({ ...JSON.parse(encodeStatus(status())), uid: "other" }), /not matching the uid/],
    ];
    for (const [text, want] of table) {
      const r = decodeStatus(text);
      assert.equal(typeof r, "string", text);
      assert.match(r as string, want);
    }
  });

  test("writeFileAtomic replaces the file whole and leaves no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "evictd-status-"));
    temps.push(dir);
    const file = join(dir, "deep", "status.json");
    await writeFileAtomic(file, "one");
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, `value ${i}`.repeat(1000))));
    assert.match(await readFile(file, "utf8"), /^(value \d+)+$/);
    assert.deepEqual(await readdir(join(dir, "deep")), ["status.json"]);
  });

  test("readStatusFiles returns the good ones and reports the bad ones; a missing root is empty", async () => {
    const root = await mkdtemp(join(tmpdir(), "evictd-status-"));
    temps.push(root);
    await mkdir(join(root, "good"));
    await writeFile(join(root, "good", "status.json"), encodeStatus(status()));
    await mkdir(join(root, "bad"));
    await writeFile(join(root, "bad", "status.json"), "{ half a file");
    await mkdir(join(root, "empty"));
    const { statuses, errors } = await readStatusFiles(root);
    assert.deepEqual(
      statuses.map((s) => s.uid),
      ["u-1"],
    );
    assert.deepEqual(
      errors.map((e) => e.file),
      [join(root, "bad", "status.json")],
    );
    assert.deepEqual(await readStatusFiles(join(root, "missing")), { statuses: [], errors: [] });
  });
});
