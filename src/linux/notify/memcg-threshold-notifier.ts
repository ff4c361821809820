/** cgroup v1 memory threshold notifier: an eventfd registered on memory.usage_in_bytes through cgroup.event_control. */
import fs from "node:fs";
import path from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";
import { closeFd, createEventfd, POLL } from "./eventfd.js";
import { sharedFdPoller } from "./fd-poller.js";
import type { FdPoller } from "./fd-poller.js";
import type { ThresholdWakeSource, WakeErrorListener, WakeListener } from "./wake-source.js";

/** statfs(2) f_type of a cgroup v1 hierarchy and of cgroup2 (linux/magic.h). */
const CGROUP_SUPER_MAGIC = 0x27e0eb;
const CGROUP2_SUPER_MAGIC = 0x63677270;

/** Upstream passes the threshold as an int64 quantity; the kernel would accept up to 2^64−1 and clamp it. */
const MAX_THRESHOLD = (1n << 63n) - 1n;

/** Configuration of a {@link MemcgThresholdNotifier}. */
export interface MemcgThresholdNotifierOptions {
  /** A cgroup v1 memory cgroup directory: `/sys/fs/cgroup/memory` for memory.available, `…/kubepods` for allocatable. */
  readonly cgroupDir: string;
  /** First threshold to arm at start; without it nothing is armed until {@link MemcgThresholdNotifier.rearm}. */
  readonly thresholdBytes?: bigint;
  /** Upstream's description, e.g. `hard memory eviction threshold`; the wake reason is `<description> crossed`. */
  readonly description?: string;
  /** Poll thread to use; defaults to the process-wide one. */
  readonly poller?: FdPoller;
}

interface Registration {
  readonly eventfd: number;
  readonly watchId: number;
  readonly thresholdBytes: bigint;
}

/**
 * Wakes the loop when `memory.usage_in_bytes` of a v1 memory cgroup crosses a threshold, in either
 * direction (the kernel signals both, and upstream treats both as a tick). The kernel checks
 * thresholds every 128 page events per CPU, so crossings are seen within ~512 KiB of charges.
 * cgroup v2 has no `cgroup.event_control`; use {@link PsiTrigger} or a memory.events watcher there.
 */
export class MemcgThresholdNotifier implements ThresholdWakeSource {
  readonly name: string;
  readonly #cgroupDir: string;
  readonly #initial: bigint | undefined;
  readonly #reason: string;
  readonly #poller: FdPoller;
  #listeners: { onWake: WakeListener; onError: WakeErrorListener | undefined } | undefined;
  #current: Registration | undefined;
  readonly #releasing = new Set<Promise<void>>();

  constructor(options: MemcgThresholdNotifierOptions) {
    this.#cgroupDir = options.cgroupDir;
    this.#initial = options.thresholdBytes;
    this.#reason = `${options.description ?? "memcg threshold"} crossed`;
    this.#poller = options.poller ?? sharedFdPoller();
    this.name = `memcg-threshold:${options.cgroupDir}`;
  }

  get thresholdBytes(): bigint | undefined {
    return this.#current?.thresholdBytes;
  }

  start(onWake: WakeListener, onError?: WakeErrorListener): void {
    if (this.#listeners !== undefined)
      throw new AdapterError("already-started", `${this.name} is already started`);
    this.#checkCgroupV1();
    const listeners = { onWake, onError };
    if (this.#initial !== undefined) this.#current = this.#register(this.#initial, listeners);
    this.#listeners = listeners;
  }

  async rearm(thresholdBytes: bigint): Promise<void> {
    const listeners = this.#listeners;
    if (listeners === undefined) throw new AdapterError("not-started", `${this.name}: rearm before start`);
    // Arm the new registration before dropping the old one so there is no window without either.
    const next = this.#register(thresholdBytes, listeners);
    const previous = this.#current;
    this.#current = next;
    if (previous !== undefined) await this.#release(previous);
  }

  async stop(): Promise<void> {
    this.#listeners = undefined;
    const current = this.#current;
    this.#current = undefined;
    if (current !== undefined) void this.#release(current);
    await Promise.all(this.#releasing);
  }

  #register(
    thresholdBytes: bigint,
    listeners: { onWake: WakeListener; onError: WakeErrorListener | undefined },
  ): Registration {
    if (thresholdBytes < 0n || thresholdBytes > MAX_THRESHOLD) {
      throw new AdapterError(
        "memcg-threshold-invalid",
        `${this.name}: threshold ${thresholdBytes} is outside 0..2^63-1 bytes`,
        {
          hint: "the computed threshold is negative when the eviction quantity exceeds capacity; check the threshold value",
        },
      );
    }
    const usagePath = path.join(this.#cgroupDir, "memory.usage_in_bytes");
    const controlPath = path.join(this.#cgroupDir, "cgroup.event_control");
    const eventfd = createEventfd();
    try {
      // The kernel takes its own reference to the eventfd and only needs the usage file during the
      // write, so both it and the control file are closed at once. Closing the eventfd later is
      // what unregisters the threshold.
      const usageFd = this.#open(usagePath, fs.constants.O_RDONLY);
      try {
        const controlFd = this.#open(controlPath, fs.constants.O_WRONLY);
        try {
          fs.writeSync(controlFd, `${eventfd} ${usageFd} ${thresholdBytes}`);
        } catch (cause) {
          throw new AdapterError(
            "memcg-register-failed",
            `${this.name}: the kernel refused threshold ${thresholdBytes} (${errnoCode(cause) ?? "error"})`,
            {
              cause,
              hint: "cgroup.event_control must be a cgroup v1 memory cgroup file, and the process needs write access to it",
            },
          );
        } finally {
          fs.closeSync(controlFd);
        }
      } finally {
        fs.closeSync(usageFd);
      }
    } catch (error) {
      closeFd(eventfd);
      throw error;
    }
    let watchId: number;
    try {
      watchId = this.#poller.watch({
        fd: eventfd,
        events: POLL.in,
        drain: true,
        onReady: () => listeners.onWake(this.#reason),
        onFailure: (error) => listeners.onError?.(error),
      });
    } catch (error) {
      closeFd(eventfd); // also drops the kernel registration
      throw error;
    }
    return { eventfd, watchId, thresholdBytes };
  }

  /**
   * Refuses anything but a cgroup v1 directory up front: on a plain directory the control write
   * would "succeed" into a regular file and never fire, and on cgroup v2 the file does not exist.
   */
  #checkCgroupV1(): void {
    let type: number;
    try {
      type = fs.statfsSync(this.#cgroupDir).type;
    } catch (cause) {
      throw new AdapterError(
        "memcg-unavailable",
        `${this.name}: cannot stat ${this.#cgroupDir} (${errnoCode(cause) ?? "error"})`,
        { cause },
      );
    }
    if (type !== CGROUP_SUPER_MAGIC) {
      throw new AdapterError(
        "memcg-unavailable",
        `${this.name}: ${this.#cgroupDir} is not a cgroup v1 directory`,
        {
          hint:
            type === CGROUP2_SUPER_MAGIC
              ? "cgroup v2 has no memory thresholds (upstream disables the notifier there); use a PSI trigger or memory.events"
              : "point it at the memory controller mount, e.g. /sys/fs/cgroup/memory",
        },
      );
    }
  }

  #open(file: string, flags: number): number {
    try {
      return fs.openSync(file, flags);
    } catch (cause) {
      const code = errnoCode(cause);
      throw new AdapterError(
        code === "ENOENT" ? "memcg-unavailable" : "memcg-open-failed",
        `${this.name}: cannot open ${file} (${code ?? "error"})`,
        {
          cause,
          hint:
            code === "ENOENT"
              ? "memory threshold notifications need a cgroup v1 memory controller; on cgroup v2 use PSI triggers"
              : "run the daemon as root",
        },
      );
    }
  }

  /** Stops polling the registration, then closes its eventfd, which makes the kernel drop it. */
  #release(registration: Registration): Promise<void> {
    const releasing = this.#poller.unwatch(registration.watchId).then(() => closeFd(registration.eventfd));
    this.#releasing.add(releasing);
    const forget = (): void => void this.#releasing.delete(releasing);
    releasing.then(forget, forget);
    return releasing;
  }
}
