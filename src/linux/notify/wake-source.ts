/** The wake-up port: kernel notifications that make the eviction loop run now instead of at its next 10 s tick. */
import type { AdapterError } from "../../errors.js";

/**
 * Called when the source saw memory pressure. `reason` is one human-readable line for the log
 * ("memcg threshold crossed", "psi memory some 150000us/2000000us crossed on /proc/pressure/memory").
 * A wake is only a hint to synchronize now: upstream treats every memcg event, in either direction,
 * as such a tick (`eviction manager: <description> crossed`), and so does the loop here.
 * Listeners must not throw; they run from an event-loop callback with nobody to catch.
 */
export type WakeListener = (reason: string) => void;

/**
 * Called when a started source stops being able to wake the loop (the watched file vanished, the
 * polling failed). The loop keeps its periodic tick, so this is a degradation to log, not a crash.
 */
export type WakeErrorListener = (error: AdapterError) => void;

/**
 * A source of wake-ups. Arming happens in {@link WakeSource.start}, synchronously, so a rejected
 * configuration surfaces at once as an {@link AdapterError}; events after that are delivered
 * asynchronously without ever blocking the Node event loop.
 */
export interface WakeSource {
  /** Stable identifier for logs and metrics, e.g. `memcg-threshold:/sys/fs/cgroup/memory`. */
  readonly name: string;

  /**
   * Arms the source and starts delivering wakes to `onWake` (and asynchronous failures to
   * `onError`). Throws an {@link AdapterError} if the kernel refuses the registration or the
   * source is already started. A started source keeps the process alive until {@link stop}.
   */
  start(onWake: WakeListener, onError?: WakeErrorListener): void;

  /**
   * Disarms the source and releases every file descriptor and thread it holds. Resolves once
   * they are all closed. No wake is delivered once it has been called. Idempotent; safe before
   * start; a stopped source can be started again.
   */
  stop(): Promise<void>;
}

/** A wake source whose trigger is a byte threshold that the loop recomputes as usage changes. */
export interface ThresholdWakeSource extends WakeSource {
  /**
   * Replaces the armed threshold (or arms the first one) with `thresholdBytes`. The new
   * registration is live when the call returns; the promise resolves once the old one is released.
   * Upstream (`UpdateThreshold`) stops the previous kernel notifier and arms a new one the same way.
   * Throws an {@link AdapterError} if the source is not started or the kernel refuses the value.
   */
  rearm(thresholdBytes: bigint): Promise<void>;

  /** The threshold currently armed, in bytes, or undefined before the first arm. */
  readonly thresholdBytes: bigint | undefined;
}
