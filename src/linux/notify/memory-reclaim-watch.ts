/**
 * cgroup v1's memory pressure notification (`memory.pressure_level`, level `low`, mode `local`):
 * the kernel signals an eventfd each time it has reclaimed a batch of pages *for this cgroup* (the
 * cgroup at its limit, or, for the root, the machine short of free pages), not for a descendant
 * at its own limit.
 *
 * Why a working-set poller wants it: the memcg threshold compares usage with a level armed at
 * capacity − eviction quantity + inactive_file. Once usage reaches the cgroup's limit it cannot rise
 * further, and the working set then grows only as the kernel reclaims inactive file pages, which no
 * usage threshold sees; reclaim is exactly when this notification fires. It is a hint to look now,
 * not a wake of the loop: reclaim also happens on a node whose working set is far below the
 * threshold (a node full of page cache), so the poller decides from the working set it reads.
 */
import fs from "node:fs";
import { AdapterError, errnoCode } from "../../errors.js";
import { assertCgroupV1, closeEventControl, openEventControl } from "./cgroup-event-control.js";
import { closeFd, createEventfd, POLL } from "./eventfd.js";
import { sharedFdPoller, type FdPoller } from "./fd-poller.js";
import type { WakeErrorListener, WakeListener, WakeSource } from "./wake-source.js";

export interface MemoryReclaimWatchOptions {
  /** A cgroup v1 memory cgroup directory (the node's, or the pods' for allocatable). */
  readonly cgroupDir: string;
  /** Poll thread to use; defaults to the process-wide one. */
  readonly poller?: FdPoller;
}

/** The registration's arguments: any reclaim (`low`, the lowest level), for this cgroup only (`local`). */
const LEVEL = "low,local";

export class MemoryReclaimWatch implements WakeSource {
  readonly name: string;
  readonly #cgroupDir: string;
  readonly #poller: FdPoller;
  #registration: { readonly eventfd: number; readonly watchId: number } | undefined;
  #releasing: Promise<void> | undefined;

  constructor(options: MemoryReclaimWatchOptions) {
    this.#cgroupDir = options.cgroupDir;
    this.#poller = options.poller ?? sharedFdPoller();
    this.name = `memory-reclaim:${options.cgroupDir}`;
  }

  /** Calls `onReclaim` (with a reason line) after each batch the kernel reclaims for the cgroup. */
  start(onReclaim: WakeListener, onError?: WakeErrorListener): void {
    if (this.#registration !== undefined)
      throw new AdapterError("already-started", `${this.name} is already started`);
    assertCgroupV1(this.#cgroupDir, this.name);
    const eventfd = createEventfd();
    try {
      const control = openEventControl(this.#cgroupDir, "memory.pressure_level", eventfd, LEVEL, {
        name: this.name,
        missingHint: "memory.pressure_level is cgroup v1's",
      });
      try {
        fs.writeSync(control.controlFd, control.line);
      } catch (cause) {
        throw new AdapterError(
          "memcg-register-failed",
          `${this.name}: the kernel refused a pressure-level notification (${errnoCode(cause) ?? "error"})`,
          {
            cause,
            hint: "cgroup.event_control must be a cgroup v1 memory cgroup file, and the process needs write access to it",
          },
        );
      } finally {
        closeEventControl(control);
      }
      const reason = `the kernel reclaimed memory for ${this.#cgroupDir}`;
      const watchId = this.#poller.watch({
        fd: eventfd,
        events: POLL.in,
        drain: true,
        onReady: () => onReclaim(reason),
        onFailure: (error) => onError?.(error),
      });
      this.#registration = { eventfd, watchId };
    } catch (error) {
      closeFd(eventfd); // also drops the kernel registration, if any
      throw error;
    }
  }

  /** Stops polling the eventfd, then closes it, which makes the kernel drop the registration. */
  stop(): Promise<void> {
    const registration = this.#registration;
    this.#registration = undefined;
    if (registration !== undefined)
      this.#releasing = this.#poller.unwatch(registration.watchId).then(() => closeFd(registration.eventfd));
    return this.#releasing ?? Promise.resolve();
  }
}
