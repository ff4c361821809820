/**
 * A real Prometheus for tests: optionally backfilled with OpenMetrics text (promtool's
 * `tsdb create-blocks-from openmetrics`), optionally scraping targets and evaluating rules, on a
 * free local port, in a directory of its own that stop() removes. `evictd import prometheus` is
 * tested against the real query engine, whose lookback, staleness and label matching a fake
 * server would only imitate. Tests skip with `{ skip: prometheusSkip }` where the binaries are
 * missing (Debian's `prometheus` package provides both).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";

function onPath(program: string): boolean {
  return (process.env["PATH"] ?? "")
    .split(delimiter)
    .some((dir) => dir !== "" && existsSync(join(dir, program)));
}

/** Why Prometheus tests cannot run here, or false when they can. */
export const prometheusSkip: string | false = !onPath("prometheus")
  ? "prometheus is not on PATH (Debian: apt-get install prometheus)"
  : !onPath("promtool")
    ? "promtool is not on PATH (Debian: apt-get install prometheus)"
    : false;

export interface PrometheusOptions {
  /** OpenMetrics text to backfill before start-up (Prometheus loads blocks only when it starts). */
  readonly openMetrics?: string;
  /** `scrape_configs` entries, as YAML-able objects. */
  readonly scrapeConfigs?: readonly unknown[];
  /** Paths of rule files. */
  readonly ruleFiles?: readonly string[];
  /** Global scrape and evaluation interval (default 1s, so that tests need not wait long). */
  readonly scrapeInterval?: string;
  /** More command-line flags (e.g. `--query.max-samples=2000`, to meet a server's query limits). */
  readonly flags?: readonly string[];
}

export interface PrometheusServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly url: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const OUTPUT_KEPT = 64 * 1024;

/** A port free now: the kernel picks one for a listener we close at once. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port from the kernel");
  return address.port;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // A program that could not be spawned emits "error" and never "exit".
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
}

/** Starts Prometheus as `o` says and resolves once it answers /-/ready. */
export async function startPrometheus(o: PrometheusOptions = {}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), "evictd-prometheus-"));
  const dataDir = join(dir, "data");
  try {
    if (o.openMetrics !== undefined) {
      const file = join(dir, "backfill.om");
      await writeFile(file, o.openMetrics);
      const backfill = spawnSync("promtool", ["tsdb", "create-blocks-from", "openmetrics", file, dataDir], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      if (backfill.error !== undefined) throw backfill.error;
      if (backfill.status !== 0)
        throw new Error(
          `promtool tsdb create-blocks-from openmetrics failed (exit ${backfill.status}): ${backfill.stderr.slice(-2000)}`,
        );
    }
    const interval = o.scrapeInterval ?? "1s";
    const config = join(dir, "prometheus.yml");
    await writeFile(
      config,
      stringify({
        global: { scrape_interval: interval, evaluation_interval: interval },
        scrape_configs: o.scrapeConfigs ?? [],
        rule_files: o.ruleFiles ?? [],
      }),
    );
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      "prometheus",
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${dataDir}`,
        // Backfilled blocks older than the retention would be deleted at start-up.
        "--storage.tsdb.retention.time=100y",
        `--web.listen-address=127.0.0.1:${port}`,
        "--web.enable-lifecycle",
        ...(o.flags ?? []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString("utf8")).slice(-OUTPUT_KEPT);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    let spawnError: Error | undefined;
    child.once("error", (e) => (spawnError = e));
    const done = exited(child);

    const stop = async (): Promise<void> => {
      if (spawnError === undefined && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await done;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    };

    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (spawnError !== undefined || child.exitCode !== null || child.signalCode !== null) {
        await stop();
        throw new Error(
          `prometheus exited before it was ready (${spawnError?.message ?? `exit ${child.exitCode ?? child.signalCode}`}): ${output.slice(-2000)}`,
        );
      }
      try {
        const response = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) return { url, dataDir, stop };
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(
          `prometheus was not ready within ${READY_TIMEOUT_MS / 1000} s: ${output.slice(-2000)}`,
        );
      }
      await sleep(100);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
