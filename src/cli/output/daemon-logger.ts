/**
 * The daemons' log: pino JSON lines on stdout, each with the daemon's pid and an ISO time, and
 * {@link LoggerPort.at} to stamp a line with the time it happened rather than the time it is
 * written (the loop thread's lines, and its evictions, carry its own clock).
 */
import { pino } from "pino";
import type { LoggerPort } from "../../app/ports.js";

export function daemonLogger(): LoggerPort {
  let stamp: number | undefined;
  const log = pino({
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date(stamp ?? Date.now()).toISOString()}"`,
  });
  const at =
    (level: "info" | "warn" | "error", time: number) =>
    (fields: Record<string, unknown>, message: string): void => {
      stamp = time;
      try {
        log[level](fields, message);
      } finally {
        stamp = undefined;
      }
    };
  return {
    info: (fields, message) => log.info(fields, message),
    warn: (fields, message) => log.warn(fields, message),
    error: (fields, message) => log.error(fields, message),
    at: (time) => ({ info: at("info", time), warn: at("warn", time), error: at("error", time) }),
  };
}
