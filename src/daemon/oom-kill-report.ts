/**
 * A container the kernel OOM-killed, as `evictd run` reports it: counted in /metrics and logged
 * with which limit was hit. One without a memory limit of its own met the pods' or the node's,
 * which eviction is there to keep it from: that line says so.
 */
import type { LoggerPort } from "../app/ports.js";
import type { OomKill } from "../runtime/pod-runtime.js";
import type { DaemonMetrics } from "../server/metrics.js";

/** The runtime's `onOomKill` for the daemon. */
export function reportOomKills(
  metrics: Pick<DaemonMetrics, "recordOomKill">,
  log: LoggerPort,
): (kill: OomKill) => void {
  return (kill) => {
    metrics.recordOomKill(kill);
    log.warn(
      {
        pod: `${kill.namespace}/${kill.pod}`,
        container: kill.container,
        limit: kill.limitBytes === undefined ? null : String(kill.limitBytes),
      },
      kill.limitBytes === undefined
        ? "the kernel OOM-killed a container without a memory limit of its own: the pods' or the node's limit was hit before eviction reclaimed memory"
        : "the kernel OOM-killed a container at its own memory limit",
    );
  };
}
