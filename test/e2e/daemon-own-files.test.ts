/**
 * `evictd run` end to end on the files it writes on nodefs, which must neither break nor fill it:
 * `decisions.jsonl` on a 64 KiB tmpfs that fills and empties again (every line still parses, jq
 * too), a torn tail left by a killed daemon cut at the next start, the decision log rotated at the
 * node file's `decisionLog` bound across a restart, and a pod's stdout rotated per the
 * KubeletConfiguration's `containerLogMaxSize`/`containerLogMaxFiles` (newest output kept, older
 * rotated files compressed, the pod's log usage in /stats/summary still what is on disk).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, test } from "node:test";
import {
  E2E_SKIP,
  IDLE,
  podManifest,
  sleep,
  TestNode,
  waitUntil,
  type Daemon,
  scaled,
} from "../harness/node-harness.js";

const nodes: TestNode[] = [];
afterEach(async () => {
  while (nodes.length > 0) await nodes.pop()?.cleanup();
});

async function newNode(label: string): Promise<TestNode> {
  const node = await TestNode.create(label);
  nodes.push(node);
  return node;
}

const hasJq = spawnSync("sh", ["-c", "command -v jq"]).status === 0;

/** Fails unless every line of `file` is a JSON record (and jq reads the file, when installed). */
function everyLineParses(file: string): number {
  const text = readFileSync(file, "utf8");
  assert.ok(text === "" || text.endsWith("\n"), `${file} ends with a newline`);
  const lines = text.split("\n").slice(0, -1);
  const bad = lines.filter((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return typeof v !== "object" || v === null;
    } catch {
      return true;
    }
  });
  assert.deepEqual(
    bad.map((l) => l.slice(0, 100)),
    [],
    `lines of ${file} that do not parse`,
  );
  if (hasJq) {
    const r = spawnSync("jq", ["-c", ".", file], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    assert.equal(r.status, 0, `jq on ${file}: ${r.stderr}`);
  }
  return lines.length;
}

/** Fills `dir`'s filesystem to the byte (the last page of the filler byte by byte); returns the filler. */
function fillFilesystem(dir: string): string {
  const filler = join(dir, "filler");
  for (const chunk of [1 << 16, 1 << 12, 1]) {
    const block = Buffer.alloc(chunk, 0x61);
    for (;;) {
      try {
        appendFileSync(filler, block);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOSPC") break;
        throw e;
      }
    }
  }
  return filler;
}

/** Lines of `daemon`'s log whose message matches. */
const logged = (daemon: Daemon, re: RegExp): number => daemon.lines.filter((l) => re.test(l.msg)).length;

describe("evictd run: decisions.jsonl on a full stateDir", { skip: E2E_SKIP }, () => {
  test(
    "a 160k tmpfs filled to the byte and emptied: no torn line stays; a torn tail left by a SIGKILL is cut at the next start",
    { timeout: scaled(90_000) },
    async () => {
      const node = await newNode("decisions-full");
      // Room for the final-status journal the daemon reserves at start (64 KiB), then a little.
      node.mountTmpfs(node.stateDir, "size=160k");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: { evictionHard: { "memory.available": "50Mi" } },
        housekeepingInterval: "100ms",
      });
      await node.addPod(
        podManifest({
          name: "idle",
          containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
        }),
      );
      const file = join(node.stateDir, "decisions.jsonl");
      const first = await node.start({ cleanupOnExit: false });
      await waitUntil(
        "3 decisions",
        async () => ((await node.decisions()).length >= 3 ? true : undefined),
        10_000,
      );

      const filler = fillFilesystem(node.stateDir);
      // Each record either still fits in the log's last page or tears on ENOSPC: one soon does.
      await first.waitForLine(
        "a failed append",
        (l) => l.msg.startsWith("cannot append to the decision log"),
        15_000,
      );
      await sleep(1000); // more failed appends while full
      rmSync(filler);
      await first.waitForLine(
        "appends again",
        (l) => l.msg === "appending to the decision log again",
        10_000,
      );
      const after = (await node.decisions()).length;
      await waitUntil(
        "3 more decisions",
        async () => ((await node.decisions()).length >= after + 3 ? true : undefined),
        10_000,
      );
      await first.stop();
      everyLineParses(file);

      // What a daemon killed inside a write (SIGKILL, a crash) leaves: a record without its end.
      const torn = '{"type":"step","at":"1m0s","time":"2026-01-01T00:00:00.000Z","conditions":["Memo';
      appendFileSync(file, torn);
      const second = await node.start({ cleanupOnExit: true });
      const cut = await second.waitForLine("the cut", (l) => /^cut \d+ bytes/.test(l.msg), 10_000);
      assert.equal(cut["file"], file);
      assert.equal(cut["cutBytes"], torn.length);
      const restarted = (await node.decisions()).length;
      await waitUntil(
        "2 decisions after the restart",
        async () => ((await node.decisions()).length >= restarted + 2 ? true : undefined),
        10_000,
      );
      await second.stop();
      everyLineParses(file);
    },
  );
});

describe("evictd run: decisions.jsonl rotation", { skip: E2E_SKIP }, () => {
  test(
    "rotated at the node file's decisionLog.maxSize, maxFiles files kept, records whole and in order, across a restart",
    { timeout: scaled(90_000) },
    async () => {
      const node = await newNode("decisions-rotate");
      const maxBytes = 16 * 1024;
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: { evictionHard: { "memory.available": "50Mi" } },
        housekeepingInterval: "100ms",
        decisionLog: { maxSize: "16Ki", maxFiles: 3 },
      });
      const files = (): string[] => readdirSync(node.stateDir).filter((n) => n.startsWith("decisions.jsonl"));
      const check = (): void => {
        const present = files();
        assert.ok(present.length <= 3, `at most 3 decision log files: ${present.join(", ")}`);
        for (const f of present) {
          assert.match(f, /^decisions\.jsonl(\.[12])?$/);
          // A file renamed (or not yet created) since the listing is looked at next time.
          const size = statSync(join(node.stateDir, f), { throwIfNoEntry: false })?.size ?? 0;
          assert.ok(size <= maxBytes, `${f} within 16Ki: ${size} bytes`);
        }
      };
      const rotations = async (daemon: Daemon, n: number): Promise<void> => {
        await waitUntil(
          `${n} rotations`,
          () => {
            check();
            return logged(daemon, /^rotated the decision log$/) >= n ? true : undefined;
          },
          30_000,
          () => daemon.tail(),
          50,
        );
      };
      const first = await node.start();
      assert.equal(
        first.lines.filter((l) => /decisionLog/.test(String(l["path"]))).length,
        0,
        "decisionLog is a known field",
      );
      await rotations(first, 3);
      await first.stop();
      // A restart goes on from the sizes on disk: the live file is not started afresh, nor let grow.
      const second = await node.start();
      await rotations(second, 2);
      await second.stop();
      check();
      assert.deepEqual(files().sort(), ["decisions.jsonl", "decisions.jsonl.1", "decisions.jsonl.2"]);
      for (const f of files()) everyLineParses(join(node.stateDir, f));
      const times = (await node.decisions()).map((d) => Date.parse(d.time ?? ""));
      for (let i = 1; i < times.length; i++)
        assert.ok((times[i] ?? 0) >= (times[i - 1] ?? 0), "oldest first across .2, .1 and the live file");
    },
  );
});

/** The pod's container log directory, wherever under `<stateDir>/pods` the runtime put it. */
function logsDirOf(stateDir: string, container: string): string | undefined {
  const pods = join(stateDir, "pods");
  for (const name of existsSync(pods) ? readdirSync(pods) : []) {
    const dir = join(pods, name, "logs");
    if (existsSync(join(dir, `${container}.log`))) return dir;
  }
  return undefined;
}

interface SummaryPod {
  readonly podRef: { readonly name: string };
  readonly containers: readonly { readonly name: string; readonly logs?: { readonly usedBytes?: number } }[];
  readonly "ephemeral-storage"?: { readonly usedBytes?: number };
}

describe("evictd run: container log rotation", { skip: E2E_SKIP }, () => {
  test(
    "containerLogMaxSize 1Mi, containerLogMaxFiles 3: at most 3 files, the newest output kept, older files gzip, the pod's log usage what is on disk",
    { timeout: scaled(120_000) },
    async () => {
      const node = await newNode("container-logs");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "50Mi" },
          containerLogMaxSize: "1Mi",
          containerLogMaxFiles: 3,
          // The kubelet's shortest: the test waits for 5 rotations.
          containerLogMonitorInterval: "3s",
        },
      });
      // 5 × 1100 lines of 1 KiB (5.6 MB in all) to stdout; after each 1.1 MB the writer waits for
      // the rotation to empty its log (its size through /proc/self/fd/1), so no write races a
      // truncation and every byte can be accounted for. Without rotation it waits forever.
      const script =
        '$| = 1; for my $p (1 .. 5) { printf "phase %d line %04d %s\\n", $p, $_, "x" x 1000 for 1 .. 1100; ' +
        'select(undef, undef, undef, 0.1) while -s "/proc/self/fd/1" >= 1048576 } print "all written\\n"; sleep 600';
      await node.addPod(
        podManifest({
          name: "talker",
          containers: [
            { name: "talk", command: ["/usr/bin/perl", "-e", script], requests: { memory: "16Mi" } },
          ],
        }),
      );
      const daemon = await node.start();
      const logs = await waitUntil("the log directory", () => logsDirOf(node.stateDir, "talk"), 15_000);
      const live = join(logs, "talk.log");
      const files = (): string[] => readdirSync(logs).sort();
      await waitUntil(
        "all 5 phases written and rotated",
        () => {
          assert.ok(files().length <= 3, `at most 3 files: ${files().join(", ")}`);
          return readFileSync(live, "utf8").includes("all written") ? true : undefined;
        },
        60_000,
        () => `\nfiles: ${files().join(", ")}${daemon.tail()}`,
        50,
      );
      const names = files();
      assert.equal(names.length, 3, names.join(", "));
      const [older, newest] = names.filter((n) => n !== "talk.log");
      assert.match(older ?? "", /^talk\.log\.\d{8}-\d{6}(-\d+)?\.gz$/);
      assert.match(newest ?? "", /^talk\.log\.\d{8}-\d{6}(-\d+)?$/);
      const phase = (p: number): string =>
        Array.from(
          { length: 1100 },
          (_, i) => `phase ${p} line ${String(i + 1).padStart(4, "0")} ${"x".repeat(1000)}\n`,
        ).join("");
      // The newest output: phase 4 (compressed), phase 5, then the live log; phases 1–3 removed.
      assert.equal(gunzipSync(readFileSync(join(logs, older ?? ""))).toString("utf8"), phase(4));
      assert.equal(readFileSync(join(logs, newest ?? ""), "utf8"), phase(5));
      assert.equal(readFileSync(live, "utf8"), "all written\n");
      assert.ok(logged(daemon, /^rotated container log$/) >= 5);

      // Logs count towards the pod's ephemeral storage: every file of the container, as allocated.
      const onDisk = names.reduce((sum, n) => sum + statSync(join(logs, n)).blocks * 512, 0);
      let last: SummaryPod | undefined;
      await waitUntil(
        "/stats/summary counting the rotated logs",
        async () => {
          const r = await fetch(`${daemon.url}/stats/summary`);
          const pods = ((await r.json()) as { pods?: SummaryPod[] }).pods ?? [];
          last = pods.find((p) => p.podRef.name === "talker");
          const used = last?.containers.find((c) => c.name === "talk")?.logs?.usedBytes;
          return used === onDisk ? true : undefined;
        },
        30_000,
        () => `\non disk ${onDisk}, summary ${JSON.stringify(last?.containers)}`,
      );
      assert.ok((last?.["ephemeral-storage"]?.usedBytes ?? 0) >= onDisk);
      await daemon.stop();
    },
  );
});
