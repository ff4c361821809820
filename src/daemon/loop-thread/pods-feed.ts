/**
 * What the loop thread is told about the pods (protocol.ts `PodsUpdate`), and when: on every change
 * the runtime reports, but at most once per turn of the main thread's event loop, since pod starts
 * come in bursts (a restart adopts 110 pods) and one description covers them all.
 */
import type { LoggerPort, PodsPort } from "../../app/ports.js";
import type { ProcessPodRuntime } from "../../runtime/pod-runtime.js";
import type { LoopThread } from "./loop-thread.js";
import type { PodsUpdate } from "./protocol.js";

/**
 * The pods as the loop thread is to know them: the active ones as `pods` has them (a dry run's
 * port, or the runtime), how to read their stats, and what a kill signals.
 */
export async function describePods(
  runtime: Pick<ProcessPodRuntime, "statsTargets" | "signalTargets">,
  pods: Pick<PodsPort, "activePods">,
  inCgroups: boolean,
): Promise<PodsUpdate> {
  return {
    active: pods.activePods(),
    // Without cgroups a pod's processes are found by a /proc scan: the loop thread asks at each read.
    ...(inCgroups ? { targets: await runtime.statsTargets() } : {}),
    signal: runtime.signalTargets(),
  };
}

export interface PodsFeedOptions {
  /** The pods described now ({@link describePods}). */
  readonly describe: () => Promise<PodsUpdate>;
  /** The loop thread once it is up; until then nothing is sent (its start carries the pods). */
  readonly loopThread: () => Pick<LoopThread, "pushPods"> | undefined;
  readonly log: LoggerPort;
}

export class PodsFeed {
  readonly #options: PodsFeedOptions;
  #queued = false;

  constructor(options: PodsFeedOptions) {
    this.#options = options;
  }

  /** The pods described now. */
  describe(): Promise<PodsUpdate> {
    return this.#options.describe();
  }

  /** The pods may have changed: the loop thread is told at the next turn of the event loop, once. */
  schedule(): void {
    const { loopThread, log } = this.#options;
    if (this.#queued || loopThread() === undefined) return;
    this.#queued = true;
    setImmediate(() => {
      this.#queued = false;
      this.describe().then(
        (update) => loopThread()?.pushPods(update),
        (e: unknown) => log.warn({ err: String(e) }, "cannot describe the pods to the loop thread"),
      );
    });
  }
}
