/**
 * What a pod holds on the node besides its processes: its logs directory, its cgroups and its
 * emptyDir volumes (tmpfs mounts for medium Memory). Set up before its containers start (or again
 * when a restarted daemon resumes it), released when the pod is removed, as the kubelet tears down
 * a terminated pod's resources.
 */
import { mkdir } from "node:fs/promises";
import type { LoggerPort } from "../app/ports.js";
import { AdapterError } from "../errors.js";
import type { CgroupDriver } from "../linux/cgroups/cgroup-driver.js";
import { setUpVolumes, tearDownVolumes, type Mounter } from "./emptydir-volumes.js";
import { ensurePodCgroup } from "./pod-cgroups.js";
import { podMemoryLimitBytes } from "./pod-memory-limit.js";
import type { PodRecord } from "./pod-record.js";

export interface PodResourcesOptions {
  /** The cgroup driver with the node already created, or undefined to run without cgroups. */
  readonly cgroups: CgroupDriver | undefined;
  readonly mounter: Mounter;
  /** Whether tmpfs can be mounted. */
  readonly canMount: boolean;
  readonly logger: LoggerPort;
}

/** Sets up and releases pods' directories, cgroups and volumes; see the module comment. */
export class PodResources {
  readonly #cgroups: CgroupDriver | undefined;
  readonly #mounter: Mounter;
  readonly #canMount: boolean;
  readonly #logger: LoggerPort;

  constructor(options: PodResourcesOptions) {
    this.#cgroups = options.cgroups;
    this.#mounter = options.mounter;
    this.#canMount = options.canMount;
    this.#logger = options.logger;
  }

  /** The logs directory, the pod's cgroup (created, or reattached when already there) and its volumes. */
  async setUp(record: PodRecord): Promise<void> {
    await mkdir(record.paths.logsDir, { recursive: true });
    if (this.#cgroups !== undefined) await ensurePodCgroup(this.#cgroups, record);
    const { volumes, skipped, warnings } = await setUpVolumes(
      record.pod,
      record.paths,
      podMemoryLimitBytes(record.pod),
      this.#mounter,
      this.#canMount,
    );
    record.volumes = volumes;
    if (skipped.length > 0)
      this.#logger.warn(
        { pod: record.pod.key, volumes: skipped },
        "volumes other than emptyDir have no source here",
      );
    for (const w of warnings) this.#logger.warn({ pod: record.pod.key }, w);
  }

  /** Removes the pod's cgroups (already gone is fine) and unmounts and deletes its volumes. */
  async release(record: PodRecord): Promise<void> {
    if (record.cgroup !== undefined && this.#cgroups !== undefined) {
      try {
        await this.#cgroups.remove(record.cgroup);
      } catch (error) {
        const gone =
          error instanceof AdapterError &&
          (error.code === "cgroup-not-found" || error.code === "cgroup-no-node");
        if (!gone) throw error;
      }
    }
    record.cgroup = undefined;
    for (const c of record.containers) c.cgroup = undefined;
    await this.releaseVolumes(record);
  }

  /** Unmounts and deletes the pod's volumes. */
  async releaseVolumes(record: PodRecord): Promise<void> {
    await tearDownVolumes(record.pod, record.paths, this.#mounter);
    record.volumes = [];
  }
}
