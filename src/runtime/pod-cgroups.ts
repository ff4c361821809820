/** A pod's cgroups through the driver: created when missing, reused when already there (a restarted daemon). */
import { AdapterError } from "../errors.js";
import type { CgroupDriver, ContainerCgroup } from "../linux/cgroups/cgroup-driver.js";
import { containerLayout, podLayout } from "../linux/cgroups/cgroup-layout.js";
import { containerMemoryLimitBytes, podMemoryLimitBytes } from "./pod-memory-limit.js";
import type { ContainerRecord, PodRecord } from "./pod-record.js";

const exists = (error: unknown): boolean => error instanceof AdapterError && error.code === "cgroup-exists";

/** Creates (or reattaches) `pod<uid>` in its QoS tier, limited as upstream limits it. */
export async function ensurePodCgroup(driver: CgroupDriver, record: PodRecord): Promise<void> {
  const node = driver.current;
  if (node === undefined) {
    throw new AdapterError(
      "cgroup-no-node",
      `cannot start pod ${record.pod.key}: the node cgroup does not exist`,
      {
        hint: "create the node (CgroupDriver.createNode) before starting pods",
      },
    );
  }
  const limit = podMemoryLimitBytes(record.pod);
  try {
    record.cgroup = await driver.createPod(
      record.paths.name,
      record.qos,
      limit === undefined ? {} : { memoryLimitBytes: limit },
    );
  } catch (error) {
    if (!exists(error)) throw error;
    record.cgroup = podLayout(node, record.paths.name, record.qos);
  }
}

/** Creates (or reattaches) the container's leaf with its `limits.memory`. */
export async function ensureContainerCgroup(
  driver: CgroupDriver,
  record: PodRecord,
  c: ContainerRecord,
): Promise<ContainerCgroup | undefined> {
  if (record.cgroup === undefined) return undefined;
  const limit = containerMemoryLimitBytes(c.spec);
  try {
    c.cgroup = await driver.createContainer(
      record.cgroup,
      c.spec.name,
      limit === undefined ? {} : { memoryLimitBytes: limit },
    );
  } catch (error) {
    if (!exists(error)) throw error;
    c.cgroup = containerLayout(record.cgroup, c.spec.name);
  }
  return c.cgroup;
}

/** Handles of the pod's cgroups as a restored record expects them (nothing is created). */
export function attachCgroups(driver: CgroupDriver, record: PodRecord): void {
  const node = driver.current;
  if (node === undefined) return;
  record.cgroup = podLayout(node, record.paths.name, record.qos);
  for (const c of record.containers) c.cgroup = containerLayout(record.cgroup, c.spec.name);
}
