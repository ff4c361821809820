/**
 * Looks at every live container log each `containerLogMonitorInterval` (the kubelet's container
 * log manager: at start, then every interval) and rotates the ones that reached
 * `containerLogMaxSize`, one at a time: a rotation is file copies and a compression on libuv's
 * pool, which the loop thread's reads share, so at most one pool thread is kept busy by it.
 * Runs on the main thread; a failure is logged (once per log until it succeeds again) and the
 * next log is looked at.
 */
import type { ClockPort, LoggerPort } from "../app/ports.js";
import type { ContainerLogPolicy } from "../core/config/container-log-settings.js";
import { rotateContainerLog } from "./container-log-rotation.js";
import type { PodPaths } from "./pod-paths.js";
import type { RunnablePod } from "./runnable-pod.js";

export interface ContainerLogMonitorOptions {
  readonly policy: ContainerLogPolicy;
  /** The live log files to look at now (the active pods' containers). */
  readonly logs: () => readonly string[];
  readonly clock: ClockPort;
  readonly log: LoggerPort;
}

export class ContainerLogMonitor {
  readonly #o: ContainerLogMonitorOptions;
  readonly #stop = new AbortController();
  /** Logs whose last rotation failed (reported once). */
  readonly #failing = new Set<string>();
  #running: Promise<void> | undefined;

  constructor(options: ContainerLogMonitorOptions) {
    this.#o = options;
  }

  /** What /status says about it. */
  get capability(): string {
    const { maxBytes, maxFiles, monitorIntervalMs } = this.#o.policy;
    return maxBytes < 0
      ? "container logs are never rotated (containerLogMaxSize is negative)"
      : `container logs are rotated at ${maxBytes} bytes, ${maxFiles} files per container kept (the live one included; rotated ones compressed but the newest), looked at every ${monitorIntervalMs / 1000}s`;
  }

  /** Starts looking (nothing happens when rotation is off: a negative `containerLogMaxSize`). */
  start(): void {
    if (this.#o.policy.maxBytes < 0 || this.#running !== undefined) return;
    this.#running = this.#run();
  }

  /** Stops, after the rotation under way (if any) has finished. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  /** One look at every log (the loop's step; exposed for tests that drive it themselves). */
  async rotateAll(): Promise<void> {
    for (const file of this.#o.logs()) {
      if (this.#stop.signal.aborted) return;
      try {
        const result = await rotateContainerLog(file, this.#o.policy, this.#o.clock.now());
        if (result.rotated) {
          this.#failing.delete(file);
          this.#o.log.info(
            { file, to: result.to, bytes: result.bytes, removed: result.removed.length },
            "rotated container log",
          );
        }
      } catch (e) {
        if (!this.#failing.has(file))
          this.#o.log.warn(
            { file, err: String(e) },
            "cannot rotate container log; trying again at the next look",
          );
        this.#failing.add(file);
      }
    }
    // A log that went away (its pod did) is not reported about any more.
    const current = new Set(this.#o.logs());
    for (const file of this.#failing) if (!current.has(file)) this.#failing.delete(file);
  }

  async #run(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      await this.rotateAll();
      await this.#o.clock.sleep(this.#o.policy.monitorIntervalMs, signal);
    }
  }
}

/** The live logs of the active pods' containers (init containers included), where the runtime keeps them. */
export function activeContainerLogs(runtime: {
  activePods(): readonly RunnablePod[];
  podPaths(uid: string): PodPaths | undefined;
}): string[] {
  return runtime.activePods().flatMap((pod) => {
    const paths = runtime.podPaths(pod.uid);
    return paths === undefined
      ? []
      : [...pod.initContainers, ...pod.containers].map((c) => paths.log(c.name));
  });
}
