/**
 * Manifest files read in a worker thread: the same pods and issues as reading them in place, and a
 * file past its CPU budget, its memory or the wall limit reported for that file while the main
 * thread runs on; the worker ends when idle and a new one takes the next file.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { LoggerPort } from "../app/ports.js";
import { MANIFEST_CPU_BUDGET_MS, ManifestReadThread } from "./manifest-read-thread.js";
import { MAX_MANIFEST_BYTES, readManifestFile, type ManifestFileResult } from "./read-manifest-file.js";
import { scaled } from "../testing/slowdown.js";

const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function tempFiles(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "evictd-read-thread-"));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** `line` repeated to just under the manifest size limit (1.4 MiB). */
const fill = (line: string): string => line.repeat(Math.floor((1.4 * 1024 * 1024) / line.length));

const pod = (name: string, extra = ""): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: team-${name.length % 3}\n  labels: {app: web}\n  annotations: {note: "pod ${name}"}\nspec:\n  terminationGracePeriodSeconds: 7\n${extra}  containers:\n  - name: app\n    command: [sleep, "600"]\n    env: [{name: A, value: "1"}]\n    resources:\n      requests: {memory: 16Mi, cpu: 100m}\n      limits: {memory: 32Mi}\n`;

/** A `---` stream of pods as large as a manifest may be: the largest legitimate file. */
function largestStream(): string {
  let text = "";
  for (let i = 0; text.length < MAX_MANIFEST_BYTES - 1000; i++) text += `${pod(`web-${i}`)}---\n`;
  return text;
}

/** A logger that keeps what it is given. */
function recordingLogger(): LoggerPort & { lines: string[] } {
  const lines: string[] = [];
  const keep = (fields: Record<string, unknown>, message: string): void =>
    void lines.push(`${message} ${JSON.stringify(fields)}`);
  return { lines, info: keep, warn: keep, error: keep, debug: keep } as LoggerPort & { lines: string[] };
}

describe("ManifestReadThread", () => {
  test("pods and issues are those of reading the file in place, the largest legitimate manifests within the default limits", async () => {
    const dir = await tempFiles({
      "web.yaml": pod("web", "  restartPolicy: OnFailure\n"),
      "list.json": JSON.stringify({
        kind: "PodList",
        items: [1, 2].map((i) => ({
          metadata: { name: `j${i}`, uid: `uid-${i}` },
          spec: {
            containers: [
              { name: "c", command: ["true"], resources: { limits: { memory: "18446744073709551615" } } },
            ],
          },
        })),
      }),
      "mixed.yaml": `${pod("good")}---\nmetadata: {name: bad}\nspec: {restartPolicy: Sometimes}\n`,
      "syntax.yaml": "metadata: { name: [\n",
      "stream.yaml": largestStream(),
    });
    const logger = recordingLogger();
    // The default budget, in this machine's terms: the cgroup v2 guest emulates its CPU, slower by SLOWDOWN.
    const thread = new ManifestReadThread({ logger, cpuBudgetMs: scaled(MANIFEST_CPU_BUDGET_MS) });
    try {
      const results = new Map<string, ManifestFileResult>();
      for (const name of [
        "web.yaml",
        "list.json",
        "mixed.yaml",
        "syntax.yaml",
        "stream.yaml",
        "missing.yaml",
      ]) {
        const file = join(dir, name);
        const read = await thread.read(file);
        assert.deepStrictEqual(read, await readManifestFile(file), name);
        results.set(name, read);
      }
      assert.ok(results.get("mixed.yaml")?.issues.some((i) => i.path === "spec.restartPolicy"));
      assert.equal(results.get("missing.yaml")?.issues[0]?.code, "file-not-found");
      const stream = results.get("stream.yaml");
      assert.ok(stream !== undefined);
      assert.ok(stream.pods.length > 2000, `${stream.pods.length} pods`);
      assert.deepEqual(stream.issues, []);
      assert.equal(thread.started, 1, "one worker read them all");
      assert.deepEqual(logger.lines, []);
    } finally {
      await thread.close();
    }
  });

  test("a file past its CPU budget is reported for that file, the main thread runs meanwhile, and a new worker reads the files asked for after it", async () => {
    const dir = await tempFiles({
      "keys.yaml": fill("? ? ? ?\n"),
      "web.yaml": pod("web"),
      "db.yaml": pod("db"),
    });
    const budgetMs = scaled(300);
    const thread = new ManifestReadThread({ cpuBudgetMs: budgetMs });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    try {
      // Asked for together: the two after the costly one are already sent to the worker ended for it.
      const [keys, web, db] = ["keys.yaml", "web.yaml", "db.yaml"].map((name) =>
        thread.read(join(dir, name)),
      );
      assert.ok(keys !== undefined && web !== undefined && db !== undefined);
      const r = await keys;
      clearInterval(ticker);
      assert.deepEqual(r.pods, []);
      assert.deepEqual(
        r.issues.map((i) => [i.file, i.code, i.message]),
        [
          [
            join(dir, "keys.yaml"),
            "manifest-too-costly",
            `took longer than ${Math.round(budgetMs / 100) / 10} s of CPU time to parse: not read`,
          ],
        ],
      );
      assert.equal(r.retry, undefined, "the file's own fault: not read again until it changes");
      // Parsed in place, the file would have held the main thread for the whole parse.
      assert.ok(ticks >= 3, `the main thread's timer ran ${ticks} times during the read`);
      assert.deepEqual(
        [...(await web).pods, ...(await db).pods].map((p) => p.key),
        ["team-0/web", "team-2/db"],
      );
      assert.equal(thread.started, 2);
    } finally {
      clearInterval(ticker);
      await thread.close();
    }
  });

  test("a file that needs more heap than the worker may have is reported for that file", async () => {
    const dir = await tempFiles({ "keys.yaml": fill("key: [\n") });
    const thread = new ManifestReadThread({
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
      cpuBudgetMs: 10 * MANIFEST_CPU_BUDGET_MS,
    });
    try {
      const r = await thread.read(join(dir, "keys.yaml"));
      assert.deepEqual(
        r.issues.map((i) => [i.code, i.message]),
        [["manifest-too-costly", "needed more than 32 MB of memory to parse: not read"]],
      );
    } finally {
      await thread.close();
    }
  });

  test("a file the machine gave no time to is read again at the next scan (retry), not held against it", async () => {
    const dir = await tempFiles({ "keys.yaml": fill("? ? ? ?\n") });
    const thread = new ManifestReadThread({ wallLimitMs: 200, cpuBudgetMs: 600_000 });
    try {
      const r = await thread.read(join(dir, "keys.yaml"));
      assert.equal(r.retry, true);
      assert.match(r.issues[0]?.message ?? "", /could not be parsed within 0\.2 s \(the machine is busy\)/);
    } finally {
      await thread.close();
    }
  });

  test("the worker ends once idle and starts again for the next file; close answers what is queued", async () => {
    const dir = await tempFiles({ "a.yaml": pod("a"), "b.yaml": pod("b") });
    const thread = new ManifestReadThread({ idleMs: 50 });
    assert.equal(thread.alive, false, "no worker before a file needs reading");
    assert.equal((await thread.read(join(dir, "a.yaml"))).pods.length, 1);
    const deadline = Date.now() + 10_000;
    while (thread.alive && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(thread.alive, false, "the idle worker ended");
    assert.equal((await thread.read(join(dir, "b.yaml"))).pods.length, 1);
    assert.equal(thread.started, 2);
    const queued = [thread.read(join(dir, "a.yaml")), thread.read(join(dir, "b.yaml"))];
    await thread.close();
    const answers = await Promise.all(queued);
    assert.ok(answers.every((a) => a.pods.length === 1 || a.issues[0]?.message === "the daemon is stopping"));
    assert.equal(thread.alive, false);
    assert.equal((await thread.read(join(dir, "a.yaml"))).issues[0]?.message, "the daemon is stopping");
  });
});
