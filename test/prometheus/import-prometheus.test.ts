/**
 * `evictd import prometheus` against a real Prometheus: a generated trace of a node under memory
 * pressure is written as OpenMetrics with the exporters' own label sets, backfilled with promtool,
 * served, imported back and replayed. The replay of the import must make the original's decisions
 * (the same pods evicted at the same steps, the same conditions); with a series left out the
 * import must say what it did without it; bad input ends with one clear line and no file.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { after, describe, test } from "node:test";
import { generateTrace } from "../../tools/trace-generator/generate-trace.js";
import { traceToOpenMetrics } from "../../tools/trace-openmetrics/trace-to-openmetrics.js";
import { assertNoCrash, CLI_SKIP, REPO_ROOT, runEvictd, type CliResult } from "../cli/evictd-cli.js";
import { prometheusSkip, startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";

type Json = Record<string, unknown>;
const STEP_MS = 10_000;
const STEPS = 60;

// 20 pods from step 1360 of seed 3's node history: a soft memory eviction at step 21, and the
// evicted pod's replacement arriving later.
const generated = generateTrace({
  steps: STEPS,
  pods: 20,
  format: "jsonl",
  richness: "eviction",
  seed: 3,
  fromStep: 1360,
});
const lines = generated.text.trimEnd().split("\n");
const header = JSON.parse(lines[0] as string) as Json;
const start = Date.parse(header["start"] as string);
const node = ((header["node"] as Json)["metadata"] as Json)["name"] as string;
const rfc3339 = (ms: number): string => new Date(ms).toISOString();
const from = rfc3339(start);
const to = rfc3339(start + (STEPS - 1) * STEP_MS);

// The generator leaves evicted pods to the replay (`evictedPods: remove`); on a real node the
// kubelet marks the pod Failed and its cgroup goes: the exporters stop reporting it from the next
// scrape on, which is what `removePods` tells the OpenMetrics writer.
const traceText = lines
  .map((line, i) => {
    const removed = generated.info.predictedEvictions.filter((e) => e.step + 2 === i).map((e) => e.pod);
    return removed.length > 0 ? `${line.slice(0, -1)},"removePods":${JSON.stringify(removed)}}` : line;
  })
  .join("\n");

/** Every priority class the trace's pods name that is not a built-in one, as --priority-class takes them. */
const priorityClassArgs = (() => {
  const classes = new Map<string, number>();
  const visit = (p: unknown): void => {
    const spec = (p as { spec?: { priorityClassName?: string; priority?: number } }).spec;
    if (spec?.priorityClassName !== undefined && !spec.priorityClassName.startsWith("system-"))
      classes.set(spec.priorityClassName, spec.priority ?? 0);
  };
  (header["pods"] as unknown[]).forEach(visit);
  for (const l of lines.slice(1))
    ((JSON.parse(l) as Json)["addPods"] as unknown[] | undefined)?.forEach(visit);
  return [...classes].flatMap(([name, value]) => ["--priority-class", `${name}=${value}`]);
})();

const work = mkdtempSync(join(tmpdir(), "evictd-import-"));
const servers: PrometheusServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(work, { recursive: true, force: true });
});
const originalFile = join(work, "original.jsonl");
writeFileSync(originalFile, traceText + "\n");
// The node's KubeletConfiguration is not in Prometheus: the operator gives it, as here.
const configFile = join(work, "kubelet-config.json");
writeFileSync(configFile, JSON.stringify(header["config"]));

async function serve(openMetrics: string, flags: readonly string[] = []): Promise<string> {
  const server = await startPrometheus({ openMetrics, flags });
  servers.push(server);
  return server.url;
}

let sequence = 0;
function importFrom(
  url: string,
  extra: readonly string[] = [],
  output?: string,
): { r: CliResult; file: string } {
  const file = output ?? join(work, `imported-${++sequence}.jsonl`);
  const r = runEvictd([
    "import",
    "prometheus",
    "--url",
    url,
    "--node",
    node,
    "--from",
    from,
    "--to",
    to,
    "--step",
    "10s",
    "-o",
    file,
    "--config",
    configFile,
    ...priorityClassArgs,
    ...extra,
  ]);
  assertNoCrash(r);
  return { r, file };
}

interface Decision {
  readonly at: string;
  readonly conditions: string;
  readonly evicted: string;
}

function decisions(file: string): Decision[] {
  const r = runEvictd(["replay", file, "-o", "jsonl"]);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Json)
    .filter((rec) => rec["type"] === "step")
    .map((rec) => ({
      at: rec["at"] as string,
      conditions: JSON.stringify(rec["conditions"]),
      evicted: (rec["evictions"] as { pod: string; signal: string }[])
        .map((e) => `${e.pod} ${e.signal}`)
        .join(","),
    }));
}

function traceHeader(file: string): Json {
  const raw = readFileSync(file);
  const text = file.endsWith(".br") ? brotliDecompressSync(raw).toString("utf8") : raw.toString("utf8");
  return JSON.parse(text.slice(0, text.indexOf("\n"))) as Json;
}

const warnings = (r: CliResult): string[] => r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
/** Files other than the ones a test expects: nothing half-written is left in the directory. */
const strays = (): string[] => readdirSync(work).filter((f) => f.startsWith("."));

const skip = CLI_SKIP || prometheusSkip;
const original = decisions(originalFile);

describe("evictd import prometheus: a week's shape in a minute, from a real Prometheus", { skip }, () => {
  test("the import replays to the original's decisions: the same pod evicted at the same step, the same conditions", async () => {
    const url = await serve(traceToOpenMetrics(traceText, {}));
    const { r, file } = importFrom(url, [], join(work, "full.jsonl.br"));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`${STEPS} steps of \\d+ pods? written to`));
    const evicted = original.filter((d) => d.evicted !== "");
    assert.ok(evicted.length > 0, "the original trace evicts");
    assert.deepEqual(decisions(file), original);
    const source = traceHeader(file)["source"] as Json;
    assert.equal(source["kind"], "prometheus");
    assert.equal(source["node"], node);
    assert.equal(source["scrapeInterval"], "10s");
    const figures = source["figures"] as Record<string, string>;
    assert.match(figures["memory.available"] ?? "", /^exact: /);
    assert.match(figures["nodefs.available"] ?? "", /^approximate: /);
    assert.match(figures["pod ephemeral-storage"] ?? "", /^missing: /);
    // The report says it too.
    const report = join(work, "full.html");
    const replayed = runEvictd(["replay", file, "-o", "jsonl", "--report", report]);
    assert.equal(replayed.status, 0, replayed.stderr);
    const html = readFileSync(report, "utf8");
    assert.match(html, /<h3>Where the figures come from<\/h3>/);
    assert.match(html, /<tr><td>pod ephemeral-storage<\/td><td class="figure-missing">missing<\/td>/);
    assert.match(html, /<tr><td>memory\.available<\/td><td class="figure-exact">exact<\/td>/);
    assert.deepEqual(strays(), []);
  });

  test("without node-exporter's filesystems: a warning per signal, the header says missing, memory decisions unchanged", async () => {
    const url = await serve(
      traceToOpenMetrics(traceText, {
        omit: [
          "node_filesystem_avail_bytes",
          "node_filesystem_size_bytes",
          "node_filesystem_files_free",
          "node_filesystem_files",
        ],
      }),
    );
    const { r, file } = importFrom(url);
    assert.equal(r.status, 0, r.stderr);
    const w = warnings(r);
    assert.ok(
      w.some(
        (l) => l.startsWith("warning: nodefs.available: ") && l.includes("the replay sees no such signal"),
      ),
      r.stderr,
    );
    assert.ok(
      w.some((l) => l.startsWith("warning: imagefs.available: ")),
      r.stderr,
    );
    const figures = (traceHeader(file)["source"] as Json)["figures"] as Record<string, string>;
    assert.match(figures["nodefs.available"] ?? "", /^missing: /);
    assert.deepEqual(
      decisions(file).map((d) => d.evicted),
      original.map((d) => d.evicted),
    );
  });

  test("without the pods cgroup's limit: allocatable memory is missing, said once, and node memory still decides", async () => {
    const url = await serve(traceToOpenMetrics(traceText, { omit: ["container_spec_memory_limit_bytes"] }));
    const { r, file } = importFrom(url);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      warnings(r).filter((l) => l.startsWith("warning: allocatableMemory.available: ")).length,
      1,
      r.stderr,
    );
    assert.deepEqual(
      decisions(file).map((d) => d.evicted),
      original.map((d) => d.evicted),
    );
  });

  test("without kube_pod_status_qos_class: the class is computed from requests and limits, the same decisions", async () => {
    const url = await serve(traceToOpenMetrics(traceText, { omit: ["kube_pod_status_qos_class"] }));
    const { r, file } = importFrom(url);
    assert.equal(r.status, 0, r.stderr);
    const figures = (traceHeader(file)["source"] as Json)["figures"] as Record<string, string>;
    assert.match(figures["pod QoS class"] ?? "", /^approximate: computed/);
    assert.deepEqual(decisions(file), original);
  });

  test("without machine_memory_bytes or kube_pod_info: exit 2 naming the series, nothing written", async () => {
    for (const [omit, says] of [
      ["machine_memory_bytes", /no machine_memory_bytes series .* is cAdvisor/],
      ["kube_pod_info", /no kube_pod_info\{node=.*is kube-state-metrics scraped/],
    ] as const) {
      const url = await serve(traceToOpenMetrics(traceText, { omit: [omit] }));
      const { r, file } = importFrom(url);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, says);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.equal(existsSync(file), false);
      assert.deepEqual(strays(), []);
    }
  });

  test("a node that is not in the data: exit 2, and the nodes that are", async () => {
    const url = await serve(traceToOpenMetrics(traceText, {}));
    const r = runEvictd([
      "import",
      "prometheus",
      "--url",
      url,
      "--node",
      "no-such-node",
      "--from",
      from,
      "--to",
      to,
      "-o",
      join(work, "none.jsonl"),
    ]);
    assertNoCrash(r);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `no machine_memory_bytes\\{node="no-such-node"\\}.*nodes with data: ${node.replaceAll(".", "\\.")}`,
      ),
    );
    assert.equal(existsSync(join(work, "none.jsonl")), false);
  });

  test("a gap in the node's series: one warning naming where it starts and how many steps are left out", async () => {
    // Three minutes without any sample of the node (a kubelet restart, a Prometheus outage).
    const gapFrom = start + 30 * STEP_MS;
    const gapTo = start + 47 * STEP_MS;
    const om = traceToOpenMetrics(traceText, {})
      .split("\n")
      .filter((l) => {
        const m = / (\d+(\.\d+)?)$/.exec(l);
        if (l.startsWith("#") || m === null) return true;
        const ms = Math.round(Number(l.slice(l.lastIndexOf(" ") + 1)) * 1000);
        return ms < gapFrom || ms > gapTo;
      })
      .join("\n");
    const url = await serve(om);
    const { r, file } = importFrom(url);
    assert.equal(r.status, 0, r.stderr);
    const gap = warnings(r).filter((l) => l.includes("no node memory sample"));
    // Steps 30-47 have no sample. The lookback (twice the 10 s scrape interval) lets the last one,
    // step 29's, stand for steps 30 and 31; 32-47 are left out.
    const gapStart = rfc3339(start + 32 * STEP_MS).replace(".000Z", "Z");
    assert.deepEqual(gap, [`warning: no node memory sample within 20s from ${gapStart}: 16 steps left out`]);
    assert.match(r.stderr, /44 steps of .* \(16 steps without node memory left out, in 1 gap\)/);
    assert.equal(decisions(file).length, STEPS - 16);
  });

  test("a server whose sample limit a chunk exceeds: exit 3 naming the query and the server's message; smaller chunks pass", async () => {
    // Prometheus' --query.max-samples (default 50,000,000) set low enough for an hour of this node.
    const url = await serve(traceToOpenMetrics(traceText, {}), ["--query.max-samples=2000"]);
    const refused = importFrom(url);
    assert.equal(refused.r.status, 3, refused.r.stderr);
    assert.match(
      refused.r.stderr,
      /container_memory_working_set_bytes\{node=.*query processing would load too many samples into memory/,
    );
    assert.match(refused.r.stderr, /--chunk/);
    assert.equal(existsSync(refused.file), false);
    assert.deepEqual(strays(), []);
    const { r, file } = importFrom(url, ["--chunk", "1m"]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(decisions(file), original);
  });

  test("an unreachable Prometheus: exit 3 with one line naming the URL, no file", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { r, file } = importFrom(`http://user:hunter2@127.0.0.1:${port}`, ["--request-timeout", "2s"]);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(r.stderr, /hunter2/);
    assert.equal(existsSync(file), false);
    assert.deepEqual(strays(), []);
  });

  test("interrupted (SIGINT) while Prometheus is slow to answer: exit 130, nothing written", async () => {
    // A server that accepts and never answers: the import waits on its first request.
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const port = (silent.address() as { port: number }).port;
    const file = join(work, "interrupted.jsonl");
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, "bin", "evictd.js"),
        "import",
        "prometheus",
        "--url",
        `http://127.0.0.1:${port}`,
        "--node",
        node,
        "--from",
        from,
        "--to",
        to,
        "-o",
        file,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill("SIGINT");
    const [code] = (await once(child, "exit")) as [number | null];
    silent.close();
    assert.equal(code, 130, stderr);
    assert.match(stderr, /^interrupted: nothing written to /m);
    assert.doesNotMatch(stderr, /Error|^\s+at /m);
    assert.equal(existsSync(file), false);
    assert.deepEqual(strays(), []);
  });

  test("bad options are all reported at once, before any query", () => {
    const r = runEvictd([
      "import",
      "prometheus",
      "--url",
      "http://127.0.0.1:1",
      "--node",
      "n",
      "--from",
      "yesterday",
      "--to",
      "now",
      "--step",
      "0s",
      "--priority-class",
      "batch",
      "--node-label",
      'node"} or up{x="',
      "-o",
      "/nonexistent/x.jsonl",
    ]);
    assertNoCrash(r);
    assert.equal(r.status, 2);
    for (const option of ["--from", "--step", "--priority-class", "--node-label", "--output"])
      assert.match(r.stderr, new RegExp(option));
  });
});
