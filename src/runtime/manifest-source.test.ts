/** The manifest directory source on a real temp directory: added, changed and removed by UID, errors exposed, bounded waits. */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import {
  ManifestSource,
  isManifestFileName,
  scanManifestDir,
  type ManifestFileError,
} from "./manifest-source.js";
import type { RunnablePod } from "./runnable-pod.js";
import { scaled } from "../testing/slowdown.js";
import {
  MAX_ISSUE_MESSAGE,
  MAX_MANIFEST_BYTES,
  readManifestFile,
  type ManifestFileResult,
} from "./read-manifest-file.js";

const temps: string[] = [];
after(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "evictd-manifests-"));
  temps.push(dir);
  return dir;
}

const pod = (name: string, command = "sleep", uid?: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n${uid === undefined ? "" : `  uid: ${uid}\n`}spec:\n  containers:\n  - name: c\n    command: [${command}, "30"]\n`;

interface Recorder {
  readonly events: string[];
  readonly errors: (readonly ManifestFileError[])[];
  readonly source: ManifestSource;
}

function record(dir: string, options: { rescanIntervalMs?: number } = {}): Recorder {
  const events: string[] = [];
  const errors: (readonly ManifestFileError[])[] = [];
  const name = (p: RunnablePod) => p.name;
  const source = new ManifestSource({
    dir,
    debounceMs: 40,
    rescanIntervalMs: options.rescanIntervalMs ?? 0,
    listener: {
      added: (p) => events.push(`added ${name(p)}`),
      removed: (p) => events.push(`removed ${name(p)}`),
      changed: (a, b) =>
        events.push(`changed ${name(a)} ${a.containers[0]?.command?.[0]}→${b.containers[0]?.command?.[0]}`),
      errors: (e) => errors.push(e),
    },
  });
  return { events, errors, source };
}

/**
 * Waits for something to happen (a wait, not a bound on how fast: generous, so a busy machine or
 * the emulated guest, where the reading thread starts slowly, does not fail it; scaled for the guest).
 */
async function waitFor(what: string, check: () => boolean, unscaledMs = 10_000): Promise<void> {
  const ms = scaled(unscaledMs);
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("ManifestSource", () => {
  test("reports added, changed and removed pods as files come, change and go (fs.watch alone, no periodic rescan)", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.yaml"), pod("a"));
    await writeFile(join(dir, "notes.txt"), "not a manifest");
    await writeFile(join(dir, ".a.yaml.swp"), "editor junk");
    const r = record(dir);
    await r.source.start();
    try {
      assert.deepEqual(r.events, ["added a"]);
      assert.deepEqual(
        r.source.pods().map((p) => p.name),
        ["a"],
      );

      await writeFile(join(dir, "b.yml"), `${pod("b1")}---\n${pod("b2")}`);
      await waitFor("b1 and b2 added", () => r.events.includes("added b1") && r.events.includes("added b2"));

      await writeFile(join(dir, "a.yaml"), pod("a", "sh"));
      await waitFor("a changed", () => r.events.includes("changed a sleep→sh"));

      await unlink(join(dir, "b.yml"));
      await waitFor(
        "b1 and b2 removed",
        () => r.events.includes("removed b1") && r.events.includes("removed b2"),
      );
      assert.deepEqual(
        r.source.pods().map((p) => p.name),
        ["a"],
      );
      assert.equal(r.events.filter((e) => e.startsWith("added a")).length, 1, "no duplicate events");
    } finally {
      r.source.stop();
    }
  });

  test("a file that stops decoding is an error, and its pods are kept until it is fixed or deleted", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.yaml"), pod("a"));
    const r = record(dir);
    await r.source.start();
    try {
      await writeFile(join(dir, "a.yaml"), "metadata: { name: [\n");
      await waitFor("the error reported", () => r.errors.length === 1);
      assert.equal(r.errors[0]?.[0]?.file, join(dir, "a.yaml"));
      assert.ok((r.errors[0]?.[0]?.issues.length ?? 0) > 0);
      assert.deepEqual(
        r.source.pods().map((p) => p.name),
        ["a"],
        "the last good pod stays",
      );
      assert.ok(!r.events.includes("removed a"));

      await writeFile(join(dir, "a.yaml"), pod("a"));
      await waitFor("the error cleared", () => r.errors.length === 2);
      assert.deepEqual(r.errors[1], []);
      assert.deepEqual(r.events, ["added a"], "the same manifest again is no change");

      await unlink(join(dir, "a.yaml"));
      await waitFor("a removed", () => r.events.includes("removed a"));
    } finally {
      r.source.stop();
    }
  });

  test("started with the pods an earlier daemon runs: only what changed meanwhile is reported", async () => {
    const dir = await tempDir();
    for (const n of ["gone", "edited", "kept", "broken"]) await writeFile(join(dir, `${n}.yaml`), pod(n));
    const earlier = (await scanManifestDir(dir)).scan.pods;
    // While no daemon ran: one manifest deleted, one edited, one half saved; a new one added.
    await unlink(join(dir, "gone.yaml"));
    await writeFile(join(dir, "edited.yaml"), pod("edited", "echo"));
    await writeFile(join(dir, "broken.yaml"), "metadata: { name: [\n");
    await writeFile(join(dir, "new.yaml"), pod("new"));
    const r = record(dir);
    await r.source.start([...earlier.values()]);
    try {
      assert.deepEqual(r.events.sort(), ["added new", "changed edited sleep→echo"]);
      // A file has errors and may be the manifest of either missing pod (half saved): both keep
      // running until every file is readable again.
      assert.deepEqual(
        r.source
          .pods()
          .map((p) => p.name)
          .filter((n) => n === "gone" || n === "broken")
          .sort(),
        ["broken", "gone"],
      );
      await unlink(join(dir, "broken.yaml"));
      await r.source.rescan();
      assert.deepEqual(r.events.slice(2).sort(), ["removed broken", "removed gone"]);
    } finally {
      r.source.stop();
    }
  });

  test("two files defining one UID: the first (by name) wins, the second is an error", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "1.yaml"), pod("first", "sleep", "same-uid"));
    await writeFile(
      join(dir, "2.json"),
      JSON.stringify({
        metadata: { name: "second", uid: "same-uid" },
        spec: { containers: [{ name: "c", command: ["true"] }] },
      }),
    );
    const r = record(dir);
    await r.source.start();
    r.source.stop();
    assert.deepEqual(r.events, ["added first"]);
    assert.deepEqual(
      r.source.errors().map((e) => [e.file, e.issues[0]?.code]),
      [[join(dir, "2.json"), "duplicate-pod"]],
    );
  });

  test("a missing directory is an error; the periodic rescan picks the pods up once it exists", async () => {
    const dir = join(await tempDir(), "later");
    const r = record(dir, { rescanIntervalMs: 100 });
    await r.source.start();
    try {
      assert.deepEqual(r.events, []);
      assert.equal(r.source.errors()[0]?.file, dir);
      await mkdir(dir);
      await writeFile(join(dir, "p.yaml"), pod("p"));
      await waitFor("p added", () => r.events.includes("added p"));
      assert.deepEqual(r.source.errors(), []);
      // The watcher is armed again: a new file shows up without waiting for many rescans.
      await writeFile(join(dir, "q.yaml"), pod("q"));
      await waitFor("q added", () => r.events.includes("added q"));
    } finally {
      r.source.stop();
    }
  });

  test("after stop nothing is reported", async () => {
    const dir = await tempDir();
    const r = record(dir, { rescanIntervalMs: 50 });
    await r.source.start();
    r.source.stop();
    await writeFile(join(dir, "late.yaml"), pod("late"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(r.events, []);
  });

  test("manifest file names", () => {
    const table: [string, boolean][] = [
      ["pod.yaml", true],
      ["pod.YML", true],
      ["pod.json", true],
      ["pod.yaml.bak", false],
      [".pod.yaml", false],
      ["pod.txt", false],
    ];
    for (const [name, want] of table) assert.equal(isManifestFileName(name), want, name);
  });
});

describe("scanManifestDir", () => {
  test("an unchanged file is not parsed again; an edited or replaced one is", async () => {
    const dir = await mkdtemp(join(tmpdir(), "evictd-scan-"));
    try {
      const manifest = (grace: number): string =>
        `apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  terminationGracePeriodSeconds: ${grace}\n  containers:\n    - {name: app, command: [sleep, "1"]}\n`;
      await writeFile(join(dir, "web.yaml"), manifest(5));
      const first = await scanManifestDir(dir);
      const again = await scanManifestDir(dir, first.files);
      const file = join(dir, "web.yaml");
      // The very object the first scan decoded: no second parse.
      assert.equal(again.files.get(file)?.read, first.files.get(file)?.read);
      await writeFile(file, manifest(7));
      const edited = await scanManifestDir(dir, again.files);
      assert.notEqual(edited.files.get(file)?.read, first.files.get(file)?.read);
      assert.equal([...edited.scan.pods.values()][0]?.terminationGracePeriodSeconds, 7);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("scanManifestDir: files that are not the directory's pods", () => {
  const messages = (errors: readonly ManifestFileError[], file: string): string[] =>
    errors.filter((e) => e.file === file).flatMap((e) => e.issues.map((i) => i.message));

  test("a symbolic link out of the directory is refused unread; one within it is followed", async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    const secret = join(outside, "secret.yaml");
    await writeFile(secret, "password: hunter2-not-a-pod\n");
    await symlink(secret, join(dir, "stolen.yaml"));
    await writeFile(join(dir, "web.yaml"), pod("web"));
    await symlink(join(dir, "web.yaml"), join(dir, "alias.yml"));
    const { scan } = await scanManifestDir(dir);
    const refused = messages(scan.errors, join(dir, "stolen.yaml"));
    assert.equal(refused.length, 1);
    assert.match(
      refused[0] ?? "",
      /symbolic link to .*secret\.yaml, outside the manifest directory: not read/,
    );
    assert.doesNotMatch(JSON.stringify(scan.errors), /hunter2/, "the target's content appears nowhere");
    // The link within the directory names the same pod as web.yaml: one pod, the alias is a duplicate.
    assert.deepEqual(
      [...scan.pods.values()].map((p) => p.name),
      ["web"],
    );
  });

  test("a file larger than a Pod may be is not read; a long non-YAML line is named, not quoted whole", async () => {
    const dir = await tempDir();
    const big = join(dir, "big.yaml");
    await writeFile(big, Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x61));
    const line = join(dir, "line.yaml");
    await writeFile(line, `{${"x".repeat(200_000)}`);
    const { scan } = await scanManifestDir(dir);
    assert.match(messages(scan.errors, big)[0] ?? "", /more than a Pod manifest may be .*: not read/);
    const lineMessages = messages(scan.errors, line);
    assert.ok(lineMessages.length > 0, "the broken file is an error");
    for (const m of [...messages(scan.errors, big), ...lineMessages])
      assert.ok(m.length <= MAX_ISSUE_MESSAGE + 40, `bounded message (${m.length} characters)`);
  });

  test("two files with one pod name: the running pod is left alone, the other file is an error", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "web.yaml"), pod("web", "sleep"));
    const first = await scanManifestDir(dir);
    const running = [...first.scan.pods.values()];
    assert.equal(running.length, 1);
    // A second manifest for default/web that sorts first (a copy left by an editor, a typo).
    await writeFile(join(dir, "a-web-copy.yaml"), pod("web", "echo"));
    const again = await scanManifestDir(dir, first.files);
    assert.deepEqual(
      [...again.scan.pods.values()],
      running,
      "the pod defined first keeps running, unchanged",
    );
    const [message] = messages(again.scan.errors, join(dir, "a-web-copy.yaml"));
    assert.match(
      message ?? "",
      /pod default\/web is already defined in .*web\.yaml: ignored here \(the running pod is left alone\)/,
    );
    // With no pod running yet, the first file in name order defines it.
    const fresh = await scanManifestDir(dir);
    assert.deepEqual(
      [...fresh.scan.pods.values()].map((p) => p.containers[0]?.command?.[0]),
      ["echo"],
    );
  });
});

/** An alias bomb: nine anchors, each a list of nine aliases to the one before. */
function aliasBomb(): string {
  let text = `a: &a [${Array(9).fill('"lol"').join(",")}]\n`;
  let prev = "a";
  for (const n of ["b", "c", "d", "e", "f", "g", "h", "i"]) {
    text += `${n}: &${n} [${Array(9).fill(`*${prev}`).join(",")}]\n`;
    prev = n;
  }
  return text;
}

describe("ManifestSource: hostile files", () => {
  test("an alias bomb, present at start or dropped in later, is that file's error; the other pods come and go as before", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a-bomb.yaml"), aliasBomb());
    await writeFile(join(dir, "web.yaml"), pod("web"));
    // The source's own reading thread (the daemon's way of reading).
    const r = record(dir);
    await r.source.start();
    try {
      assert.deepEqual(r.events, ["added web"]);
      const bomb = join(dir, "a-bomb.yaml");
      assert.deepEqual(
        r.source.errors().map((e) => [e.file, e.issues.map((i) => i.message)]),
        [
          [
            bomb,
            ["the document cannot be read: Excessive alias count indicates a resource exhaustion attack"],
          ],
        ],
      );
      await writeFile(join(dir, "z-bomb.yml"), aliasBomb());
      await writeFile(join(dir, "next.yaml"), pod("next"));
      await waitFor("next added", () => r.events.includes("added next"));
      await waitFor("both bombs reported", () => r.source.errors().length === 2);
      assert.deepEqual(
        r.source.errors().map((e) => e.file),
        [bomb, join(dir, "z-bomb.yml")],
      );
    } finally {
      r.source.stop();
    }
  });

  test("a file that failed is not read again until it changes; one to retry is read at the next scan", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "bad.yaml"), "metadata: { name: [\n");
    await writeFile(join(dir, "busy.yaml"), pod("busy"));
    await writeFile(join(dir, "good.yaml"), pod("good"));
    const reads: string[] = [];
    const read = async (file: string): Promise<ManifestFileResult> => {
      reads.push(file.slice(dir.length + 1));
      const result = await readManifestFile(file);
      // busy.yaml plays a file the machine gave the parser no time for.
      if (!file.endsWith("busy.yaml")) return result;
      const issue = {
        severity: "error" as const,
        path: "",
        code: "manifest-unreadable",
        message: "busy",
        file,
      };
      return { file, pods: [], issues: [issue], retry: true };
    };
    const first = await scanManifestDir(dir, new Map(), read);
    assert.deepEqual(reads.sort(), ["bad.yaml", "busy.yaml", "good.yaml"]);
    reads.length = 0;
    const second = await scanManifestDir(dir, first.files, read);
    assert.deepEqual(reads, ["busy.yaml"], "only the file to retry is read again");
    reads.length = 0;
    // A new modification time is a change.
    await utimes(join(dir, "bad.yaml"), new Date(), new Date(Date.now() + 5000));
    await scanManifestDir(dir, second.files, read);
    assert.deepEqual(reads.sort(), ["bad.yaml", "busy.yaml"]);
  });

  test("a reader that throws is that file's error, and the scan goes on", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.yaml"), pod("a"));
    await writeFile(join(dir, "b.yaml"), pod("b"));
    const read = (file: string): Promise<ManifestFileResult> =>
      file.endsWith("a.yaml") ? Promise.reject(new Error("reader broke")) : readManifestFile(file);
    const { scan } = await scanManifestDir(dir, new Map(), read);
    assert.deepEqual(
      [...scan.pods.values()].map((p) => p.name),
      ["b"],
    );
    assert.deepEqual(
      scan.errors.map((e) => [e.file, e.issues[0]?.message]),
      [[join(dir, "a.yaml"), "the file cannot be read: reader broke"]],
    );
  });
});
