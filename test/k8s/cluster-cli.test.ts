/**
 * The cluster commands as a user runs them (`node bin/evictd.js ...`) against the fake API server:
 * `explain` as JSON and as a table, clear refusals (403, unreachable, bad options), and `record`
 * interrupted with SIGINT, whose file `evictd replay` then runs unchanged.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { EVICTD_BIN, REPO_ROOT } from "../harness/node-harness.js";
import { startFakeApiServer, type FakeApiServer } from "../harness/fake-api-server/fake-api-server.js";

const temps: string[] = [];
after(async () => {
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI as a child process, asynchronously (the fake server lives in this process). */
async function evictd(args: readonly string[], timeoutMs = 0): Promise<Run> {
  try {
    const r = await promisify(execFile)(process.execPath, [EVICTD_BIN, ...args], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
      // A command that hangs is killed (SIGTERM) and reads as code -1.
      timeout: timeoutMs,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof err.code === "number" ? err.code : -1,
      stdout: err.stdout ?? "",
      stderr: err.stderr ?? "",
    };
  }
}

async function fixture(): Promise<{
  server: FakeApiServer;
  dir: string;
  kubeconfig: string;
  node: string[];
}> {
  const server = await startFakeApiServer();
  const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-cli-"));
  temps.push(dir);
  const kubeconfig = await server.writeKubeconfig(path.join(dir, "kubeconfig"));
  return { server, dir, kubeconfig, node: ["--node", server.nodeName, "--kubeconfig", kubeconfig] };
}

describe("cluster commands", () => {
  test("explain: signals against configz thresholds, conditions, and the ranking with reasons (JSON and table)", async () => {
    const { server, node } = await fixture();
    try {
      const json = await evictd(["explain", ...node, "--output", "json"]);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(
        server.requests.filter((r) => r.path.endsWith("/configz")).length,
        1,
        "the kubelet's configuration is read once",
      );
      const view = JSON.parse(json.stdout) as {
        node: string;
        signals: { signal: string; thresholds: { value: string; state: string }[] }[];
        conditions: { type: string; status: string }[];
        kubeletConditions: { type: string; status: string }[];
        ranking: { next: string; order: { pod: string; critical: boolean; reason: string }[] };
        verdict: { outcome: string };
      };
      assert.equal(view.node, "datagen-1-35");
      // kubeletconfig-1.yaml, as served by configz: memory.available<250Mi, nodefs.available<10%.
      assert.deepEqual(
        view.signals.find((s) => s.signal === "memory.available")?.thresholds.map((t) => [t.value, t.state]),
        [["250Mi", "ok"]],
      );
      assert.deepEqual(
        view.signals.find((s) => s.signal === "nodefs.available")?.thresholds.map((t) => t.value),
        ["10%"],
      );
      assert.deepEqual(
        view.kubeletConditions.map((c) => c.type),
        ["MemoryPressure", "DiskPressure", "PIDPressure"],
      );
      assert.equal(view.ranking.next, "scraper/e2e-container-creating");
      assert.equal(view.ranking.order.length, 18);
      assert.ok(
        view.ranking.order.filter((o) => o.critical).every((o) => /critical: never evicted/.test(o.reason)),
      );
      assert.equal(view.verdict.outcome, "no resources are starved");

      const text = await evictd(["explain", ...node]);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^node datagen-1-35 at /);
      assert.match(text.stdout, /memory\.available\s+7128688Ki of 8024304Ki\s+hard < 250Mi\s+-\s+ok/);
      assert.match(
        text.stdout,
        /eviction order for memory\.available; next: scraper\/e2e-container-creating/,
      );
      // Only reads: explain never writes to the cluster.
      assert.deepEqual(
        server.requests.filter((r) => r.method !== "GET").map((r) => r.path),
        [],
      );
    } finally {
      await server.close();
    }
  });

  test("refusals are clear and exit non-zero: 403, unreachable API server, bad options", async () => {
    const { server, node, dir } = await fixture();
    try {
      server.fail({
        method: "GET",
        path: "/api/v1/nodes/datagen-1-35/proxy/configz",
        response: { kind: "status", status: 403 },
      });
      const forbidden = await evictd(["explain", ...node]);
      assert.equal(forbidden.code, 3, forbidden.stderr);
      assert.match(forbidden.stderr, /^evictd: .*403.*configz/m);
      assert.match(forbidden.stderr, /nodes\/proxy/);
      assert.equal(forbidden.stdout, "");
    } finally {
      await server.close();
    }
    const unreachable = await evictd(["explain", ...node]);
    assert.equal(unreachable.code, 3);
    assert.match(unreachable.stderr, /cannot reach|ECONNREFUSED/);

    const bad = await evictd([
      "watch",
      "--node",
      "n1",
      "--kubeconfig",
      path.join(dir, "kubeconfig"),
      "--interval",
      "soon",
      "--listen",
      "nowhere",
      "--use-eviction-api",
      "--source",
      "ssh",
    ]);
    assert.equal(bad.code, 2);
    // Every problem at once, each naming the option and the value.
    for (const want of [
      /--interval.*"soon"/,
      /--listen.*"nowhere"/,
      /--use-eviction-api.*--enforce/,
      /--source.*"ssh"/,
    ])
      assert.match(bad.stderr, want);

    // The preflight means something only when evicting; an EvictionRequest only through the Eviction API.
    const shadowPreflight = await evictd([
      "watch",
      "--node",
      "n1",
      "--kubeconfig",
      path.join(dir, "kubeconfig"),
      "--no-eviction-preflight",
    ]);
    assert.equal(shadowPreflight.code, 2);
    assert.match(shadowPreflight.stderr, /--no-eviction-preflight.*--enforce/);
    const requestByDelete = await evictd([
      "watch",
      "--node",
      "n1",
      "--kubeconfig",
      path.join(dir, "kubeconfig"),
      "--enforce",
      "--eviction-request",
    ]);
    assert.equal(requestByDelete.code, 2);
    assert.match(requestByDelete.stderr, /--eviction-request.*needs --enforce --use-eviction-api/);
  });

  test("explain: a kubelet Summary that does not decode is an environment refusal (exit 3, one line)", async () => {
    const { server, node } = await fixture();
    try {
      // A kubelet that answers, but not with a Summary: the node's memory stats are a string.
      server.updateSummary((summary) => {
        summary["node"] = { ...(summary["node"] as object), memory: "unavailable" };
      });
      const r = await evictd(["explain", ...node]);
      assert.equal(r.code, 3, r.stderr);
      assert.equal(r.stdout, "");
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
      assert.match(
        r.stderr,
        /^evictd: the Summary from API server proxy .* does not decode: .*node\.memory/m,
      );
    } finally {
      await server.close();
    }
  });

  test("record -o *.br / *.gz: lean Summaries, compressed, replayable; --full-summaries keeps them whole", async () => {
    const { server, node, dir } = await fixture();
    try {
      for (const [name, extra] of [
        ["lean.jsonl.br", []],
        ["lean.jsonl.gz", []],
        ["full.jsonl.br", ["--full-summaries"]],
      ] as const) {
        const trace = path.join(dir, name);
        const run = await evictd(
          ["record", ...node, "--interval", "200ms", "--duration", "600ms", "-o", trace, ...extra],
          30_000,
        );
        assert.equal(run.code, 0, run.stderr);
        const bytes = await readFile(trace);
        assert.notEqual(bytes[0], "{".charCodeAt(0), `${name} is compressed`);
        const text = (name.endsWith(".br") ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString(
          "utf8",
        );
        const steps = text
          .split("\n")
          .filter((l) => l !== "")
          .slice(1);
        assert.equal(steps.length, 4, `${name}: one line per sample`);
        // summary-1.json carries cpu usage and network blocks, which nothing reads; a lean Summary
        // keeps the node's pressure (psi) beside them, not the usage.
        for (const step of steps) {
          assert.equal(step.includes('"usageNanoCores"'), extra.length > 0, name);
          assert.equal(step.includes('"network"'), extra.length > 0, name);
          assert.ok(step.includes('"psi"'), name);
        }
        const replay = await evictd(["replay", trace, "--output", "jsonl"]);
        assert.equal(replay.code, 0, replay.stderr);
        assert.equal(replay.stdout.split("\n").filter((l) => l.includes('"type":"step"')).length, 4);
      }
    } finally {
      await server.close();
    }
  });

  test("record says its warnings and retries as explain does: the same plain lines on stderr, no JSON", async () => {
    const { server, node, dir } = await fixture();
    try {
      const said = async (args: readonly string[]): Promise<string[]> => {
        // One 503 from configz: a retry to say. The served configuration warns (no
        // mergeDefaultEvictionSettings, so the imagefs defaults are dropped).
        server.fail({
          method: "GET",
          path: /\/configz$/,
          times: 1,
          response: { kind: "status", status: 503 },
        });
        const r = await evictd(args, 30_000);
        assert.equal(r.code, 0, r.stderr);
        const lines = r.stderr.split("\n").filter((l) => l !== "");
        for (const l of lines) assert.ok(!l.startsWith("{"), `a JSON line on stderr: ${l}`);
        // The wait before a retry is jittered: the same line but for its milliseconds.
        return lines
          .filter((l) => l.startsWith("evictd: ") || /(?:^|: )warning: /.test(l))
          .map((l) => l.replace(/retrying in \d+ms$/, "retrying in …ms"));
      };
      const explained = await said(["explain", ...node]);
      const recorded = await said([
        ...["record", ...node, "--interval", "200ms", "--duration", "0s"],
        ...["-o", path.join(dir, "said.jsonl")],
      ]);
      assert.equal(explained.length, 2, explained.join("\n"));
      assert.match(
        explained[0] ?? "",
        /^evictd: GET \/api\/v1\/nodes\/.*\/proxy\/configz .* \(attempt 1 of at most 5\); retrying in …ms$/,
      );
      assert.match(explained[1] ?? "", /^warning: config\.evictionHard: .*imagefs\.available/);
      assert.deepEqual(recorded, explained);
    } finally {
      await server.close();
    }
  });

  test("record: progress while recording, pod arrivals and departures, and an interrupted file that replays unchanged", async () => {
    const { server, node, dir } = await fixture();
    const trace = path.join(dir, "trace.json");
    try {
      const child = spawn(
        process.execPath,
        [EVICTD_BIN, "record", ...node, "--interval", "200ms", "--duration", "1h", "-o", trace],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const lines = async (): Promise<string[]> =>
        (await readFile(trace, "utf8").catch(() => "")).split("\n").filter((l) => l !== "");
      const waitLines = async (n: number): Promise<void> => {
        for (let i = 0; i < 200 && (await lines()).length < n; i++)
          await new Promise((r) => setTimeout(r, 50));
      };
      await waitLines(3);
      const leaving = server.state.pods().find((p) => p.metadata.name === "storage-provisioner");
      assert.ok(leaving !== undefined);
      server.removePod(leaving.metadata.namespace, leaving.metadata.name);
      server.addPod({
        metadata: { name: "late-arrival", namespace: "default", uid: "0a1b2c3d-late" },
        spec: {
          nodeName: server.nodeName,
          containers: [{ name: "app", image: "busybox", resources: { requests: { memory: "64Mi" } } }],
        },
        status: { phase: "Running" },
      });
      const before = (await lines()).length;
      await waitLines(before + 2);
      child.kill("SIGINT");
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, /recorded \d+\/18001 samples/);
      assert.match(stderr, /interrupted: \d+ samples? written to .*trace\.json; replay with: evictd replay/);

      const recorded = await lines();
      const header = JSON.parse(recorded[0] ?? "{}") as {
        config: { evictionHard: Record<string, string> };
        pods: unknown[];
        node: { metadata: { name: string } };
        environment?: unknown;
        evictedPods: string;
      };
      assert.equal(header.config.evictionHard["memory.available"], "250Mi");
      assert.equal(header.node.metadata.name, "datagen-1-35");
      assert.equal(header.evictedPods, "remove");
      // The Node's nodeInfo; the stats provider from configz (no PodAndContainerStatsFromCRI: off in
      // 1.35); no cgroup version, since record reads no cgroups.
      assert.deepEqual(header.environment, {
        kubeletVersion: "v1.35.0",
        kernelVersion: "6.8.0-1015-gcp",
        osImage: "Debian GNU/Linux 12 (bookworm)",
        containerRuntimeVersion: "containerd://2.1.3",
        statsProvider: "cadvisor",
      });
      const steps = recorded.slice(1).map(
        (l) =>
          JSON.parse(l) as {
            at: string;
            removePods?: string[];
            addPods?: { metadata: { name: string } }[];
          },
      );
      assert.ok(steps.length >= 4);
      assert.deepEqual(
        steps.flatMap((s) => s.removePods ?? []),
        ["kube-system/storage-provisioner"],
      );
      assert.deepEqual(
        steps.flatMap((s) => (s.addPods ?? []).map((p) => p.metadata.name)),
        ["late-arrival"],
      );

      const replay = await evictd(["replay", trace, "--output", "jsonl"]);
      assert.equal(replay.code, 0, replay.stderr);
      const records = replay.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { type: string });
      assert.equal(records.filter((r) => r.type === "step").length, steps.length);
    } finally {
      await server.close();
    }
  });

  test("watch: a listen port already taken ends the command with exit 3 and a hint naming --listen, instead of hanging", async () => {
    const { server, node } = await fixture();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const run = await evictd(["watch", ...node, "--listen", `127.0.0.1:${port}`], 20_000);
      assert.equal(run.code, 3, `exit ${run.code} after ${Date.now() - started} ms\n${run.stderr}`);
      assert.match(
        run.stderr,
        new RegExp(`^evictd: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`, "m"),
      );
      assert.match(run.stderr, /hint: .*--listen/);
      assert.doesNotMatch(run.stderr, /node file/);
    } finally {
      holder.close();
      await server.close();
    }
  });

  test("watch: JSON log lines, /healthz and /status on --listen, shadow mode by default, exit 0 on SIGTERM", async () => {
    const { server, node, dir } = await fixture();
    try {
      const decisions = path.join(dir, "decisions.jsonl");
      const child = spawn(
        process.execPath,
        [
          EVICTD_BIN,
          "watch",
          ...node,
          "--interval",
          "200ms",
          "--listen",
          "127.0.0.1:0",
          "--decision-log",
          decisions,
        ],
        { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      let url: string | undefined;
      for (let i = 0; i < 200 && url === undefined; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const line = stdout.split("\n").find((l) => l.includes("evictd watching node"));
        if (line !== undefined) url = (JSON.parse(line) as { url: string }).url;
      }
      assert.ok(url !== undefined, `no "evictd watching" line: ${stdout}${stderr}`);
      assert.equal(await (await fetch(`${url}/healthz`)).text(), "ok");
      const status = (await (await fetch(`${url}/status`)).json()) as {
        node: { name: string };
        capabilities: string[];
      };
      assert.equal(status.node.name, "datagen-1-35");
      assert.ok(status.capabilities.some((c) => c.startsWith("shadow mode")));
      assert.equal(
        server.requests.filter((r) => r.path.endsWith("/configz")).length,
        1,
        "the kubelet's configuration is read once, at start",
      );
      for (
        let i = 0;
        i < 100 && (await readFile(decisions, "utf8").catch(() => "")).split("\n").length < 3;
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      const lines = stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as { msg: string });
      assert.ok(lines.some((l) => l.msg === "evictd watch stopped"));
      assert.ok((await readFile(decisions, "utf8")).split("\n").filter((l) => l !== "").length >= 2);
      assert.deepEqual(
        server.requests.filter((r) => r.method !== "GET").map((r) => r.path),
        [],
        "shadow mode writes nothing",
      );
    } finally {
      await server.close();
    }
  });
});
