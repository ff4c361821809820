/**
 * `evictd watch --node NAME [--enforce] [--use-eviction-api]`: the eviction loop against a cluster
 * node (see cluster/run-watch), until SIGINT or SIGTERM. Logs are JSON lines on stdout (pino).
 */
import { pino } from "pino";
import { connectClusterNode } from "../../kubernetes/index.js";
import type { Issue } from "../../core/issues.js";
import { runWatch } from "./run-watch.js";
import { EXIT, InputError } from "../../errors.js";
import { connectOptions, durationOption, listenOption, type ClusterCliOptions } from "./cluster-options.js";
import { systemClock } from "../system-clock.js";
import { stopOnSignals } from "../stop-on-signals.js";

export interface WatchCliOptions extends ClusterCliOptions {
  readonly enforce: boolean;
  readonly useEvictionApi: boolean;
  readonly interval: string;
  readonly listen: string;
  readonly decisionLog?: string;
  readonly record?: string;
}

export async function watchCommand(opts: WatchCliOptions): Promise<number> {
  const issues: Issue[] = [];
  const connect = connectOptions(opts, issues);
  const intervalMs = durationOption("--interval", opts.interval, issues, 100);
  const listen = listenOption(opts.listen, issues);
  if (opts.useEvictionApi && !opts.enforce)
    issues.push({
      severity: "error",
      path: "--use-eviction-api",
      code: "invalid",
      message: "only means something with --enforce (shadow mode evicts nothing)",
    });
  if (issues.length > 0) throw new InputError(issues);
  const log = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
  const api = await connectClusterNode(connect);
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  try {
    await runWatch({
      api,
      mode: !opts.enforce ? "shadow" : opts.useEvictionApi ? "eviction-api" : "delete",
      intervalMs,
      listen,
      ...(opts.config !== undefined ? { configFile: opts.config } : {}),
      ...(opts.decisionLog !== undefined ? { decisionLog: opts.decisionLog } : {}),
      ...(opts.record !== undefined ? { recordTo: opts.record } : {}),
      logger: log,
      signal: stop.signal,
      clock: systemClock,
    });
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
