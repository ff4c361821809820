/**
 * `evictd run --node FILE [--dry-run]`: the node daemon, until SIGINT or SIGTERM. Logs are JSON
 * lines on stdout (pino); every eviction's `msg` is a one-line human summary.
 */
import { pino } from "pino";
import { runDaemon } from "./run-daemon.js";
import { EXIT } from "../../errors.js";
import { stopOnSignals } from "../stop-on-signals.js";

export async function runCommand(opts: {
  node: string;
  dryRun: boolean;
  cleanupOnExit: boolean;
}): Promise<number> {
  const log = pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
  const stop = stopOnSignals((signal) => log.info({ signal }, "stopping"));
  try {
    await runDaemon({
      nodeFile: opts.node,
      dryRun: opts.dryRun,
      cleanupOnExit: opts.cleanupOnExit,
      logger: log,
      signal: stop.signal,
    });
    return EXIT.ok;
  } finally {
    stop.dispose();
  }
}
