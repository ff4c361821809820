/**
 * `watch --stats cgroups` looking for kernel OOM kills in the kubelet's cgroups: each look reports
 * the kills since the one before, counted (a metric), logged, and in the acting modes put on the pod
 * as a Warning Event (oom-kill-report.ts words them). A look that cannot read the counts, or an
 * Event that cannot be written, is logged and the next look goes on: the kills are news for the
 * operator, never a reason to stop the eviction loop.
 */
import type { LoggerPort } from "../ports.js";
import type { ClusterNodePort } from "./cluster-node-port.js";
import type { ApiPodInfo } from "./node-local-summary.js";
import {
  OOM_KILL_EVENT_REASON,
  oomKillReports,
  type OomKillReport,
  type OomKillSeen,
} from "./oom-kill-report.js";

/** How often the kubelet's cgroups are looked at for kernel OOM kills (v2: one file when none happened). */
export const OOM_KILL_SCAN_MS = 1000;

export interface OomKillWatchOptions {
  /** Kernel OOM kills in the kubelet's cgroups since the last call (the first call learns the counts). */
  readonly counter: { scan(): OomKillSeen[] };
  /** The API's pods on the node, which name a kill's pod and container. */
  readonly pods: () => readonly ApiPodInfo[];
  readonly api: Pick<ClusterNodePort, "createPodEvent">;
  readonly log: LoggerPort;
  /** The acting modes put an Event on the pod; shadow mode touches nothing, so it counts and logs only. */
  readonly postEvents: boolean;
  /** Counts a container's kills (the daemon's metric). */
  readonly count: (
    container: { readonly namespace: string; readonly pod: string; readonly container: string },
    kills: number,
  ) => void;
}

export class OomKillWatch {
  readonly #o: OomKillWatchOptions;

  constructor(options: OomKillWatchOptions) {
    this.#o = options;
  }

  /** The first look: learns the counts so far, kills from before the watch, which are not reported. */
  begin(): void {
    this.#o.counter.scan();
  }

  /** A later look: reports the kills since the look before. */
  look(): void {
    const { api, log } = this.#o;
    let reports: OomKillReport[];
    try {
      reports = oomKillReports(this.#o.counter.scan(), this.#o.pods());
    } catch (error) {
      log.warn({ err: String(error) }, "cannot read the kubelet cgroups' OOM kill counts");
      return;
    }
    for (const r of reports) {
      this.#o.count({ namespace: r.pod.namespace, pod: r.pod.name, container: r.container }, r.kills);
      log.warn(
        { pod: `${r.pod.namespace}/${r.pod.name}`, container: r.container, kills: r.kills },
        r.message,
      );
      if (!this.#o.postEvents) continue;
      void api
        .createPodEvent(r.pod, { type: "Warning", reason: OOM_KILL_EVENT_REASON, message: r.message })
        .then((outcome) => {
          if (outcome.kind === "refused")
            log.warn(
              { pod: `${r.pod.namespace}/${r.pod.name}`, status: outcome.status },
              `the OOMKilled event was refused: ${outcome.message}`,
            );
        })
        .catch((error: unknown) => log.warn({ err: String(error) }, "cannot record the OOMKilled event"));
    }
  }
}
