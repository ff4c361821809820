/** Picks the cgroup driver a detection calls for, or says plainly why there is none. */
import type { CgroupDriver } from "./cgroup-driver.js";
import { CgroupV1Driver } from "./cgroup-v1-driver.js";
import { CgroupV2Driver } from "./cgroup-v2-driver.js";
import type { CgroupHost } from "./cgroupfs-driver.js";
import type { CgroupDetection } from "./detect-cgroups.js";

/** A driver, or the reason the daemon must run without cgroups (measuring through /proc and polling). */
export type DriverChoice =
  | { readonly ok: true; readonly driver: CgroupDriver; readonly limitations: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/**
 * The driver for the memory controller's hierarchy. The pids controller is used only when it sits
 * on the same kind of hierarchy and is writable (a hybrid host could have memory on v1 and pids on
 * v2; one node tree per interface is enough complexity). On a hybrid host the v1 driver also
 * mirrors the node in the unified hierarchy, which needs no controller, for per-cgroup PSI and
 * `cgroup.kill`.
 */
export function createCgroupDriver(detection: CgroupDetection, host: CgroupHost = {}): DriverChoice {
  const verdict = detection.canManage;
  const memory = detection.memory;
  if (!verdict.ok) return { ok: false, reason: verdict.reason };
  if (memory === undefined)
    return { ok: false, reason: "cannot manage cgroups: the memory controller was not found" };
  const pids =
    detection.pids !== undefined && detection.pids.api === memory.api && !detection.pids.readOnly
      ? detection.pids
      : undefined;
  // On a hybrid host the v1 driver mirrors the node in the unified hierarchy, for PSI and cgroup.kill.
  const unified =
    detection.version === "hybrid" && detection.unified !== undefined && !detection.unified.readOnly
      ? detection.unified.dir
      : undefined;
  const driver =
    memory.api === "v1"
      ? new CgroupV1Driver(
          {
            memory: memory.dir,
            ...(pids === undefined ? {} : { pids: pids.dir }),
            ...(unified === undefined ? {} : { unified }),
          },
          host,
        )
      : new CgroupV2Driver({ dir: memory.dir, pids: pids !== undefined }, host);
  return { ok: true, driver, limitations: verdict.limitations };
}
