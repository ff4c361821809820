/** PSI trigger: wake when tasks stall on memory for longer than a threshold within a window (cgroup v2 or system-wide). */
import fs from "node:fs";
import path from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";
import { POLL } from "./eventfd.js";
import { sharedFdPoller } from "./fd-poller.js";
import type { FdPoller } from "./fd-poller.js";
import type { WakeErrorListener, WakeListener, WakeSource } from "./wake-source.js";

/** `some`: at least one task stalled; `full`: all non-idle tasks stalled at once. */
export type PsiStallKind = "some" | "full";

/** A trigger as written to a pressure file: `<kind> <stallUs> <windowUs>`. */
export interface PsiTriggerSpec {
  readonly kind: PsiStallKind;
  /** Cumulative stall within the window that fires the trigger, in microseconds. */
  readonly stallUs: number;
  /** Tracking window in microseconds; the kernel accepts 500 ms to 10 s. */
  readonly windowUs: number;
}

// Bounds enforced by psi_trigger_create (kernel/sched/psi.c), checked here first so the error names
// the field instead of a bare EINVAL.
const WINDOW_MIN_US = 500_000;
const WINDOW_MAX_US = 10_000_000;
/** Without CAP_SYS_RESOURCE the kernel only accepts windows that are multiples of 2 s. */
const UNPRIVILEGED_WINDOW_STEP_US = 2_000_000;

/** Every problem with a trigger spec, as one sentence each; empty if the kernel's static rules hold. */
export function psiTriggerProblems(spec: PsiTriggerSpec): string[] {
  const problems: string[] = [];
  if (spec.kind !== "some" && spec.kind !== "full")
    problems.push(`kind must be "some" or "full", got ${JSON.stringify(spec.kind)}`);
  if (
    !Number.isSafeInteger(spec.windowUs) ||
    spec.windowUs < WINDOW_MIN_US ||
    spec.windowUs > WINDOW_MAX_US
  ) {
    problems.push(
      `windowUs must be an integer from ${WINDOW_MIN_US} to ${WINDOW_MAX_US}, got ${spec.windowUs}`,
    );
  }
  if (!Number.isSafeInteger(spec.stallUs) || spec.stallUs <= 0)
    problems.push(`stallUs must be a positive integer, got ${spec.stallUs}`);
  else if (spec.stallUs > spec.windowUs)
    problems.push(`stallUs (${spec.stallUs}) must not exceed windowUs (${spec.windowUs})`);
  return problems;
}

/** Configuration of a {@link PsiTrigger}. */
export interface PsiTriggerOptions extends PsiTriggerSpec {
  /** A pressure file: `/proc/pressure/memory` (default, system-wide) or a cgroup v2 `memory.pressure`. */
  readonly path?: string;
  /** Poll thread to use; defaults to the process-wide one. */
  readonly poller?: FdPoller;
}

/**
 * Wakes the loop when PSI reports `stallUs` of stall within any `windowUs` window. Upstream does not
 * use PSI for eviction (cgroup v2 leaves the kubelet with its 10 s loop only); here it is the v2
 * replacement for memcg thresholds: a stall signal rather than a byte threshold. The kernel fires
 * at most once per window.
 *
 * Latency depends on privilege. With CAP_SYS_RESOURCE the kernel's real-time poller checks the
 * trigger every window/10 (not measured: this machine lacks the capability). Without it (kernel ≥ 6.5 allows such triggers only with windows that are
 * multiples of 2 s) the trigger is evaluated by the 2 s averaging worker, so a wake can come up to
 * ~2 s after the stall began (docs/benchmarks.md, "Figures behind design choices"). Still far sooner
 * than the loop's 10 s tick.
 */
export class PsiTrigger implements WakeSource {
  readonly name: string;
  readonly #path: string;
  readonly #spec: PsiTriggerSpec;
  readonly #poller: FdPoller;
  readonly #reason: string;
  #armed: { fd: number; watchId: number } | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: PsiTriggerOptions) {
    this.#path = options.path ?? "/proc/pressure/memory";
    this.#spec = { kind: options.kind, stallUs: options.stallUs, windowUs: options.windowUs };
    this.#poller = options.poller ?? sharedFdPoller();
    // `/proc/pressure/memory` or `<cgroup>/memory.pressure`: the resource is the name before any dot.
    const resource = path.basename(this.#path).split(".")[0] ?? "memory";
    this.#reason = `psi ${resource} ${options.kind} stall over ${options.stallUs}us in ${options.windowUs}us (${this.#path})`;
    this.name = `psi:${this.#path}`;
  }

  start(onWake: WakeListener, onError?: WakeErrorListener): void {
    if (this.#armed !== undefined)
      throw new AdapterError("already-started", `${this.name} is already started`);
    const problems = psiTriggerProblems(this.#spec);
    if (problems.length > 0) {
      throw new AdapterError("psi-trigger-invalid", `${this.name}: ${problems.join("; ")}`, {
        hint: `e.g. { kind: "some", stallUs: 150000, windowUs: 2000000 }`,
      });
    }
    const fd = this.#open();
    let watchId: number;
    try {
      this.#write(fd);
      watchId = this.#poller.watch({
        fd,
        events: POLL.pri,
        // poll(2) itself consumes a PSI event (psi_trigger_poll resets it), so there is nothing to read.
        drain: false,
        onReady: () => onWake(this.#reason),
        onFailure: (error) => onError?.(error),
      });
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    this.#armed = { fd, watchId };
  }

  stop(): Promise<void> {
    const armed = this.#armed;
    this.#armed = undefined;
    if (armed !== undefined) {
      // Closing the fd destroys the trigger; it must stay open until poll(2) has let go of it.
      this.#stopping = this.#poller.unwatch(armed.watchId).then(() => fs.closeSync(armed.fd));
    }
    return this.#stopping ?? Promise.resolve();
  }

  #open(): number {
    try {
      // O_NONBLOCK as the kernel documentation's example does; a trigger needs a writable fd.
      return fs.openSync(this.#path, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    } catch (cause) {
      const code = errnoCode(cause);
      throw new AdapterError(
        code === "ENOENT" ? "psi-unavailable" : "psi-open-failed",
        `${this.name}: cannot open ${this.#path} (${code ?? "error"})`,
        {
          cause,
          hint:
            code === "ENOENT"
              ? "the kernel needs CONFIG_PSI=y and no psi=0 on its command line; cgroup files need cgroup v2"
              : "PSI triggers need write access to the pressure file",
        },
      );
    }
  }

  #write(fd: number): void {
    const { kind, stallUs, windowUs } = this.#spec;
    // The kernel overwrites the last byte of the write with a NUL (psi_write), so the line must end
    // in a newline or the window's last digit is lost (a 2000000 window would read as 200000).
    const line = `${kind} ${stallUs} ${windowUs}\n`;
    try {
      fs.writeSync(fd, line);
    } catch (cause) {
      const code = errnoCode(cause);
      const stepHint =
        windowUs % UNPRIVILEGED_WINDOW_STEP_US === 0
          ? "the kernel rejected the values"
          : `without CAP_SYS_RESOURCE the kernel only accepts windows that are multiples of ${UNPRIVILEGED_WINDOW_STEP_US}us; use e.g. ${UNPRIVILEGED_WINDOW_STEP_US}`;
      throw new AdapterError(
        "psi-trigger-rejected",
        `${this.name}: the kernel rejected trigger "${line.trim()}" (${code ?? "error"})`,
        {
          cause,
          hint:
            code === "EINVAL"
              ? stepHint
              : code === "EBUSY"
                ? "this file descriptor already holds a trigger"
                : code === "EOPNOTSUPP"
                  ? "PSI is disabled for this cgroup (cgroup.pressure is 0)"
                  : "check that the file is a PSI pressure file",
        },
      );
    }
  }
}
