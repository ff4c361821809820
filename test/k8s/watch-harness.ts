/**
 * `evictd watch` (runWatch) against the fake API server, for the suites that drive it end to end:
 * a kubeconfig in a temp dir, the adapter with deterministic retries, the log kept in memory, a
 * decision log and a trace written, and helpers to make the kubelet's Summary fresh (and the node
 * short of memory) and to wait for what the loop does.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LoggerPort } from "../../src/app/ports.js";
import { runWatch, type WatchOptions } from "../../src/cli/commands/watch.js";
import { connectClusterNode } from "../../src/kubernetes/index.js";
import {
  startFakeApiServer,
  type FakeApiServer,
  type RecordedRequest,
} from "../harness/fake-api-server/fake-api-server.js";
import { waitUntil } from "../harness/node-harness.js";

export const MiB = 1024 * 1024;
/** node.memory.availableBytes in summary-1.json: no pressure. */
export const NORMAL = 7299776512;

const temps: string[] = [];
/** Removes the temp dirs of every watch started (a suite's `after`). */
export async function removeWatchDirs(): Promise<void> {
  for (const d of temps.splice(0)) await rm(d, { recursive: true, force: true });
}

export interface LogLine {
  readonly level: "info" | "warn" | "error";
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

export function memoryLogger(lines: LogLine[]): LoggerPort {
  return {
    info: (fields, msg) => lines.push({ level: "info", msg, fields }),
    warn: (fields, msg) => lines.push({ level: "warn", msg, fields }),
    error: (fields, msg) => lines.push({ level: "error", msg, fields }),
  };
}

let lastRefresh = 0;
/**
 * Every `time` in the Summary set to now, as a kubelet's fresh sample has them. Kubelets write whole
 * seconds; milliseconds here keep samples taken within one second apart (the engine only acts on
 * stats newer than the last it saw).
 */
export function refresh(server: FakeApiServer, memoryAvailableBytes?: number): void {
  lastRefresh = Math.max(Date.now(), lastRefresh + 1);
  const now = new Date(lastRefresh).toISOString();
  server.updateSummary((s) => {
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object") {
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          if (k === "time" && typeof x === "string") (v as Record<string, unknown>)[k] = now;
          else walk(x);
        }
      }
    };
    walk(s);
    if (memoryAvailableBytes !== undefined) {
      const memory = (s["node"] as { memory: { availableBytes: number; workingSetBytes: number } }).memory;
      const capacity = memory.availableBytes + memory.workingSetBytes;
      memory.availableBytes = memoryAvailableBytes;
      memory.workingSetBytes = capacity - memoryAvailableBytes;
    }
  });
}

/** Polls `probe` every 25 ms until it gives a value (10 s unless told). */
export const until = <T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> => waitUntil(what, probe, timeoutMs, () => "", 25);

export interface Running {
  readonly server: FakeApiServer;
  readonly dir: string;
  readonly lines: LogLine[];
  readonly url: Promise<string>;
  readonly done: Promise<void>;
  readonly decisionLog: string;
  readonly trace: string;
  stop(): Promise<void>;
}

/** What a suite may set of runWatch's options besides the mode. */
export type WatchExtras = Partial<
  Pick<WatchOptions, "configFile" | "preflight" | "dryRunFirst" | "evictionRequests">
>;

/** Starts runWatch in `mode` against `server` (a new fake one unless given), every 150 ms. */
export async function startWatch(
  mode: WatchOptions["mode"],
  server?: FakeApiServer,
  extra: WatchExtras = {},
): Promise<Running> {
  const s = server ?? (await startFakeApiServer());
  const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-watch-"));
  temps.push(dir);
  const kubeconfig = await s.writeKubeconfig(path.join(dir, "kubeconfig"));
  const api = await connectClusterNode({
    nodeName: s.nodeName,
    kubeconfig,
    retry: { jitter: 0, baseDelayMs: 1 },
    sleep: () => Promise.resolve(),
  });
  refresh(s);
  const lines: LogLine[] = [];
  const controller = new AbortController();
  let ready: (url: string) => void = () => undefined;
  const url = new Promise<string>((r) => (ready = r));
  const decisionLog = path.join(dir, "decisions.jsonl");
  const trace = path.join(dir, "trace.jsonl");
  const done = runWatch({
    api,
    mode,
    intervalMs: 150,
    listen: { host: "127.0.0.1", port: 0 },
    decisionLog,
    recordTo: trace,
    ...extra,
    logger: memoryLogger(lines),
    signal: controller.signal,
    onReady: (i) => ready(i.url),
  });
  done.catch(() => undefined);
  return {
    server: s,
    dir,
    lines,
    url,
    done,
    decisionLog,
    trace,
    async stop() {
      controller.abort();
      await done;
      await s.close();
    },
  };
}

/** The requests that write (anything but GET). */
export const writes = (s: FakeApiServer): RecordedRequest[] => s.requests.filter((r) => r.method !== "GET");

/** The decision log's records. */
export const decisions = async (file: string): Promise<Record<string, unknown>[]> =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Resolves once the loop has made its first decision. */
export const firstSynchronize = (w: Running): Promise<true> =>
  until("a first synchronize", async () =>
    (await decisions(w.decisionLog).catch(() => [])).length > 0 ? true : undefined,
  );
