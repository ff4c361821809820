/**
 * cgroup v1's `cgroup.event_control`: an eventfd is registered for an event on one of the cgroup's
 * files by writing `<eventfd> <fd of the file> <arguments>` to it (a byte threshold on
 * memory.usage_in_bytes, a level on memory.pressure_level). The kernel takes its own reference to
 * the eventfd and needs the file only during the write, so both files are closed right after it;
 * closing the eventfd later is what unregisters the event.
 */
import fs from "node:fs";
import path from "node:path";
import { AdapterError, errnoCode } from "../../errors.js";

/** statfs(2) f_type of a cgroup v1 hierarchy and of cgroup2 (linux/magic.h). */
const CGROUP_SUPER_MAGIC = 0x27e0eb;
const CGROUP2_SUPER_MAGIC = 0x63677270;

/**
 * Refuses anything but a cgroup v1 directory up front: on a plain directory the control write
 * would "succeed" into a regular file and never fire, and on cgroup v2 the file does not exist.
 * `name` is the source's, for the message.
 */
export function assertCgroupV1(cgroupDir: string, name: string): void {
  let type: number;
  try {
    type = fs.statfsSync(cgroupDir).type;
  } catch (cause) {
    throw new AdapterError(
      "memcg-unavailable",
      `${name}: cannot stat ${cgroupDir} (${errnoCode(cause) ?? "error"})`,
      { cause },
    );
  }
  if (type !== CGROUP_SUPER_MAGIC) {
    throw new AdapterError("memcg-unavailable", `${name}: ${cgroupDir} is not a cgroup v1 directory`, {
      hint:
        type === CGROUP2_SUPER_MAGIC
          ? "cgroup v2 has no cgroup.event_control (upstream disables the memcg notifier there); use a PSI trigger or memory.events"
          : "point it at the memory controller mount, e.g. /sys/fs/cgroup/memory",
    });
  }
}

/** The two open files and the line that registers the event. */
export interface EventControlRequest {
  readonly targetFd: number;
  readonly controlFd: number;
  readonly line: string;
}

/** The source that opens a cgroup's event files, as its errors speak of it. */
export interface EventFileOpener {
  /** The source's name, which starts every message. */
  readonly name: string;
  /** The hint for a file the cgroup does not have: which cgroups have it, in the source's terms. */
  readonly missingHint: string;
}

/**
 * Opens one file of a cgroup for an event registration. A file that does not exist means the
 * directory lacks the interface (`memcg-unavailable`, with the source's hint); any other failure
 * (`memcg-open-failed`) is in practice a permission the daemon lacks.
 */
export function openEventFile(file: string, flags: number, opener: EventFileOpener): number {
  try {
    return fs.openSync(file, flags);
  } catch (cause) {
    const code = errnoCode(cause);
    throw new AdapterError(
      code === "ENOENT" ? "memcg-unavailable" : "memcg-open-failed",
      `${opener.name}: cannot open ${file} (${code ?? "error"})`,
      { cause, hint: code === "ENOENT" ? opener.missingHint : "run the daemon as root" },
    );
  }
}

/**
 * Opens `file` of the cgroup at `cgroupDir` and its cgroup.event_control (see
 * {@link openEventFile} for the errors), and builds the registration line.
 */
export function openEventControl(
  cgroupDir: string,
  file: string,
  eventfd: number,
  args: string,
  opener: EventFileOpener,
): EventControlRequest {
  const targetFd = openEventFile(path.join(cgroupDir, file), fs.constants.O_RDONLY, opener);
  try {
    const controlFd = openEventFile(
      path.join(cgroupDir, "cgroup.event_control"),
      fs.constants.O_WRONLY,
      opener,
    );
    return { targetFd, controlFd, line: `${eventfd} ${targetFd} ${args}` };
  } catch (error) {
    fs.closeSync(targetFd);
    throw error;
  }
}

/** Closes both files of a request, written or not. */
export function closeEventControl(request: EventControlRequest): void {
  fs.closeSync(request.controlFd);
  fs.closeSync(request.targetFd);
}
