/** cgroup v1 memory threshold notifier: an eventfd registered on memory.usage_in_bytes through cgroup.event_control. */
import fs from "node:fs";
import { AdapterError, errnoCode } from "../../errors.js";
import {
  assertCgroupV1,
  closeEventControl,
  openEventControl,
  type EventControlRequest,
} from "./cgroup-event-control.js";
import { closeFd, createEventfd, POLL } from "./eventfd.js";
import { sharedFdPoller } from "./fd-poller.js";
import type { FdPoller } from "./fd-poller.js";
import type { ThresholdWakeSource, WakeErrorListener, WakeListener } from "./wake-source.js";

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
  /** What the name calls it (default `memcg-threshold`): `<kind>:<cgroupDir>`. */
  readonly kind?: string;
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
  /** The threshold the latest rearm asked for, while a registration is under way. */
  #wanted: bigint | undefined;
  #rearming: Promise<void> | undefined;

  constructor(options: MemcgThresholdNotifierOptions) {
    this.#cgroupDir = options.cgroupDir;
    this.#initial = options.thresholdBytes;
    this.#reason = `${options.description ?? "memcg threshold"} crossed`;
    this.#poller = options.poller ?? sharedFdPoller();
    this.name = `${options.kind ?? "memcg-threshold"}:${options.cgroupDir}`;
  }

  /** The threshold armed, or being armed. */
  get thresholdBytes(): bigint | undefined {
    return this.#wanted ?? this.#current?.thresholdBytes;
  }

  start(onWake: WakeListener, onError?: WakeErrorListener): void {
    if (this.#listeners !== undefined)
      throw new AdapterError("already-started", `${this.name} is already started`);
    assertCgroupV1(this.#cgroupDir, this.name);
    const listeners = { onWake, onError };
    if (this.#initial !== undefined) this.#current = this.#register(this.#initial, listeners);
    this.#listeners = listeners;
  }

  /**
   * Arms `thresholdBytes` instead of the current threshold. The kernel's registration waits for an
   * RCU grace period (synchronize_rcu, tens of milliseconds), so the write runs on the thread
   * pool, not on the caller's thread, which keeps reacting to wakes meanwhile; the old threshold
   * stays armed until the new one is. Rearms asked for meanwhile coalesce into the latest.
   */
  rearm(thresholdBytes: bigint): Promise<void> {
    if (this.#listeners === undefined)
      return Promise.reject(new AdapterError("not-started", `${this.name}: rearm before start`));
    this.#wanted = thresholdBytes;
    this.#rearming ??= this.#rearmToWanted().finally(() => {
      this.#rearming = undefined;
      this.#wanted = undefined;
    });
    return this.#rearming;
  }

  async #rearmToWanted(): Promise<void> {
    for (
      let target = this.#wanted;
      target !== undefined && target !== this.#current?.thresholdBytes;
      target = this.#wanted
    ) {
      const listeners = this.#listeners;
      if (listeners === undefined) return;
      const next = await this.#registerAsync(target, listeners);
      if (this.#listeners === undefined) {
        // Stopped meanwhile: nothing may stay armed.
        await this.#release(next);
        return;
      }
      // Armed before the old one is dropped, so there is no window without either.
      const previous = this.#current;
      this.#current = next;
      if (previous !== undefined) await this.#release(previous);
    }
  }

  async stop(): Promise<void> {
    this.#listeners = undefined;
    const current = this.#current;
    this.#current = undefined;
    if (current !== undefined) void this.#release(current);
    // A registration under way is released as soon as it is done (see #rearmToWanted).
    await this.#rearming?.catch(() => undefined);
    await Promise.all(this.#releasing);
  }

  /** Registers `thresholdBytes` synchronously (at start, before the loop runs). */
  #register(
    thresholdBytes: bigint,
    listeners: { onWake: WakeListener; onError: WakeErrorListener | undefined },
  ): Registration {
    const eventfd = createEventfd();
    try {
      const control = this.#openControl(thresholdBytes, eventfd);
      try {
        fs.writeSync(control.controlFd, control.line);
      } catch (cause) {
        throw this.#refused(thresholdBytes, cause);
      } finally {
        closeEventControl(control);
      }
    } catch (error) {
      closeFd(eventfd);
      throw error;
    }
    return this.#watch(eventfd, thresholdBytes, listeners);
  }

  /** Registers `thresholdBytes` with the control write on the thread pool (see {@link rearm}). */
  async #registerAsync(
    thresholdBytes: bigint,
    listeners: { onWake: WakeListener; onError: WakeErrorListener | undefined },
  ): Promise<Registration> {
    const eventfd = createEventfd();
    try {
      const control = this.#openControl(thresholdBytes, eventfd);
      try {
        await new Promise<void>((resolve, reject) =>
          fs.write(control.controlFd, control.line, (error) => (error === null ? resolve() : reject(error))),
        );
      } catch (cause) {
        throw this.#refused(thresholdBytes, cause);
      } finally {
        closeEventControl(control);
      }
    } catch (error) {
      closeFd(eventfd);
      throw error;
    }
    return this.#watch(eventfd, thresholdBytes, listeners);
  }

  /** Opens memory.usage_in_bytes and cgroup.event_control with the line that arms `thresholdBytes`. */
  #openControl(thresholdBytes: bigint, eventfd: number): EventControlRequest {
    if (thresholdBytes < 0n || thresholdBytes > MAX_THRESHOLD) {
      throw new AdapterError(
        "memcg-threshold-invalid",
        `${this.name}: threshold ${thresholdBytes} is outside 0..2^63-1 bytes`,
        {
          hint: "the computed threshold is negative when the eviction quantity exceeds capacity; check the threshold value",
        },
      );
    }
    return openEventControl(this.#cgroupDir, "memory.usage_in_bytes", eventfd, String(thresholdBytes), {
      name: this.name,
      missingHint:
        "memory threshold notifications need a cgroup v1 memory controller; on cgroup v2 use PSI triggers",
    });
  }

  #refused(thresholdBytes: bigint, cause: unknown): AdapterError {
    return new AdapterError(
      "memcg-register-failed",
      `${this.name}: the kernel refused threshold ${thresholdBytes} (${errnoCode(cause) ?? "error"})`,
      {
        cause,
        hint: "cgroup.event_control must be a cgroup v1 memory cgroup file, and the process needs write access to it",
      },
    );
  }

  #watch(
    eventfd: number,
    thresholdBytes: bigint,
    listeners: { onWake: WakeListener; onError: WakeErrorListener | undefined },
  ): Registration {
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

  /** Stops polling the registration, then closes its eventfd, which makes the kernel drop it. */
  #release(registration: Registration): Promise<void> {
    const releasing = this.#poller.unwatch(registration.watchId).then(() => closeFd(registration.eventfd));
    this.#releasing.add(releasing);
    const forget = (): void => void this.#releasing.delete(releasing);
    releasing.then(forget, forget);
    return releasing;
  }
}
